/*
 * speculative.h — what the files of a speculator share (speculative.c: its
 * life, its vocabularies and the last round's record; spec_round.c: a
 * round, its draft and its verification): the struct.  Private to
 * c/engine/decode/.
 */
#ifndef SPECULATIVE_H
#define SPECULATIVE_H

#include "internal.h"


struct sp_speculator {
    sp_session *target;      /* borrowed */
    sp_session *draft;       /* owned; NULL: prompt lookup */
    int ngram;               /* prompt lookup: the longest n-gram matched */
    int round_match;         /* where the round's draft was copied from */
    int round_ngram;         /* the n-gram it matched, 0: none */
    const sp_tokenizer *ttok, *dtok;
    int n_draft, tvocab, dvocab;
    int *d2t;                /* draft id -> target id, -1 = none */
    int *t2d;                /* target id -> draft id (boundary if none) */
    uint8_t *draft_allowed;  /* draft tokens that map to a target token */
    uint8_t *draft_mask;     /* [dvocab] the draft's mask for its next step */
    uint8_t *target_ok;      /* [tvocab] the constraint's, for a draft step */
    int matched;             /* the draft's tokenizer is the target's */
    float *q;                /* [n_draft][tvocab]: q_i over target ids */
    float *residual;         /* [tvocab] */
    float *rejected_p;       /* [tvocab] p at the rejected position */
    sp_rng rng;
    /* the last round */
    int round_tokens[SP_SPEC_MAX_DRAFT + 1];
    int round_status[SP_SPEC_MAX_DRAFT + 1];
    int round_drafted[SP_SPEC_MAX_DRAFT];
    int round_n, round_n_drafted;
    int round_rejected;      /* the index of the rejected draft, or -1 */
    int round_fed;           /* positions of the round's batched pass */
    /* totals */
    long long drafted, accepted, rounds, target_positions;
    long long target_passes, target_fed;
};

/* Brings the draft session to the target's text (spec_round.c). */
int sp_spec_sync_draft(sp_speculator *sp, const sp_params *p, char *err);

#endif
