/*
 * qdot.c — matrix products on weights in their file form (quant.h): the
 * input converted once per product (sp_qact_make), then two rows at a time
 * against it, rows i and i + rows/2 (two streams through W, as sp_matmul
 * walks it).  Each kernel has a SIMD body (ivec.h: WASM simd128 or SSE2)
 * and a plain C one; the integer sums they compute are exact and the float
 * steps are quant.h's canonical ones in both, so the builds agree to the
 * last bit (tests/c/test_quant.c).
 */
#include <string.h>

#include "internal.h"
#include "kernels/ivec.h"
#include "kernels/quant.h"
#include "model/gguf.h"

static uint16_t read_u16(const uint8_t *p) {
    uint16_t v;
    memcpy(&v, p, 2);
    return v;
}

/* sp_f16_to_f32 (quant.c) of the half at p, its steps written here: the
 * kernels convert a block scale per block and row, and a call each time
 * (another file's function: no inlining) cost more than the block's
 * integer products */
static inline float half_at(const uint8_t *p) {
    uint32_t h = read_u16(p), b;
    float f;
    if ((h & 0x7c00u) == 0x7c00u) { /* inf, NaN */
        b = (h & 0x8000u) << 16 | 0x7f800000u | (h & 0x3ffu) << 13;
        memcpy(&f, &b, 4);
        return f;
    }
    b = (h & 0x7fffu) << 13;
    memcpy(&f, &b, 4);
    f *= 0x1p112f;
    memcpy(&b, &f, 4);
    b |= (h & 0x8000u) << 16;
    memcpy(&f, &b, 4);
    return f;
}

/* ---- Q8_0 and Q4_0 against Q8_0 ------------------------------------------ */

/* lane l of a block's 32 integer products: elements 8k + 2l and 8k + 2l + 1
 * (what iv_dot16 of the four 8-element quarters adds up) */
#if !SP_IVEC
static void lanes32(const int *w, const int16_t *x, int32_t lane[4]) {
    for (int l = 0; l < 4; l++) {
        int32_t s = 0;
        for (int k = 0; k < 4; k++)
            s += w[8 * k + 2 * l] * x[8 * k + 2 * l] +
                 w[8 * k + 2 * l + 1] * x[8 * k + 2 * l + 1];
        lane[l] = s;
    }
}
#endif

/* The weights of a Q8_0 or Q4_0 block as 32 ints (plain C) or four
 * vectors of eight int16 (SIMD): elements 0-7, 8-15, 16-23, 24-31.
 * Q4_0: the low nibbles are elements 0-15, the high ones 16-31, minus 8. */
#if SP_IVEC
static inline void block_w(const uint8_t *b, int q4, ivec w[4]) {
    if (q4) {
        ivec v = iv_load(b + 2), m = iv_splat8(0x0F), eight = iv_splat8(8);
        ivec lo = iv_sub8(iv_and(v, m), eight);
        ivec hi = iv_sub8(iv_and(iv_shr16(v, 4), m), eight);
        w[0] = iv_i8_lo(lo);
        w[1] = iv_i8_hi(lo);
        w[2] = iv_i8_lo(hi);
        w[3] = iv_i8_hi(hi);
    } else {
        ivec a = iv_load(b + 2), c = iv_load(b + 18);
        w[0] = iv_i8_lo(a);
        w[1] = iv_i8_hi(a);
        w[2] = iv_i8_lo(c);
        w[3] = iv_i8_hi(c);
    }
}
/* the four lanes of one block's products */
static inline ivec block_dot(const ivec w[4], const int16_t *x) {
    return iv_add32(iv_add32(iv_dot16(w[0], iv_load(x)),
                             iv_dot16(w[1], iv_load(x + 8))),
                    iv_add32(iv_dot16(w[2], iv_load(x + 16)),
                             iv_dot16(w[3], iv_load(x + 24))));
}
#else
static void block_w(const uint8_t *b, int q4, int w[32]) {
    for (int j = 0; j < 16; j++) {
        if (q4) {
            w[j] = (b[2 + j] & 0xF) - 8;
            w[j + 16] = (b[2 + j] >> 4) - 8;
        } else {
            w[j] = (int8_t)b[2 + j];
            w[j + 16] = (int8_t)b[18 + j];
        }
    }
}
#endif

