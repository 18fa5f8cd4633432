/*
 * build_gguf.h — writes GGUF files in memory for the tests, the fuzz
 * targets and their seed corpus: metadata of every type, tensor infos and
 * aligned data, as llama.cpp's gguf writer lays them out (key/values, tensor
 * infos, zero padding to the alignment, each tensor's data padded to it).
 *
 *   gg_file f;
 *   gg_init(&f);
 *   gg_str(&f, "general.architecture", "llama");
 *   gg_u32(&f, "llama.context_length", 64);
 *   uint64_t ne[2] = {8, 12};
 *   gg_tensor(&f, "token_embd.weight", GG_F32, ne, 2, floats, 8 * 12 * 4);
 *   bb_bytes out = {0};
 *   gg_finish(&f, 3, &out);
 *   gg_free(&f);
 *
 * Header-only, C11, no dependency beyond libc and build_files.h.  Nothing
 * here checks what it writes: the hostile-file tests write broken files
 * with it on purpose (gg_raw_kv, gg_tensor_at).
 */
#ifndef SP_BUILD_GGUF_H
#define SP_BUILD_GGUF_H

#include <math.h>
#include <stdio.h>

#include "build_files.h"

enum { /* metadata value types */
    GG_U8 = 0, GG_I8, GG_U16, GG_I16, GG_U32, GG_I32, GG_F32V, GG_BOOL,
    GG_STRING, GG_ARRAY, GG_U64, GG_I64, GG_F64
};
enum { /* tensor types (ggml_type) */
    GG_F32 = 0, GG_F16 = 1, GG_Q4_0 = 2, GG_Q8_0 = 8, GG_Q4_K = 12,
    GG_Q6_K = 14, GG_BF16 = 30
};

typedef struct {
    bb_bytes kv, infos, data;
    uint64_t n_kv, n_tensors;
    uint32_t alignment; /* of the data; gg_u32(.., "general.alignment", ..)
                         * does not change it: set both */
} gg_file;

static inline void gg_init(gg_file *f) {
    memset(f, 0, sizeof *f);
    f->alignment = 32;
}
static inline void gg_free(gg_file *f) {
    bb_free(&f->kv);
    bb_free(&f->infos);
    bb_free(&f->data);
}

static inline void gg_u64_to(bb_bytes *b, uint64_t v) { bb_put(b, &v, 8); }
static inline void gg_string_to(bb_bytes *b, const char *s, size_t len) {
    gg_u64_to(b, len);
    bb_put(b, s, len);
}

/* a key and its value type; the value follows */
static inline void gg_key(gg_file *f, const char *key, uint32_t type) {
    gg_string_to(&f->kv, key, strlen(key));
    bb_u32(&f->kv, type);
    f->n_kv++;
}

static inline void gg_u8(gg_file *f, const char *key, uint8_t v) {
    gg_key(f, key, GG_U8);
    bb_put(&f->kv, &v, 1);
}
static inline void gg_i8(gg_file *f, const char *key, int8_t v) {
    gg_key(f, key, GG_I8);
    bb_put(&f->kv, &v, 1);
}
static inline void gg_u16(gg_file *f, const char *key, uint16_t v) {
    gg_key(f, key, GG_U16);
    bb_put(&f->kv, &v, 2);
}
static inline void gg_i16(gg_file *f, const char *key, int16_t v) {
    gg_key(f, key, GG_I16);
    bb_put(&f->kv, &v, 2);
}
static inline void gg_u32(gg_file *f, const char *key, uint32_t v) {
    gg_key(f, key, GG_U32);
    bb_u32(&f->kv, v);
}
static inline void gg_i32(gg_file *f, const char *key, int32_t v) {
    gg_key(f, key, GG_I32);
    bb_i32(&f->kv, v);
}
static inline void gg_f32(gg_file *f, const char *key, float v) {
    gg_key(f, key, GG_F32V);
    bb_f32(&f->kv, v);
}
static inline void gg_bool(gg_file *f, const char *key, int v) {
    uint8_t b = (uint8_t)(v != 0);
    gg_key(f, key, GG_BOOL);
    bb_put(&f->kv, &b, 1);
}
static inline void gg_u64(gg_file *f, const char *key, uint64_t v) {
    gg_key(f, key, GG_U64);
    gg_u64_to(&f->kv, v);
}
static inline void gg_i64(gg_file *f, const char *key, int64_t v) {
    gg_key(f, key, GG_I64);
    bb_put(&f->kv, &v, 8);
}
static inline void gg_f64(gg_file *f, const char *key, double v) {
    gg_key(f, key, GG_F64);
    bb_put(&f->kv, &v, 8);
}
static inline void gg_str(gg_file *f, const char *key, const char *s) {
    gg_key(f, key, GG_STRING);
    gg_string_to(&f->kv, s, strlen(s));
}
/* an array of n fixed-size elements of type elem_type, elem_size bytes
 * each, packed at p */
