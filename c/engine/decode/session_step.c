/*
 * session_step.c — a session's steps: the preview of the pending step, a
 * look at a past one (sp_session_peek), the step itself and the commit of
 * a preview, and the batched passes speculative decoding feeds ahead.
 */
#include <stdlib.h>
#include <string.h>

#include "session.h"

/* What the warp of generated step `step` draws on besides the logits. */
static void set_state(sp_session *s, int step) {
    sp_sampler_state st = {sp_xtc_uniform(s->seed, step), s->mu[step],
                           step, s->ends, s->n_ends, s->ada[2 * step],
                           s->ada[2 * step + 1], s->u_now};
    sp_sampler_set_state(s->sampler, &st);
}

static int check_ready(sp_session *s, char *err) {
    if (!s->started)
        return sp_fail(err, SP_ERR_STATE, "session: not started");
    if (s->fault[0]) return sp_fail(err, SP_ERR_LOGITS, "%s", s->fault);
    if (s->unfed && !s->finished) {
        /* a step left it for a batched pass */
        int rc = session_feed_last(s, err);
        if (rc != SP_OK) return rc;
    }
    if (s->finished)
        return sp_fail(err, SP_ERR_FINISHED, "the text is finished: the model "
                       "emitted its end-of-text token");
    if (!s->pending)
        return sp_fail(err, SP_ERR_CONTEXT_FULL, "context full: %d tokens, the "
                       "model's seq_len", sp_model_seq_len(s->model));
    return SP_OK;
}

int sp_session_preview(sp_session *s, const sp_params *p, char *err) {
    int rc = check_ready(s, err);
    if (rc == SP_OK) rc = session_prepare_mask(s, err);
    if (rc == SP_OK) rc = sp_params_check(p, sp_model_vocab(s->model), err);
    if (rc == SP_OK)
        rc = session_cfg_prepare(s, p, s->n_tokens - s->n_prompt, err);
    if (rc != SP_OK) return rc;
    set_state(s, s->n_tokens - s->n_prompt);
    rc = sp_sampler_warp(s->sampler, s->pending, s->tokens, s->n_tokens, p,
                         &s->step, err);
    if (rc == SP_OK) rc = session_inspect_fill(s, s->n_tokens - 1, err);
    s->has_step = rc == SP_OK;
    s->previewed = rc == SP_OK;
    return rc;
}

int sp_session_peek(sp_session *s, int n, const sp_params *p, char *err) {
    int generated = s->n_tokens - s->n_prompt;
    if (!s->started)
        return sp_fail(err, SP_ERR_STATE, "session: not started");
    if (n < 0 || n > generated)
        return sp_fail(err, SP_ERR_ARG, "peek: step %d is outside 0..%d", n,
                       generated);
    if (n == generated && (s->pending || s->unfed) && !s->finished)
        return sp_session_preview(s, p, err);
    s->previewed = 0;
    int vocab = sp_model_vocab(s->model);
    size_t bytes = sizeof(float) * (size_t)vocab;
    if (!s->aside && !(s->aside = malloc(bytes)))
        return sp_fail(err, SP_ERR_NOMEM, "session: out of memory");
    /* The logits after token pos, recomputed from the cache, which holds
     * the same rows below pos (the row at pos comes out the same).  The
     * state keeps one logits buffer: the pending logits wait aside and are
     * put back, bits unchanged.  A look at the past is no work of the
     * generation's, so the work counters stay as they were. */
    int pos = s->n_prompt + n - 1;
    if (s->pending) memcpy(s->aside, s->pending, bytes);
    sp_counters work;
    sp_state_counters(s->state, &work);
    const float *logits = pos < 0 ? sp_forward_empty(s->model, s->state)
                                  : sp_forward(s->model, s->state,
                                               s->tokens[pos], pos);
    s->state->counters = work;
    int rc;
    if (!logits) {
        rc = sp_fail(err, SP_ERR_STATE, "peek: position %d is invalid", pos);
    } else {
        sp_sampler_set_mask(s->sampler, s->fixed_allowed); /* no constraint */
        rc = sp_params_check(p, sp_model_vocab(s->model), err);
        if (rc == SP_OK) rc = session_cfg_prepare(s, p, n, err);
        set_state(s, n);
        if (rc == SP_OK)
            rc = sp_sampler_warp(s->sampler, logits, s->tokens, pos + 1, p,
                                 &s->step, err);
    }
    if (s->pending) memcpy(s->pending, s->aside, bytes);
    /* the look inside of that same pass (it kept what it computed) */
    if (rc == SP_OK) rc = session_inspect_fill(s, pos, err);
    s->has_step = rc == SP_OK;
    return rc;
}

