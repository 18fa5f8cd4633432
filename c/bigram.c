/*
 * bigram.c — the character bigram model: P(next character | previous one).
 *
 * File format (little-endian), version 1:
 *
 *   offset  size      field
 *   0       4         magic "SPBG"
 *   4       4         uint32 version (1)
 *   8       4         uint32 vocab V, 2..4096
 *   12      4         uint32 boundary: the token that starts and ends a word
 *                     (the model's BOS and EOS), < V
 *   16      ...       V pieces: uint8 byte length (1..4), then the UTF-8
 *                     bytes of one character; pieces are distinct
 *   ...     0..3      zero padding to a multiple of 4
 *   ...     4*V*V     float32 logits[prev][next] = ln P(next | prev), finite
 *
 * and nothing after.  models/train_bigram.py writes it.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define BIGRAM_MAX_VOCAB 4096

struct sp_bigram {
    int vocab;
    float *logits; /* [vocab][vocab] */
};

static uint32_t read_u32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

int sp_is_bigram(const uint8_t *data, size_t size) {
    return size >= 4 && memcmp(data, SP_BIGRAM_MAGIC, 4) == 0;
}

int sp_bigram_load(sp_model *m, const uint8_t *data, size_t size, char *err) {
    if (size < 16)
        return sp_fail(err, SP_ERR_FORMAT, "bigram: file has %zu bytes, the "
                       "header alone needs 16", size);
    if (!sp_is_bigram(data, size))
        return sp_fail(err, SP_ERR_FORMAT, "bigram: bad magic (expected "
                       "\"SPBG\")");
    uint32_t version = read_u32(data + 4);
    if (version != SP_BIGRAM_VERSION)
        return sp_fail(err, SP_ERR_FORMAT, "bigram: version %u is not "
                       "supported (this engine reads version %d)", version,
                       SP_BIGRAM_VERSION);
    uint32_t vocab = read_u32(data + 8), boundary = read_u32(data + 12);
    if (vocab < 2 || vocab > BIGRAM_MAX_VOCAB)
        return sp_fail(err, SP_ERR_FORMAT, "bigram: vocab %u is out of range "
                       "(2..%d)", vocab, BIGRAM_MAX_VOCAB);
    if (boundary >= vocab)
        return sp_fail(err, SP_ERR_FORMAT, "bigram: boundary token %u is not "
                       "below vocab %u", boundary, vocab);
    /* the pieces: validated into a scratch copy, NUL-terminated */
    char *text = malloc((size_t)vocab * 5);
    const char **pieces = malloc(sizeof(char *) * vocab);
    sp_bigram *b = calloc(1, sizeof *b);
    float *logits = malloc((size_t)vocab * vocab * sizeof(float));
    sp_tokenizer *tok = NULL;
    int rc = SP_OK;
    if (!text || !pieces || !b || !logits) {
        rc = sp_fail(err, SP_ERR_NOMEM, "bigram: out of memory");
        goto done;
    }
    size_t at = 16, text_at = 0;
    for (uint32_t i = 0; i < vocab; i++) {
        unsigned len = at < size ? data[at] : 0;
        if (at >= size || (len >= 1 && len > size - at - 1)) {
            rc = sp_fail(err, SP_ERR_FORMAT, "bigram: file ends in piece %u "
                         "of %u", i, vocab);
            goto done;
        }
        at++;
        if (len < 1 || len > 4) {
            rc = sp_fail(err, SP_ERR_FORMAT, "bigram: piece %u has length %u "
                         "(a character has 1 to 4 bytes)", i, len);
            goto done;
        }
        if (memchr(data + at, 0, len)) {
            rc = sp_fail(err, SP_ERR_FORMAT, "bigram: piece %u contains a NUL "
                         "byte", i);
            goto done;
        }
        memcpy(text + text_at, data + at, len);
        text[text_at + len] = '\0';
        pieces[i] = text + text_at;
        text_at += len + 1;
        at += len;
    }
    for (uint32_t i = 0; i < vocab; i++)
        for (uint32_t j = 0; j < i; j++)
            if (strcmp(pieces[i], pieces[j]) == 0) {
                rc = sp_fail(err, SP_ERR_FORMAT, "bigram: pieces %u and %u "
                             "are the same", j, i);
                goto done;
            }
    at = (at + 3) & ~(size_t)3;
    size_t expected = at + (size_t)vocab * vocab * 4;
    if (size != expected) {
        rc = sp_fail(err, SP_ERR_FORMAT, "bigram: file has %zu bytes, header "
                     "implies %zu", size, expected);
        goto done;
    }
    memcpy(logits, data + at, (size_t)vocab * vocab * sizeof(float));
    for (size_t i = 0; i < (size_t)vocab * vocab; i++) {
        if (!(logits[i] - logits[i] == 0.0f)) {
            rc = sp_fail(err, SP_ERR_FORMAT, "bigram: logit %zu (row %zu) is "
                         "not finite", i, i / vocab);
            goto done;
        }
    }
    tok = sp_tokenizer_new_chars(pieces, (int)vocab, (int)boundary, err);
    if (!tok) rc = SP_ERR_FORMAT;
done:
    free(text);
    free(pieces);
    if (rc != SP_OK) {
        free(b);
        free(logits);
        return rc;
    }
    b->vocab = (int)vocab;
    b->logits = logits;
    m->kind = SP_MODEL_BIGRAM;
    m->vocab = (int)vocab;
    m->seq_len = 0; /* a bigram has no context limit */
    m->bigram = b;
    m->tokenizer = tok;
    return SP_OK;
}

void sp_bigram_free(sp_bigram *b) {
    if (!b) return;
    free(b->logits);
    free(b);
}

float *sp_bigram_forward(const sp_bigram *b, float *out, int token) {
    memcpy(out, b->logits + (size_t)token * b->vocab,
           (size_t)b->vocab * sizeof(float));
    return out;
}
