/*
 * speculative.c — speculative sampling (Leviathan et al. 2023; Chen et al.
 * 2023): a small draft model proposes N tokens, the target model checks
 * them, and the text comes out distributed exactly as the target's own.
 *
 * One round:
 *   1. the draft samples x_1..x_N from its distributions q_1..q_N (the same
 *      sampler settings as the target's, its own history);
 *   2. for i = 1..N the target computes p_i and accepts x_i with
 *      probability min(1, p_i(x_i) / q_i(x_i)); on the first rejection it
 *      samples a replacement from the residual max(0, p_i - q_i), normalized,
 *      and the round ends;
 *   3. if all N were accepted, the target samples one bonus token from
 *      p_{N+1}.
 * Every decision takes a fresh uniform from the speculator's own PCG32
 * stream (seeded with the generation's seed), never one that an earlier,
 * discarded decision saw: that independence is what makes the output
 * distribution exactly the target's.  At temperature 0 both distributions
 * are one-hot, so a draft token survives only if it is the target's argmax:
 * the output is plain greedy decoding.
 *
 * Vocabularies: a draft whose tokenizer is the target's (the same pieces
 * under the same ids: models/bible_bigram.bin and bible_tiny.bin with the
 * default transformer) speaks the target's ids as they are, end-of-text
 * tokens included.  Any other draft is mapped by text (the retokenizing
 * path, for character-level vocabularies: a character bigram can draft for
 * a character-level transformer); draft tokens the target lacks are masked
 * in the draft, and target tokens the draft lacks reach the draft as its
 * boundary token (a fresh start).
 *
 * Verification is one batched forward pass of the target per round
 * (sp_forward_batch through sp_session_feed_ahead): the token the last
 * round ended with and the N drafted tokens, N + 1 positions whose weights
 * are read once.  A model too big for the caches is bound by reading its
 * weights, so the pass costs little more than one position's, and each
 * round yields 1..N + 1 tokens: that is the speed-up.  The logits are the
 * bits single passes give, so the text is the same either way.
 *
 * Prompt lookup (sp_spec_new_lookup; Saxena 2023, HF's
 * PromptLookupCandidateGenerator): no draft model; the N tokens after the
 * FIRST (leftmost, as HF's) earlier occurrence of the text's last M, then
 * M - 1, ..., 1 tokens are the draft, cut before an end-of-text token or
 * one the constraint forbids.  q_i is one-hot on x_i: x_i is accepted with
 * probability p_i(x_i), else replaced from max(0, p_i - q_i) = p_i without
 * x_i, and the text is the model's own in distribution.  No match: one
 * ordinary step.
 *
 * Constraints: with a regex or grammar on the target session, every
 * drafted token is masked by what the constraint allows after the text and
 * the tokens drafted before it, and the target's own steps mask as usual.
 */
#include <stdlib.h>
#include <string.h>

#include "speculative.h"

void sp_spec_free(sp_speculator *sp) {
    if (!sp) return;
    sp_session_free(sp->draft);
    free(sp->d2t);
    free(sp->t2d);
    free(sp->draft_allowed);
    free(sp->draft_mask);
    free(sp->target_ok);
    free(sp->q);
    free(sp->residual);
    free(sp->rejected_p);
    free(sp);
}

int sp_spec_check_draft(int n_draft, char *err) {
    if (n_draft < 1 || n_draft > SP_SPEC_MAX_DRAFT)
        return sp_fail(err, SP_ERR_ARG, "speculate must be in 1..%d (got %d)",
                       SP_SPEC_MAX_DRAFT, n_draft);
    return SP_OK;
}

