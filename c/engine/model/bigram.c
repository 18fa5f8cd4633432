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
 *                     bytes of one character (well-formed); pieces are
 *                     distinct
 *   ...     0..3      zero padding to a multiple of 4
 *   ...     4*V*V     float32 logits[prev][next] = ln P(next | prev), finite
 *
 * and nothing after.  models/train_bigram.py writes it.
 *
 * Version 2 is the same table without pieces of its own: the model reads
 * text through a llama2.c tokenizer.bin of V pieces given beside it (as a
 * transformer does), so it can speak a transformer's vocabulary:
 *
 *   0       4         magic "SPBG"
 *   4       4         uint32 version (2)
 *   8       4         uint32 vocab V, 2..4096
 *   12      4         uint32 0 (reserved)
 *   16      4*V*V     float32 logits[prev][next] = ln P(next | prev), finite
 *
 * models/train_bible_bigram.py writes one (the King James Bible's bigram,
 * in the default transformer's vocabulary: a draft for speculative decoding).
 */
#include <stdio.h>
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

/* Whether s[0..len) is exactly one well-formed UTF-8 character (no overlong
 * forms, no surrogates, nothing above U+10FFFF). */
static int one_utf8_char(const uint8_t *s, unsigned len) {
    uint8_t c = s[0];
    unsigned need = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2
                  : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4
                  : 0;
    if (need != len) return 0;
    for (unsigned i = 1; i < len; i++)
        if ((s[i] & 0xc0) != 0x80) return 0;
    if (len == 3 && c == 0xe0 && s[1] < 0xa0) return 0; /* overlong */
    if (len == 3 && c == 0xed && s[1] > 0x9f) return 0; /* surrogate */
    if (len == 4 && c == 0xf0 && s[1] < 0x90) return 0; /* overlong */
    if (len == 4 && c == 0xf4 && s[1] > 0x8f) return 0; /* > U+10FFFF */
    return 1;
}

/* Checks that the vocab x vocab logits at data[at..) are all finite. */
static int check_logits(const uint8_t *data, size_t at, uint32_t vocab,
                        char *err) {
    size_t n_logits = (size_t)vocab * vocab; /* <= 2^24: no overflow */
    for (size_t i = 0; i < n_logits; i++) {
        float x;
        memcpy(&x, data + at + 4 * i, 4);
        if (!(x - x == 0.0f))
            return sp_fail(err, SP_ERR_FORMAT, "bigram: logit %zu (row %zu) is "
                           "not finite", i, i / vocab);
    }
    return SP_OK;
}

/* Checks the finite logits at data[at..) and copies them. */
static int read_logits(const uint8_t *data, size_t at, uint32_t vocab,
                       float **out, char *err) {
    size_t n_logits = (size_t)vocab * vocab;
    int rc = check_logits(data, at, vocab, err);
    if (rc != SP_OK) return rc;
    *out = malloc(n_logits * sizeof(float));
    if (!*out) return sp_fail(err, SP_ERR_NOMEM, "bigram: out of memory");
    memcpy(*out, data + at, n_logits * sizeof(float));
    return SP_OK;
}

/* Version 2: the table alone; the tokenizer comes from outside. */
static int load_table_only(sp_model *m, const uint8_t *data, size_t size,
                           uint32_t vocab, uint32_t reserved, char *err) {
    if (reserved != 0)
        return sp_fail(err, SP_ERR_FORMAT, "bigram: version 2 has %u in its "
                       "reserved field (must be 0)", reserved);
    size_t expected = 16 + (size_t)vocab * vocab * 4;
    if (size != expected)
        return sp_fail(err, SP_ERR_FORMAT, "bigram: file has %zu bytes, header "
                       "implies %zu", size, expected);
    sp_bigram *b = calloc(1, sizeof *b);
    if (!b) return sp_fail(err, SP_ERR_NOMEM, "bigram: out of memory");
    int rc = read_logits(data, 16, vocab, &b->logits, err);
    if (rc != SP_OK) {
        free(b);
        return rc;
    }
    b->vocab = (int)vocab;
    m->kind = SP_MODEL_BIGRAM;
    m->vocab = (int)vocab;
    m->seq_len = 0;
    m->bigram = b;
    m->tokenizer = NULL; /* a llama2.c tokenizer.bin goes with it */
    return SP_OK;
}

int sp_bigram_load(sp_model *m, const uint8_t *data, size_t size, char *err) {
    if (size < 16)
        return sp_fail(err, SP_ERR_FORMAT, "bigram: file has %zu bytes, the "
                       "header alone needs 16", size);
    if (!sp_is_bigram(data, size))
        return sp_fail(err, SP_ERR_FORMAT, "bigram: bad magic (expected "
                       "\"SPBG\")");
    uint32_t version = read_u32(data + 4);
    if (version != SP_BIGRAM_VERSION && version != 2)
        return sp_fail(err, SP_ERR_FORMAT, "bigram: version %u is not "
                       "supported (this engine reads versions 1 and 2)",
                       version);
    uint32_t vocab = read_u32(data + 8), boundary = read_u32(data + 12);
    if (vocab < 2 || vocab > BIGRAM_MAX_VOCAB)
        return sp_fail(err, SP_ERR_FORMAT, "bigram: vocab %u is out of range "
                       "(2..%d)", vocab, BIGRAM_MAX_VOCAB);
    if (version == 2) return load_table_only(m, data, size, vocab, boundary,
                                             err);
    if (boundary >= vocab)
        return sp_fail(err, SP_ERR_FORMAT, "bigram: boundary token %u is not "
                       "below vocab %u", boundary, vocab);
    /* Everything is checked before anything is allocated: first the pieces
     * in place, then the size they and the header imply, then the logits. */
    size_t at = 16;
    for (uint32_t i = 0; i < vocab; i++) {
        unsigned len = at < size ? data[at] : 0;
        if (at >= size || (len >= 1 && len > size - at - 1))
            return sp_fail(err, SP_ERR_FORMAT, "bigram: file ends in piece %u "
                           "of %u", i, vocab);
        at++;
        if (len < 1 || len > 4)
            return sp_fail(err, SP_ERR_FORMAT, "bigram: piece %u has length "
                           "%u (a character has 1 to 4 bytes)", i, len);
        if (memchr(data + at, 0, len))
            return sp_fail(err, SP_ERR_FORMAT, "bigram: piece %u contains a "
                           "NUL byte", i);
        if (!one_utf8_char(data + at, len)) {
            char hex[16] = "";
            for (unsigned k = 0; k < len; k++)
                snprintf(hex + (k ? 3 * k - 1 : 0), 4, k ? " %02x" : "%02x",
                         data[at + k]);
            return sp_fail(err, SP_ERR_FORMAT, "bigram: piece %u (bytes %s) "
                           "is not one UTF-8 character", i, hex);
        }
        at += len;
    }
    size_t pieces_end = at;
    at = (at + 3) & ~(size_t)3;
    size_t n_logits = (size_t)vocab * vocab; /* <= 2^24: no overflow */
    size_t expected = at + n_logits * 4;
    if (size != expected)
        return sp_fail(err, SP_ERR_FORMAT, "bigram: file has %zu bytes, header "
                       "implies %zu", size, expected);
    for (size_t i = pieces_end; i < at; i++)
        if (data[i] != 0)
            return sp_fail(err, SP_ERR_FORMAT, "bigram: padding byte %zu is "
                           "not zero", i);
    int checked = check_logits(data, at, vocab, err);
    if (checked != SP_OK) return checked;

    /* the pieces, NUL-terminated, for the tokenizer (which copies them) */
    char *text = malloc(pieces_end - 16); /* per piece: len bytes + NUL */
    const char **pieces = malloc(sizeof(char *) * vocab);
    sp_bigram *b = calloc(1, sizeof *b);
    float *logits = malloc(n_logits * sizeof(float));
    sp_tokenizer *tok = NULL;
    int rc = SP_OK;
    if (!text || !pieces || !b || !logits) {
        rc = sp_fail(err, SP_ERR_NOMEM, "bigram: out of memory");
        goto done;
    }
    size_t text_at = 0;
    at = 16;
    for (uint32_t i = 0; i < vocab; i++) {
        unsigned len = data[at++];
        memcpy(text + text_at, data + at, len);
        text[text_at + len] = '\0';
        pieces[i] = text + text_at;
        text_at += len + 1;
        at += len;
    }
    memcpy(logits, data + ((pieces_end + 3) & ~(size_t)3),
           n_logits * sizeof(float));
    tok = sp_tokenizer_new_chars(pieces, (int)vocab, (int)boundary, err);
    if (!tok) {
        rc = SP_ERR_NOMEM; /* the pieces were checked: only memory is left */
        goto done;
    }
    /* distinct pieces: equal ones are neighbours in the sorted index, the
     * lower id first */
    for (uint32_t i = 1; i < vocab; i++) {
        const sp_token_index *x = &tok->sorted[i - 1], *y = &tok->sorted[i];
        if (strcmp(x->str, y->str) == 0) {
            rc = sp_fail(err, SP_ERR_FORMAT, "bigram: pieces %d and %d are "
                         "the same", x->id, y->id);
            goto done;
        }
    }
done:
    free(text);
    free(pieces);
    if (rc != SP_OK) {
        sp_tokenizer_free(tok);
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

sp_bigram *sp_bigram_copy(const sp_bigram *b) {
    size_t n = (size_t)b->vocab * b->vocab;
    sp_bigram *c = calloc(1, sizeof *c);
    float *logits = malloc(n * sizeof(float));
    if (!c || !logits) {
        free(c);
        free(logits);
        return NULL;
    }
    memcpy(logits, b->logits, n * sizeof(float));
    c->vocab = b->vocab;
    c->logits = logits;
    return c;
}

float *sp_bigram_row(sp_bigram *b, int row) {
    return b->logits + (size_t)row * b->vocab;
}
