/*
 * inspect.c — a look inside a transformer's forward pass: the attention
 * weights each head computed over the cached positions, and the logit lens
 * (the residual stream after each layer read through the final RMSNorm and
 * the classifier).  The pass itself copies them as it runs
 * (transformer.c: attend() keeps the very softmax the values are mixed by,
 * the layer loop the stream); this file turns the capture on and off and
 * reads the lens out of it.  sampler_models.h has the contract.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "model/transformer.h"

#define LN2 0.69314718055994530942

/* sampler/heap.c: the m best of val[0..n) by (val desc, index asc) */
int sp_top_ranked(const float *val, const int *tie, int n, int m, int *out);

const char *sp_model_no_attention(const sp_model *m) {
    if (m->kind == SP_MODEL_BIGRAM)
        return "a bigram has no attention: its only context is the previous "
               "token, whose row of its table is the next token's "
               "distribution";
    if (m->kind == SP_MODEL_HANDMADE)
        return "a hand-made model has no attention: it gives the same "
               "distribution whatever came before";
    return NULL;
}

int sp_state_set_capture(const sp_model *m, sp_state *st, int on, char *err) {
    const char *why = sp_model_no_attention(m);
    if (why) return sp_fail(err, SP_ERR_ARG, "inspect: %s", why);
    if (!on) {
        free(st->lens_logits);
        free(st->lens_probs);
        st->lens_logits = st->lens_probs = NULL;
        sp_transformer_set_capture(m->transformer, st->transformer_state, 0);
        return SP_OK;
    }
    size_t bytes = sizeof(float) * (size_t)m->vocab;
    if (!st->lens_logits) st->lens_logits = malloc(bytes);
    if (!st->lens_probs) st->lens_probs = malloc(bytes);
    if (!st->lens_logits || !st->lens_probs ||
        sp_transformer_set_capture(m->transformer, st->transformer_state,
                                   1) != SP_OK) {
        sp_state_set_capture(m, st, 0, NULL);
        return sp_fail(err, SP_ERR_NOMEM, "inspect: out of memory");
    }
    return SP_OK;
}

int sp_state_inspect(const sp_model *m, const sp_state *st, sp_inspection *out,
                     char *err) {
    memset(out, 0, sizeof *out);
    out->pos = out->token = -1;
    const char *why = sp_model_no_attention(m);
    if (why) return sp_fail(err, SP_ERR_ARG, "inspect: %s", why);
    int pos, token;
    unsigned serial;
    const float *att = sp_transformer_captured(st->transformer_state, &pos,
                                               &token, &serial);
    if (!att)
        return sp_fail(err, SP_ERR_STATE, "inspect: the capture is off");
    if (pos < 0)
        return sp_fail(err, SP_ERR_STATE, "inspect: no forward pass has run "
                       "since the capture was turned on");
    const sp_tconfig *c = &m->transformer->c;
    out->pos = pos;
    out->token = token;
    out->n_layers = c->n_layers;
    out->n_heads = c->n_heads;
    out->n_kv_heads = c->n_kv_heads;
    out->n_keys = pos + 1;
    out->attention = att;
    return SP_OK;
}

const float *sp_state_lens(const sp_model *m, sp_state *st, int layer,
                           const float **logits, double *entropy_bits,
                           char *err) {
    sp_inspection at;
    if (sp_state_inspect(m, st, &at, err) != SP_OK) return NULL;
    if (layer < 0 || layer >= at.n_layers) {
        sp_fail(err, SP_ERR_ARG, "lens: layer %d is outside 0..%d", layer,
                at.n_layers - 1);
        return NULL;
    }
    float *x = st->lens_logits, *p = st->lens_probs;
    int v = m->vocab;
    sp_transformer_lens(m->transformer, st->transformer_state, layer, x);
    /* the sampler's raw softmax (sampler/chain.c raw_softmax): the same
     * kernels in the same order, so the last layer's distribution and
     * entropy are the step record's probs_raw and entropy_raw_bits */
    float max = sp_max(x, v);
    float z = sp_exp_shift_sum(x, max, p, v);
    double weighted = sp_div_dot_shift_pos(p, z, x, max, v);
    if (logits) *logits = x;
    if (entropy_bits) {
        double h = (sp_log((double)z) - weighted) / LN2;
        *entropy_bits = h > 0.0 ? h : 0.0;
    }
    return p;
}

int sp_probs_top(const float *probs, int vocab, int k, int *ids, float *p) {
    int n = sp_top_ranked(probs, NULL, vocab, k, ids);
    for (int i = 0; i < n; i++) p[i] = probs[ids[i]];
    return n;
}

unsigned sp_state_capture_serial(const sp_state *st) {
    int pos, token;
    unsigned serial = 0;
    if (st->transformer_state)
        sp_transformer_captured(st->transformer_state, &pos, &token, &serial);
    return serial;
}
