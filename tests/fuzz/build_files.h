/*
 * build_files.h — writes small model files in memory: llama2.c checkpoints,
 * tokenizer.bin images and bigram files.  The fuzz targets, the seed-corpus
 * generator (tests/fuzz/make_corpus.c) and tests/c/test_hostile.c share it,
 * so that "the tiny model" means the same bytes everywhere.
 *
 * Header-only, C11, no dependency beyond libc.  Allocation failure aborts
 * (these are test tools).
 */
#ifndef SP_BUILD_FILES_H
#define SP_BUILD_FILES_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    uint8_t *data;
    size_t len, cap;
} bb_bytes;

static inline void bb_put(bb_bytes *b, const void *p, size_t n) {
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n) cap *= 2;
        uint8_t *d = (uint8_t *)realloc(b->data, cap);
        if (!d) abort();
        b->data = d;
        b->cap = cap;
    }
    if (n) memcpy(b->data + b->len, p, n);
    b->len += n;
}
static inline void bb_i32(bb_bytes *b, int32_t v) { bb_put(b, &v, 4); }
static inline void bb_u32(bb_bytes *b, uint32_t v) { bb_put(b, &v, 4); }
static inline void bb_f32(bb_bytes *b, float v) { bb_put(b, &v, 4); }
static inline void bb_free(bb_bytes *b) {
    free(b->data);
    memset(b, 0, sizeof *b);
}
/* a malloc'd copy of the bytes (at least 1 byte allocated) */
static inline uint8_t *bb_copy(const bb_bytes *b) {
    uint8_t *c = (uint8_t *)malloc(b->len ? b->len : 1);
    if (!c) abort();
    if (b->len) memcpy(c, b->data, b->len);
    return c;
}

/* ---- numbers ---------------------------------------------------------- */

/* a deterministic value in [-0.5, 0.5) for weight i of a seeded model */
static inline float bb_weight(uint32_t seed, uint64_t i) {
    uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ull ^ ((uint64_t)seed << 32 | seed);
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    return (float)((double)(x >> 40) / (double)(1ull << 24) - 0.5);
}

/* ---- llama2.c checkpoints --------------------------------------------- */

typedef struct {
    int32_t dim, hidden_dim, n_layers, n_heads, n_kv_heads, vocab_size,
        seq_len; /* vocab_size < 0: an unshared classifier at the end */
} bb_config;

/* The tiny model of the tests: 2 layers, dim 8, 2 heads sharing 1 KV head,
 * the 12-piece tokenizer below, a context of 8. */
static const bb_config BB_TINY = {8, 16, 2, 2, 1, 12, 8};

/* floats after the header, or 0 if the config is not a valid one */
static inline uint64_t bb_checkpoint_floats(bb_config c) {
    if (c.dim <= 0 || c.hidden_dim <= 0 || c.n_layers <= 0 || c.n_heads <= 0 ||
        c.n_kv_heads <= 0 || c.vocab_size == 0 || c.seq_len <= 0 ||
        c.dim % c.n_heads)
        return 0;
    uint64_t dim = (uint64_t)c.dim, L = (uint64_t)c.n_layers;
    uint64_t hs = dim / (uint64_t)c.n_heads;
    uint64_t kv = hs * (uint64_t)c.n_kv_heads, hidden = (uint64_t)c.hidden_dim;
    uint64_t V = (uint64_t)(c.vocab_size < 0 ? -(int64_t)c.vocab_size
                                             : c.vocab_size);
    uint64_t n = V * dim + L * dim + L * dim * dim + 2 * L * kv * dim +
                 L * dim * dim + L * dim + 3 * L * hidden * dim + dim +
                 (uint64_t)c.seq_len * hs;
    if (c.vocab_size < 0) n += V * dim;
    return n;
}

/* Header + bb_weight(seed, i) * scale for every float (the rms weights get
 * 1 + that, like a trained model's). */
