/*
 * session_cfg.c — classifier-free guidance's second run of the model
 * (the stage itself: sampler/cfg.c).
 *
 * The unconditional text is the negative prompt (encoded as the prompt is,
 * with its begin token) or, when there is none, the prompt's last token
 * alone (Hugging Face's UnbatchedClassifierFreeGuidanceLogitsProcessor:
 * input_ids[:, -1:]), continued with the same generated tokens.  It runs in
 * a state of its own (a second KV cache for a transformer), allocated at
 * the first step that asks for guidance and fed lazily: a step feeds the
 * tokens it has not seen yet, so a scale turned on mid-text catches up in
 * batched passes and a scale of 1 costs nothing.  A bigram's logits depend
 * on the previous token only: its unconditional run differs from the
 * conditional one at the first step alone, and only with a negative prompt
 * (with none, the "last token" is the very token the text ends with).
 *
 * What the state holds: u_fed tokens of the unconditional text, whose KV
 * rows are valid (the same tokens at the same positions; feeding a
 * position again writes the same bits), and the logits after its first
 * u_at tokens (-1: none) in ulogits.  A rewind keeps the rows of the
 * tokens that stay.
 */
#include <stdlib.h>
#include <string.h>

#include "session.h"

/* The i-th token of the unconditional text. */
static int utoken(const sp_session *s, int i) {
    return i < s->n_uprompt ? s->uprompt[i]
                            : s->tokens[s->n_prompt + i - s->n_uprompt];
}

/* The unconditional text's own beginning: the negative prompt's tokens, or
 * the prompt's last one. */
static int set_uprompt(sp_session *s, char *err) {
    free(s->uprompt);
    s->uprompt = NULL;
    s->n_uprompt = 0;
    s->u_fed = 0;
    s->u_at = -1;
    if (s->negative && s->negative[0]) {
        int max_ids = sp_encode_bound(s->tok, strlen(s->negative));
        s->uprompt = malloc(sizeof(int) * (size_t)(max_ids > 0 ? max_ids : 1));
        if (!s->uprompt)
            return sp_fail(err, SP_ERR_NOMEM, "session: out of memory");
        int n = sp_encode(s->tok, s->negative, 1, 0, s->uprompt, max_ids,
                          err);
        if (n < 0) return SP_ERR_ARG;
        int seq_len = sp_model_seq_len(s->model);
        if (seq_len > 0 && n >= seq_len)
            return sp_fail(err, SP_ERR_PROMPT_LONG, "negative prompt: %d "
                           "tokens leave no room in the model's context of "
                           "%d", n, seq_len);
        s->n_uprompt = n;
    } else if (s->n_prompt > 0) {
        s->uprompt = malloc(sizeof(int));
        if (!s->uprompt)
            return sp_fail(err, SP_ERR_NOMEM, "session: out of memory");
        s->uprompt[0] = s->tokens[s->n_prompt - 1];
        s->n_uprompt = 1;
    }
    s->u_ready = 1;
    return SP_OK;
}

int sp_session_set_negative_prompt(sp_session *s, const char *text,
                                   char *err) {
    char *copy = NULL;
    if (text && text[0]) {
        size_t n = strlen(text);
        copy = malloc(n + 1);
        if (!copy) return sp_fail(err, SP_ERR_NOMEM, "session: out of memory");
        memcpy(copy, text, n + 1);
    }
    free(s->negative);
    s->negative = copy;
    s->u_ready = 0; /* encoded at the next step that asks (the prompt's
                     * last token may be what it needs) */
    s->u_fed = 0;
    s->u_at = -1;
    return SP_OK;
}

const char *sp_session_negative_prompt(const sp_session *s) {
    return s->negative ? s->negative : "";
}

void session_cfg_reset(sp_session *s) {
    s->u_ready = 0;
    s->u_fed = 0;
    s->u_at = -1;
    s->u_now = NULL;
}

void session_cfg_rewind(sp_session *s, int n_generated) {
    int keep = s->n_uprompt + n_generated;
    if (s->u_fed > keep) s->u_fed = keep;
    if (s->u_at > keep) s->u_at = -1;
    s->u_now = NULL;
}

void session_cfg_free(sp_session *s) {
    sp_state_free(s->ustate);
    free(s->uprompt);
    free(s->negative);
    free(s->ulogits);
}

/* The unconditional logits before generated step n into ulogits (u_now
 * points at them), or u_now NULL when p asks for no guidance. */
int session_cfg_prepare(sp_session *s, const sp_params *p, int n,
                        char *err) {
    s->u_now = NULL;
    if (p->cfg_scale == 1.0f) return SP_OK;
    const sp_model *m = s->model;
    int vocab = sp_model_vocab(m), rc;
    if (!s->ustate) {
        s->ustate = sp_state_new(m);
        if (!s->ustate)
            return sp_fail(err, SP_ERR_NOMEM, "cfg-scale: no memory for the "
                           "unconditional run (a second state of the model, "
                           "its KV cache as large as the first)");
    }
    if (!s->ulogits && !(s->ulogits = malloc(sizeof(float) * (size_t)vocab)))
        return sp_fail(err, SP_ERR_NOMEM, "session: out of memory");
    if (!s->u_ready && (rc = set_uprompt(s, err)) != SP_OK) {
        s->u_ready = 0;
        return rc;
    }
    int len = s->n_uprompt + n; /* the unconditional text before step n */
    if (s->u_at == len) {
        s->u_now = s->ulogits;
        return SP_OK;
    }
    int seq_len = sp_model_seq_len(m);
    if (seq_len > 0 && len > seq_len)
        return sp_fail(err, SP_ERR_CONTEXT_FULL, "context full: the negative "
                       "prompt's run needs %d positions, the model's seq_len "
                       "is %d", len, seq_len);
    const float *logits;
    /* a look at the past is no work of the generation's */
    sp_counters work;
    sp_state_counters(s->ustate, &work);
    if (len == 0) {
        logits = sp_forward_empty(m, s->ustate);
        if (!logits)
            return sp_fail(err, SP_ERR_PROMPT, "cfg-scale: the unconditional "
                           "run has no token to start from");
    } else if (s->u_fed >= len) {
        /* its rows are there: the last one again gives its logits */
        logits = sp_forward(m, s->ustate, utoken(s, len - 1), len - 1);
    } else {
        int batch[SP_BATCH_MAX];
        logits = NULL;
        for (int at = s->u_fed; at < len; at += SP_BATCH_MAX) {
            int k = len - at < SP_BATCH_MAX ? len - at : SP_BATCH_MAX;
            for (int j = 0; j < k; j++) batch[j] = utoken(s, at + j);
            if (!sp_forward_batch(m, s->ustate, batch, k, at, 1))
                return sp_fail(err, SP_ERR_NOMEM, "session: out of memory");
            s->u_fed = at + k;
        }
        logits = sp_state_logits(m, s->ustate);
    }
    if (!logits)
        return sp_fail(err, SP_ERR_STATE, "cfg-scale: the unconditional run "
                       "cannot read position %d", len - 1);
    if (n < s->n_tokens - s->n_prompt) s->ustate->counters = work; /* past */
    memcpy(s->ulogits, logits, sizeof(float) * (size_t)vocab);
    s->u_at = len;
    s->u_now = s->ulogits;
    return SP_OK;
}
