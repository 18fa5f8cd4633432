/*
 * quant.c — the weight formats of quant.h: half floats, ggml's blocks (a
 * row dequantized, the scales checked), and the input vector converted to
 * the weights' dot type.  Plain C, the same code in every build; none of
 * it is on the hot path (a row per token, a vector per product).
 */
#include <string.h>

#include "internal.h"
#include "kernels/quant.h"
#include "model/gguf.h"

/* ---- types ---------------------------------------------------------------- */

int sp_qtype_supported(uint32_t type) {
    switch (type) {
    case SP_GGML_F32: case SP_GGML_F16: case SP_GGML_BF16:
    case SP_GGML_Q8_0: case SP_GGML_Q4_0: case SP_GGML_Q4_K: case SP_GGML_Q6_K:
        return 1;
    default:
        return 0;
    }
}

size_t sp_qtype_row_bytes(uint32_t type, int cols) {
    uint32_t elems, bytes;
    if (cols < 0 || !sp_qtype_supported(type) ||
        !sp_ggml_type_block(type, &elems, &bytes) || cols % (int)elems)
        return 0;
    return (size_t)cols / elems * bytes;
}

/* ---- half floats ---------------------------------------------------------- */

static uint16_t read_u16(const uint8_t *p) {
    uint16_t v;
    memcpy(&v, p, 2);
    return v;
}

float sp_f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
    if (exp == 0x1f) return sp_bits_float(sign | 0x7f800000u | mant << 13);
    /* normal and subnormal halves alike: the bits shifted into a float's
     * place, scaled by 2^112 (exact: the result is a normal float) -- the
     * same operation the SIMD kernels do four at a time */
    float mag = sp_bits_float((uint32_t)(h & 0x7fffu) << 13) * 0x1p112f;
    return sp_bits_float(sp_float_bits(mag) | sign);
}

uint16_t sp_f32_to_f16(float f) {
    uint32_t x = sp_float_bits(f), sign = (x >> 16) & 0x8000u, a = x & 0x7fffffffu;
    if (a > 0x7f800000u) return (uint16_t)(sign | 0x7e00u); /* NaN */
    if (a >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u); /* >= 65520: inf */
    uint32_t e = a >> 23;
    if (e >= 113) { /* a normal half: 10 of the 23 bits, nearest-even */
        uint32_t h = (e - 112) << 10 | (a & 0x7fffffu) >> 13;
        uint32_t rest = a & 0x1fffu;
        if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) h++;
        return (uint16_t)(sign | h);
    }
    /* a subnormal half (or zero): the value in units of 2^-24, nearest-even;
     * rounding up to 1024 gives the smallest normal, as it should */
    if (e == 0) return (uint16_t)sign; /* below 2^-126: rounds to zero */
    uint32_t m = (a & 0x7fffffu) | 0x800000u, shift = 126 - e; /* >= 14 */
    if (shift >= 25) return (uint16_t)sign;
    uint32_t q = m >> shift, rest = m & ((1u << shift) - 1u);
    uint32_t half = 1u << (shift - 1);
    if (rest > half || (rest == half && (q & 1u))) q++;
    return (uint16_t)(sign | q);
}

float sp_bf16_to_f32(uint16_t h) { return sp_bits_float((uint32_t)h << 16); }

uint16_t sp_f32_to_bf16(float f) {
    uint32_t x = sp_float_bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 64u);
    return (uint16_t)((x + (0x7fffu + ((x >> 16) & 1u))) >> 16);
}

/* ---- blocks ---------------------------------------------------------------- */

/* Q4_K's scale and min of sub-block j (ggml's get_scale_min_k4) */
static void scale_min_k4(int j, const uint8_t *q, uint8_t *sc, uint8_t *m) {
    if (j < 4) {
        *sc = q[j] & 63;
        *m = q[j + 4] & 63;
    } else {
        *sc = (uint8_t)((q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4));
        *m = (uint8_t)((q[j + 4] >> 4) | ((q[j] >> 6) << 4));
    }
}

static void row_q8_0(const uint8_t *b, float *y, int n) {
    for (int i = 0; i < n / 32; i++, b += 34, y += 32) {
        float d = sp_f16_to_f32(read_u16(b));
        for (int j = 0; j < 32; j++) y[j] = (float)(int8_t)b[2 + j] * d;
    }
}

static void row_q4_0(const uint8_t *b, float *y, int n) {
    for (int i = 0; i < n / 32; i++, b += 18, y += 32) {
        float d = sp_f16_to_f32(read_u16(b));
        for (int j = 0; j < 16; j++) {
            y[j] = (float)((b[2 + j] & 0xF) - 8) * d;
            y[j + 16] = (float)((b[2 + j] >> 4) - 8) * d;
        }
    }
}