sp_speculator *sp_spec_new(sp_session *target, const sp_model *draft_model,
                           const sp_tokenizer *draft_tok, int n_draft,
                           char *err) {
    if (sp_spec_check_draft(n_draft, err) != SP_OK) return NULL;
    sp_speculator *sp = calloc(1, sizeof *sp);
    if (!sp) goto nomem;
    sp->target = target;
    sp->n_draft = n_draft;
    sp->draft = sp_session_new(draft_model, draft_tok, err);
    if (!sp->draft) {
        sp_spec_free(sp);
        return NULL;
    }
    sp->ttok = sp_session_tokenizer(target);
    sp->dtok = sp_session_tokenizer(sp->draft);
    /* nobody looks at the draft's raw distribution: its warps skip it */
    sp_sampler_set_raw(sp_session_sampler(sp->draft), 0);
    sp->tvocab = sp_session_vocab(target);
    sp->dvocab = sp_session_vocab(sp->draft);
    sp->d2t = malloc(sizeof(int) * (size_t)sp->dvocab);
    sp->t2d = malloc(sizeof(int) * (size_t)sp->tvocab);
    sp->draft_allowed = calloc((size_t)sp->dvocab, 1);
    sp->q = malloc(sizeof(float) * (size_t)n_draft * (size_t)sp->tvocab);
    sp->residual = malloc(sizeof(float) * (size_t)sp->tvocab);
    sp->rejected_p = calloc((size_t)sp->tvocab, sizeof(float));
    sp->draft_mask = calloc((size_t)sp->dvocab, 1);
    sp->target_ok = calloc((size_t)sp->tvocab, 1);
    if (!sp->d2t || !sp->t2d || !sp->draft_allowed || !sp->q ||
        !sp->residual || !sp->rejected_p || !sp->draft_mask || !sp->target_ok)
        goto nomem;
    sp->round_rejected = sp->round_match = -1;
    sp->matched = sp_tokenizers_equal(sp->ttok, sp->dtok) &&
                  sp->tvocab == sp->dvocab;
    if (sp->matched) { /* the same ids: nothing to map */
        for (int t = 0; t < sp->tvocab; t++) {
            sp->d2t[t] = sp->t2d[t] = t;
            sp->draft_allowed[t] = 1;
        }
        memcpy(sp->draft_mask, sp->draft_allowed, (size_t)sp->dvocab);
        sp_session_set_allowed(sp->draft, sp->draft_mask);
        return sp;
    }
    /* map by text; special tokens (BOS, EOS, <unk>) map to none */
    int mapped = 0;
    for (int d = 0; d < sp->dvocab; d++) {
        sp->d2t[d] = -1;
        if (d >= sp_tokenizer_vocab(sp->dtok) ||
            (sp->dtok->kind == SP_TOK_BPE && d <= 2) ||
            (sp->dtok->gguf && !sp_tokenizer_is_text(sp->dtok, d)) ||
            (sp->dtok->kind == SP_TOK_CHAR && d == sp->dtok->bos &&
             sp_tokenizer_lookup(sp->ttok, "\n", 1) < 0))
            continue;
        int len;
        const char *piece = sp_decode(sp->dtok, -1, d, &len);
        int t = sp_tokenizer_lookup(sp->ttok, piece, len);
        if (t >= 0 && !(sp->ttok->kind == SP_TOK_BPE && t <= 2) &&
            !(sp->ttok->gguf && !sp_tokenizer_is_text(sp->ttok, t))) {
            sp->d2t[d] = t;
            sp->draft_allowed[d] = 1;
            mapped++;
        }
    }
    int boundary = sp_tokenizer_bos(sp->dtok);
    for (int t = 0; t < sp->tvocab; t++) {
        sp->t2d[t] = boundary;
        if (t >= sp_tokenizer_vocab(sp->ttok) ||
            (sp->ttok->kind == SP_TOK_BPE && t <= 2) ||
            (sp->ttok->gguf && !sp_tokenizer_is_text(sp->ttok, t)))
            continue;
        int len;
        const char *piece = sp_decode(sp->ttok, -1, t, &len);
        int d = sp_tokenizer_lookup(sp->dtok, piece, len);
        if (d >= 0 && sp->d2t[d] == t) sp->t2d[t] = d;
    }
    if (mapped == 0) {
        sp_fail(err, SP_ERR_ARG, "draft: none of its tokens is a token of "
                "the target model");
        sp_spec_free(sp);
        return NULL;
    }
    memcpy(sp->draft_mask, sp->draft_allowed, (size_t)sp->dvocab);
    sp_session_set_allowed(sp->draft, sp->draft_mask);
    return sp;
nomem:
    sp_spec_free(sp);
    sp_fail(err, SP_ERR_NOMEM, "speculative: out of memory");
    return NULL;
}

