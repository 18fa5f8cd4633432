/*
 * session_constrain.c — a session under a regex or grammar
 * (sp_session_constrain) and a fixed mask (sp_session_set_allowed): every
 * step's mask of the tokens that keep the text able to match within the
 * steps left.
 */
#include <stdlib.h>
#include <string.h>

#include "session.h"

/* Replays the generated text through the constraint; 0 if it does not fit
 * (or is already complete before the end). */
int session_constraint_replay(sp_session *s) {
    sp_cstate_start_prompt(s->constraint, &s->cstate, s->tok, s->tokens,
                           s->n_prompt);
    for (int i = s->n_prompt; i < s->n_tokens; i++) {
        int t = s->tokens[i];
        if (session_is_end_of_text(s, t)) return i == s->n_tokens - 1;
        int len;
        const char *bytes = sp_decode(s->tok, prev_token(s, i), t, &len);
        if (!sp_cstate_feed(s->constraint, &s->cstate, bytes, len)) return 0;
    }
    return 1;
}

/* The tokens that keep the text able to satisfy the constraint within the
 * steps left, after the text and extra[0..n_extra) (tokens not generated
 * yet: a draft's), into allowed[vocab]; returns how many.  with_fixed: the
 * fixed mask applies too. */
static int mask_after(sp_session *s, const int *extra, int n_extra,
                      uint8_t *allowed, int with_fixed) {
    const sp_constraint *c = s->constraint;
    sp_cstate at = s->cstate;
    int prev = prev_token(s, s->n_tokens);
    int vocab = sp_model_vocab(s->model), n = 0;
    for (int i = 0; i < n_extra; i++) {
        int len;
        const char *bytes = sp_decode(s->tok, prev, extra[i], &len);
        if (session_is_end_of_text(s, extra[i]) ||
            !sp_cstate_feed(c, &at, bytes, len)) {
            memset(allowed, 0, (size_t)vocab); /* nothing can follow */
            return 0;
        }
        prev = extra[i];
    }
    int remaining = s->budget - (s->n_tokens - s->n_prompt) - n_extra;
    /* the end-of-text tokens (session_is_end_of_text under a constraint) */
    int end_a = s->tok->eos, end_b = s->tok->kind == SP_TOK_BPE ? s->tok->bos
                                                                 : -1;
    n = sp_cvocab_mask(s->cvocab, s->tok, &at, prev, remaining, end_a, end_b,
                       vocab, allowed);
    if (with_fixed && s->fixed_allowed) {
        n = 0;
        for (int t = 0; t < vocab; t++) n += allowed[t] &= s->fixed_allowed[t];
    }
    return n;
}

static int constraint_mask(sp_session *s) {
    return mask_after(s, NULL, 0, s->allowed, 0);
}

int sp_session_constraint_after(sp_session *s, const int *extra, int n_extra,
                                uint8_t *allowed) {
    return s->constraint ? mask_after(s, extra, n_extra, allowed, 1) : -1;
}

void sp_session_set_allowed(sp_session *s, const uint8_t *allowed) {
    s->fixed_allowed = allowed;
}

int sp_session_constrain(sp_session *s, const sp_constraint *c, int budget,
                         char *err) {
    if (!c) {
        s->constraint = NULL;
        sp_cvocab_free(s->cvocab);
        s->cvocab = NULL;
        sp_sampler_set_mask(s->sampler, s->fixed_allowed);
        return SP_OK;
    }
    if (!s->allowed) {
        s->allowed = malloc((size_t)sp_model_vocab(s->model));
        if (!s->allowed)
            return sp_fail(err, SP_ERR_NOMEM, "session: out of memory");
    }
    sp_cvocab *cv;
    int rc = sp_cvocab_open(c, s->tok, budget, &cv, err);
    if (rc != SP_OK) return rc;
    sp_cvocab_free(s->cvocab);
    s->cvocab = cv;
    s->constraint = c;
    s->budget = budget > 0 ? budget : 0x3fffffff;
    if (s->started && !session_constraint_replay(s)) {
        s->constraint = NULL; /* the session goes on unconstrained */
        sp_sampler_set_mask(s->sampler, s->fixed_allowed);
        return sp_fail(err, SP_ERR_ARG, "constraint: the text generated so "
                       "far does not fit it");
    }
    return SP_OK;
}

/* Sets the sampler's mask for the pending step: the fixed one and the
 * constraint's. */
int session_prepare_mask(sp_session *s, char *err) {
    if (!s->constraint) {
        sp_sampler_set_mask(s->sampler, s->fixed_allowed);
        return SP_OK;
    }
    int n = constraint_mask(s);
    if (s->fixed_allowed) {
        n = 0;
        for (int t = 0; t < sp_model_vocab(s->model); t++)
            n += s->allowed[t] &= s->fixed_allowed[t];
    }
    if (n == 0)
        return sp_fail(err, SP_ERR_UNSATISFIABLE, "constraint: no token of this "
                       "model's vocabulary can continue the text (%s)",
                       sp_constraint_describe(s->constraint));
    sp_sampler_set_mask(s->sampler, s->allowed);
    return SP_OK;
}
