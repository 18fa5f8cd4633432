/*
 * test_hostile.c — hostile files, bad parameters and long sessions: every
 * malformed case gets its one-line message (checked word for word), nothing
 * crashes, nothing leaks (this test runs under ASan's leak checker).
 *
 *   bigram files, llama2.c checkpoints (each header field, overflowing
 *   sizes, size off by one, non-finite weights, a KV cache the file does
 *   not pay for), tokenizer.bin images (truncations, lengths, scores,
 *   trailing bytes, another model's tokenizer), prompts (invalid UTF-8,
 *   characters outside the vocabulary, very long ones), warp requests,
 *   sampler parameters at and past their limits, sessions at their limits
 *   (context full, finished, rewinds out of range), the CLI's statuses, and
 *   a soak of 100 000 tokens over 1 000 restarts.
 *
 * Usage: test_hostile [repository root]   (default: the current folder)
 * Parts that need ../shared/fixtures/llama2c skip with a message without it.
 */
#define _DEFAULT_SOURCE /* mkdtemp, dup */
#include <float.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../fuzz/build_files.h"
#include "bpe_reference.h"
#include "check.h"
#include "cli.h"
#include "internal.h"
#include "warp_request.h"

static char err[SP_ERR_LEN];
static const char *root = ".";

/* Every message is one line of at most SP_ERR_LEN - 1 bytes. */
static void check_one_line(const char *msg) {
    CHECK(msg[0] != '\0');
    CHECK(strchr(msg, '\n') == NULL);
    CHECK(strchr(msg, '\r') == NULL);
    CHECK(strlen(msg) < SP_ERR_LEN);
}

/* ---- models: load a copy, expect failure with a message ------------------ */

/* Loads a malloc'd copy of data[0..size) through sp_model_load, both owning
 * it and not; expects failure with `needle` in the message. */
static void model_fails(const uint8_t *data, size_t size, const char *needle) {
    for (int own = 0; own < 2; own++) {
        uint8_t *copy = malloc(size ? size : 1);
        if (!copy) abort();
        if (size) memcpy(copy, data, size);
        strcpy(err, "(untouched)");
        sp_model *m = sp_model_load(copy, size, own, err);
        CHECK(m == NULL);
        CHECK_STR_CONTAINS(err, needle);
        check_one_line(err);
        if (m) sp_model_free(m);
        if (!own) free(copy); /* an owned copy is freed by the loader */
    }
}

static sp_model *model_ok(const bb_bytes *b) {
    err[0] = '\0';
    sp_model *m = sp_model_load(bb_copy(b), b->len, 1, err);
    CHECK(m != NULL);
    if (!m) fprintf(stderr, "load: %s\n", err);
    return m;
}

/* ---- bigram --------------------------------------------------------------- */

static void set_u32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }

static void test_bigram_files(void) {
    bb_bytes good = {0};
    bb_bigram(&good, BB_SMALL_BIGRAM_VOCAB, 0, BB_SMALL_BIGRAM_PIECES, 7);
    /* pieces: 1+1, 1+1, 1+1, 1+1, 1+2, 1+3 = 15 bytes from 16: padding 1 */
    CHECK_EQ_INT(good.len, 32 + 36 * 4);
    sp_model *m = model_ok(&good);
    CHECK(m && sp_model_vocab(m) == 6);
    sp_model_free(m);

    bb_bytes b = {0};
    bb_put(&b, good.data, good.len);
    uint8_t *d = b.data;
    /* the magic makes it a bigram, whatever follows */
    model_fails(d, 4, "bigram: file has 4 bytes, the header alone needs 16");
    model_fails(d, 15, "bigram: file has 15 bytes, the header alone needs 16");
    model_fails(d, 3, "checkpoint: file has 3 bytes, shorter than the 28-byte "
                "header");
    static const struct {
        size_t at;
        uint32_t value;
        const char *needle;
    } fields[] = {
        {4, 3, "bigram: version 3 is not supported (this engine reads "
               "versions 1 and 2)"},
        /* version 2 has no pieces: a version 1 file read as one is too long */
        {4, 2, "bigram: file has 176 bytes, header implies 160"},
        {4, 0, "bigram: version 0 is not supported"},
        {8, 0, "bigram: vocab 0 is out of range (2..4096)"},
        {8, 1, "bigram: vocab 1 is out of range (2..4096)"},
        {8, 4097, "bigram: vocab 4097 is out of range (2..4096)"},
        {8, 0xffffffffu, "bigram: vocab 4294967295 is out of range"},
        {12, 6, "bigram: boundary token 6 is not below vocab 6"},
        {12, 0xffffffffu, "bigram: boundary token 4294967295 is not below"},
        /* a vocab the file does not hold: found at once, allocating
         * nothing (a 4096 x 4096 table would be 64 MiB) */
        {8, 4096, "bigram: piece 6 has length 0"},
        {8, 5, "bigram: file has 176 bytes, header implies 128"},
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        memcpy(d, good.data, good.len);
        set_u32(d + fields[i].at, fields[i].value);
        model_fails(d, good.len, fields[i].needle);
    }
    memcpy(d, good.data, good.len);

    /* pieces: length byte of piece 0 at 16, piece 1 at 18 */
    d[16] = 0;
    model_fails(d, good.len, "bigram: piece 0 has length 0 (a character has "
                "1 to 4 bytes)");
    d[16] = 5;
    model_fails(d, good.len, "bigram: piece 0 has length 5");
    d[16] = 255;
    model_fails(d, good.len, "bigram: file ends in piece 0 of 6");
    memcpy(d, good.data, good.len);
    d[19] = 0;
    model_fails(d, good.len, "bigram: piece 1 contains a NUL byte");
    memcpy(d, good.data, good.len);
    d[19] = 0xff;
    model_fails(d, good.len, "bigram: piece 1 (bytes ff) is not one UTF-8 "
                "character");
    d[19] = 0x80; /* a continuation byte alone */
    model_fails(d, good.len, "bigram: piece 1 (bytes 80) is not one UTF-8");
    memcpy(d, good.data, good.len);
    d[25] = 0xc0; /* "é" = c3 a9 -> c0 a9: an overlong form */
    model_fails(d, good.len, "bigram: piece 4 (bytes c0 a9) is not one UTF-8 "
                "character");
    memcpy(d, good.data, good.len);
    d[27] = 2; /* "€" has 3 bytes; declare it 2 (the size still fits) */
    model_fails(d, good.len, "bigram: piece 5 (bytes e2 82) is not one UTF-8");
    memcpy(d, good.data, good.len);
    d[20] = 2;
    d[21] = 'a'; /* piece 2: "a" + ... two characters in one piece */
    model_fails(d, good.len, "is not one UTF-8 character");
    memcpy(d, good.data, good.len);
    d[21] = 'a'; /* piece 2 "b" -> "a": the same as piece 1 */
    model_fails(d, good.len, "bigram: pieces 1 and 2 are the same");
    memcpy(d, good.data, good.len);
    d[31] = 1; /* the padding byte */
    model_fails(d, good.len, "bigram: padding byte 31 is not zero");
    memcpy(d, good.data, good.len);

    /* the size exactly: one byte less, one more, truncated in the pieces */
    model_fails(d, good.len - 1, "bigram: file has 175 bytes, header implies "
                "176");
    bb_put(&b, "\0", 1);
    d = b.data;
    model_fails(d, good.len + 1, "bigram: file has 177 bytes, header implies "
                "176");
    model_fails(d, 16, "bigram: file ends in piece 0 of 6");
    model_fails(d, 25, "bigram: file ends in piece 4 of 6");

    /* logits: NaN, +inf, -inf (the format says finite) */
    float bad[3] = {NAN, INFINITY, -INFINITY};
    for (int k = 0; k < 3; k++) {
        memcpy(d, good.data, good.len);
        memcpy(d + 32 + 4 * 13, &bad[k], 4);
        model_fails(d, good.len, "bigram: logit 13 (row 2) is not finite");
    }
    bb_free(&b);
    bb_free(&good);
}

/* ---- checkpoints ----------------------------------------------------------- */

static void set_i32(uint8_t *p, int field, int32_t v) {
    memcpy(p + 4 * field, &v, 4);
}

