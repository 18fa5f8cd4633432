/*
 * train.c — a character bigram trained on a text, in the engine: what
 * models/train_bigram.py does, byte for byte, so the page can train on a
 * learner's own text and the CLI can re-make models/bigram.bin.
 *
 * The text is read as train_bigram.py reads its names list: UTF-8, split
 * into lines as Python's text files split them ("\n", "\r\n" or a lone
 * "\r"), each line stripped of the characters Python's str.strip() takes
 * (str.isspace: ASCII whitespace, U+001C..U+001F, U+0085, U+00A0, U+1680,
 * U+2000..U+200A, U+2028, U+2029, U+202F, U+205F, U+3000), blank lines
 * skipped.  Each line is one "word" framed by the boundary token "\n" (id
 * 0); the other tokens are the characters the stripped lines use, in code
 * point order.  The estimate:
 *
 *   P(b | a) = (count(a, b) + alpha) / (count(a) + alpha * V)
 *
 * in double precision, stored as float32 ln P (the engine's own log, which
 * rounds to the same float32 as Python's math.log on the names list: a test
 * holds it to models/bigram.bin).
 *
 * Streaming: the text is fed in chunks of any size (a chunk may end inside
 * a character or a line), so a front-end can report progress; the counts
 * live in a table over the characters in the order they were met, and are
 * put in code point order at the end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define MAX_CHARS 4095 /* + the boundary: the bigram format's 4096 */
#define HASH_SLOTS 8192 /* > 2 * MAX_CHARS: open addressing stays short */

struct sp_trainer {
    size_t bytes;         /* fed so far */
    uint8_t carry[4];     /* a character cut by the end of a chunk */
    int n_carry;
    int after_cr;         /* the last character was "\r" */
    int in_line;          /* the line has a non-space character */
    int prev;             /* dense id of the line's last counted character */
    uint32_t *spaces;     /* spaces after it, counted if text follows */
    int n_spaces, cap_spaces;
    /* dense ids: 0 = the boundary, then characters in the order met */
    uint32_t code[MAX_CHARS + 1];
    int n;
    int32_t slot_id[HASH_SLOTS]; /* code point -> dense id (-1: empty) */
    uint32_t slot_code[HASH_SLOTS];
    uint32_t *counts;     /* [cap][cap] counts[a * cap + b] */
    int cap;
    int fault;            /* a failed allocation: every call fails */
};