static inline void gg_arr(gg_file *f, const char *key, uint32_t elem_type,
                          const void *p, uint64_t n, size_t elem_size) {
    gg_key(f, key, GG_ARRAY);
    bb_u32(&f->kv, elem_type);
    gg_u64_to(&f->kv, n);
    bb_put(&f->kv, p, (size_t)n * elem_size);
}
static inline void gg_arr_str(gg_file *f, const char *key,
                              const char *const *s, uint64_t n) {
    gg_key(f, key, GG_ARRAY);
    bb_u32(&f->kv, GG_STRING);
    gg_u64_to(&f->kv, n);
    for (uint64_t i = 0; i < n; i++) gg_string_to(&f->kv, s[i], strlen(s[i]));
}
/* a key with whatever value bytes follow (hostile files) */
static inline void gg_raw_kv(gg_file *f, const char *key, uint32_t type,
                             const void *value, size_t len) {
    gg_key(f, key, type);
    bb_put(&f->kv, value, len);
}

/* the bytes of one block of each tensor type; 0 for others */
static inline size_t gg_type_bytes(uint32_t type, uint64_t elems) {
    switch (type) {
    case GG_F32: return (size_t)elems * 4;
    case GG_F16: case GG_BF16: return (size_t)elems * 2;
    case GG_Q8_0: return (size_t)elems / 32 * 34;
    case GG_Q4_0: return (size_t)elems / 32 * 18;
    case GG_Q4_K: return (size_t)elems / 256 * 144;
    case GG_Q6_K: return (size_t)elems / 256 * 210;
    default: return 0;
    }
}

/* A tensor info naming data at `offset` of the data section (as given:
 * nothing is written to the data section). */
static inline void gg_tensor_at(gg_file *f, const char *name, uint32_t type,
                                const uint64_t *ne, uint32_t n_dims,
                                uint64_t offset) {
    gg_string_to(&f->infos, name, strlen(name));
    bb_u32(&f->infos, n_dims);
    for (uint32_t d = 0; d < n_dims; d++) gg_u64_to(&f->infos, ne[d]);
    bb_u32(&f->infos, type);
    gg_u64_to(&f->infos, offset);
    f->n_tensors++;
}

/* A tensor and its bytes, appended to the data section at the next
 * aligned offset. */
static inline void gg_tensor(gg_file *f, const char *name, uint32_t type,
                             const uint64_t *ne, uint32_t n_dims,
                             const void *bytes, size_t nbytes) {
    static const uint8_t zeros[64] = {0};
    while (f->data.len % f->alignment)
        bb_put(&f->data, zeros,
               f->alignment - f->data.len % f->alignment > 64
                   ? 64
                   : f->alignment - f->data.len % f->alignment);
    gg_tensor_at(f, name, type, ne, n_dims, f->data.len);
    bb_put(&f->data, bytes, nbytes);
}

/* The file: header, key/values, tensor infos, padding, data. */
static inline void gg_finish(gg_file *f, uint32_t version, bb_bytes *out) {
    static const uint8_t zeros[64] = {0};
    bb_put(out, "GGUF", 4);
    bb_u32(out, version);
    gg_u64_to(out, f->n_tensors);
    gg_u64_to(out, f->n_kv);
    bb_put(out, f->kv.data, f->kv.len);
    bb_put(out, f->infos.data, f->infos.len);
    while (out->len % f->alignment)
        bb_put(out, zeros,
               f->alignment - out->len % f->alignment > 64
                   ? 64
                   : f->alignment - out->len % f->alignment);
    bb_put(out, f->data.data, f->data.len);
}