static void test_checkpoint_files(void) {
    bb_bytes good = {0};
    bb_checkpoint(&good, BB_TINY, 1, 0.5f);
    size_t size = good.len;
    CHECK_EQ_INT(size, 28 + 4 * bb_checkpoint_floats(BB_TINY));
    sp_model *m = model_ok(&good);
    CHECK(m && sp_model_vocab(m) == BB_TINY_VOCAB && sp_model_seq_len(m) == 8);
    sp_model_free(m);

    uint8_t *d = malloc(size + 8);
    if (!d) abort();
    memcpy(d, good.data, size);
    memset(d + size, 0, 8);
    char needle[160];

    /* each header field: dim 8, hidden 16, layers 2, heads 2, kv 1,
     * vocab 12, seq_len 8 */
    static const struct {
        int field;
        int32_t value;
        const char *needle;
    } cases[] = {
        {0, 0, "checkpoint: dim must be > 0 (got 0)"},
        {0, -8, "checkpoint: dim must be > 0 (got -8)"},
        {0, INT32_MIN, "checkpoint: dim must be > 0 (got -2147483648)"},
        {1, 0, "checkpoint: hidden_dim must be > 0 (got 0)"},
        {1, -1, "checkpoint: hidden_dim must be > 0 (got -1)"},
        {2, 0, "checkpoint: n_layers must be > 0 (got 0)"},
        {2, -2, "checkpoint: n_layers must be > 0 (got -2)"},
        {3, 0, "checkpoint: n_heads must be > 0 (got 0)"},
        {3, -2, "checkpoint: n_heads must be > 0 (got -2)"},
        {3, 3, "checkpoint: n_heads (3) does not divide dim (8)"},
        {3, 16, "checkpoint: n_heads (16) does not divide dim (8)"},
        {3, 8, "checkpoint: n_kv_heads (1) does not divide n_heads (8)"
               /* no: 1 divides 8; head size 1 is odd */},
        {4, 0, "checkpoint: n_kv_heads must be > 0 (got 0)"},
        {4, -1, "checkpoint: n_kv_heads must be > 0 (got -1)"},
        {4, 3, "checkpoint: n_kv_heads (3) does not divide n_heads (2)"},
        {4, 4, "checkpoint: n_kv_heads (4) does not divide n_heads (2)"},
        {5, 0, "checkpoint: vocab_size must be in 1..1000000 in absolute "
               "value (got 0)"},
        {5, 1000001, "checkpoint: vocab_size must be in 1..1000000 in "
                     "absolute value (got 1000001)"},
        {5, -1000001, "(got -1000001)"},
        {5, INT32_MIN, "(got -2147483648)"},
        {5, INT32_MAX, "(got 2147483647)"},
        {6, 0, "checkpoint: seq_len must be > 0 (got 0)"},
        {6, -8, "checkpoint: seq_len must be > 0 (got -8)"},
        {6, 1000001, "checkpoint: seq_len must be in 1..1000000 (got "
                     "1000001)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memcpy(d, good.data, 28);
        set_i32(d, cases[i].field, cases[i].value);
        if (cases[i].field == 3 && cases[i].value == 8)
            model_fails(d, size, "checkpoint: head size 1 (dim 8 / n_heads 8) "
                        "is odd; RoPE rotates pairs");
        else
            model_fails(d, size, cases[i].needle);
    }

    /* header fields whose products overflow 32 (or 64) bits: the size the
     * header implies is computed exactly, or the header is refused */
    static const bb_config big[] = {
        {65536, 65536, 1, 2, 1, 1, 1},       /* dim^2 = 2^32 */
        {1 << 30, 1 << 30, 1 << 30, 2, 1, 1, 1}, /* L dim^2 = 2^90 */
        {2, INT32_MAX, INT32_MAX, 1, 1, 1000000, 1000000},
        {46342, 2, 2, 1, 1, 1000000, 1000000}, /* dim^2 > 2^31 */
        {8, 16, 2, 2, 1, -1000000, 8},       /* an unshared 1M x 8 classifier */
        {1 << 20, 1 << 20, 1 << 20, 1 << 19, 1 << 19, 1000000, 1000000},
    };
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) {
        memcpy(d, &big[i], 28);
        /* the same sum in floating point, to tell which answer is due */
        bb_config c = big[i];
        double D = c.dim, L = c.n_layers, H = c.hidden_dim;
        double KV = D / c.n_heads * c.n_kv_heads;
        double approx = 1e6 * D + 2 * L * D + 2 * L * D * D +
                        2 * L * KV * D + 3 * L * H * D + D +
                        (double)c.seq_len * (D / c.n_heads);
        uint64_t floats = bb_checkpoint_floats(big[i]);
        if (approx > 1152921504606846976.0 /* 2^60 */) {
            model_fails(d, size, "checkpoint: the header's sizes are too "
                        "large");
        } else {
            snprintf(needle, sizeof needle, "checkpoint: file has %zu bytes, "
                     "header implies %llu", size,
                     (unsigned long long)(28 + 4 * floats));
            model_fails(d, size, needle);
        }
    }
    memcpy(d, good.data, 28);

    /* the file size exactly */
    snprintf(needle, sizeof needle, "checkpoint: file has %zu bytes, header "
             "implies %zu", size - 1, size);
    model_fails(d, size - 1, needle);
    snprintf(needle, sizeof needle, "checkpoint: file has %zu bytes, header "
             "implies %zu", size + 1, size);
    model_fails(d, size + 1, needle);
    snprintf(needle, sizeof needle, "checkpoint: file has %zu bytes, header "
             "implies %zu", size / 2, size);
    model_fails(d, size / 2, needle);
    model_fails(d, 27, "checkpoint: file has 27 bytes, shorter than the "
                "28-byte header");
    model_fails(d, 0, "checkpoint: file has 0 bytes");
    /* vocab -12: an unshared classifier the file does not have */
    set_i32(d, 5, -12);
    snprintf(needle, sizeof needle, "checkpoint: file has %zu bytes, header "
             "implies %zu", size, size + 4 * 12 * 8);
    model_fails(d, size, needle);
    memcpy(d, good.data, 28);

    /* non-finite weights: embedding, wq, w2, rms_final (by index) */
    uint64_t V = 12, dim = 8, L = 2, kv = 4, hidden = 16;
    uint64_t wq = V * dim + L * dim;
    uint64_t w2 = wq + 2 * L * dim * dim + 2 * L * kv * dim + L * dim +
                  L * hidden * dim;
    uint64_t rms_final = w2 + 2 * L * hidden * dim;
    static const float nonfinite[3] = {NAN, INFINITY, -INFINITY};
    static const struct {
        uint64_t at;
        const char *needle;
    } where[] = {
        {5, "checkpoint: weight 5 (token_embedding_table) is not finite"},
        {0, "checkpoint: weight 17 (wq) is not finite"},
        {1, "checkpoint: weight 200 (w2) is not finite"},
        {2, "checkpoint: weight 7 (rms_final_weight) is not finite"},
    };
    uint64_t at[4] = {5, wq + 17, w2 + 200, rms_final + 7};
    for (int w = 0; w < 4; w++) {
        for (int k = 0; k < 3; k++) {
            memcpy(d, good.data, size);
            memcpy(d + bb_float_at(at[w]), &nonfinite[k], 4);
            model_fails(d, size, where[w].needle);
        }
    }
    /* the unused freq_cis tables may hold anything (run.c skips them) */
    memcpy(d, good.data, size);
    memcpy(d + size - 4, &nonfinite[0], 4);
    sp_model *ok = sp_model_load(d, size, 0, err);
    CHECK(ok != NULL);
    sp_model_free(ok);
    free(d);

    /* an unshared classifier with a NaN */
    bb_bytes uns = {0};
    bb_config c = BB_TINY;
    c.vocab_size = -12;
    bb_checkpoint(&uns, c, 3, 0.5f);
    m = model_ok(&uns);
    sp_model_free(m);
    memcpy(uns.data + uns.len - 4 * 3, &nonfinite[1], 4);
    model_fails(uns.data, uns.len, "checkpoint: weight 93 (wcls) is not "
                "finite");
    bb_free(&uns);

    /* a KV cache the file does not pay for: 1000 layers of dim 2 and a
     * context of a million: an 8 MB file asking for 15 GiB */
    bb_bytes huge = {0};
    bb_config hc = {2, 1, 1000, 1, 1, 1, 1000000};
    bb_checkpoint(&huge, hc, 4, 0.1f);
    model_fails(huge.data, huge.len, "checkpoint: seq_len 1000000 needs 15263 "
                "MiB of KV cache and activations (n_layers 1000, kv_dim 2, "
                "n_heads 1), more than the 1024 MiB limit");
    bb_free(&huge);
    /* ... while a long context with a cache that fits loads */
    bb_config lc = {8, 8, 1, 2, 1, 4, 100000};
    bb_checkpoint(&huge, lc, 4, 0.1f);
    m = model_ok(&huge);
    sp_model_free(m);
    bb_free(&huge);
    bb_free(&good);
}

/* ---- tokenizer.bin ------------------------------------------------------------ */

static void tokenizer_fails(const uint8_t *data, size_t size, int vocab,
                            const char *needle) {
    strcpy(err, "(untouched)");
    sp_tokenizer *t = sp_tokenizer_load(data, size, vocab, err);
    CHECK(t == NULL);
    CHECK_STR_CONTAINS(err, needle);
    check_one_line(err);
    sp_tokenizer_free(t);
}

