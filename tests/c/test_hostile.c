/*
 * test_hostile.c — hostile model files: every malformed case gets its one-line
 * message (checked word for word), nothing crashes, nothing leaks (these
 * tests run under ASan's leak checker).
 *
 *   bigram files, llama2.c checkpoints (each header field, overflowing
 *   sizes, size off by one, non-finite weights, a KV cache the file does
 *   not pay for) and the llama2.c fixtures.
 *
 * The other hostile inputs: test_hostile_text.c (tokenizer.bin images,
 * prompts), test_hostile_params.c (warp requests, sampler parameters),
 * test_hostile_sessions.c (sessions at their limits, a soak of 100 000
 * tokens), test_hostile_cli.c (the CLI's statuses).
 * Parts that need ../shared/fixtures/llama2c skip with a message without it.
 *
 * (hostile.h: what the test_hostile*.c files share.)
 */
#include <float.h>
#include <limits.h>

#include "hostile.h"

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

/* ---- the llama2.c fixtures --------------------------------------------------------- */

static void test_fixtures(void) {
    char dir[4096], path[4200];
    snprintf(dir, sizeof dir, "%s/../shared/fixtures/llama2c", test_root);
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

TEST_SUITE(hostile,
           TEST(test_bigram_files),
           TEST(test_checkpoint_files),
           TEST(test_fixtures));