/* Python's str.isspace, for the characters strip() removes. */
static int py_space(uint32_t c) {
    return (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x20) ||
           c == 0x85 || c == 0xa0 || c == 0x1680 ||
           (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 ||
           c == 0x202f || c == 0x205f || c == 0x3000;
}

sp_trainer *sp_trainer_new(char *err) {
    sp_trainer *t = calloc(1, sizeof *t);
    if (t) {
        t->cap = 64;
        t->counts = calloc((size_t)t->cap * t->cap, sizeof(uint32_t));
    }
    if (!t || !t->counts) {
        sp_trainer_free(t);
        sp_fail(err, SP_ERR_NOMEM, "train: out of memory");
        return NULL;
    }
    for (int i = 0; i < HASH_SLOTS; i++) t->slot_id[i] = -1;
    t->n = 1; /* the boundary */
    t->code[0] = '\n';
    return t;
}

void sp_trainer_free(sp_trainer *t) {
    if (!t) return;
    free(t->spaces);
    free(t->counts);
    free(t);
}

/* The dense id of character c, given one if it is new; -1 and a message
 * when the table is full, -2 when memory is. */
static int char_id(sp_trainer *t, uint32_t c, char *err) {
    uint32_t h = (c * 2654435761u) & (HASH_SLOTS - 1);
    while (t->slot_id[h] >= 0) {
        if (t->slot_code[h] == c) return t->slot_id[h];
        h = (h + 1) & (HASH_SLOTS - 1);
    }
    if (t->n > MAX_CHARS) {
        sp_fail(err, SP_ERR_ARG, "train: the text has more than %d different "
                "characters; a bigram holds at most %d", MAX_CHARS, MAX_CHARS);
        return -1;
    }
    if (t->n == t->cap) { /* grow the table, rows keep their counts */
        int cap = t->cap * 2;
        uint32_t *counts = calloc((size_t)cap * cap, sizeof(uint32_t));
        if (!counts) {
            sp_fail(err, SP_ERR_NOMEM, "train: out of memory");
            return -2;
        }
        for (int a = 0; a < t->n; a++)
            memcpy(counts + (size_t)a * cap, t->counts + (size_t)a * t->cap,
                   sizeof(uint32_t) * (size_t)t->n);
        free(t->counts);
        t->counts = counts;
        t->cap = cap;
    }
    t->slot_id[h] = t->n;
    t->slot_code[h] = c;
    t->code[t->n] = c;
    return t->n++;
}

static void count(sp_trainer *t, int a, int b) {
    t->counts[(size_t)a * t->cap + b]++;
}

/* One character of the text. */
static int feed_char(sp_trainer *t, uint32_t c, char *err) {
    int newline = c == '\r' || (c == '\n' && !t->after_cr);
    int cr_lf = c == '\n' && t->after_cr;
    t->after_cr = c == '\r';
    if (cr_lf) return SP_OK; /* the "\n" of "\r\n": one line break */
    if (newline) {
        if (t->in_line) count(t, t->prev, 0);
        t->in_line = 0;
        t->n_spaces = 0; /* trailing spaces: stripped */
        return SP_OK;
    }
    if (py_space(c)) {
        if (!t->in_line) return SP_OK; /* leading spaces: stripped */
        if (t->n_spaces == t->cap_spaces) {
            int cap = t->cap_spaces ? 2 * t->cap_spaces : 64;
            uint32_t *more = realloc(t->spaces, sizeof(uint32_t) * (size_t)cap);
            if (!more) return sp_fail(err, SP_ERR_NOMEM, "train: out of memory");
            t->spaces = more;
            t->cap_spaces = cap;
        }
        t->spaces[t->n_spaces++] = c;
        return SP_OK;
    }
    int prev = t->in_line ? t->prev : 0;
    for (int i = 0; i < t->n_spaces; i++) { /* spaces inside the line */
        int id = char_id(t, t->spaces[i], err);
        if (id < 0) return id == -1 ? SP_ERR_ARG : SP_ERR_NOMEM;
        count(t, prev, id);
        prev = id;
    }
    t->n_spaces = 0;
    int id = char_id(t, c, err);
    if (id < 0) return id == -1 ? SP_ERR_ARG : SP_ERR_NOMEM;
    count(t, prev, id);
    t->prev = id;
    t->in_line = 1;
    return SP_OK;
}

/* Byte length of the UTF-8 character starting with byte b, 0 if none can. */
static int utf8_len(uint8_t b) {
    return b < 0x80 ? 1 : b >= 0xc2 && b <= 0xdf ? 2
         : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
}

/* The code point of a complete character s[0..len), or -1 when it is not
 * well-formed (continuations, overlong forms, surrogates, > U+10FFFF). */
static int32_t utf8_decode(const uint8_t *s, int len) {
    for (int i = 1; i < len; i++)
        if ((s[i] & 0xc0) != 0x80) return -1;
    if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f) ||
        (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] > 0x8f))
        return -1;
    if (len == 1) return s[0];
    int32_t c = s[0] & (0x7f >> len);
    for (int i = 1; i < len; i++) c = c << 6 | (s[i] & 0x3f);
    return c;
}

static int bad_byte(sp_trainer *t, size_t at, uint8_t b, char *err) {
    t->fault = 1;
    if (b == 0)
        return sp_fail(err, SP_ERR_FORMAT, "train: a NUL byte at offset %zu: "
                       "this is a binary file, not text", at);
    return sp_fail(err, SP_ERR_FORMAT, "train: the text is not UTF-8 (byte "
                   "0x%02x at offset %zu); save it as UTF-8 text", b, at);
}

int sp_trainer_feed(sp_trainer *t, const uint8_t *bytes, size_t n,
                    char *err) {
    if (t->fault)
        return sp_fail(err, SP_ERR_STATE, "train: an earlier chunk failed");
    if (n > SP_TRAIN_MAX_BYTES - t->bytes) {
        t->fault = 1;
        return sp_fail(err, SP_ERR_ARG, "train: the text is larger than %d "
                       "MiB; the trainer reads at most %d MiB (a bigram "
                       "learns all it can from far less)",
                       SP_TRAIN_MAX_BYTES >> 20, SP_TRAIN_MAX_BYTES >> 20);
    }
    size_t i = 0;
    while (i < n) {
        size_t at = t->bytes + i; /* offset of the character's first byte */
        uint8_t s[4];
        int have = 0;
        if (t->n_carry) { /* a character the last chunk cut */
            memcpy(s, t->carry, (size_t)t->n_carry);
            have = t->n_carry;
            at -= (size_t)have;
        }
        if (!have) {
            if (bytes[i] == 0) return bad_byte(t, at, 0, err);
            if (bytes[i] < 0x80) { /* ASCII: the common case */
                int rc = feed_char(t, bytes[i], err);
                if (rc != SP_OK) {
                    t->fault = 1;
                    return rc;
                }
                i++;
                continue;
            }
            s[have++] = bytes[i++];
        }
        int len = utf8_len(s[0]);
        if (len == 0) return bad_byte(t, at, s[0], err);
        while (have < len && i < n) s[have++] = bytes[i++];
        if (have < len) { /* the chunk ends inside it */
            memcpy(t->carry, s, (size_t)have);
            t->n_carry = have;
            break;
        }
        t->n_carry = 0;
        int32_t c = utf8_decode(s, len);
        if (c < 0) return bad_byte(t, at, s[0], err);
        int rc = feed_char(t, (uint32_t)c, err);
        if (rc != SP_OK) {
                    t->fault = 1;
                    return rc;
                }
    }
    t->bytes += n;
    return SP_OK;
}