static void test_tokenizer_files(void) {
    bb_bytes good = {0};
    bb_tiny_tokenizer(&good);
    sp_tokenizer *t = sp_tokenizer_load(good.data, good.len, 0, err);
    CHECK(t != NULL);
    CHECK(t && t->vocab == BB_TINY_VOCAB && t->bos == 1 && t->eos == 2);
    sp_tokenizer_free(t);
    t = sp_tokenizer_load(good.data, good.len, BB_TINY_VOCAB, err);
    CHECK(t != NULL);
    sp_tokenizer_free(t);

    size_t size = good.len;
    char needle[200];
    uint8_t *d = malloc(size + 64);
    if (!d) abort();
    memcpy(d, good.data, size);
    memset(d + size, 0x55, 64);
    /* piece 0 "<unk>": score at 4, length at 8, bytes at 12..17; piece 1 at
     * 17 */
    tokenizer_fails(d, 0, 0, "tokenizer: file has 0 bytes, shorter than its "
                    "4-byte header");
    tokenizer_fails(d, 3, 0, "tokenizer: file has 3 bytes");
    tokenizer_fails(d, 4, 0, "tokenizer: the file has no pieces");
    tokenizer_fails(d, 9, 0, "tokenizer: truncated at piece 0 (byte 4 of 9): "
                    "no room for its score and length");
    tokenizer_fails(d, 14, 0, "tokenizer: truncated in piece 0: 5 bytes "
                    "declared, 2 left");
    tokenizer_fails(d, 17 + 6, 0, "tokenizer: truncated at piece 1");
    tokenizer_fails(d, size - 1, 0, "tokenizer: truncated in piece 11: 3 "
                    "bytes declared, 2 left");
    /* trailing bytes */
    snprintf(needle, sizeof needle, "tokenizer: truncated at piece 12 (byte "
             "%zu of %zu): no room for its score and length", size, size + 3);
    tokenizer_fails(d, size + 3, 0, needle);
    tokenizer_fails(d, size + 3, 12, "tokenizer: 3 bytes of trailing data "
                    "after the 12 pieces");
    /* 8 more bytes read as a 13th piece: score 0x55555555, length huge */
    tokenizer_fails(d, size + 12, 0, "tokenizer: piece 12 has length "
                    "1431655765 (must be in 1..6, the file's "
                    "max_token_length)");
    /* another model's tokenizer: the counts disagree, and it says so */
    tokenizer_fails(d, size, 11, "tokenizer: 11 bytes of trailing data after "
                    "the 11 pieces (the file has 12 pieces, the model 11 "
                    "logits: not its tokenizer)");
    snprintf(needle, sizeof needle, "tokenizer: truncated at piece 12 (byte "
             "%zu of %zu): no room for its score and length (the file has 12 "
             "pieces, the model 13 logits: not its tokenizer)", size, size);
    tokenizer_fails(d, size, 13, needle);
    tokenizer_fails(d, size, 1000001, "(the file has 12 pieces, the model "
                    "1000001 logits");

    /* lengths: negative, zero, past max_token_length, past the end */
    static const struct {
        int32_t len;
        const char *needle;
    } lens[] = {
        {-1, "tokenizer: piece 0 has length -1 (must be in 1..6"},
        {INT32_MIN, "tokenizer: piece 0 has length -2147483648"},
        {0, "tokenizer: piece 0 has length 0 (must be in 1..6"},
        {7, "tokenizer: piece 0 has length 7 (must be in 1..6"},
        {INT32_MAX, "tokenizer: piece 0 has length 2147483647"},
    };
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        memcpy(d, good.data, size);
        memcpy(d + 8, &lens[i].len, 4);
        tokenizer_fails(d, size, 0, lens[i].needle);
    }
    /* max_token_length large enough that the length passes, the bytes are
     * not there */
    memcpy(d, good.data, size);
    int32_t v = 65536, len = 60000;
    memcpy(d, &v, 4);
    memcpy(d + 8, &len, 4);
    snprintf(needle, sizeof needle, "tokenizer: truncated in piece 0: 60000 "
             "bytes declared, %zu left", size - 12);
    tokenizer_fails(d, size, 0, needle);
    static const int32_t max_lens[] = {0, -5, 65537, INT32_MIN, INT32_MAX};
    for (size_t i = 0; i < sizeof max_lens / sizeof max_lens[0]; i++) {
        memcpy(d, good.data, size);
        memcpy(d, &max_lens[i], 4);
        snprintf(needle, sizeof needle, "tokenizer: max_token_length must be "
                 "in 1..65536 (got %d)", (int)max_lens[i]);
        tokenizer_fails(d, size, 0, needle);
    }
    /* scores: NaN, +inf, -inf */
    static const float nonfinite[3] = {NAN, INFINITY, -INFINITY};
    for (int k = 0; k < 3; k++) {
        memcpy(d, good.data, size);
        memcpy(d + 17, &nonfinite[k], 4);
        tokenizer_fails(d, size, 0, "tokenizer: piece 1 has a score that is "
                        "not finite");
    }
    /* a NUL inside a piece */
    memcpy(d, good.data, size);
    d[13] = 0;
    tokenizer_fails(d, size, 0, "tokenizer: piece 0 contains a NUL byte");
    free(d);

    /* duplicate pieces are allowed; the lowest id wins a lookup */
    bb_bytes dup = {0};
    static const char *const dup_pieces[] = {"<unk>", "<s>", "</s>", "a", "a",
                                             " ", "a", "aa"};
    bb_tokenizer(&dup, 5, 8, dup_pieces, NULL);
    t = sp_tokenizer_load(dup.data, dup.len, 0, err);
    CHECK(t != NULL);
    if (t) {
        CHECK_EQ_INT(sp_tokenizer_lookup(t, "a", 1), 3);
        int ids[8];
        CHECK_EQ_INT(sp_encode(t, "aaa", 1, 1, ids, 8, err), 5);
        CHECK_EQ_INT(ids[0], 1);
        CHECK_EQ_INT(ids[1], 5); /* " " */
        CHECK_EQ_INT(ids[2], 7); /* "aa" */
        CHECK_EQ_INT(ids[3], 3); /* "a" */
        CHECK_EQ_INT(ids[4], 2);
        sp_tokenizer_free(t);
    }
    bb_free(&dup);
    /* a one-piece tokenizer: no BOS, no EOS */
    bb_bytes one = {0};
    static const char *const one_piece[] = {"x"};
    bb_tokenizer(&one, 1, 1, one_piece, NULL);
    t = sp_tokenizer_load(one.data, one.len, 0, err);
    CHECK(t != NULL);
    if (t) {
        int ids[4];
        CHECK_EQ_INT(sp_encode(t, "x", 1, 0, ids, 4, err), -1);
        CHECK_STR_CONTAINS(err, "prompt: the tokenizer has no BOS token");
        CHECK_EQ_INT(sp_encode(t, "x", 0, 1, ids, 4, err), -1);
        CHECK_STR_CONTAINS(err, "prompt: the tokenizer has no EOS token");
        sp_tokenizer_free(t);
    }
    bb_free(&one);
    bb_free(&good);
}

/* ---- prompts --------------------------------------------------------------- */