/* ---- quantizers (valid blocks; not llama.cpp's choice of scales) ------- */

static inline uint16_t gg_half(float f) { /* nearest-even f32 -> f16 */
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000u, a = x & 0x7fffffffu;
    if (a >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);
    if (a < 0x33000001u) return (uint16_t)sign;
    uint32_t e = a >> 23;
    if (e >= 113) {
        uint32_t h = (e - 112) << 10 | (a & 0x7fffffu) >> 13, rest = a & 0x1fffu;
        if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) h++;
        return (uint16_t)(sign | h);
    }
    uint32_t m = (a & 0x7fffffu) | 0x800000u, shift = 126 - e;
    uint32_t q = m >> shift, rest = m & ((1u << shift) - 1u), half = 1u << (shift - 1);
    if (rest > half || (rest == half && (q & 1u))) q++;
    return (uint16_t)(sign | q);
}
static inline float gg_half_value(uint16_t h) {
    uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    float v = e ? ldexpf((float)(m | 0x400u), (int)e - 25) : ldexpf((float)m, -24);
    return (h & 0x8000u) ? -v : v;
}
static inline int gg_round(float v) { return (int)(v < 0 ? v - 0.5f : v + 0.5f); }
static inline int gg_clamp(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }
static inline void gg_put_half(uint8_t *p, float f) {
    uint16_t h = gg_half(f);
    memcpy(p, &h, 2);
}

/* Q4_K's twelve bytes of eight 6-bit scales and mins */
static inline void gg_pack_k4(uint8_t *q, const int sc[8], const int m[8]) {
    for (int j = 0; j < 4; j++) {
        q[j] = (uint8_t)(sc[j] | ((sc[j + 4] >> 4) << 6));
        q[j + 4] = (uint8_t)(m[j] | ((m[j + 4] >> 4) << 6));
        q[j + 8] = (uint8_t)((sc[j + 4] & 0xF) | ((m[j + 4] & 0xF) << 4));
    }
}

