/*
 * model.c — one interface over the two kinds of model: loading by content,
 * per-generation state, and the forward step.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

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
        /* not a bigram: a llama2.c checkpoint (which has no magic); on
         * failure the data is still ours */
        rc = sp_transformer_load(m, data, size, take_ownership, err);
        if (rc != SP_OK && take_ownership) free(data);
    }
    if (rc != SP_OK) {
        free(m);
        return NULL;
    }
    return m;
}

void sp_model_free(sp_model *m) {
    if (!m) return;
    sp_bigram_free(m->bigram);
    sp_transformer_free(m->transformer);
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
    if (m->kind == SP_MODEL_BIGRAM) {
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
    if (st->transformer_state) sp_transformer_state_free(st->transformer_state);
    free(st);
}

void sp_state_copy(const sp_model *m, sp_state *dst, const sp_state *src,
                   int n_pos) {
    if (m->kind == SP_MODEL_BIGRAM)
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

const float *sp_forward_batch(const sp_model *m, sp_state *st,
                              const int *tokens, int n, int pos,
                              int last_only) {
    if (n < 1 || n > SP_BATCH_MAX || pos < 0 ||
        (m->seq_len > 0 && pos > m->seq_len - n))
        return NULL;
    for (int b = 0; b < n; b++)
        if (tokens[b] < 0 || tokens[b] >= m->vocab) return NULL;
    const float *logits;
    if (m->kind == SP_MODEL_BIGRAM) {
        /* a table look-up per position: rows of the batch buffer */
        if (!st->batch_logits) {
            st->batch_logits =
                malloc(sizeof(float) * SP_BATCH_MAX * (size_t)m->vocab);
            if (!st->batch_logits) return NULL;
        }
        for (int b = last_only ? n - 1 : 0; b < n; b++)
            sp_bigram_forward(m->bigram,
                              st->batch_logits + (size_t)b * (size_t)m->vocab,
                              tokens[b]);
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
    return m->kind == SP_MODEL_BIGRAM
               ? st->logits
               : sp_transformer_state_logits(st->transformer_state);
}

void sp_state_counters(const sp_state *st, sp_counters *out) {
    *out = st->counters;
}

void sp_state_reset_counters(sp_state *st) {
    memset(&st->counters, 0, sizeof st->counters);
}