static void test_prompts(void) {
    bb_bytes tb = {0};
    bb_tiny_tokenizer(&tb);
    sp_tokenizer *t = sp_tokenizer_load(tb.data, tb.len, 0, err);
    CHECK(t != NULL);
    if (!t) return;
    int ids[64];

    /* characters outside the vocabulary, with and without byte fallback;
     * the message shows control characters escaped: still one line */
    CHECK_EQ_INT(sp_encode(t, "ab\nc", 1, 0, ids, 64, err), 5);
    CHECK_EQ_INT(ids[3], 9); /* "\n" -> <0x0A> */
    CHECK_EQ_INT(sp_encode(t, "a\tb", 1, 0, ids, 64, err), -1);
    CHECK_STR_CONTAINS(err, "prompt: the character '\\t' (byte offset 1) is "
                       "not in the model's vocabulary");
    check_one_line(err);
    CHECK_EQ_INT(sp_encode(t, "a\rb", 1, 0, ids, 64, err), -1);
    CHECK_STR_CONTAINS(err, "the character '\\r' (byte offset 1)");
    CHECK_EQ_INT(sp_encode(t, "\x1b[2J", 1, 0, ids, 64, err), -1);
    CHECK_STR_CONTAINS(err, "the character '\\x1b' (byte offset 0)");
    /* invalid UTF-8: byte fallback as in run.c where there is one */
    CHECK_EQ_INT(sp_encode(t, "a\xff", 1, 0, ids, 64, err), 3);
    CHECK_EQ_INT(ids[1], 8); /* " a" */
    CHECK_EQ_INT(ids[2], 10);
    CHECK_EQ_INT(sp_encode(t, "a\xfe", 1, 0, ids, 64, err), -1);
    CHECK_STR_CONTAINS(err, "the character '\\xfe' (byte offset 1)");
    CHECK_EQ_INT(sp_encode(t, "\xc3\x28", 1, 0, ids, 64, err), -1);
    CHECK_STR_CONTAINS(err, "the character '\\xc3' (byte offset 0)");
    CHECK_EQ_INT(sp_encode(t, "\xe2\x80\xa8", 1, 0, ids, 64, err), -1);
    CHECK_STR_CONTAINS(err, "the character '\\xe2\\x80\\xa8' (byte offset 0)");
    CHECK_EQ_INT(sp_encode(t, "\xc3\xa9", 1, 0, ids, 64, err), -1);
    CHECK_STR_CONTAINS(err, "the character '\xc3\xa9' (byte offset 0)");
    /* too many tokens for the room given */
    CHECK_EQ_INT(sp_encode(t, "abcabc", 1, 1, ids, 3, err), -1);
    CHECK_STR_CONTAINS(err, "prompt: more than 3 tokens");
    CHECK_EQ_INT(sp_encode(t, "", 1, 1, ids, 2, err), 2);

    /* the heap-based merges pick what run.c's scan picks: random strings
     * over the tokenizer's characters */
    uint32_t x = 12345;
    static const char alphabet[] = "abc \n\xff";
    int *a = malloc(sizeof(int) * 300), *b = malloc(sizeof(int) * 300);
    char text[256];
    for (int round = 0; round < 3000; round++) {
        int n = (int)(x % 40);
        for (int i = 0; i < n; i++) {
            x = x * 1664525u + 1013904223u;
            text[i] = alphabet[(x >> 16) % 6];
        }
        text[n] = '\0';
        x = x * 1664525u + 1013904223u;
        int got = sp_encode(t, text, (int)(x >> 31), 0, a, 300, err);
        int want = reference_encode(t, text, (int)(x >> 31), 0, b);
        CHECK_EQ_INT(got, want);
        if (got == want && got > 0 && memcmp(a, b, sizeof(int) * got)) {
            CHECK(!"heap merges differ from run.c's");
            fprintf(stderr, "text: \"%s\"\n", text);
            break;
        }
    }
    free(a);
    free(b);

    /* a long prompt: a megabyte of "ab" merges in O(n log n) */
    size_t big = 1 << 20;
    char *long_text = malloc(big + 1);
    int *long_ids = malloc(sizeof(int) * (big + 3));
    for (size_t i = 0; i < big; i++) long_text[i] = "abc"[i % 3];
    long_text[big] = '\0';
    clock_t t0 = clock();
    int n = sp_encode(t, long_text, 1, 0, long_ids, (int)big + 3, err);
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    CHECK_EQ_INT(n, 2 + (int)(big / 3) + 1); /* BOS, " ", "abc"..., "a" */
    fprintf(stderr, "1 MiB prompt: %d tokens in %.2f s\n", n, secs);
    CHECK(secs < 10.0);
    free(long_text);
    free(long_ids);
    /* past the limit: refused before any work */
    size_t huge = (1 << 24) + 1;
    char *huge_text = malloc(huge + 1);
    memset(huge_text, 'a', huge);
    huge_text[huge] = '\0';
    CHECK_EQ_INT(sp_encode(t, huge_text, 1, 0, ids, 64, err), -1);
    CHECK_STR_CONTAINS(err, "prompt: 16777217 bytes is too long (at most "
                       "16777216)");
    free(huge_text);
    sp_tokenizer_free(t);
    bb_free(&tb);

    /* the bigram's character tokenizer */
    bb_bytes bg = {0};
    bb_bigram(&bg, BB_SMALL_BIGRAM_VOCAB, 0, BB_SMALL_BIGRAM_PIECES, 7);
    sp_model *m = model_ok(&bg);
    bb_free(&bg);
    if (!m) return;
    const sp_tokenizer *ct = sp_model_tokenizer(m);
    CHECK_EQ_INT(sp_encode(ct, "a b\xc3\xa9\xe2\x82\xac", 0, 0, ids, 64, err),
                 5);
    CHECK_EQ_INT(sp_encode(ct, "ab\xff", 0, 0, ids, 64, err), -1);
    CHECK_STR_CONTAINS(err, "prompt: invalid UTF-8 at byte offset 2 (byte "
                       "0xff)");
    CHECK_EQ_INT(sp_encode(ct, "a\xc3", 0, 0, ids, 64, err), -1);
    CHECK_STR_CONTAINS(err, "prompt: invalid UTF-8 at byte offset 1 (byte "
                       "0xc3)");
    CHECK_EQ_INT(sp_encode(ct, "\xed\xa0\x80", 0, 0, ids, 64, err), -1);
    CHECK_STR_CONTAINS(err, "prompt: invalid UTF-8 at byte offset 0 (byte "
                       "0xed)");
    CHECK_EQ_INT(sp_encode(ct, "\xc0\x80", 0, 0, ids, 64, err), -1);
    CHECK_STR_CONTAINS(err, "invalid UTF-8 at byte offset 0 (byte 0xc0)");
    CHECK_EQ_INT(sp_encode(ct, "a\tb", 0, 0, ids, 64, err), -1);
    CHECK_STR_CONTAINS(err, "prompt: the character '\\t' (byte offset 1) is "
                       "not in the model's vocabulary");
    check_one_line(err);
    CHECK_EQ_INT(sp_encode(ct, "\xc2\x85", 0, 0, ids, 64, err), -1);
    CHECK_STR_CONTAINS(err, "the character '\\xc2\\x85' (byte offset 0)");
    CHECK_EQ_INT(sp_encode(ct, "abab", 1, 1, ids, 4, err), -1);
    CHECK_STR_CONTAINS(err, "prompt: more than 4 tokens");
    sp_model_free(m);
}

/* ---- warp requests and parameters -------------------------------------------- */

static void request_fails(const char *text, const char *needle) {
    float *logits = NULL;
    int *history = NULL, nl = -1, nh = -1;
    strcpy(err, "(untouched)");
    sp_params rp;
    sp_params_default(&rp);
    int rc = sp_parse_warp_request(text, strlen(text), &logits, &nl, &history,
                                   &nh, &rp, err);
    CHECK_EQ_INT(rc, SP_ERR_FORMAT);
    CHECK_STR_CONTAINS(err, needle);
    check_one_line(err);
    if (rc == SP_OK) {
        free(logits);
        free(history);
    }
}

static void test_requests(void) {
    request_fails("", "request: expected '{' at byte 0");
    request_fails("   ", "request: expected '{' at byte 3");
    request_fails("[1, 2]", "expected '{' at byte 0");
    request_fails("{}", "request: \"logits\" is missing or empty");
    request_fails("{\"logits\": []}", "\"logits\" is missing or empty");
    request_fails("{\"history\": [0]}", "\"logits\" is missing or empty");
    request_fails("{\"logits\": [1], \"histroy\": [0]}",
                  "request: unknown or repeated key \"histroy\" at byte 26");
    request_fails("{\"logits\": [1], \"logits\": [2]}",
                  "unknown or repeated key \"logits\"");
    request_fails("{\"lo\ngits\": [1]}", "unknown or repeated key \"lo\\x0agits\"");
    request_fails("{\"a-very-long-key-that-goes-on-and-on\": 1}",
                  "request: unexpected string at byte");
    request_fails("{\"logits\": [1, 2", "request: expected ',' or ']' at byte "
                  "16");
    request_fails("{\"logits\": [1, 2]", "expected ',' or '}' at byte 17");
    request_fails("{\"logits\": [1, 2]} x", "unexpected text after the object "
                  "at byte 19");
    request_fails("{\"logits\": [1, 2]}{}", "unexpected text after the object");
    request_fails("{\"logits\": [[1]]}", "request: expected a number at byte "
                  "12");
    request_fails("{\"logits\": [{}]}", "expected a number");
    request_fails("{\"logits\": [NaN]}", "expected a number");
    request_fails("{\"logits\": [Infinity]}", "expected a number");
    request_fails("{\"logits\": [\"inf\"]}", "the only string allowed here is "
                  "\"-inf\"");
    request_fails("{\"logits\": [\"-inf]}", "unterminated string");
    request_fails("{\"logits\": [1e39]}", "logits[0] is out of float range");
    request_fails("{\"logits\": [0, -1e39]}", "logits[1] is out of float "
                  "range");
    request_fails("{\"logits\": [1.]}", "request: bad number");
    request_fails("{\"logits\": [1e]}", "bad number");
    request_fails("{\"logits\": [-]}", "expected a number");
    request_fails("{\"logits\": [0.0000000000000000000000000000000000000000000"
                  "00000000000000000001]}", "number too long");
    request_fails("{\"logits\": [1, 2], \"history\": [2]}",
                  "request: history[0] = 2 is not a token id in 0..1");
    request_fails("{\"logits\": [1, 2], \"history\": [-1]}",
                  "history[0] = -1 is not a token id");
    request_fails("{\"logits\": [1, 2], \"history\": [0, 0.5]}",
                  "history[1] = 0.5 is not a token id");
    request_fails("{\"logits\": [1, 2], \"history\": [2147483648]}",
                  "history[0] = 2.14748365e+09 is not a token id");
    request_fails("{\"logits\": [1, 2], \"history\": [\"-inf\"]}",
                  "expected a number");
    request_fails("{\"logits\": [1, 2], \"history\": [null]}",
                  "expected a number");
    /* deeply odd: a thousand brackets, a megabyte of whitespace */
    char *deep = malloc(20000);
    strcpy(deep, "{\"logits\": ");
    for (int i = 0; i < 10000; i++) strcat(deep + 11 + i, "[");
    request_fails(deep, "expected a number at byte 12");
    free(deep);
    size_t ws = 1 << 20;
    char *spaced = malloc(ws + 64);
    memset(spaced, ' ', ws);
    strcpy(spaced + ws, "{\"logits\": [1, \"-inf\", null]}");
    float *logits = NULL;
    int *history = NULL, nl = 0, nh = 0;
    sp_params rp;
    sp_params_default(&rp);
    CHECK_EQ_INT(sp_parse_warp_request(spaced, strlen(spaced), &logits, &nl,
                                       &history, &nh, &rp, err), SP_OK);
    CHECK_EQ_INT(nl, 3);
    CHECK(logits && logits[1] == -INFINITY && logits[2] == -INFINITY);
    free(logits);
    free(history);
    free(spaced);
    /* not NUL-terminated: the length rules */
    CHECK_EQ_INT(sp_parse_warp_request("{\"logits\": [7]}xyz", 15, &logits,
                                       &nl, &history, &nh, &rp, err), SP_OK);
    CHECK_EQ_INT(nl, 1);
    free(logits);
    free(history);
    /* a million items are the most; one more is refused */
    size_t items = 1000001;
    char *many = malloc(items * 2 + 32);
    strcpy(many, "{\"logits\": [");
    char *p = many + strlen(many);
    for (size_t i = 0; i < items; i++) {
        *p++ = '0';
        *p++ = ',';
    }
    p[-1] = ']';
    *p++ = '}';
    *p = '\0';
    request_fails(many, "request: more than 1000000 items");
    free(many);
}