/* One row of n floats as type `type` into out (gg_type_bytes(type, n)). */
static inline void gg_quantize_row(uint32_t type, const float *x, int n,
                                   uint8_t *out) {
    if (type == GG_F32) {
        memcpy(out, x, (size_t)n * 4);
    } else if (type == GG_F16 || type == GG_BF16) {
        for (int j = 0; j < n; j++) {
            uint16_t h;
            if (type == GG_F16) {
                h = gg_half(x[j]);
            } else {
                uint32_t u;
                memcpy(&u, &x[j], 4);
                h = (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
            }
            memcpy(out + 2 * j, &h, 2);
        }
    } else if (type == GG_Q8_0 || type == GG_Q4_0) {
        for (int b = 0; b < n / 32; b++) {
            const float *xb = x + 32 * b;
            float amax = 0, max = 0;
            for (int j = 0; j < 32; j++)
                if (fabsf(xb[j]) > amax) amax = fabsf(xb[j]), max = xb[j];
            if (type == GG_Q8_0) {
                uint8_t *o = out + 34 * b;
                float d = amax / 127;
                gg_put_half(o, d);
                float dd = gg_half_value(gg_half(d));
                for (int j = 0; j < 32; j++)
                    o[2 + j] = (uint8_t)(int8_t)gg_clamp(
                        dd ? gg_round(xb[j] / dd) : 0, -127, 127);
            } else {
                uint8_t *o = out + 18 * b;
                float d = max / -8;
                gg_put_half(o, d);
                float dd = gg_half_value(gg_half(d));
                for (int j = 0; j < 16; j++) {
                    int lo = dd ? gg_clamp(gg_round(xb[j] / dd) + 8, 0, 15) : 8;
                    int hi = dd ? gg_clamp(gg_round(xb[j + 16] / dd) + 8, 0, 15) : 8;
                    o[2 + j] = (uint8_t)(lo | hi << 4);
                }
            }
        }
    } else if (type == GG_Q4_K) {
        for (int b = 0; b < n / 256; b++) {
            const float *xb = x + 256 * b;
            uint8_t *o = out + 144 * b;
            float scale[8], mins[8], smax = 0, mmax = 0;
            for (int s = 0; s < 8; s++) {
                float lo = 0, hi = 0; /* the range, with 0 in it */
                for (int j = 0; j < 32; j++) {
                    float v = xb[32 * s + j];
                    lo = v < lo ? v : lo;
                    hi = v > hi ? v : hi;
                }
                scale[s] = (hi - lo) / 15;
                mins[s] = -lo;
                smax = scale[s] > smax ? scale[s] : smax;
                mmax = mins[s] > mmax ? mins[s] : mmax;
            }
            float d = smax / 63, dmin = mmax / 63;
            gg_put_half(o, d);
            gg_put_half(o + 2, dmin);
            float dd = gg_half_value(gg_half(d)), dm = gg_half_value(gg_half(dmin));
            int sc[8], m[8];
            for (int s = 0; s < 8; s++) {
                sc[s] = dd ? gg_clamp(gg_round(scale[s] / dd), 0, 63) : 0;
                m[s] = dm ? gg_clamp(gg_round(mins[s] / dm), 0, 63) : 0;
            }
            gg_pack_k4(o + 4, sc, m);
            for (int c = 0; c < 4; c++)
                for (int l = 0; l < 32; l++) {
                    int q[2];
                    for (int h = 0; h < 2; h++) {
                        int s = 2 * c + h;
                        float step = dd * sc[s], off = dm * m[s];
                        float v = xb[64 * c + 32 * h + l];
                        q[h] = step ? gg_clamp(gg_round((v + off) / step), 0, 15) : 0;
                    }
                    o[16 + 32 * c + l] = (uint8_t)(q[0] | q[1] << 4);
                }
        }
    } else if (type == GG_Q6_K) {
        for (int b = 0; b < n / 256; b++) {
            const float *xb = x + 256 * b;
            uint8_t *o = out + 210 * b;
            memset(o, 0, 210);
            float scale[16], smax = 0;
            for (int s = 0; s < 16; s++) {
                float amax = 0;
                for (int j = 0; j < 16; j++)
                    amax = fabsf(xb[16 * s + j]) > amax ? fabsf(xb[16 * s + j]) : amax;
                scale[s] = amax / 31;
                smax = scale[s] > smax ? scale[s] : smax;
            }
            float d = smax / 127;
            gg_put_half(o + 208, d);
            float dd = gg_half_value(gg_half(d));
            int8_t *sc = (int8_t *)(o + 192);
            for (int s = 0; s < 16; s++)
                sc[s] = (int8_t)(dd ? gg_clamp(gg_round(scale[s] / dd), -128, 127) : 0);
            for (int e = 0; e < 256; e++) {
                float step = dd * sc[e / 16];
                int q = (step ? gg_clamp(gg_round(xb[e] / step), -32, 31) : 0) + 32;
                int half = e / 128, k = (e % 128) / 32, l = e % 32;
                uint8_t *ql = o + 64 * half, *qh = o + 128 + 32 * half;
                uint8_t *lowp = (k & 1) ? &ql[l + 32] : &ql[l];
                *lowp |= (uint8_t)(k >= 2 ? (q & 0xF) << 4 : (q & 0xF));
                qh[l] |= (uint8_t)(((q >> 4) & 3) << (2 * k));
            }
        }
    }
}

/* ---- models ------------------------------------------------------------- */

/* A llama or qwen2 model with deterministic weights (bb_weight), its
 * matrices of type `type` (token_embd of emb_type), as llama.cpp names and
 * shapes them; a vocabulary of pieces "t0", "t1", ... so that the file is
 * a whole one. */
typedef struct {
    const char *arch; /* "llama" or "qwen2" */
    int dim, hidden, layers, heads, kv_heads, vocab, ctx;
    float eps;
    double rope_base;
    uint32_t type, emb_type;
    int tied;          /* no output.weight: the classifier is token_embd */
    int biases;        /* attn_q/k/v.bias (qwen2 always has them) */
    int rope_factors;  /* rope_freqs.weight (Llama 3's scaled RoPE) */
    uint32_t seed;
    float scale;       /* the weights are bb_weight(...) * scale */
    float linear_rope; /* > 0: rope.scaling.type linear with this factor */
} gg_model;

static inline gg_model gg_tiny_model(const char *arch, uint32_t type) {
    gg_model m = {arch, 256, 512, 2, 4, 2, 300, 64, 1e-5f, 10000.0, type,
                  type, 0, 0, 0, 7, 0.25f, 0};
    return m;
}

/* rows x cols weights from stream `seed` (offset by `salt`), as `type` */
static inline void gg_random_tensor(gg_file *f, const char *name, uint32_t type,
                                    int rows, int cols, uint32_t seed,
                                    uint32_t salt, float scale, float offset) {
    float *w = (float *)malloc(sizeof(float) * (size_t)rows * (size_t)cols);
    if (!w) abort();
    for (size_t i = 0; i < (size_t)rows * (size_t)cols; i++)
        w[i] = offset + scale * bb_weight(seed + salt * 7919u, i);
    size_t rb = gg_type_bytes(type, (uint64_t)cols);
    uint8_t *q = (uint8_t *)malloc(rb * (size_t)rows + 1);
    if (!q) abort();
    for (int r = 0; r < rows; r++)
        gg_quantize_row(type, w + (size_t)r * cols, cols, q + rb * (size_t)r);
    uint64_t ne[2] = {(uint64_t)cols, (uint64_t)rows};
    gg_tensor(f, name, type, ne, rows > 1 ? 2 : 1, q, rb * (size_t)rows);
    free(q);
    free(w);
}

static inline void gg_key_arch(gg_file *f, const char *arch, const char *name,
                               uint32_t v) {
    char key[96];
    snprintf(key, sizeof key, "%s.%s", arch, name);
    gg_u32(f, key, v);
}

/* the metadata of m, without tensors */
static inline void gg_model_metadata(gg_file *f, const gg_model *m) {
    char key[96];
    gg_str(f, "general.architecture", m->arch);
    gg_str(f, "general.name", "test model");
    gg_key_arch(f, m->arch, "context_length", (uint32_t)m->ctx);
    gg_key_arch(f, m->arch, "embedding_length", (uint32_t)m->dim);
    gg_key_arch(f, m->arch, "block_count", (uint32_t)m->layers);
    gg_key_arch(f, m->arch, "feed_forward_length", (uint32_t)m->hidden);
    gg_key_arch(f, m->arch, "attention.head_count", (uint32_t)m->heads);
    gg_key_arch(f, m->arch, "attention.head_count_kv", (uint32_t)m->kv_heads);
    gg_key_arch(f, m->arch, "rope.dimension_count", (uint32_t)(m->dim / m->heads));
    snprintf(key, sizeof key, "%s.attention.layer_norm_rms_epsilon", m->arch);
    gg_f32(f, key, m->eps);
    snprintf(key, sizeof key, "%s.rope.freq_base", m->arch);
    gg_f32(f, key, (float)m->rope_base);
    if (m->linear_rope > 0) {
        snprintf(key, sizeof key, "%s.rope.scaling.type", m->arch);
        gg_str(f, key, "linear");
        snprintf(key, sizeof key, "%s.rope.scaling.factor", m->arch);
        gg_f32(f, key, m->linear_rope);
    }
    gg_u32(f, "general.file_type", 0);
    gg_str(f, "tokenizer.ggml.model", "llama");
    char **pieces = (char **)malloc(sizeof(char *) * (size_t)m->vocab);
    float *scores = (float *)malloc(sizeof(float) * (size_t)m->vocab);
    int32_t *types = (int32_t *)malloc(sizeof(int32_t) * (size_t)m->vocab);
    for (int i = 0; i < m->vocab; i++) {
        pieces[i] = (char *)malloc(16);
        snprintf(pieces[i], 16, i == 0 ? "<unk>" : i == 1 ? "<s>" : i == 2 ? "</s>" : "t%d", i);
        scores[i] = (float)-i;
        types[i] = i < 3 ? 3 : 1;
    }
    gg_arr_str(f, "tokenizer.ggml.tokens", (const char *const *)pieces, (uint64_t)m->vocab);
    gg_arr(f, "tokenizer.ggml.scores", GG_F32V, scores, (uint64_t)m->vocab, 4);
    gg_arr(f, "tokenizer.ggml.token_type", GG_I32, types, (uint64_t)m->vocab, 4);
    gg_u32(f, "tokenizer.ggml.bos_token_id", 1);
    gg_u32(f, "tokenizer.ggml.eos_token_id", 2);
    for (int i = 0; i < m->vocab; i++) free(pieces[i]);
    free(pieces);
    free(scores);
    free(types);
}

static inline void gg_model_write(const gg_model *m, bb_bytes *out) {
    gg_file f;
    gg_init(&f);
    gg_model_metadata(&f, m);
    int kv = m->dim / m->heads * m->kv_heads;
    uint32_t s = m->seed;
    char name[64];
    gg_random_tensor(&f, "token_embd.weight", m->emb_type, m->vocab, m->dim, s, 1, m->scale * 4, 0);
    gg_random_tensor(&f, "output_norm.weight", GG_F32, 1, m->dim, s, 2, 0.2f, 1);
    if (!m->tied)
        gg_random_tensor(&f, "output.weight", m->type, m->vocab, m->dim, s, 3, m->scale, 0);
    if (m->rope_factors) {
        int half = m->dim / m->heads / 2;
        float *fac = (float *)malloc(sizeof(float) * (size_t)half);
        for (int i = 0; i < half; i++) fac[i] = i < half / 2 ? 1.0f : 1.0f + (float)i; /* Llama 3-like */
        uint64_t ne[1] = {(uint64_t)half};
        gg_tensor(&f, "rope_freqs.weight", GG_F32, ne, 1, fac, sizeof(float) * (size_t)half);
        free(fac);
    }
    for (int l = 0; l < m->layers; l++) {
        uint32_t salt = 100u * (uint32_t)(l + 1);
#define GG_LAYER(part, type, rows, cols, k, sc, off)                         \
        snprintf(name, sizeof name, "blk.%d.%s", l, part);                 \
        gg_random_tensor(&f, name, type, rows, cols, s, salt + k, sc, off)
        GG_LAYER("attn_norm.weight", GG_F32, 1, m->dim, 1, 0.2f, 1);
        GG_LAYER("attn_q.weight", m->type, m->dim, m->dim, 2, m->scale, 0);
        GG_LAYER("attn_k.weight", m->type, kv, m->dim, 3, m->scale, 0);
        GG_LAYER("attn_v.weight", m->type, kv, m->dim, 4, m->scale, 0);
        GG_LAYER("attn_output.weight", m->type, m->dim, m->dim, 5, m->scale, 0);
        GG_LAYER("ffn_norm.weight", GG_F32, 1, m->dim, 6, 0.2f, 1);
        GG_LAYER("ffn_gate.weight", m->type, m->hidden, m->dim, 7, m->scale, 0);
        GG_LAYER("ffn_up.weight", m->type, m->hidden, m->dim, 8, m->scale, 0);
        GG_LAYER("ffn_down.weight", m->type, m->dim, m->hidden, 9, m->scale, 0);
        if (m->biases || !strcmp(m->arch, "qwen2")) {
            GG_LAYER("attn_q.bias", GG_F32, 1, m->dim, 10, 0.5f, 0);
            GG_LAYER("attn_k.bias", GG_F32, 1, kv, 11, 0.5f, 0);
            GG_LAYER("attn_v.bias", GG_F32, 1, kv, 12, 0.5f, 0);
        }
#undef GG_LAYER
    }
    gg_finish(&f, 3, out);
    gg_free(&f);
}

/* A llama2.c checkpoint (shared or unshared classifier) as a GGUF file of
 * the llama architecture, its matrices of type `type` (the 1-D weights stay
 * F32): llama2.c's layout is already llama.cpp's (no permutation of Q and
 * K).  0 when the checkpoint's header is not a valid one. */
static inline int gg_from_llama2c(const uint8_t *ck, size_t size, uint32_t type,
                                  bb_bytes *out) {
    if (size < 28) return 0;
    int32_t h[7];
    memcpy(h, ck, 28);
    int dim = h[0], hidden = h[1], layers = h[2], heads = h[3], kvh = h[4];
    int vocab = h[5] < 0 ? -h[5] : h[5], seq = h[6], hs = dim / heads;
    int kv = hs * kvh;
    const float *w = (const float *)(const void *)(ck + 28);
    gg_file f;
    gg_init(&f);
    gg_model m = {"llama", dim, hidden, layers, heads, kvh, vocab, seq, 1e-5f,
                  10000.0, type, type, h[5] > 0, 0, 0, 0, 0, 0};
    gg_model_metadata(&f, &m);
    size_t D = (size_t)dim, H = (size_t)hidden, K = (size_t)kv, L = (size_t)layers;
    const float *emb = w, *rms_att = emb + (size_t)vocab * D;
    const float *wq = rms_att + L * D, *wk = wq + L * D * D, *wv = wk + L * K * D;
    const float *wo = wv + L * K * D, *rms_ffn = wo + L * D * D;
    const float *w1 = rms_ffn + L * D, *w2 = w1 + L * H * D, *w3 = w2 + L * D * H;
    const float *rms_final = w3 + L * H * D;
    const float *wcls = rms_final + D + (size_t)seq * (size_t)hs;
    char name[64];
    uint8_t *q = (uint8_t *)malloc(gg_type_bytes(GG_F32, (uint64_t)(H > D ? H : D) * (uint64_t)(vocab > dim ? vocab : dim)) + 64);
    if (!q) abort();
#define GG_PUT(nm, ty, src, rows, cols)                                        \
    do {                                                                       \
        size_t rb_ = gg_type_bytes(ty, (uint64_t)(cols));                      \
        for (int r_ = 0; r_ < (rows); r_++)                                    \
            gg_quantize_row(ty, (src) + (size_t)r_ * (size_t)(cols), (cols),   \
                            q + rb_ * (size_t)r_);                             \
        uint64_t ne_[2] = {(uint64_t)(cols), (uint64_t)(rows)};                \
        gg_tensor(&f, nm, ty, ne_, (rows) > 1 ? 2 : 1, q, rb_ * (size_t)(rows)); \
    } while (0)
    GG_PUT("token_embd.weight", type, emb, vocab, dim);
    GG_PUT("output_norm.weight", GG_F32, rms_final, 1, dim);
    if (h[5] < 0) GG_PUT("output.weight", type, wcls, vocab, dim);
    for (int l = 0; l < layers; l++) {
        size_t ul = (size_t)l;
        snprintf(name, sizeof name, "blk.%d.attn_norm.weight", l);
        GG_PUT(name, GG_F32, rms_att + ul * D, 1, dim);
        snprintf(name, sizeof name, "blk.%d.attn_q.weight", l);
        GG_PUT(name, type, wq + ul * D * D, dim, dim);
        snprintf(name, sizeof name, "blk.%d.attn_k.weight", l);
        GG_PUT(name, type, wk + ul * K * D, kv, dim);
        snprintf(name, sizeof name, "blk.%d.attn_v.weight", l);
        GG_PUT(name, type, wv + ul * K * D, kv, dim);
        snprintf(name, sizeof name, "blk.%d.attn_output.weight", l);
        GG_PUT(name, type, wo + ul * D * D, dim, dim);
        snprintf(name, sizeof name, "blk.%d.ffn_norm.weight", l);
        GG_PUT(name, GG_F32, rms_ffn + ul * D, 1, dim);
        snprintf(name, sizeof name, "blk.%d.ffn_gate.weight", l);
        GG_PUT(name, type, w1 + ul * H * D, hidden, dim);
        snprintf(name, sizeof name, "blk.%d.ffn_down.weight", l);
        GG_PUT(name, type, w2 + ul * D * H, dim, hidden);
        snprintf(name, sizeof name, "blk.%d.ffn_up.weight", l);
        GG_PUT(name, type, w3 + ul * H * D, hidden, dim);
    }
#undef GG_PUT
    free(q);
    gg_finish(&f, 3, out);
    gg_free(&f);
    return 1;
}

#endif
