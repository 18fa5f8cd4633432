/*
 * model.c — one interface over the three kinds of model (bigram,
 * transformer, hand-made): loading by content, copies and edits, the
 * per-generation state, and the forward step.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "model/gguf.h"
#include "model/transformer.h"

sp_model *sp_model_load(uint8_t *data, size_t size, int take_ownership,
                        char *err) {
    sp_model *m = calloc(1, sizeof *m);
    if (!m) {
        if (take_ownership) free(data);
        sp_fail(err, SP_ERR_NOMEM, "model: out of memory");
        return NULL;
    }
    int rc;
    if (sp_is_bigram(data, size)) {
        rc = sp_bigram_load(m, data, size, err); /* copies what it keeps */
        if (take_ownership) free(data);
    } else {
        /* a GGUF file (magic "GGUF"), or a llama2.c checkpoint (which has
         * no magic); on failure the data is still ours */
        rc = sp_gguf_is(data, size)
                 ? sp_gguf_model_load(m, data, size, take_ownership, err)
                 : sp_transformer_load(m, data, size, take_ownership, err);
        /* a tokenizer.bin chosen as the model: its header read as a
         * checkpoint's says "hidden_dim must be > 0"; say what it is */
        int pieces = rc == SP_ERR_FORMAT && !sp_gguf_is(data, size)
                         ? sp_bpe_file_pieces(data, size) : -1;
        if (pieces > 0)
            rc = sp_fail(err, SP_ERR_TOKENIZER_AS_MODEL, "model: this is a llama2.c "
                         "tokenizer.bin (%d pieces), not a model: choose a "
                         "checkpoint, with this file as its tokenizer",
                         pieces);
        if (rc != SP_OK && take_ownership) free(data);
    }
    if (rc != SP_OK) {
        free(m);
        return NULL;
    }
    return m;
}

double sp_memory_limit(void) {
#if defined(__wasm__)
    return SP_WASM_MAX_MEMORY;
#else
    return 0.0;
#endif
}

/* room kept beside a model's file: the engine's own code and data, a
 * session's state (a GGUF model's is at most 512 MiB, most far less) */
#define SP_MODEL_RESERVE ((double)(128u << 20))

int sp_model_check_size(double size, char *err) {
    double limit = sp_memory_limit();
    if (!(size >= 0))
        return sp_fail(err, SP_ERR_ARG, "model: a file size must be >= 0");
    if (limit > 0 && size > limit - SP_MODEL_RESERVE)
        return sp_fail(err, SP_ERR_NOMEM, "model: the file is %.0f MB "
                       "(%.0f bytes); this engine's memory holds at most "
                       "%.0f MB, and a model needs %.0f MB of it beside its "
                       "file", size / 1e6, size, limit / 1e6,
                       SP_MODEL_RESERVE / 1e6);
    return SP_OK;
}

void sp_model_free(sp_model *m) {
    if (!m) return;
    sp_bigram_free(m->bigram);
    sp_transformer_free(m->transformer);
    sp_handmade_free(m->handmade);
    sp_tokenizer_free(m->tokenizer);
    free(m);
}

sp_model_kind sp_model_kind_of(const sp_model *m) { return m->kind; }
int sp_model_vocab(const sp_model *m) { return m->vocab; }
int sp_model_seq_len(const sp_model *m) { return m->seq_len; }
const sp_tokenizer *sp_model_tokenizer(const sp_model *m) {
    return m->tokenizer;
}

sp_state *sp_state_new(const sp_model *m) {
    sp_state *st = calloc(1, sizeof *st);
    if (!st) return NULL;
    st->kind = m->kind;
    st->vocab = m->vocab;
    if (m->kind != SP_MODEL_TRANSFORMER) {
        st->logits = malloc((size_t)m->vocab * sizeof(float));
        if (!st->logits) goto fail;
    } else {
        st->transformer_state = sp_transformer_state_new(m->transformer);
        if (!st->transformer_state) goto fail;
    }
    return st;
fail:
    sp_state_free(st);
    return NULL;
}