/* keys (code point + 1) << 32 | dense id, the boundary's code 0: sorted,
 * the boundary first and then the characters in code point order */
static int by_key(const void *x, const void *y) {
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

static void put_u32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

int sp_trainer_finish(sp_trainer *t, double alpha, uint8_t **out,
                      size_t *size, char *err) {
    *out = NULL;
    *size = 0;
    if (t->fault)
        return sp_fail(err, SP_ERR_STATE, "train: an earlier chunk failed");
    if (!(alpha > 0 && alpha <= 100))
        return sp_fail(err, SP_ERR_ARG, "train: alpha must be in (0, 100] "
                       "(got %g)", alpha);
    if (t->n_carry)
        return sp_fail(err, SP_ERR_FORMAT, "train: the text is not UTF-8 (it "
                       "ends inside a character, byte 0x%02x at offset %zu)",
                       t->carry[0], t->bytes - (size_t)t->n_carry);
    if (t->in_line) { /* the last line, without its line break */
        count(t, t->prev, 0);
        t->in_line = 0;
    }
    if (t->n < 2)
        return sp_fail(err, SP_ERR_ARG, "train: the text is empty (or only "
                       "spaces and line breaks): there is nothing to learn");
    int v = t->n;
    int *order = malloc(sizeof(int) * (size_t)v);  /* token -> dense id */
    uint64_t *keys = malloc(sizeof(uint64_t) * (size_t)v);
    char *pieces = malloc((size_t)v * 5);
    if (!order || !keys || !pieces) {
        free(order);
        free(keys);
        free(pieces);
        return sp_fail(err, SP_ERR_NOMEM, "train: out of memory");
    }
    for (int i = 0; i < v; i++)
        keys[i] = (uint64_t)(i ? t->code[i] + 1u : 0u) << 32 | (uint32_t)i;
    qsort(keys, (size_t)v, sizeof(uint64_t), by_key);
    for (int i = 0; i < v; i++) order[i] = (int)(keys[i] & 0xffffffffu);
    free(keys);
    /* the header and the pieces */
    size_t at = 16;
    for (int i = 0; i < v; i++) {
        uint32_t c = t->code[order[i]];
        uint8_t *p = (uint8_t *)pieces + (size_t)i * 5;
        p[0] = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
        if (p[0] == 1) p[1] = (uint8_t)c;
        else if (p[0] == 2) {
            p[1] = (uint8_t)(0xc0 | c >> 6);
            p[2] = (uint8_t)(0x80 | (c & 0x3f));
        } else if (p[0] == 3) {
            p[1] = (uint8_t)(0xe0 | c >> 12);
            p[2] = (uint8_t)(0x80 | (c >> 6 & 0x3f));
            p[3] = (uint8_t)(0x80 | (c & 0x3f));
        } else {
            p[1] = (uint8_t)(0xf0 | c >> 18);
            p[2] = (uint8_t)(0x80 | (c >> 12 & 0x3f));
            p[3] = (uint8_t)(0x80 | (c >> 6 & 0x3f));
            p[4] = (uint8_t)(0x80 | (c & 0x3f));
        }
        at += 1 + p[0];
    }
    size_t logits_at = (at + 3) & ~(size_t)3;
    size_t total = logits_at + (size_t)v * v * 4;
    uint8_t *file = calloc(total, 1);
    if (!file) {
        free(order);
        free(pieces);
        return sp_fail(err, SP_ERR_NOMEM, "train: out of memory");
    }
    memcpy(file, SP_BIGRAM_MAGIC, 4);
    put_u32(file + 4, SP_BIGRAM_VERSION);
    put_u32(file + 8, (uint32_t)v);
    put_u32(file + 12, 0);
    at = 16;
    for (int i = 0; i < v; i++) {
        const uint8_t *p = (const uint8_t *)pieces + (size_t)i * 5;
        memcpy(file + at, p, 1 + (size_t)p[0]);
        at += 1 + (size_t)p[0];
    }
    /* the table, as train_bigram.py computes it */
    uint8_t *w = file + logits_at;
    for (int i = 0; i < v; i++) {
        const uint32_t *row = t->counts + (size_t)order[i] * t->cap;
        uint64_t sum = 0;
        for (int j = 0; j < v; j++) sum += row[order[j]];
        double denom = (double)sum + alpha * (double)v;
        for (int j = 0; j < v; j++) {
            float x = (float)sp_log(((double)row[order[j]] + alpha) / denom);
            memcpy(w, &x, 4); /* little-endian, as the loader reads */
            w += 4;
        }
    }
    free(order);
    free(pieces);
    *out = file;
    *size = total;
    return SP_OK;
}

size_t sp_trainer_bytes(const sp_trainer *t) { return t->bytes; }
int sp_trainer_chars(const sp_trainer *t) { return t->n - 1; }