/* Runs the pipeline on logits[n]; returns the rc, err set. */
static int warp(const float *logits, int n, const int *history, int nh,
                const sp_params *p, sp_step *st) {
    sp_sampler *s = sp_sampler_new(n);
    CHECK(s != NULL);
    if (!s) return -1;
    int rc = sp_sampler_warp(s, logits, history, nh, p, st, err);
    if (rc == SP_OK) {
        double sum = 0;
        for (int i = 0; i < n; i++) {
            CHECK(st->probs[i] >= 0.0f && st->probs[i] <= 1.0f);
            sum += st->probs[i];
        }
        CHECK_NEAR(sum, 1.0, 1e-5);
        CHECK_EQ_INT(sp_sampler_draw(st, 0.999999), SP_OK);
        CHECK(st->token >= 0 && st->token < n && st->probs[st->token] > 0.0f);
        CHECK_EQ_INT(sp_sampler_draw(st, 0.0), SP_OK);
        CHECK(st->probs[st->token] > 0.0f);
        CHECK(sp_sampler_draw(st, 1.0) != SP_OK);
        CHECK(sp_sampler_draw(st, NAN) != SP_OK);
        CHECK(sp_sampler_draw(st, -0.5) != SP_OK);
    } else {
        check_one_line(err);
    }
    sp_sampler_free(s);
    return rc;
}