void sp_state_free(sp_state *st) {
    if (!st) return;
    free(st->logits);
    free(st->batch_logits);
    free(st->lens_logits);
    free(st->lens_probs);
    if (st->transformer_state) sp_transformer_state_free(st->transformer_state);
    free(st);
}

void sp_state_copy(const sp_model *m, sp_state *dst, const sp_state *src,
                   int n_pos) {
    if (m->kind != SP_MODEL_TRANSFORMER)
        memcpy(dst->logits, src->logits, sizeof(float) * (size_t)m->vocab);
    else
        sp_transformer_state_copy(m->transformer, dst->transformer_state,
                                  src->transformer_state, n_pos);
}

float *sp_forward(const sp_model *m, sp_state *st, int token, int pos) {
    if (token < 0 || token >= m->vocab || pos < 0 ||
        (m->seq_len > 0 && pos >= m->seq_len))
        return NULL;
    float *logits;
    if (m->kind == SP_MODEL_BIGRAM) {
        logits = sp_bigram_forward(m->bigram, st->logits, token);
    } else if (m->kind == SP_MODEL_HANDMADE) {
        logits = sp_handmade_forward(m->handmade, st->logits);
    } else {
        logits = sp_transformer_forward(m->transformer, st->transformer_state,
                                        token, pos);
        if (logits) sp_transformer_count(m->transformer, pos, &st->counters);
    }
    if (logits) {
        st->counters.tokens++;
        st->counters.passes++;
    }
    return logits;
}

float *sp_forward_empty(const sp_model *m, sp_state *st) {
    if (m->kind != SP_MODEL_HANDMADE) return NULL;
    return sp_handmade_forward(m->handmade, st->logits);
}

sp_model *sp_model_copy(const sp_model *m, char *err) {
    if (m->kind == SP_MODEL_TRANSFORMER) {
        sp_fail(err, SP_ERR_ARG, "model: only a bigram or a hand-made model "
                "can be copied and edited, not a transformer");
        return NULL;
    }
    sp_model *c = calloc(1, sizeof *c);
    if (!c) goto nomem;
    *c = *m;
    c->bigram = NULL;
    c->handmade = NULL;
    c->tokenizer = sp_tokenizer_copy(m->tokenizer, err);
    if (m->kind == SP_MODEL_BIGRAM) c->bigram = sp_bigram_copy(m->bigram);
    else c->handmade = sp_handmade_copy(m->handmade);
    if (!c->tokenizer || (!c->bigram && !c->handmade)) {
        sp_model_free(c);
        goto nomem;
    }
    return c;
nomem:
    sp_fail(err, SP_ERR_NOMEM, "model: out of memory");
    return NULL;
}

/* the editable row (NULL for a transformer or a bad row) */
static float *row_of(const sp_model *m, int row) {
    if (m->kind == SP_MODEL_BIGRAM)
        return row >= 0 && row < m->vocab ? sp_bigram_row(m->bigram, row)
                                          : NULL;
    if (m->kind == SP_MODEL_HANDMADE)
        return row == 0 ? sp_handmade_logits(m->handmade) : NULL;
    return NULL;
}

const float *sp_model_row(const sp_model *m, int row) {
    return row_of(m, row);
}

