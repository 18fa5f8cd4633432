/*
 * session_inspect.c — a session's look inside its model: the attention
 * weights and the logit lens of each preview's and peek's query position,
 * in the step record (sp_step.inspect; sampler_decode.h has the
 * contract).  The forward pass keeps them as it runs (model/inspect.c);
 * this file copies them into the record, runs the pass again when the
 * last one was of another position, and reads the lens out.
 */
#include <stdlib.h>
#include <string.h>

#include "session.h"

int sp_session_set_inspect(sp_session *s, int what, int lens_top, char *err) {
    if (what < 0 || what > (SP_INSPECT_ATTENTION | SP_INSPECT_LENS))
        return sp_fail(err, SP_ERR_ARG, "inspect: %d is not a mask of "
                       "SP_INSPECT_ATTENTION (1) and SP_INSPECT_LENS (2)",
                       what);
    if ((what & SP_INSPECT_LENS) &&
        (lens_top < 1 || lens_top > SP_LENS_TOP_MAX))
        return sp_fail(err, SP_ERR_ARG, "inspect: the lens's tokens per "
                       "layer must be in 1..%d (got %d)", SP_LENS_TOP_MAX,
                       lens_top);
    if (what == 0) {
        if (s->inspect) sp_state_set_capture(s->model, s->state, 0, NULL);
        session_inspect_free(s);
        s->inspect = 0;
        return SP_OK;
    }
    int rc = sp_state_set_capture(s->model, s->state, 1, err);
    if (rc != SP_OK) return rc;
    if ((what & SP_INSPECT_LENS) && lens_top > s->lens_top) {
        /* room for more tokens per layer: made anew at the next fill */
        free(s->insp_ids);
        free(s->insp_p);
        s->insp_ids = NULL;
        s->insp_p = NULL;
    }
    s->inspect = what;
    s->lens_top = what & SP_INSPECT_LENS ? lens_top : 0;
    s->insp_made = 0;
    return SP_OK;
}

void session_inspect_free(sp_session *s) {
    free(s->insp_att);
    free(s->insp_ids);
    free(s->insp_p);
    free(s->insp_h);
    s->insp_att = NULL;
    s->insp_ids = NULL;
    s->insp_p = NULL;
    s->insp_h = NULL;
    s->insp_made = 0;
}

/* The forward pass at pos again, for what it keeps: its keys and values
 * are already in the cache (the same bits come out), the pending logits
 * wait aside and are put back, and the work counters stay as they were (a
 * look is no work of the generation's) -- as sp_session_peek does. */
static int run_again(sp_session *s, int pos, char *err) {
    size_t bytes = sizeof(float) * (size_t)sp_model_vocab(s->model);
    if (!s->aside && !(s->aside = malloc(bytes)))
        return sp_fail(err, SP_ERR_NOMEM, "session: out of memory");
    if (s->pending) memcpy(s->aside, s->pending, bytes);
    sp_counters work;
    sp_state_counters(s->state, &work);
    const float *logits =
        sp_forward(s->model, s->state, s->tokens[pos], pos);
    s->state->counters = work;
    if (s->pending) memcpy(s->pending, s->aside, bytes);
    if (!logits)
        return sp_fail(err, SP_ERR_STATE, "inspect: position %d is invalid",
                       pos);
    return SP_OK;
}

/* The arrays of a record of n_layers x n_heads x at most seq_len weights,
 * and of the lens (made once; 0 when memory is short). */
static int make_room(sp_session *s, const sp_inspection *cap) {
    size_t layers = (size_t)cap->n_layers;
    if (!s->insp_att)
        s->insp_att = malloc(sizeof(float) * layers * (size_t)cap->n_heads *
                             (size_t)sp_model_seq_len(s->model));
    if (!s->insp_h) s->insp_h = malloc(sizeof(double) * layers);
    if (s->lens_top && !s->insp_ids)
        s->insp_ids = malloc(sizeof(int) * layers * (size_t)s->lens_top);
    if (s->lens_top && !s->insp_p)
        s->insp_p = malloc(sizeof(float) * layers * (size_t)s->lens_top);
    return s->insp_att && s->insp_h &&
           (!s->lens_top || (s->insp_ids && s->insp_p));
}

int session_inspect_fill(sp_session *s, int pos, char *err) {
    if (!s->inspect || pos < 0) return SP_OK;
    sp_inspection cap;
    int rc = sp_state_inspect(s->model, s->state, &cap, NULL);
    if (rc != SP_OK || cap.pos != pos || cap.token != s->tokens[pos]) {
        rc = run_again(s, pos, err);
        if (rc == SP_OK) rc = sp_state_inspect(s->model, s->state, &cap, err);
        if (rc != SP_OK) return rc;
    }
    unsigned serial = sp_state_capture_serial(s->state);
    if (s->insp_made == s->inspect && s->insp_serial == serial &&
        s->insp.pos == pos) {
        s->step.inspect = &s->insp; /* a second look at the same pass */
        return SP_OK;
    }
    s->insp_made = 0;
    if (!make_room(s, &cap))
        return sp_fail(err, SP_ERR_NOMEM, "session: out of memory");
    sp_inspection *in = &s->insp;
    *in = cap;
    memcpy(s->insp_att, cap.attention, sizeof(float) * (size_t)cap.n_layers *
                                           (size_t)cap.n_heads *
                                           (size_t)cap.n_keys);
    in->attention = s->insp_att;
    in->lens_top = s->lens_top;
    in->lens_ids = s->lens_top ? s->insp_ids : NULL;
    in->lens_p = s->lens_top ? s->insp_p : NULL;
    in->lens_entropy_bits = s->lens_top ? s->insp_h : NULL;
    int vocab = sp_model_vocab(s->model), k = s->lens_top;
    for (int l = 0; l < cap.n_layers && k; l++) {
        const float *p = sp_state_lens(s->model, s->state, l, NULL,
                                       &s->insp_h[l], err);
        if (!p) return SP_ERR_STATE;
        int got = sp_probs_top(p, vocab, k, s->insp_ids + (size_t)l * k,
                               s->insp_p + (size_t)l * k);
        for (int i = got; i < k; i++) { /* a vocabulary smaller than k */
            s->insp_ids[(size_t)l * k + i] = -1;
            s->insp_p[(size_t)l * k + i] = 0.0f;
        }
    }
    s->insp_made = s->inspect;
    s->insp_serial = serial;
    s->step.inspect = in;
    return SP_OK;
}