static int finish_step(sp_session *s, const sp_params *p, int force,
                       char *err);

int sp_session_step(sp_session *s, const sp_params *p, int force,
                    char *err) {
    int rc = check_ready(s, err);
    if (rc != SP_OK) return rc;
    if (force < -1 || force >= sp_model_vocab(s->model)) /* -1: not forced */
        return sp_fail(err, SP_ERR_ARG, "force: token %d is outside the "
                       "vocabulary (0..%d)", force, sp_model_vocab(s->model) - 1);
    rc = session_prepare_mask(s, err);
    if (rc != SP_OK) return rc;
    if (force >= 0 && s->constraint && !s->allowed[force])
        return sp_fail(err, SP_ERR_ARG, "force: token %d cannot continue the "
                       "text under the constraint", force);
    rc = sp_params_check(p, sp_model_vocab(s->model), err);
    if (rc != SP_OK) return rc;
    int step_index = s->n_tokens - s->n_prompt;
    rc = session_cfg_prepare(s, p, step_index, err);
    if (rc != SP_OK) return rc;
    set_state(s, step_index);
    s->previewed = 0;
    rc = sp_sampler_warp(s->sampler, s->pending, s->tokens, s->n_tokens, p,
                         &s->step, err);
    if (rc != SP_OK) {
        s->has_step = 0;
        return rc;
    }
    s->has_step = 1;
    return finish_step(s, p, force, err);
}

int sp_session_commit(sp_session *s, const sp_params *p, int token,
                      char *err) {
    if (!s->previewed || !s->has_step)
        return sp_fail(err, SP_ERR_STATE, "commit: no preview of this step");
    s->previewed = 0;
    if (token < 0 || token >= sp_model_vocab(s->model))
        return sp_fail(err, SP_ERR_ARG, "force: token %d is outside the "
                       "vocabulary (0..%d)", token, sp_model_vocab(s->model) - 1);
    if (s->constraint && !s->allowed[token])
        return sp_fail(err, SP_ERR_ARG, "force: token %d cannot continue the "
                       "text under the constraint", token);
    return finish_step(s, p, token, err);
}

/* The rest of a step, after its warp: the draw, the token, the stats, the
 * constraint, and the next logits. */