#if SP_IVEC
/* the halves at p + k stride (k = 0..3) as four floats: sp_f16_to_f32's
 * steps on four lanes, the same bits for every finite half (the loader
 * refuses a matrix with a scale that is not: sp_qmat_finite) */
static inline vec4 halves4(const uint8_t *p, size_t stride) {
    ivec u = iv_make32(read_u16(p), read_u16(p + stride),
                       read_u16(p + 2 * stride), read_u16(p + 3 * stride));
    ivec sign = iv_shl32(iv_and(u, iv_splat32(0x8000)), 16);
    vec4 mag = v4_mul(iv_as_f32(iv_shl32(iv_and(u, iv_splat32(0x7fff)), 13)),
                      v4_splat(0x1p112f));
    return iv_as_f32(iv_or(iv_of_f32(mag), sign));
}
#endif

/* rows r0 and r1 (Q8_0 blocks of 34 bytes, or Q4_0 of 18) against a; q4
 * a constant where it is called (dot2_q8_0, dot2_q4_0): no test of it per
 * block */
static inline __attribute__((always_inline)) void dot2_q8(const uint8_t *r0, const uint8_t *r1, const sp_qact *a,
                    int n, int q4, float *o0, float *o1) {
    const size_t bytes = q4 ? 18 : 34;
#if SP_IVEC
    vec4 acc0 = v4_splat(0.0f), acc1 = acc0;
    const int16_t *x = a->q;
    const float *dx = a->d;
    int b = 0;
    /* four blocks at a time: their eight scales d_w d_x (each the float
     * product of the two, as one block alone computes it) in two vectors */
    for (; b + 4 <= n / 32; b += 4) {
        vec4 d4 = v4_load(dx + b);
        vec4 s0 = v4_mul(halves4(r0, bytes), d4);
        vec4 s1 = v4_mul(halves4(r1, bytes), d4);
        float s[8];
        v4_store(s, s0);
        v4_store(s + 4, s1);
        for (int k = 0; k < 4; k++, r0 += bytes, r1 += bytes, x += 32) {
            ivec w[4];
            block_w(r0, q4, w);
            ivec i0 = block_dot(w, x);
            block_w(r1, q4, w);
            ivec i1 = block_dot(w, x);
            acc0 = v4_add(acc0, v4_mul(iv_i32_to_f32(i0), v4_splat(s[k])));
            acc1 = v4_add(acc1, v4_mul(iv_i32_to_f32(i1), v4_splat(s[4 + k])));
        }
    }
    for (; b < n / 32; b++, r0 += bytes, r1 += bytes, x += 32) {
        ivec w[4];
        block_w(r0, q4, w);
        ivec i0 = block_dot(w, x);
        block_w(r1, q4, w);
        ivec i1 = block_dot(w, x);
        acc0 = v4_add(acc0, v4_mul(iv_i32_to_f32(i0), v4_splat(half_at(r0) * dx[b])));
        acc1 = v4_add(acc1, v4_mul(iv_i32_to_f32(i1), v4_splat(half_at(r1) * dx[b])));
    }
    *o0 = v4_hsum(acc0);
    *o1 = v4_hsum(acc1);
#else
    float acc[2][4] = {{0}};
    const uint8_t *rows[2] = {r0, r1};
    for (int b = 0; b < n / 32; b++) {
        const int16_t *x = a->q + 32 * b;
        for (int r = 0; r < 2; r++) {
            const uint8_t *blk = rows[r] + (size_t)b * bytes;
            int w[32];
            int32_t lane[4];
            block_w(blk, q4, w);
            lanes32(w, x, lane);
            float s = half_at(blk) * a->d[b];
            for (int l = 0; l < 4; l++)
                acc[r][l] = acc[r][l] + (float)lane[l] * s;
        }
    }
    *o0 = (acc[0][0] + acc[0][1]) + (acc[0][2] + acc[0][3]);
    *o1 = (acc[1][0] + acc[1][1]) + (acc[1][2] + acc[1][3]);
#endif
}

static void dot2_q8_0(const uint8_t *r0, const uint8_t *r1, const sp_qact *a,
                      int n, float *o0, float *o1) {
    dot2_q8(r0, r1, a, n, 0, o0, o1);
}
static void dot2_q4_0(const uint8_t *r0, const uint8_t *r1, const sp_qact *a,
                      int n, float *o0, float *o1) {
    dot2_q8(r0, r1, a, n, 1, o0, o1);
}