static inline void bb_checkpoint(bb_bytes *b, bb_config c, uint32_t seed,
                                 float scale) {
    bb_put(b, &c, sizeof c);
    uint64_t n = bb_checkpoint_floats(c);
    uint64_t dim = (uint64_t)c.dim, L = (uint64_t)c.n_layers;
    uint64_t V = (uint64_t)(c.vocab_size < 0 ? -(int64_t)c.vocab_size
                                             : c.vocab_size);
    uint64_t hs = c.n_heads > 0 ? dim / (uint64_t)c.n_heads : 0;
    uint64_t kv = hs * (uint64_t)c.n_kv_heads;
    uint64_t rms_att = V * dim, rms_ffn = rms_att + L * dim + 2 * L * dim * dim +
                                          2 * L * kv * dim;
    uint64_t rms_final = rms_ffn + L * dim + 3 * L * (uint64_t)c.hidden_dim * dim;
    for (uint64_t i = 0; i < n; i++) {
        float w = bb_weight(seed, i) * scale;
        if ((i >= rms_att && i < rms_att + L * dim) ||
            (i >= rms_ffn && i < rms_ffn + L * dim) ||
            (i >= rms_final && i < rms_final + dim))
            w += 1.0f;
        bb_f32(b, w);
    }
}

/* byte offset of float `i` after the header */
static inline size_t bb_float_at(uint64_t i) { return 28 + 4 * (size_t)i; }

/* ---- tokenizer.bin ---------------------------------------------------- */

/* The tiny tokenizer: specials, a space, letters, merges, byte fallbacks. */
#define BB_TINY_VOCAB 12
static const char *const BB_TINY_PIECES[BB_TINY_VOCAB] = {
    "<unk>", "<s>", "</s>", " ", "a", "b", "c", "ab", " a", "<0x0A>",
    "<0xFF>", "abc"};
static const float BB_TINY_SCORES[BB_TINY_VOCAB] = {
    0, 0, 0, -1, -2, -2, -2, 2, 1, 0, 0, 3};

static inline void bb_piece(bb_bytes *b, float score, const char *s) {
    bb_f32(b, score);
    bb_i32(b, (int32_t)strlen(s));
    bb_put(b, s, strlen(s));
}

static inline void bb_tokenizer(bb_bytes *b, int32_t max_len, int n,
                                const char *const *pieces,
                                const float *scores) {
    bb_i32(b, max_len);
    for (int i = 0; i < n; i++) bb_piece(b, scores ? scores[i] : 0, pieces[i]);
}

static inline void bb_tiny_tokenizer(bb_bytes *b) {
    bb_tokenizer(b, 6, BB_TINY_VOCAB, BB_TINY_PIECES, BB_TINY_SCORES);
}

/* ---- bigram ----------------------------------------------------------- */

/* "SPBG", version 1, the pieces, zero padding, logits[v][v] =
 * bb_weight(seed, i) * 4 */
static inline void bb_bigram(bb_bytes *b, uint32_t vocab, uint32_t boundary,
                             const char *const *pieces, uint32_t seed) {
    bb_put(b, "SPBG", 4);
    bb_u32(b, 1);
    bb_u32(b, vocab);
    bb_u32(b, boundary);
    for (uint32_t i = 0; i < vocab; i++) {
        uint8_t len = (uint8_t)strlen(pieces[i]);
        bb_put(b, &len, 1);
        bb_put(b, pieces[i], len);
    }
    static const uint8_t zeros[4] = {0, 0, 0, 0};
    bb_put(b, zeros, (4 - b->len % 4) % 4);
    for (uint64_t i = 0; i < (uint64_t)vocab * vocab; i++)
        bb_f32(b, bb_weight(seed, i) * 4.0f);
}

#define BB_SMALL_BIGRAM_VOCAB 6
static const char *const BB_SMALL_BIGRAM_PIECES[BB_SMALL_BIGRAM_VOCAB] = {
    "\n", "a", "b", " ", "\xc3\xa9", "\xe2\x82\xac"};

#endif