static void row_q4_k(const uint8_t *b, float *y, int n) {
    for (int i = 0; i < n / 256; i++, b += 144) {
        float d = sp_f16_to_f32(read_u16(b));
        float dmin = sp_f16_to_f32(read_u16(b + 2));
        const uint8_t *scales = b + 4, *q = b + 16;
        for (int c = 0; c < 4; c++, q += 32) {
            uint8_t sc, m;
            scale_min_k4(2 * c, scales, &sc, &m);
            float d1 = d * (float)sc, m1 = dmin * (float)m;
            scale_min_k4(2 * c + 1, scales, &sc, &m);
            float d2 = d * (float)sc, m2 = dmin * (float)m;
            for (int l = 0; l < 32; l++) *y++ = d1 * (float)(q[l] & 0xF) - m1;
            for (int l = 0; l < 32; l++) *y++ = d2 * (float)(q[l] >> 4) - m2;
        }
    }
}

/* Q6_K's weight e (0..255) of a block, as q - 32 */
static int q6_at(const uint8_t *b, int e) {
    int half = e / 128, m = (e % 128) / 32, l = e % 32;
    const uint8_t *ql = b + 64 * half, *qh = b + 128 + 32 * half;
    int low = (m & 1) ? ql[l + 32] : ql[l];
    low = m >= 2 ? low >> 4 : low & 0xF;
    return (low | ((qh[l] >> (2 * m)) & 3) << 4) - 32;
}

static void row_q6_k(const uint8_t *b, float *y, int n) {
    for (int i = 0; i < n / 256; i++, b += 210, y += 256) {
        float d = sp_f16_to_f32(read_u16(b + 208));
        const int8_t *sc = (const int8_t *)(b + 192);
        for (int e = 0; e < 256; e++)
            y[e] = d * (float)sc[e / 16] * (float)q6_at(b, e);
    }
}

void sp_qrow(const sp_qmat *w, int row, float *out) {
    const uint8_t *r = w->data + (size_t)row * w->row_bytes;
    int n = w->cols;
    switch (w->type) {
    case SP_GGML_F32: memcpy(out, r, sizeof(float) * (size_t)n); break;
    case SP_GGML_F16:
        for (int j = 0; j < n; j++) out[j] = sp_f16_to_f32(read_u16(r + 2 * j));
        break;
    case SP_GGML_BF16:
        for (int j = 0; j < n; j++) out[j] = sp_bf16_to_f32(read_u16(r + 2 * j));
        break;
    case SP_GGML_Q8_0: row_q8_0(r, out, n); break;
    case SP_GGML_Q4_0: row_q4_0(r, out, n); break;
    case SP_GGML_Q4_K: row_q4_k(r, out, n); break;
    case SP_GGML_Q6_K: row_q6_k(r, out, n); break;
    default: memset(out, 0, sizeof(float) * (size_t)n); break;
    }
}

/* ---- finiteness ------------------------------------------------------------ */

static int half_finite(const uint8_t *p) {
    return (read_u16(p) & 0x7c00u) != 0x7c00u;
}

int sp_qmat_finite(const sp_qmat *w, int *bad_row) {
    for (int r = 0; r < w->rows; r++) {
        const uint8_t *p = w->data + (size_t)r * w->row_bytes;
        const uint8_t *end = p + w->row_bytes;
        int ok = 1;
        switch (w->type) {
        case SP_GGML_F32:
            for (; ok && p < end; p += 4) {
                uint32_t b;
                memcpy(&b, p, 4);
                ok = (b & 0x7f800000u) != 0x7f800000u;
            }
            break;
        case SP_GGML_F16:
            for (; ok && p < end; p += 2) ok = half_finite(p);
            break;
        case SP_GGML_BF16:
            for (; ok && p < end; p += 2) ok = (read_u16(p) & 0x7f80u) != 0x7f80u;
            break;
        case SP_GGML_Q8_0:
            for (; ok && p < end; p += 34) ok = half_finite(p);
            break;
        case SP_GGML_Q4_0:
            for (; ok && p < end; p += 18) ok = half_finite(p);
            break;
        case SP_GGML_Q4_K:
            for (; ok && p < end; p += 144) ok = half_finite(p) && half_finite(p + 2);
            break;
        case SP_GGML_Q6_K:
            for (; ok && p < end; p += 210) ok = half_finite(p + 208);
            break;
        default: ok = 0; break;
        }
        if (!ok) {
            if (bad_row) *bad_row = r;
            return 0;
        }
    }
    return 1;
}

/* ---- the input, converted ------------------------------------------------- */

/* round half away from zero, as roundf, of v with |v| <= 128 (else, NaN
 * included: 0); without libm */