/* ---- Q4_K and Q6_K against Q8_K ------------------------------------------- */

static void scale_min_k4(int j, const uint8_t *q, int *sc, int *m) {
    if (j < 4) {
        *sc = q[j] & 63;
        *m = q[j + 4] & 63;
    } else {
        *sc = (q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4);
        *m = (q[j + 4] >> 4) | ((q[j] >> 6) << 4);
    }
}

/* S = sum over the 8 sub-blocks s of sc_s * sum(q_w q_x) for one Q4_K
 * super-block b (144 bytes) and its 256 inputs x.  No int32 overflows:
 * |S| <= 8 * 63 * 32 * 15 * 127. */
static int32_t q4k_sum(const uint8_t *b, const int16_t *x, const int sc[8]) {
    const uint8_t *q = b + 16;
#if SP_IVEC
    ivec acc = iv_zero(), m = iv_splat8(0x0F);
    for (int c = 0; c < 4; c++, q += 32, x += 64) {
        ivec v = iv_load(q), v2 = iv_load(q + 16);
        ivec lo = iv_and(v, m), lo2 = iv_and(v2, m);
        ivec hi = iv_and(iv_shr16(v, 4), m), hi2 = iv_and(iv_shr16(v2, 4), m);
        /* each sub-block's sums of q_w q_x (|.| <= 32 * 15 * 127 per lane),
         * then times its scale, lane by lane */
        ivec s_lo = iv_add32(iv_add32(iv_dot16(iv_u8_lo(lo), iv_load(x)),
                                      iv_dot16(iv_u8_hi(lo), iv_load(x + 8))),
                             iv_add32(iv_dot16(iv_u8_lo(lo2), iv_load(x + 16)),
                                      iv_dot16(iv_u8_hi(lo2), iv_load(x + 24))));
        ivec s_hi = iv_add32(iv_add32(iv_dot16(iv_u8_lo(hi), iv_load(x + 32)),
                                      iv_dot16(iv_u8_hi(hi), iv_load(x + 40))),
                             iv_add32(iv_dot16(iv_u8_lo(hi2), iv_load(x + 48)),
                                      iv_dot16(iv_u8_hi(hi2), iv_load(x + 56))));
        acc = iv_add32(acc, iv_add32(iv_mul32(s_lo, iv_splat32(sc[2 * c])),
                                     iv_mul32(s_hi, iv_splat32(sc[2 * c + 1]))));
    }
    return iv_hsum32(acc);
#else
    int32_t s = 0;
    for (int c = 0; c < 4; c++, q += 32, x += 64) {
        int32_t lo = 0, hi = 0;
        for (int l = 0; l < 32; l++) {
            lo += (q[l] & 0xF) * x[l];
            hi += (q[l] >> 4) * x[32 + l];
        }
        s += sc[2 * c] * lo + sc[2 * c + 1] * hi;
    }
    return s;
#endif
}

static float q4k_row(const uint8_t *r, const sp_qact *a, int n) {
    float acc = 0.0f;
    for (int b = 0; b < n / 256; b++, r += 144) {
        int sc[8], mn[8];
        for (int j = 0; j < 8; j++) scale_min_k4(j, r + 4, &sc[j], &mn[j]);
        int32_t s = q4k_sum(r, a->q + 256 * b, sc), m = 0;
        for (int j = 0; j < 8; j++) m += mn[j] * a->sum32[8 * b + j];
        float dx = a->d[b];
        float d = half_at(r) * dx;
        float dmin = half_at(r + 2) * dx;
        acc = acc + (d * (float)s - dmin * (float)m);
    }
    return acc;
}

/* S = sum over the 16 sub-blocks s of sc_s * sum((q_w - 32) q_x) for one
 * Q6_K super-block (210 bytes): |S| <= 16 * 128 * 16 * 32 * 127. */
