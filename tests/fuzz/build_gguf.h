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

#endif