static int round_away(float v) {
    if (!(v >= -128.0f && v <= 128.0f)) return 0;
    int t = (int)v; /* toward zero: exact */
    float rest = v - (float)t;
    if (rest >= 0.5f) t++;
    else if (rest <= -0.5f) t--;
    return t;
}

/* nearest, ties to even (ggml's nearest_int), of |v| <= 128 (else 0) */
static int round_even(float v) {
    if (!(v >= -128.0f && v <= 128.0f)) return 0;
    float r = v + 12582912.0f; /* 1.5 * 2^23: the sum rounds v */
    return (int)(sp_float_bits(r) & 0x7fffffu) - 0x400000;
}

/* Q8_0 blocks, as ggml's quantize_row_q8_0_ref: d = amax / 127,
 * q = round(x / d) half away, d stored (and read back) as an f16 */
static void act_q8_0(sp_qact *a, const float *x, int n) {
    for (int b = 0; b < n / 32; b++) {
        const float *xb = x + 32 * b;
        float amax = 0.0f;
        for (int j = 0; j < 32; j++) {
            float v = xb[j] < 0.0f ? -xb[j] : xb[j];
            amax = v > amax ? v : amax;
        }
        float d = amax / 127.0f, id = d != 0.0f ? 1.0f / d : 0.0f;
        for (int j = 0; j < 32; j++) {
            int q = round_away(xb[j] * id);
            a->q[32 * b + j] = (int16_t)(q > 127 ? 127 : q < -127 ? -127 : q);
        }
        a->d[b] = sp_f16_to_f32(sp_f32_to_f16(d));
    }
}

/* Q8_K blocks of 256, as ggml's quantize_row_q8_K_ref: the element of
 * largest magnitude (the first such) m, scale -127 / m, q = nearest-even,
 * capped at 127, d = 1 / scale; and the sums of q over each 32 */
static void act_q8_k(sp_qact *a, const float *x, int n) {
    for (int b = 0; b < n / 256; b++) {
        const float *xb = x + 256 * b;
        int16_t *q = a->q + 256 * b;
        float max = 0.0f, amax = 0.0f;
        for (int j = 0; j < 256; j++) {
            float v = xb[j] < 0.0f ? -xb[j] : xb[j];
            if (v > amax) {
                amax = v;
                max = xb[j];
            }
        }
        if (amax == 0.0f) {
            memset(q, 0, 256 * sizeof *q);
            a->d[b] = 0.0f;
        } else {
            float iscale = -127.0f / max;
            for (int j = 0; j < 256; j++) {
                int v = round_even(iscale * xb[j]);
                q[j] = (int16_t)(v > 127 ? 127 : v);
            }
            a->d[b] = 1.0f / iscale;
        }
        for (int s = 0; s < 8; s++) {
            int32_t sum = 0;
            for (int j = 0; j < 32; j++) sum += q[32 * s + j];
            a->sum32[8 * b + s] = sum;
        }
    }
}

void sp_qact_make(sp_qact *a, uint32_t type, const float *x, int n,
                  void *mem) {
    /* the arrays, each rounded up to 16 bytes */
    uint8_t *at = mem;
#define SP_CARVE(ptr, count)                                                \
    do {                                                                    \
        (ptr) = (void *)at;                                                 \
        at += ((size_t)(count) * sizeof *(ptr) + 15) & ~(size_t)15;         \
    } while (0)
    memset(a, 0, sizeof *a);
    switch (type) {
    case SP_GGML_F16:
    case SP_GGML_BF16:
        SP_CARVE(a->xr, n);
        for (int j = 0; j < n; j++)
            a->xr[j] = type == SP_GGML_F16 ? sp_f16_to_f32(sp_f32_to_f16(x[j]))
                                           : sp_bf16_to_f32(sp_f32_to_bf16(x[j]));
        break;
    case SP_GGML_Q8_0:
    case SP_GGML_Q4_0:
        SP_CARVE(a->q, n);
        SP_CARVE(a->d, n / 32);
        act_q8_0(a, x, n);
        break;
    case SP_GGML_Q4_K:
    case SP_GGML_Q6_K:
        SP_CARVE(a->q, n);
        SP_CARVE(a->d, n / 256);
        SP_CARVE(a->sum32, n / 32);
        act_q8_k(a, x, n);
        break;
    default: break;
    }
#undef SP_CARVE
}

size_t sp_qmatmul_scratch(int cols, int nb) {
    /* the largest conversion: F16's floats, 4 bytes an element (Q8_K's
     * int16 q, float d and int32 sums take at most 2 + 1/64 + 1/8), plus
     * the rounding of three arrays to 16 bytes */
    return (size_t)nb * ((size_t)cols * 4 + 64);
}