static int32_t q6k_sum(const uint8_t *b, const int16_t *x) {
    const int8_t *sc = (const int8_t *)(b + 192);
#if SP_IVEC
    ivec acc = iv_zero(), m4 = iv_splat8(0x0F), m2 = iv_splat8(0x03);
    ivec off = iv_splat8(32);
    for (int half = 0; half < 2; half++) {
        const uint8_t *ql = b + 64 * half, *qh = b + 128 + 32 * half;
        const int16_t *xh = x + 128 * half;
        for (int l0 = 0; l0 < 32; l0 += 16) {
            ivec qa = iv_load(ql + l0), qb = iv_load(ql + 32 + l0);
            ivec h = iv_load(qh + l0);
            /* the four 16-weight runs l0.., 32 + l0.., 64 + l0.., 96 + l0..
             * (6-bit values; (h & 3) << 4 stays inside its byte) */
            ivec q[4] = {
                iv_or(iv_and(qa, m4), iv_shl16(iv_and(h, m2), 4)),
                iv_or(iv_and(qb, m4), iv_shl16(iv_and(iv_shr16(h, 2), m2), 4)),
                iv_or(iv_and(iv_shr16(qa, 4), m4),
                      iv_shl16(iv_and(iv_shr16(h, 4), m2), 4)),
                iv_or(iv_and(iv_shr16(qb, 4), m4),
                      iv_shl16(iv_and(iv_shr16(h, 6), m2), 4))};
            for (int k = 0; k < 4; k++) {
                ivec v = iv_sub8(q[k], off); /* -32..31 */
                ivec s = iv_splat16(sc[8 * half + l0 / 16 + 2 * k]);
                const int16_t *xk = xh + 32 * k + l0;
                /* weight * scale <= 32 * 128: an int16 */
                acc = iv_add32(acc, iv_dot16(iv_mul16(iv_i8_lo(v), s), iv_load(xk)));
                acc = iv_add32(acc, iv_dot16(iv_mul16(iv_i8_hi(v), s), iv_load(xk + 8)));
            }
        }
    }
    return iv_hsum32(acc);
#else
    int32_t s = 0;
    for (int sub = 0; sub < 16; sub++) {
        int32_t t = 0;
        for (int e = 16 * sub; e < 16 * sub + 16; e++) {
            int half = e / 128, k = (e % 128) / 32, l = e % 32;
            const uint8_t *ql = b + 64 * half, *qh = b + 128 + 32 * half;
            int low = (k & 1) ? ql[l + 32] : ql[l];
            low = k >= 2 ? low >> 4 : low & 0xF;
            t += ((low | ((qh[l] >> (2 * k)) & 3) << 4) - 32) * x[e];
        }
        s += sc[sub] * t;
    }
    return s;
#endif
}

static float q6k_row(const uint8_t *r, const sp_qact *a, int n) {
    float acc = 0.0f;
    for (int b = 0; b < n / 256; b++, r += 210) {
        int32_t s = q6k_sum(r, a->q + 256 * b);
        float d = half_at(r + 208) * a->d[b];
        acc = acc + d * (float)s;
    }
    return acc;
}

/* ---- F16 and BF16 ------------------------------------------------------------ */

/* 16 weights at p (halves or bfloat16s) as four vectors of floats: exact */
static inline void load_half16(const uint8_t *p, int bf16, vec4 w[4]) {
#if SP_IVEC
    ivec h[2] = {iv_load(p), iv_load(p + 16)};
    for (int k = 0; k < 4; k++) {
        ivec u = k % 2 ? iv_u16_hi(h[k / 2]) : iv_u16_lo(h[k / 2]);
        if (bf16) {
            w[k] = iv_as_f32(iv_shl32(u, 16));
        } else {
            /* sp_f16_to_f32's steps, four at a time */
            ivec sign = iv_shl32(iv_and(u, iv_splat32(0x8000)), 16);
            vec4 mag = v4_mul(iv_as_f32(iv_shl32(iv_and(u, iv_splat32(0x7fff)), 13)),
                              v4_splat(0x1p112f));
            w[k] = iv_as_f32(iv_or(iv_of_f32(mag), sign));
        }
    }
#else
    float f[16];
    for (int j = 0; j < 16; j++) {
        uint16_t h = read_u16(p + 2 * j);
        f[j] = bf16 ? sp_bf16_to_f32(h) : sp_f16_to_f32(h);
    }
    for (int k = 0; k < 4; k++) w[k] = v4_load(f + 4 * k);
#endif
}