int sp_spec_check_ngram(int ngram, char *err) {
    if (ngram < 1 || ngram > SP_SPEC_MAX_NGRAM)
        return sp_fail(err, SP_ERR_ARG, "prompt-lookup-ngram must be in 1..%d "
                       "(got %d)", SP_SPEC_MAX_NGRAM, ngram);
    return SP_OK;
}

sp_speculator *sp_spec_new_lookup(sp_session *target, int n_draft, int ngram,
                                  char *err) {
    if (n_draft < 1 || n_draft > SP_SPEC_MAX_DRAFT) {
        sp_fail(err, SP_ERR_ARG, "prompt-lookup must be in 1..%d (got %d)",
                SP_SPEC_MAX_DRAFT, n_draft);
        return NULL;
    }
    if (sp_spec_check_ngram(ngram, err) != SP_OK) return NULL;
    sp_speculator *sp = calloc(1, sizeof *sp);
    if (!sp) goto nomem;
    sp->target = target;
    sp->n_draft = n_draft;
    sp->ngram = ngram;
    sp->round_rejected = sp->round_match = -1;
    sp->ttok = sp_session_tokenizer(target);
    sp->tvocab = sp_session_vocab(target);
    sp->q = calloc((size_t)n_draft * (size_t)sp->tvocab, sizeof(float));
    sp->residual = malloc(sizeof(float) * (size_t)sp->tvocab);
    sp->rejected_p = calloc((size_t)sp->tvocab, sizeof(float));
    sp->target_ok = calloc((size_t)sp->tvocab, 1);
    if (!sp->q || !sp->residual || !sp->rejected_p || !sp->target_ok)
        goto nomem;
    sp->matched = 1; /* its drafts are the target's own ids */
    return sp;
nomem:
    sp_spec_free(sp);
    sp_fail(err, SP_ERR_NOMEM, "prompt lookup: out of memory");
    return NULL;
}

int sp_spec_start(sp_speculator *sp, const char *prompt, uint64_t seed,
                  char *err) {
    int rc = sp_session_start(sp->target, prompt, seed, err);
    if (rc != SP_OK) return rc;
    sp_rng_seed(&sp->rng, seed);
    sp->drafted = sp->accepted = sp->rounds = sp->target_positions = 0;
    sp->target_passes = sp->target_fed = 0;
    sp->round_n = sp->round_n_drafted = sp->round_fed = 0;
    sp->round_rejected = -1;
    sp_params p;
    sp_params_default(&p);
    return sp_spec_sync_draft(sp, &p, err);
}

int sp_spec_round_tokens(const sp_speculator *sp, const int **tokens,
                         const int **status) {
    *tokens = sp->round_tokens;
    *status = sp->round_status;
    return sp->round_n;
}

int sp_spec_round_drafted(const sp_speculator *sp, const int **drafted) {
    *drafted = sp->round_drafted;
    return sp->round_n_drafted;
}

void sp_spec_totals(const sp_speculator *sp, long long *drafted,
                    long long *accepted, long long *rounds,
                    long long *target_positions) {
    *drafted = sp->drafted;
    *accepted = sp->accepted;
    *rounds = sp->rounds;
    *target_positions = sp->target_positions;
}

void sp_spec_work(const sp_speculator *sp, long long *target_passes,
                  long long *target_fed) {
    *target_passes = sp->target_passes;
    *target_fed = sp->target_fed;
}

int sp_spec_round_fed(const sp_speculator *sp) { return sp->round_fed; }

int sp_spec_matched(const sp_speculator *sp) { return sp->matched; }

int sp_spec_round_match(const sp_speculator *sp, int *ngram) {
    *ngram = sp->round_ngram;
    return sp->round_match;
}

int sp_spec_lookup(const sp_speculator *sp) { return sp->draft ? 0 : sp->ngram; }

int sp_spec_round_rejection(const sp_speculator *sp, int *drafted,
                            const float **p, const float **q,
                            const float **residual) {
    int i = sp->round_rejected;
    if (i < 0) return -1;
    *drafted = sp->round_drafted[i];
    *p = sp->rejected_p;
    *q = sp->q + (size_t)i * (size_t)sp->tvocab;
    *residual = sp->residual;
    return i;
}

const sp_session *sp_spec_draft_session(const sp_speculator *sp) {
    return sp->draft;
}