static int finish_step(sp_session *s, const sp_params *p, int force,
                       char *err) {
    int rc;
    int seq_len = sp_model_seq_len(s->model);
    int step_index = s->n_tokens - s->n_prompt;
    sp_rng before = s->rng; /* a step that fails changes nothing */
    double u = sp_rng_uniform(&s->rng); /* consumed whether forced or not */
    sp_sampler_draw(&s->step, u);
    int drawn = s->step.token;
    if (force >= 0) {
        s->step.token = force;
        s->step.p_token = s->step.probs[force];
    }
    rc = session_push_token(s, s->step.token, err);
    if (rc != SP_OK) return rc;
    /* mirostat learns from the token drawn (its final probability) */
    /* adaptive-p from the drawn token's probability before it (a forced
     * token other than the drawn one teaches it nothing, as in llama.cpp,
     * whose accept learns only from the token it picked) */
    float *ada = s->ada + 2 * step_index;
    ada[2] = ada[0];
    ada[3] = ada[1];
    if (s->step.probs_adaptive_in && (force < 0 || force == drawn))
        sp_adaptive_update(p, &ada[2], &ada[3],
                           s->step.probs_adaptive_in[s->step.token]);
    s->mu[step_index + 1] = sp_mirostat_update(p, s->mu[step_index],
                                               s->step.p_token);
    sp_token_stat *stat = &s->stats[s->n_tokens - 1 - s->n_prompt];
    stat->p = s->step.p_token;
    stat->logp_raw = ((double)s->step.logits[s->step.token] - s->step.raw_max) -
                     s->step.raw_log_z;
    stat->entropy_bits = (float)s->step.entropy_bits;
    stat->entropy_raw_bits = (float)s->step.entropy_raw_bits;
    stat->n_kept = s->step.n_kept;
    if (session_is_end_of_text(s, s->step.token)) {
        s->finished = 1;
        return SP_OK;
    }
    if (s->constraint) {
        int len;
        const int *t = s->tokens;
        const char *bytes = sp_decode(s->tok, prev_token(s, s->n_tokens - 1),
                                      t[s->n_tokens - 1], &len);
        sp_cstate_feed(s->constraint, &s->cstate, bytes, len); /* allowed */
        if (sp_cstate_accepting(s->constraint, &s->cstate) &&
            !sp_cstate_can_extend(s->constraint, &s->cstate))
            s->finished = 1; /* complete: nothing else could follow */
    }
    if (seq_len > 0 && s->n_tokens >= seq_len) {
        s->pending = NULL; /* nothing can follow; the next step says so */
        return SP_OK;
    }
    if (s->n_ahead > 0 && s->ahead_tokens[0] == s->step.token) {
        /* a batched pass fed this very token here: its logits pend */
        s->pending = (float *)s->ahead_logits;
        s->ahead_tokens++;
        s->ahead_logits += sp_model_vocab(s->model);
        s->n_ahead--;
        rc = session_check_pending(s, s->n_tokens - 1, err);
    } else if (s->defer_feed) {
        s->n_ahead = 0;
        s->pending = NULL;
        s->unfed = 1; /* the next batched pass (or check_ready) feeds it */
        return SP_OK;
    } else {
        rc = session_feed_last(s, err);
    }
    if (rc != SP_OK) {
        /* the model cannot read the token it chose (its output overflowed):
         * the step fails as a whole, the text stays as it was and the fault
         * stops the session until a rewind */
        s->n_tokens--;
        s->rng = before;
        s->finished = 0;
        if (s->constraint) session_constraint_replay(s);
    }
    return rc;
}

int sp_session_feed_ahead(sp_session *s, const int *tokens, int n,
                          int *fed, char *err) {
    *fed = 0;
    if (!s->started || s->finished || s->fault[0]) return SP_OK;
    if (!s->unfed && !s->pending) return SP_OK; /* the context is full */
    int seq_len = sp_model_seq_len(s->model);
    int batch[SP_BATCH_MAX];
    int m = 0, pos = s->n_tokens;
    if (s->unfed) {
        batch[m++] = s->tokens[s->n_tokens - 1];
        pos--;
    }
    /* the drafted tokens that fit in the context: position pos + m + i */
    for (int i = 0; i < n && m < SP_BATCH_MAX; i++) {
        if (seq_len > 0 && pos + m >= seq_len) break;
        batch[m++] = tokens[i];
    }
    if (m == 0) return SP_OK;
    s->previewed = 0;
    size_t vocab = (size_t)sp_model_vocab(s->model);
    if (!s->unfed) {
        if (!s->held && !(s->held = malloc(sizeof(float) * vocab)))
            return sp_fail(err, SP_ERR_NOMEM, "session: out of memory");
        memcpy(s->held, s->pending, sizeof(float) * vocab);
        s->pending = s->held;
    }
    const float *rows = sp_forward_batch(s->model, s->state, batch, m, pos, 0);
    if (!rows) return sp_fail(err, SP_ERR_NOMEM, "session: out of memory");
    *fed = m;
    int skip = 0;
    if (s->unfed) {
        s->unfed = 0;
        s->pending = (float *)rows;
        int rc = session_check_pending(s, pos, err);
        if (rc != SP_OK) return rc;
        skip = 1;
    }
    s->ahead_tokens = tokens;
    s->ahead_logits = rows + (size_t)skip * vocab;
    s->n_ahead = m - skip;
    s->defer_feed = 1;
    return SP_OK;
}

void sp_session_feed_ahead_end(sp_session *s) {
    s->n_ahead = 0;
    s->defer_feed = 0;
}