/* sp_dot's canonical sum of w[j] * x[j] for two rows of halves */
static void dot2_half(const uint8_t *r0, const uint8_t *r1, const float *x,
                      int n, int bf16, float *o0, float *o1) {
    vec4 a[4], c[4], w[4];
    for (int k = 0; k < 4; k++) a[k] = c[k] = v4_splat(0.0f);
    int j = 0;
    for (; j + 16 <= n; j += 16) {
        vec4 xv[4];
        for (int k = 0; k < 4; k++) xv[k] = v4_load(x + j + 4 * k);
        load_half16(r0 + 2 * j, bf16, w);
        for (int k = 0; k < 4; k++) a[k] = v4_add(a[k], v4_mul(w[k], xv[k]));
        load_half16(r1 + 2 * j, bf16, w);
        for (int k = 0; k < 4; k++) c[k] = v4_add(c[k], v4_mul(w[k], xv[k]));
    }
    float s0 = v4_reduce16(a[0], a[1], a[2], a[3]);
    float s1 = v4_reduce16(c[0], c[1], c[2], c[3]);
    for (; j < n; j++) {
        uint16_t h0 = read_u16(r0 + 2 * j), h1 = read_u16(r1 + 2 * j);
        s0 += (bf16 ? sp_bf16_to_f32(h0) : sp_f16_to_f32(h0)) * x[j];
        s1 += (bf16 ? sp_bf16_to_f32(h1) : sp_f16_to_f32(h1)) * x[j];
    }
    *o0 = s0;
    *o1 = s1;
}

/* ---- the product ---------------------------------------------------------------- */

/* rows r0 and r1 against one converted input */
static void dot2(const sp_qmat *w, const uint8_t *r0, const uint8_t *r1,
                 const sp_qact *a, float *o0, float *o1) {
    int n = w->cols;
    switch (w->type) {
    case SP_GGML_Q8_0: dot2_q8_0(r0, r1, a, n, o0, o1); break;
    case SP_GGML_Q4_0: dot2_q4_0(r0, r1, a, n, o0, o1); break;
    case SP_GGML_Q4_K:
        *o0 = q4k_row(r0, a, n);
        *o1 = q4k_row(r1, a, n);
        break;
    case SP_GGML_Q6_K:
        *o0 = q6k_row(r0, a, n);
        *o1 = q6k_row(r1, a, n);
        break;
    case SP_GGML_F16: dot2_half(r0, r1, a->xr, n, 0, o0, o1); break;
    case SP_GGML_BF16: dot2_half(r0, r1, a->xr, n, 1, o0, o1); break;
    default: *o0 = *o1 = 0.0f; break;
    }
}

void sp_qmatmul(float *out, const float *x, const sp_qmat *w, int nb,
                void *scratch) {
    const int rows = w->rows, cols = w->cols;
    if (w->type == SP_GGML_F32) {
        sp_matmul_batch(out, x, (const float *)(const void *)w->data, cols,
                        rows, nb);
        return;
    }
    if (nb > SP_BATCH_MAX) { /* in passes of SP_BATCH_MAX: the same bits */
        for (int b = 0; b < nb; b += SP_BATCH_MAX)
            sp_qmatmul(out + (size_t)b * rows, x + (size_t)b * cols, w,
                       nb - b < SP_BATCH_MAX ? nb - b : SP_BATCH_MAX, scratch);
        return;
    }
    sp_qact acts[SP_BATCH_MAX];
    const size_t per = sp_qmatmul_scratch(cols, 1);
    for (int b = 0; b < nb; b++)
        sp_qact_make(&acts[b], w->type, x + (size_t)b * cols, cols,
                     (uint8_t *)scratch + (size_t)b * per);
    /* row pair by row pair; the pair's weights, read from memory for the
     * first input, are in the cache for the others */
    const int half = rows / 2;
    for (int i = 0; i < half; i++) {
        const uint8_t *r0 = w->data + (size_t)i * w->row_bytes;
        const uint8_t *r1 = r0 + (size_t)half * w->row_bytes;
        for (int b = 0; b < nb; b++)
            dot2(w, r0, r1, &acts[b], out + (size_t)b * rows + i,
                 out + (size_t)b * rows + i + half);
    }
    if (rows % 2) {
        /* the last row, paired with itself */
        const uint8_t *r = w->data + (size_t)(rows - 1) * w->row_bytes;
        for (int b = 0; b < nb; b++) {
            float o;
            dot2(w, r, r, &acts[b], out + (size_t)b * rows + rows - 1, &o);
        }
    }
}
