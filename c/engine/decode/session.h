/*
 * session.h — what the files of a session share (session.c: its life,
 * its feeding and its text; session_step.c: previews, steps, looks at the
 * past and the batched passes ahead; session_constrain.c: the constraint
 * and the masks): the session's struct and their helpers.  Private to
 * c/engine/decode/.
 */
#ifndef SESSION_H
#define SESSION_H

#include "internal.h"

struct sp_session {
    const sp_model *model;
    const sp_tokenizer *tok;
    sp_state *state;
    sp_sampler *sampler;
    int *tokens;      /* prompt + generated */
    int n_tokens, cap, n_prompt;
    int started;      /* sp_session_start succeeded (a hand-made model's
                       * prompt may be empty: n_prompt 0) */
    uint64_t seed;
    sp_rng rng;
    float *pending;   /* logits for position n_tokens, owned by state */
    sp_step step;     /* the last warp */
    int has_step;
    int finished;     /* end-of-text token, or the constraint is complete */
    /* constrained decoding */
    const sp_constraint *constraint; /* borrowed; NULL = none */
    sp_cvocab *cvocab; /* the constraint as this vocabulary can meet it */
    sp_cstate cstate; /* where the generated text leaves it */
    int budget;       /* generated tokens allowed in all */
    uint8_t *allowed; /* [vocab] the mask of the next step */
    const uint8_t *fixed_allowed; /* a mask for every step, NULL = none */
    sp_token_stat *stats; /* [cap], one per generated token */
    float *mu;        /* [cap + 1]: mirostat's target before generated step
                       * i (NaN: its start), kept so that a rewind or a look
                       * at the past finds it as it was */
    float *ada;       /* [2 (cap + 1)]: adaptive-p's sum and weight before
                       * generated step i (weight NaN: its start), alike */
    float *aside;     /* [vocab] the pending logits during sp_session_peek */
    char fault[SP_ERR_LEN]; /* why the model cannot go on, "" if it can */
    /* speculative decoding (speculative.c): a step may leave its token
     * unfed, for the next batched pass to feed with the drafted tokens
     * (anything else that needs the pending logits feeds it first); and
     * the logits a batched pass computed ahead for tokens that may come */
    int defer_feed;   /* steps leave their token unfed */
    int unfed;        /* the last token is not fed yet: pending is NULL */
    const int *ahead_tokens;   /* the tokens fed ahead, [n_ahead] */
    const float *ahead_logits; /* the logits after each, [n_ahead][vocab] */
    int n_ahead;
    int previewed;    /* the step record is a preview of the pending step
                       * (sp_session_commit may append from it) */
    float *held;      /* [vocab] the pending logits, kept over a batched pass
                       * (which leaves its own last row in the state's) */
    int *ends;        /* the tokens that end the text (the length stages'):
                       * the model's end-of-generation tokens and its EOS */
    int n_ends;
    /* classifier-free guidance's second run (session_cfg.c): its state,
     * the negative prompt (NULL: none) and the unconditional text's own
     * beginning (uprompt[n_uprompt]; u_ready: made for this prompt), the
     * tokens of that text the state has fed (u_fed), the logits after its
     * first u_at tokens (ulogits; -1: none), and the ones this step's warp
     * reads (u_now; NULL: no guidance) */
    sp_state *ustate;
    char *negative;
    int *uprompt;
    int n_uprompt, u_ready, u_fed, u_at;
    float *ulogits;
    const float *u_now;
    /* a look inside the model (session_inspect.c): what previews and
     * peeks record (SP_INSPECT_*, 0: off) and the lens's tokens per layer;
     * the record the step points to, its arrays, and what it was made
     * from (the capture's serial and the mask: a second preview of the
     * same pending step reuses it) */
    int inspect, lens_top;
    sp_inspection insp;
    float *insp_att;
    int *insp_ids;
    float *insp_p;
    double *insp_h;
    unsigned insp_serial;
    int insp_made;    /* with this mask (0: not made) */
};

/* The token before tokens[i], or -1 at the start of a hand-made model's
 * text (which needs no begin token). */
static inline int prev_token(const sp_session *s, int i) {
    return i > 0 ? s->tokens[i - 1] : -1;
}

/* session.c */
int session_push_token(sp_session *s, int token, char *err);
/* Feeds tokens[n_tokens - 1] at its position; the next logits pend. */
int session_feed_last(sp_session *s, char *err);
/* The pending logits (after the token at pos) as the model gave them: a
 * transformer's must be finite. */
int session_check_pending(sp_session *s, int pos, char *err);
/* Whether token ends the text (sp_session_is_end). */
int session_is_end_of_text(const sp_session *s, int token);

/* session_cfg.c */
/* The unconditional logits before generated step n (u_now; NULL when p's
 * cfg_scale is 1: nothing is run). */
int session_cfg_prepare(sp_session *s, const sp_params *p, int n, char *err);
/* A new prompt: the unconditional text is made anew. */
void session_cfg_reset(sp_session *s);
/* A rewind to n_generated tokens: the rows of the tokens that stay. */
void session_cfg_rewind(sp_session *s, int n_generated);
void session_cfg_free(sp_session *s);

/* session_inspect.c */
/* The step record's look inside for the query at pos, when asked for
 * (sp_session_set_inspect): from what the pass that computed the logits
 * kept, or by running it again (the pending logits put back). */
int session_inspect_fill(sp_session *s, int pos, char *err);
void session_inspect_free(sp_session *s);

/* session_constrain.c */
/* Replays the generated text through the constraint; 0 if it does not fit
 * (or is already complete before the end). */
int session_constraint_replay(sp_session *s);
/* Sets the sampler's mask for the pending step: the fixed one and the
 * constraint's. */
int session_prepare_mask(sp_session *s, char *err);

#endif /* SESSION_H */