static void params_fail(const sp_params *p, const char *needle) {
    strcpy(err, "(untouched)");
    CHECK_EQ_INT(sp_params_check(p, 4, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, needle);
    check_one_line(err);
}

static void test_params(void) {
    sp_params p;
    sp_step st;
    float logits[4] = {1, 2, 3, 4};
    float inf = INFINITY, nan = NAN;

#define BAD(field, value, needle)                                          \
    do {                                                                   \
        sp_params_default(&p);                                             \
        p.field = value;                                                   \
        params_fail(&p, needle);                                           \
        CHECK_EQ_INT(warp(logits, 4, NULL, 0, &p, &st), SP_ERR_ARG);       \
    } while (0)
    BAD(temperature, nan, "temperature must be a finite number >= 0 (got "
                          "nan)");
    BAD(temperature, inf, "temperature must be a finite number >= 0 (got "
                          "inf)");
    BAD(temperature, -1e-30f, "temperature must be");
    BAD(top_k, -1, "top-k must be >= 0 (got -1)");
    BAD(top_k, INT_MIN, "top-k must be >= 0 (got -2147483648)");
    BAD(top_p, 0.0f, "top-p must be in (0, 1] (got 0)");
    BAD(top_p, nan, "top-p must be in (0, 1] (got nan)");
    BAD(top_p, 1.0000001f, "top-p must be in (0, 1]");
    BAD(min_p, -0.1f, "min-p must be in [0, 1] (got -0.1");
    BAD(min_p, nan, "min-p must be in [0, 1] (got nan)");
    BAD(typical_p, 0.0f, "typical-p must be in (0, 1] (got 0)");
    BAD(typical_p, -inf, "typical-p must be in (0, 1] (got -inf)");
    BAD(repetition_penalty, 0.0f, "repetition-penalty must be a finite number "
                                  "> 0 (got 0)");
    BAD(repetition_penalty, inf, "repetition-penalty must be");
    BAD(repetition_penalty, nan, "repetition-penalty must be");
    BAD(frequency_penalty, nan, "frequency-penalty must be a finite number "
                                "(got nan)");
    BAD(presence_penalty, -inf, "presence-penalty must be a finite number "
                                "(got -inf)");
    BAD(penalty_last_n, -1, "penalty-last-n must be >= 0 (got -1)");
    BAD(n_bias, -1, "logit-bias: at most 256 entries (got -1)");
    BAD(n_bias, SP_MAX_BIAS + 1, "logit-bias: at most 256 entries (got 257)");
#undef BAD
    sp_params_default(&p);
    p.n_bias = 1;
    p.bias[0].token = INT_MAX;
    p.bias[0].value = 1.0f;
    params_fail(&p, "logit-bias token 2147483647 is outside the vocabulary "
                "(0..3)");
    p.bias[0].token = -1;
    params_fail(&p, "logit-bias token -1 is outside the vocabulary (0..3)");
    p.bias[0].token = 2;
    p.bias[0].value = nan;
    params_fail(&p, "logit-bias value for token 2 must be a finite number or "
                "-inf (got nan)");
    p.bias[0].value = inf;
    params_fail(&p, "logit-bias value for token 2 must be a finite number or "
                "-inf (got inf)");
    /* the front-ends append through the engine, which says when it is full */
    sp_params_default(&p);
    for (int i = 0; i < SP_MAX_BIAS; i++)
        CHECK_EQ_INT(sp_params_add_bias(&p, i % 4, 1.0f, err), SP_OK);
    CHECK_EQ_INT(sp_params_add_bias(&p, 0, 1.0f, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "logit-bias: at most 256 entries");
    CHECK_EQ_INT(p.n_bias, SP_MAX_BIAS);
    CHECK_EQ_INT(sp_params_check(&p, 4, err), SP_OK);
    /* so do the decoding strategies' settings, before any model is there */
    CHECK_EQ_INT(sp_beam_check_width(0, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "beams must be in 1..64 (got 0)");
    CHECK_EQ_INT(sp_beam_check_width(64, err), SP_OK);
    CHECK_EQ_INT(sp_beam_check_length_penalty(10.000001, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "length-penalty must be in [0, 10] (got 10)");
    CHECK_EQ_INT(sp_beam_check_length_penalty(nan, err), SP_ERR_ARG);
    CHECK_EQ_INT(sp_beam_check_length_penalty(0, err), SP_OK);
    CHECK_EQ_INT(sp_spec_check_draft(17, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "speculate must be in 1..16 (got 17)");
    CHECK_EQ_INT(sp_spec_check_draft(16, err), SP_OK);

    /* at their limits: still a distribution, never NaN */
    static const struct {
        float t, rep, freq, pres, top_p, min_p, typ;
        int top_k, last_n;
    } edge[] = {
        {FLT_MIN, 1, 0, 0, 1, 0, 1, 0, 0},
        {1e-45f, 1, 0, 0, 1, 0, 1, 0, 0},
        {FLT_MAX, 1, 0, 0, 1, 0, 1, 0, 0},
        {0, FLT_MAX, FLT_MAX, FLT_MAX, 1e-45f, 1, 1e-45f, INT_MAX, INT_MAX},
        {1, 1e-45f, -FLT_MAX, -FLT_MAX, 1, 0, 1, 1, 1},
        {1e-30f, FLT_MIN, FLT_MAX, -FLT_MAX, 0.5f, 0.5f, 0.5f, 3, 2},
        {1e30f, 1, 0, 0, 1e-45f, 1e-45f, 1, 2, 0},
    };
    int history[6] = {3, 3, 2, 0, 3, 1};
    float extreme[4] = {FLT_MAX, -FLT_MAX, 0, FLT_MAX};
    float masked[4] = {-INFINITY, 5, -INFINITY, -FLT_MAX};
    for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++) {
        sp_params_default(&p);
        p.temperature = edge[i].t;
        p.repetition_penalty = edge[i].rep;
        p.frequency_penalty = edge[i].freq;
        p.presence_penalty = edge[i].pres;
        p.top_p = edge[i].top_p;
        p.min_p = edge[i].min_p;
        p.typical_p = edge[i].typ;
        p.top_k = edge[i].top_k;
        p.penalty_last_n = edge[i].last_n;
        p.n_bias = 2;
        p.bias[0] = (sp_bias){1, FLT_MAX};
        p.bias[1] = (sp_bias){3, -FLT_MAX};
        CHECK_EQ_INT(warp(logits, 4, history, 6, &p, &st), SP_OK);
        CHECK_EQ_INT(warp(extreme, 4, history, 6, &p, &st), SP_OK);
        CHECK_EQ_INT(warp(masked, 4, history, 6, &p, &st), SP_OK);
    }

    /* non-finite logits: reported, never sampled */
    sp_params_default(&p);
    float with_nan[4] = {1, NAN, 2, 3}, with_inf[4] = {1, 2, INFINITY, 3};
    CHECK_EQ_INT(warp(with_nan, 4, NULL, 0, &p, &st), SP_ERR_FORMAT);
    CHECK_STR_CONTAINS(err, "logits: token 1 is NaN; the model's output is "
                       "not finite");
    CHECK_EQ_INT(warp(with_inf, 4, NULL, 0, &p, &st), SP_ERR_FORMAT);
    CHECK_STR_CONTAINS(err, "logits: token 2 is +inf");
    /* all masked */
    float none[4] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY};
    CHECK_EQ_INT(warp(none, 4, NULL, 0, &p, &st), SP_ERR_STATE);
    CHECK_STR_CONTAINS(err, "logits: every token is masked (-inf)");
    /* every token banned */
    p.n_bias = 4;
    for (int i = 0; i < 4; i++) p.bias[i] = (sp_bias){i, -INFINITY};
    CHECK_EQ_INT(warp(logits, 4, NULL, 0, &p, &st), SP_ERR_STATE);
    CHECK_STR_CONTAINS(err, "no token left: every token is banned");
    /* history ids out of range, seen by the penalties */
    sp_params_default(&p);
    p.repetition_penalty = 1.5f;
    int bad_history[3] = {0, 4, 1};
    CHECK_EQ_INT(warp(logits, 4, bad_history, 3, &p, &st), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "history token 4 is outside the vocabulary (0..3)");
    bad_history[1] = INT_MIN;
    CHECK_EQ_INT(warp(logits, 4, bad_history, 3, &p, &st), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "history token -2147483648 is outside");
    /* ... outside the penalty window they are not read */
    p.penalty_last_n = 1;
    CHECK_EQ_INT(warp(logits, 4, bad_history, 3, &p, &st), SP_OK);
    CHECK_EQ_INT(warp(logits, 4, bad_history, -1, &p, &st), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "history: bad length -1");
    CHECK(sp_sampler_new(0) == NULL);
    CHECK(sp_sampler_new(-5) == NULL);
}

/* ---- sessions ----------------------------------------------------------------- */

typedef struct {
    sp_model *model;
    sp_tokenizer *tok;
} tiny_pair;

static tiny_pair tiny_load(uint32_t seed, float scale) {
    tiny_pair tp = {NULL, NULL};
    bb_bytes mb = {0}, tb = {0};
    bb_checkpoint(&mb, BB_TINY, seed, scale);
    bb_tiny_tokenizer(&tb);
    tp.model = model_ok(&mb);
    tp.tok = sp_tokenizer_load(tb.data, tb.len, BB_TINY_VOCAB, err);
    CHECK(tp.tok != NULL);
    bb_free(&mb);
    bb_free(&tb);
    return tp;
}

static void tiny_free(tiny_pair *tp) {
    sp_tokenizer_free(tp->tok);
    sp_model_free(tp->model);
}

static void test_sessions(void) {
    tiny_pair tp = tiny_load(1, 0.5f);
    if (!tp.model || !tp.tok) {
        tiny_free(&tp);
        return;
    }
    sp_params p;
    sp_params_default(&p);
    /* BOS and EOS banned: the text runs until the context is full */
    p.n_bias = 2;
    p.bias[0] = (sp_bias){1, -INFINITY};
    p.bias[1] = (sp_bias){2, -INFINITY};

    sp_session *s = sp_session_new(tp.model, tp.tok, err);
    CHECK(s != NULL);
    if (!s) {
        tiny_free(&tp);
        return;
    }
    /* before start */
    CHECK_EQ_INT(sp_session_step(s, &p, -1, err), SP_ERR_STATE);
    CHECK_STR_CONTAINS(err, "session: not started");
    CHECK_EQ_INT(sp_session_preview(s, &p, err), SP_ERR_STATE);
    CHECK_EQ_INT(sp_session_rewind(s, 0, err), SP_ERR_STATE);
    CHECK_STR_CONTAINS(err, "session: not started");

    /* prompts that do not fit the context of 8 */
    CHECK_EQ_INT(sp_session_start(s, "abcabcabcabcabcabcabc", 1, err),
                 SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "prompt: 9 tokens leave no room in the model's "
                       "context of 8");
    CHECK_EQ_INT(sp_session_step(s, &p, -1, err), SP_ERR_STATE);
    CHECK_STR_CONTAINS(err, "session: not started");
    CHECK_EQ_INT(sp_session_start(s, "a\tb", 1, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "the character '\\t'");

    /* context full: 3 prompt tokens (BOS, " ", "ab"), 5 generated, then a
     * clean stop, again and again */
    CHECK_EQ_INT(sp_session_start(s, "ab", UINT64_MAX, err), SP_OK);
    CHECK_EQ_INT(sp_session_n_prompt(s), 3);
    int first[8];
    int steps = 0, rc;
    while ((rc = sp_session_step(s, &p, -1, err)) == SP_OK) steps++;
    CHECK_EQ_INT(steps, 5);
    CHECK_EQ_INT(rc, SP_ERR_STATE);
    CHECK_STR_CONTAINS(err, "context full: 8 tokens, the model's seq_len");
    CHECK_EQ_INT(sp_session_n_tokens(s), 8);
    memcpy(first, sp_session_tokens(s), sizeof first);
    for (int i = 0; i < 8; i++) CHECK(first[i] >= 0 && first[i] < 12);
    CHECK_EQ_INT(sp_session_step(s, &p, -1, err), SP_ERR_STATE);
    CHECK_EQ_INT(sp_session_preview(s, &p, err), SP_ERR_STATE);
    CHECK_STR_CONTAINS(err, "context full");
    CHECK_EQ_INT(sp_session_n_tokens(s), 8);
    /* rewinds: out of range refused, in range regenerates the same text */
    CHECK_EQ_INT(sp_session_rewind(s, 6, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "rewind: 6 is outside 0..5");
    CHECK_EQ_INT(sp_session_rewind(s, -1, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "rewind: -1 is outside 0..5");
    CHECK_EQ_INT(sp_session_rewind(s, INT_MIN, err), SP_ERR_ARG);
    CHECK_EQ_INT(sp_session_rewind(s, 5, err), SP_OK);
    CHECK_EQ_INT(sp_session_step(s, &p, -1, err), SP_ERR_STATE);
    CHECK_EQ_INT(sp_session_rewind(s, 2, err), SP_OK);
    CHECK_EQ_INT(sp_session_n_tokens(s), 5);
    while (sp_session_step(s, &p, -1, err) == SP_OK) {}
    CHECK(memcmp(first, sp_session_tokens(s), sizeof first) == 0);
    CHECK_EQ_INT(sp_session_rewind(s, 0, err), SP_OK);
    while (sp_session_step(s, &p, -1, err) == SP_OK) {}
    CHECK(memcmp(first, sp_session_tokens(s), sizeof first) == 0);

    /* forcing: out of range refused (nothing consumed), EOS finishes */
    CHECK_EQ_INT(sp_session_start(s, "", 0, err), SP_OK);
    CHECK_EQ_INT(sp_session_n_prompt(s), 1);
    CHECK_EQ_INT(sp_session_step(s, &p, 12, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "force: token 12 is outside the vocabulary "
                       "(0..11)");
    CHECK_EQ_INT(sp_session_step(s, &p, INT_MAX, err), SP_ERR_ARG);
    CHECK_EQ_INT(sp_session_n_tokens(s), 1);
    CHECK_EQ_INT(sp_session_step(s, &p, 4, err), SP_OK);
    CHECK_EQ_INT(sp_session_step(s, &p, 2, err), SP_OK); /* banned, forced */
    CHECK(sp_session_finished(s));
    CHECK_EQ_INT(sp_session_step(s, &p, -1, err), SP_ERR_STATE);
    CHECK_STR_CONTAINS(err, "the text is finished: the model emitted its "
                       "end-of-text token");
    CHECK_EQ_INT(sp_session_preview(s, &p, err), SP_ERR_STATE);
    CHECK_EQ_INT(sp_session_rewind(s, 1, err), SP_OK);
    CHECK(!sp_session_finished(s));
    CHECK_EQ_INT(sp_session_step(s, &p, -1, err), SP_OK);
    /* bad parameters in a step: refused, the session goes on */
    sp_params bad = p;
    bad.top_p = 2.0f;
    int before = sp_session_n_tokens(s);
    CHECK_EQ_INT(sp_session_step(s, &bad, -1, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "top-p must be in (0, 1] (got 2)");
    CHECK_EQ_INT(sp_session_n_tokens(s), before);
    CHECK_EQ_INT(sp_session_step(s, &p, -1, err), SP_OK);
    /* every token banned: a clean refusal */
    bad = p;
    bad.n_bias = BB_TINY_VOCAB;
    for (int i = 0; i < BB_TINY_VOCAB; i++) bad.bias[i] = (sp_bias){i, -INFINITY};
    CHECK_EQ_INT(sp_session_step(s, &bad, -1, err), SP_ERR_STATE);
    CHECK_STR_CONTAINS(err, "no token left");
    sp_session_free(s);

    /* a tokenizer of another vocabulary */
    bb_bytes tb = {0};
    bb_tokenizer(&tb, 6, 11, BB_TINY_PIECES, BB_TINY_SCORES);
    sp_tokenizer *small = sp_tokenizer_load(tb.data, tb.len, 0, err);
    CHECK(small != NULL);
    CHECK(sp_session_new(tp.model, small, err) == NULL);
    CHECK_STR_CONTAINS(err, "tokenizer: it has 11 pieces, the model 12 "
                       "logits: not its tokenizer");
    sp_tokenizer_free(small);
    bb_free(&tb);
    static const char *const more[13] = {"<unk>", "<s>", "</s>", " ", "a", "b",
                                         "c", "ab", " a", "<0x0A>", "<0xFF>",
                                         "abc", "z"};
    bb_tokenizer(&tb, 6, 13, more, NULL);
    sp_tokenizer *big = sp_tokenizer_load(tb.data, tb.len, 0, err);
    CHECK(sp_session_new(tp.model, big, err) == NULL);
    CHECK_STR_CONTAINS(err, "tokenizer: it has 13 pieces, the model 12 "
                       "logits: not its tokenizer");
    sp_tokenizer_free(big);
    bb_free(&tb);
    CHECK(sp_session_new(tp.model, NULL, err) == NULL);
    CHECK_STR_CONTAINS(err, "session: the model has no tokenizer");
    tiny_free(&tp);

    /* weights that are finite but overflow the forward pass: the first
     * non-finite logits are reported, never sampled from.  The layers are
     * all zero (x stays the embedding), the embedding rows are ones, and
     * row 5 is 3e38: logit 5 = 8 x 3e38 = +inf. */
    bb_bytes ob = {0}, otb = {0};
    bb_checkpoint(&ob, BB_TINY, 1, 0.0f);
    for (int i = 0; i < BB_TINY_VOCAB * 8; i++) {
        float w = i / 8 == 5 ? 3e38f : 1.0f;
        memcpy(ob.data + bb_float_at((uint64_t)i), &w, 4);
    }
    bb_tiny_tokenizer(&otb);
    tp.model = model_ok(&ob);
    tp.tok = sp_tokenizer_load(otb.data, otb.len, 0, err);
    bb_free(&ob);
    bb_free(&otb);
    if (tp.model && tp.tok) {
        s = sp_session_new(tp.model, tp.tok, err);
        CHECK(s != NULL);
        CHECK_EQ_INT(sp_session_start(s, "", 1, err), SP_OK);
        CHECK_EQ_INT(sp_session_step(s, &p, -1, err), SP_ERR_FORMAT);
        CHECK_STR_CONTAINS(err, "logits: token 5 is +inf; the model's output "
                           "is not finite");
        CHECK_EQ_INT(sp_session_preview(s, &p, err), SP_ERR_FORMAT);
        CHECK_EQ_INT(sp_session_step(s, &p, 4, err), SP_ERR_FORMAT);
        CHECK_EQ_INT(sp_session_n_tokens(s), 1); /* nothing was appended */
        sp_session_free(s);
    }
    tiny_free(&tp);
}

/* ---- the CLI --------------------------------------------------------------------- */

static char tmpdir[64];

static void write_file(const char *name, const void *data, size_t n) {
    char path[256];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "wb");
    if (!f) abort();
    if (n) fwrite(data, 1, n, f);
    fclose(f);
}

/* Runs the CLI in process with stdout and stderr captured; returns the
 * status and leaves stderr's text in errs. */
static char errs[4096];
static int cli(const char *a0, ...) {
    char *argv[32];
    int argc = 0;
    argv[argc++] = "sampler";
    va_list ap;
    va_start(ap, a0);
    for (const char *a = a0; a && argc < 31; a = va_arg(ap, const char *)) {
        static char copies[31][512];
        snprintf(copies[argc], sizeof copies[argc], "%s", a);
        argv[argc] = copies[argc];
        argc++;
    }
    va_end(ap);
    argv[argc] = NULL;
    fflush(stdout);
    fflush(stderr);
    int saved_out = dup(1), saved_err = dup(2);
    FILE *out = tmpfile(), *errf = tmpfile();
    dup2(fileno(out), 1);
    dup2(fileno(errf), 2);
    int status = sp_cli_main(argc, argv);
    fflush(stdout);
    fflush(stderr);
    dup2(saved_out, 1);
    dup2(saved_err, 2);
    close(saved_out);
    close(saved_err);
    rewind(errf);
    size_t n = fread(errs, 1, sizeof errs - 1, errf);
    errs[n] = '\0';
    fclose(out);
    fclose(errf);
    return status;
}

/* the error line: one line, "sampler: " and the message */
static void check_cli_line(void) {
    CHECK(strncmp(errs, "sampler: ", 9) == 0);
    char *nl = strchr(errs, '\n');
    CHECK(nl != NULL && nl[1] == '\0');
}

static void test_cli(void) {
    strcpy(tmpdir, "/tmp/sp_hostile_XXXXXX");
    if (!mkdtemp(tmpdir)) {
        CHECK(!"mkdtemp");
        return;
    }
    bb_bytes mb = {0}, tb = {0};
    bb_checkpoint(&mb, BB_TINY, 1, 0.5f);
    bb_tiny_tokenizer(&tb);
    write_file("tiny.bin", mb.data, mb.len);
    write_file("tokenizer.bin", tb.data, tb.len);
    write_file("half.bin", mb.data, mb.len / 2);
    write_file("empty.bin", "", 0);
    bb_bytes bad = {0};
    bb_put(&bad, mb.data, mb.len);
    float nan = NAN;
    memcpy(bad.data + 28 + 4 * 5, &nan, 4);
    write_file("nan.bin", bad.data, bad.len);
    bb_free(&bad);
    bb_put(&bad, tb.data, tb.len - 2);
    write_file("tok_cut.bin", bad.data, bad.len);
    bb_free(&bad);
    char model[128], tok[128], half[128], empty[128], nanf[128], cut[128];
    snprintf(model, sizeof model, "%s/tiny.bin", tmpdir);
    snprintf(tok, sizeof tok, "%s/tokenizer.bin", tmpdir);
    snprintf(half, sizeof half, "%s/half.bin", tmpdir);
    snprintf(empty, sizeof empty, "%s/empty.bin", tmpdir);
    snprintf(nanf, sizeof nanf, "%s/nan.bin", tmpdir);
    snprintf(cut, sizeof cut, "%s/tok_cut.bin", tmpdir);

    CHECK_EQ_INT(cli("generate", "--model", model, "--steps", "3", NULL), 0);
    CHECK_EQ_INT(cli("generate", "--model", model, "--steps", "50",
                     "--logit-bias", "1=-inf", "--logit-bias", "2=-inf", NULL),
                 0);
    CHECK_STR_CONTAINS(errs, "stopped after 7 steps: context full: 8 tokens");
    /* every token banned: the options leave nothing, status 2 */
    CHECK_EQ_INT(cli("generate", "--model", model, "--logit-bias", "0=-inf",
                     "--logit-bias", "1=-inf", "--logit-bias", "2=-inf",
                     "--logit-bias", "3=-inf", "--logit-bias", "4=-inf",
                     "--logit-bias", "5=-inf", "--logit-bias", "6=-inf",
                     "--logit-bias", "7=-inf", "--logit-bias", "8=-inf",
                     "--logit-bias", "9=-inf", "--logit-bias", "10=-inf",
                     "--logit-bias", "11=-inf", NULL), 2);
    CHECK_STR_CONTAINS(errs, "sampler: stopped after 0 steps: no token left: "
                       "every token is banned");
    check_cli_line();
    /* bad files: status 1, one line */
    CHECK_EQ_INT(cli("generate", "--model", half, NULL), 1);
    check_cli_line();
    CHECK_STR_CONTAINS(errs, "half.bin: checkpoint: file has ");
    CHECK_STR_CONTAINS(errs, "bytes, header implies ");
    CHECK_EQ_INT(cli("generate", "--model", empty, NULL), 1);
    CHECK_STR_CONTAINS(errs, "checkpoint: file has 0 bytes, shorter than the "
                       "28-byte header");
    CHECK_EQ_INT(cli("generate", "--model", nanf, NULL), 1);
    CHECK_STR_CONTAINS(errs, "checkpoint: weight 5 (token_embedding_table) is "
                       "not finite");
    CHECK_EQ_INT(cli("generate", "--model", model, "--tokenizer", cut, NULL), 1);
    check_cli_line();
    CHECK_STR_CONTAINS(errs, "tok_cut.bin: tokenizer: truncated in piece 11");
    CHECK_EQ_INT(cli("generate", "--model", "/nonexistent/x.bin", NULL), 1);
    CHECK_STR_CONTAINS(errs, "No such file or directory");
    CHECK_EQ_INT(cli("generate", "--model", "/tmp/a\nb", NULL), 1);
    check_cli_line(); /* the newline in the name is escaped */
    CHECK_STR_CONTAINS(errs, "/tmp/a\\nb");
    CHECK_EQ_INT(cli("encode", "--tokenizer", model, "--text", "a", NULL), 1);
    check_cli_line();
    /* bad arguments: status 2, the argument named */
    static const struct {
        const char *opt, *value, *needle;
    } args[] = {
        {"--temperature", "nan", "--temperature must be a finite number >= 0 "
                                 "(got nan)"},
        {"--temperature", "-1", "--temperature must be"},
        {"--temperature", "1e999", "--temperature must be a finite number >= "
                                   "0 (got inf)"},
        {"--temperature", "hot", "--temperature: 'hot' is not a number"},
        {"--temperature", "", "--temperature: '' is not a number"},
        {"--top-p", "1.5", "--top-p must be in (0, 1] (got 1.5)"},
        {"--top-p", "0", "--top-p must be in (0, 1] (got 0)"},
        {"--min-p", "-inf", "--min-p must be in [0, 1] (got -inf)"},
        {"--typical-p", "NaN", "--typical-p must be in (0, 1] (got nan)"},
        {"--top-k", "-1", "--top-k must be >= 0 (got -1)"},
        {"--top-k", "2.5", "--top-k: '2.5' is not an integer"},
        {"--top-k", "99999999999", "--top-k: '99999999999' is not an "
                                   "integer"},
        {"--repetition-penalty", "0", "--repetition-penalty must be a finite "
                                      "number > 0 (got 0)"},
        {"--frequency-penalty", "inf", "--frequency-penalty must be a finite "
                                       "number (got inf)"},
        {"--presence-penalty", "x", "--presence-penalty: 'x' is not a number"},
        {"--penalty-last-n", "-5", "--penalty-last-n must be >= 0 (got -5)"},
        {"--logit-bias", "99999=1", "--logit-bias token 99999 is outside the "
                                    "vocabulary (0..11)"},
        {"--logit-bias", "2147483647=1", "--logit-bias token 2147483647 is "
                                         "outside the vocabulary"},
        {"--logit-bias", "2147483648=1", "--logit-bias: '2147483648' is not a "
                                         "token id"},
        {"--logit-bias", "-1=1", "--logit-bias: '-1' is not a token id"},
        {"--logit-bias", "1=nan", "--logit-bias value for token 1 must be a "
                                  "finite number or -inf (got nan)"},
        {"--logit-bias", "1=", "--logit-bias: '' is not a number or -inf"},
        {"--logit-bias", "1", "--logit-bias: '1' is not ID=VALUE"},
        {"--steps", "-1", "--steps: '-1' is not an integer in 0..100000000"},
        {"--steps", "100000001", "--steps: '100000001' is not an integer"},
        {"--seed", "18446744073709551616", "--seed: '18446744073709551616' is "
                                           "not an integer in "
                                           "0..18446744073709551615"},
        {"--seed", "-1", "--seed: '-1' is not an integer"},
        {"--seed", " 1", "--seed: ' 1' is not an integer"},
        {"--temperature", "a\nb", "--temperature: 'a\\nb' is not a number"},
        {"--beams", "0", "--beams: '0' is not an integer in 1..64"},
        {"--beams", "65", "--beams: '65' is not an integer in 1..64"},
        {"--beams", "2.5", "--beams: '2.5' is not an integer in 1..64"},
        {"--length-penalty", "10.5", "--length-penalty: '10.5' is not a "
                                     "number in [0, 10]"},
        {"--length-penalty", "-1e-30", "--length-penalty: '-1e-30' is not a "
                                       "number in [0, 10]"},
        {"--speculate", "0", "--speculate: '0' is not an integer in 1..16"},
        {"--speculate", "17", "--speculate: '17' is not an integer in 1..16"},
    };
    for (size_t i = 0; i < sizeof args / sizeof args[0]; i++) {
        int status = cli("generate", "--model", model, "--steps", "1",
                         args[i].opt, args[i].value, NULL);
        CHECK_EQ_INT(status, 2);
        CHECK_STR_CONTAINS(errs, args[i].needle);
        check_cli_line();
    }
    CHECK_EQ_INT(cli("generate", "--model", model, "--seed",
                     "18446744073709551615", "--steps", "2", NULL), 0);
    CHECK_EQ_INT(cli("generate", "--model", model, "--steps", NULL), 2);
    CHECK_STR_CONTAINS(errs, "--steps needs a value");
    CHECK_EQ_INT(cli("generate", "--model", model, "--prompt", "a\tb", NULL),
                 2);
    CHECK_STR_CONTAINS(errs, "the character '\\t' (byte offset 1)");
    check_cli_line();
    CHECK_EQ_INT(cli("generate", "--model", model, "--prompt",
                     "abcabcabcabcabcabcabc", NULL), 2);
    CHECK_STR_CONTAINS(errs, "prompt: 9 tokens leave no room");
    CHECK_EQ_INT(cli("logits", "--model", model, "--tokens", "1,2,99", NULL),
                 2);
    CHECK_STR_CONTAINS(errs, "--tokens: item 2 is not a token id in 0..11");
    CHECK_EQ_INT(cli("logits", "--model", model, "--tokens",
                     "1,1,1,1,1,1,1,1,1", NULL), 2);
    CHECK_STR_CONTAINS(errs, "--tokens: more than the model's seq_len (8)");
    CHECK_EQ_INT(cli("logits", "--model", model, "--tokens", "1,", NULL), 2);
    CHECK_EQ_INT(cli("logits", "--model", model, "--tokens", "", NULL), 2);
    CHECK_EQ_INT(cli("frobnicate", NULL), 2);
    CHECK_EQ_INT(cli("generate", "--bogus", NULL), 2);
    CHECK_STR_CONTAINS(errs, "generate: unknown option '--bogus'");

    char path[256];
    static const char *const names[] = {"tiny.bin", "tokenizer.bin",
                                        "half.bin", "empty.bin", "nan.bin",
                                        "tok_cut.bin"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", tmpdir, names[i]);
        remove(path);
    }
    rmdir(tmpdir);
    bb_free(&mb);
    bb_free(&tb);
}

/* ---- long sessions ---------------------------------------------------------------- */

/* 1 000 generations of 100 tokens: a new session every other time, the
 * same one reused otherwise; ASan's leak checker sees the end. */
static void test_soak(void) {
    char path[4200];
    snprintf(path, sizeof path, "%s/models/bigram.bin", root);
    FILE *f = fopen(path, "rb");
    if (!f) {
        printf("skipped: the soak needs %s\n", path);
        return;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *data = malloc((size_t)n);
    if (fread(data, 1, (size_t)n, f) != (size_t)n) n = 0;
    fclose(f);
    sp_model *m = sp_model_load(data, (size_t)n, 1, err);
    CHECK(m != NULL);
    tiny_pair tp = tiny_load(5, 0.5f);
    if (!m || !tp.model) {
        sp_model_free(m);
        tiny_free(&tp);
        return;
    }
    sp_params p;
    sp_params_default(&p);
    p.temperature = 0.9f;
    p.top_p = 0.95f;
    p.repetition_penalty = 1.1f;
    long tokens = 0;
    sp_session *s = NULL;
    clock_t t0 = clock();
    for (int round = 0; round < 1000; round++) {
        if (round % 2 == 0) {
            sp_session_free(s);
            s = sp_session_new(m, NULL, err);
        }
        if (!s || sp_session_start(s, "the", (uint64_t)round * 7919u, err)) {
            CHECK(!"a bigram session failed to start");
            fprintf(stderr, "%s\n", err);
            break;
        }
        for (int i = 0; i < 100; i++) {
            if (sp_session_step(s, &p, -1, err) != SP_OK) {
                CHECK(!"a bigram step failed");
                fprintf(stderr, "%s\n", err);
                break;
            }
            tokens++;
        }
        if (round % 100 == 99) CHECK_EQ_INT(sp_session_rewind(s, 50, err), SP_OK);
    }
    sp_session_free(s);
    /* the tiny transformer: many short generations to a full context */
    for (int round = 0; round < 300; round++) {
        s = sp_session_new(tp.model, tp.tok, err);
        CHECK(s != NULL);
        if (!s) break;
        CHECK_EQ_INT(sp_session_start(s, "a", (uint64_t)round, err), SP_OK);
        while (sp_session_step(s, &p, -1, err) == SP_OK) tokens++;
        sp_session_free(s);
    }
    fprintf(stderr, "soak: %ld tokens in %.2f s\n", tokens,
            (double)(clock() - t0) / CLOCKS_PER_SEC);
    CHECK(tokens >= 100000);
    tiny_free(&tp);
    sp_model_free(m);
}

/* ---- the llama2.c fixtures --------------------------------------------------------- */

static void test_fixtures(void) {
    char dir[4096], path[4200];
    snprintf(dir, sizeof dir, "%s/../shared/fixtures/llama2c", root);
    snprintf(path, sizeof path, "%s/stories260K.bin", dir);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fixtures_missing("the fixture checks");
        return;
    }
    fseek(f, 0, SEEK_END);
    size_t n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *data = malloc(n);
    if (fread(data, 1, n, f) != n) n = 0;
    fclose(f);
    model_fails(data, n / 2, "checkpoint: file has 528270 bytes, header "
                "implies 1056540");
    sp_model *m = sp_model_load(data, n, 0, err);
    CHECK(m != NULL);
    /* the Llama 2 tokenizer (32 000 pieces) is not this model's (512) */
    snprintf(path, sizeof path, "%s/tokenizer.bin", dir);
    f = fopen(path, "rb");
    if (f && m) {
        fseek(f, 0, SEEK_END);
        size_t tn = (size_t)ftell(f);
        fseek(f, 0, SEEK_SET);
        uint8_t *tdata = malloc(tn);
        if (fread(tdata, 1, tn, f) != tn) tn = 0;
        tokenizer_fails(tdata, tn, 512, "the file has 32000 pieces, the model "
                        "512 logits: not its tokenizer");
        sp_tokenizer *t = sp_tokenizer_load(tdata, tn, 0, err);
        CHECK(t != NULL);
        CHECK(sp_session_new(m, t, err) == NULL);
        CHECK_STR_CONTAINS(err, "tokenizer: it has 32000 pieces, the model 512 "
                           "logits: not its tokenizer");
        sp_tokenizer_free(t);
        free(tdata);
    }
    if (f) fclose(f);
    sp_model_free(m);
    free(data);
}

int main(int argc, char **argv) {
    if (argc > 1) root = argv[1];
    test_bigram_files();
    test_checkpoint_files();
    test_tokenizer_files();
    test_prompts();
    test_requests();
    test_params();
    test_sessions();
    test_cli();
    test_soak();
    test_fixtures();
    CHECK_DONE();
}