int sp_model_set_prob(sp_model *m, int row, int token, double p, char *err) {
    if (m->kind == SP_MODEL_TRANSFORMER)
        return sp_fail(err, SP_ERR_ARG, "edit: a transformer's "
                       "probabilities come from its weights; only a bigram "
                       "or a hand-made model can be edited");
    float *l = row_of(m, row);
    if (!l)
        return sp_fail(err, SP_ERR_ARG, "edit: row %d is outside %s", row,
                       m->kind == SP_MODEL_BIGRAM ? "the vocabulary"
                                                  : "0 (a hand-made model has "
                                                    "one row)");
    if (token < 0 || token >= m->vocab)
        return sp_fail(err, SP_ERR_ARG, "edit: token %d is outside the "
                       "vocabulary (0..%d)", token, m->vocab - 1);
    if (!(p > 0 && p < 1))
        return sp_fail(err, SP_ERR_ARG, "edit: p must be in (0, 1) (got %g)",
                       p);
    /* the others' mass, relative to their largest logit */
    float top = -INFINITY;
    for (int j = 0; j < m->vocab; j++)
        if (j != token && l[j] > top) top = l[j];
    if (top == -INFINITY)
        return sp_fail(err, SP_ERR_ARG, "edit: every other token is masked; "
                       "there is nothing to share 1 - p");
    double rest = 0.0;
    for (int j = 0; j < m->vocab; j++)
        if (j != token) rest += sp_exp((double)l[j] - top);
    l[token] = (float)((double)top + sp_log(rest) + sp_log(p) -
                       sp_log(1.0 - p));
    return SP_OK;
}

int sp_model_cost(const sp_model *m, int n, sp_counters *out, char *err) {
    memset(out, 0, sizeof *out);
    if (n < 0 || (m->seq_len > 0 && n > m->seq_len))
        return sp_fail(err, SP_ERR_ARG, "cost: %d tokens is outside 0..%d "
                       "(the model's context)", n, m->seq_len);
    for (int pos = 0; pos < n; pos++)
        if (m->kind == SP_MODEL_TRANSFORMER)
            sp_transformer_count(m->transformer, pos, out);
    out->tokens = (uint64_t)n;
    return SP_OK;
}

const float *sp_forward_batch(const sp_model *m, sp_state *st,
                              const int *tokens, int n, int pos,
                              int last_only) {
    if (n < 1 || n > SP_BATCH_MAX || pos < 0 ||
        (m->seq_len > 0 && pos > m->seq_len - n))
        return NULL;
    for (int b = 0; b < n; b++)
        if (tokens[b] < 0 || tokens[b] >= m->vocab) return NULL;
    const float *logits;
    if (m->kind != SP_MODEL_TRANSFORMER) {
        /* a table look-up per position (a hand-made model's one row):
         * rows of the batch buffer */
        if (!st->batch_logits) {
            st->batch_logits =
                malloc(sizeof(float) * SP_BATCH_MAX * (size_t)m->vocab);
            if (!st->batch_logits) return NULL;
        }
        for (int b = last_only ? n - 1 : 0; b < n; b++) {
            float *row = st->batch_logits + (size_t)b * (size_t)m->vocab;
            if (m->kind == SP_MODEL_BIGRAM)
                sp_bigram_forward(m->bigram, row, tokens[b]);
            else
                sp_handmade_forward(m->handmade, row);
        }
        memcpy(st->logits, st->batch_logits + (size_t)(n - 1) * m->vocab,
               sizeof(float) * (size_t)m->vocab);
        logits = st->batch_logits;
    } else {
        logits = sp_transformer_forward_batch(m->transformer,
                                              st->transformer_state, tokens,
                                              n, pos, last_only);
        if (!logits) return NULL;
        for (int b = 0; b < n; b++)
            sp_transformer_count(m->transformer, pos + b, &st->counters);
    }
    st->counters.tokens += (uint64_t)n;
    st->counters.passes++;
    return logits;
}

float *sp_state_logits(const sp_model *m, sp_state *st) {
    return m->kind != SP_MODEL_TRANSFORMER
               ? st->logits
               : sp_transformer_state_logits(st->transformer_state);
}

void sp_state_counters(const sp_state *st, sp_counters *out) {
    *out = st->counters;
}

void sp_state_reset_counters(sp_state *st) {
    memset(&st->counters, 0, sizeof st->counters);
}
