/*
 * build_gguf_quant.h — the quantizers of the tests' GGUF writer: valid
 * blocks of every tensor type it makes (F16, BF16, Q8_0, Q4_0, Q4_K, Q6_K),
 * with simple scales (not llama.cpp's choice).
 * Part of build_gguf.h, which includes it: include build_gguf.h.
 */
#ifndef SP_BUILD_GGUF_QUANT_H
#define SP_BUILD_GGUF_QUANT_H
#ifndef SP_BUILD_GGUF_H
#error "include build_gguf.h, not build_gguf_quant.h"
#endif

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

#endif /* SP_BUILD_GGUF_QUANT_H */
