/*
 * kernels.c — the dense loops of the engine, on vec4.
 *
 * Every sum here is in the canonical order of vec4.h (16 lanes blockwise, a
 * fixed combining tree, then the tail in index order), so the WASM SIMD,
 * SSE2 and scalar builds compute the same bits.  Loads are unaligned-safe.
 */
#include <float.h>
#include <string.h>

#include "internal.h"

/* Stores four vectors of exps at out and adds each to its accumulator: the
 * canonical order of a softmax's sum (lanes 0-3, 4-7, 8-11, 12-15 of every
 * 16-float block), shared by the exp kernels below. */
static inline void store_add16(float *out, vec4 e0, vec4 e1, vec4 e2, vec4 e3,
                               vec4 a[4]) {
    v4_store(out, e0);
    v4_store(out + 4, e1);
    v4_store(out + 8, e2);
    v4_store(out + 12, e3);
    a[0] = v4_add(a[0], e0);
    a[1] = v4_add(a[1], e1);
    a[2] = v4_add(a[2], e2);
    a[3] = v4_add(a[3], e3);
}

/* exp(x[j] - s) for the 16 floats at x, stored at out and added to a: the
 * block step of sp_exp_shift_sum and sp_exp_sum_div */
static inline void exp_shift16(const float *x, vec4 s, float *out, vec4 a[4]) {
    vec4 e0 = v4_exp_upto_hi(v4_sub(v4_load(x), s));
    vec4 e1 = v4_exp_upto_hi(v4_sub(v4_load(x + 4), s));
    vec4 e2 = v4_exp_upto_hi(v4_sub(v4_load(x + 8), s));
    vec4 e3 = v4_exp_upto_hi(v4_sub(v4_load(x + 12), s));
    store_add16(out, e0, e1, e2, e3, a);
}

float sp_exp_shift_sum(const float *x, float shift, float *out, int n) {
    vec4 s = v4_splat(shift);
    vec4 a[4] = {v4_splat(0.0f), v4_splat(0.0f), v4_splat(0.0f), v4_splat(0.0f)};
    int i = 0;
    for (; i + 16 <= n; i += 16) {
        exp_shift16(x + i, s, out + i, a);
    }
    float sum = v4_reduce16(a[0], a[1], a[2], a[3]);
    for (; i < n; i++) {
        out[i] = sp_expf(x[i] - shift);
        sum += out[i];
    }
    return sum;
}

float sp_sub_div_exp_sum(float *x, float shift, float t, float *out, int n) {
    /* sp_sub_div(x, shift, t, n), then out[i] = exp(x[i]) and their
     * canonical sum (sp_exp_shift_sum's, shift 0): one pass */
    vec4 s = v4_splat(shift), tv = v4_splat(t);
    vec4 a[4] = {v4_splat(0.0f), v4_splat(0.0f), v4_splat(0.0f), v4_splat(0.0f)};
    int i = 0;
    for (; i + 16 <= n; i += 16) {
        vec4 w0 = v4_div(v4_sub(v4_load(x + i), s), tv);
        vec4 w1 = v4_div(v4_sub(v4_load(x + i + 4), s), tv);
        vec4 w2 = v4_div(v4_sub(v4_load(x + i + 8), s), tv);
        vec4 w3 = v4_div(v4_sub(v4_load(x + i + 12), s), tv);
        v4_store(x + i, w0);
        v4_store(x + i + 4, w1);
        v4_store(x + i + 8, w2);
        v4_store(x + i + 12, w3);
        vec4 e0 = v4_exp_upto_hi(w0), e1 = v4_exp_upto_hi(w1);
        vec4 e2 = v4_exp_upto_hi(w2), e3 = v4_exp_upto_hi(w3);
        store_add16(out + i, e0, e1, e2, e3, a);
    }
    float sum = v4_reduce16(a[0], a[1], a[2], a[3]);
    for (; i < n; i++) {
        x[i] = (x[i] - shift) / t;
        out[i] = sp_expf(x[i]);
        sum += out[i];
    }
    return sum;
}

float sp_exp_sum_div(const float *x, float shift, float *out, float *p,
                     float z, int n) {
    /* sp_exp_shift_sum(x, shift, out, n) and sp_div_scalar(p, z, n) in one
     * loop: the divisions (their own unit) run beside the exps */
    vec4 s = v4_splat(shift), zv = v4_splat(z);
    vec4 a[4] = {v4_splat(0.0f), v4_splat(0.0f), v4_splat(0.0f), v4_splat(0.0f)};
    int i = 0;
    for (; i + 16 <= n; i += 16) {
        v4_store(p + i, v4_div(v4_load(p + i), zv));
        v4_store(p + i + 4, v4_div(v4_load(p + i + 4), zv));
        v4_store(p + i + 8, v4_div(v4_load(p + i + 8), zv));
        v4_store(p + i + 12, v4_div(v4_load(p + i + 12), zv));
        exp_shift16(x + i, s, out + i, a);
    }
    float sum = v4_reduce16(a[0], a[1], a[2], a[3]);
    for (; i < n; i++) {
        p[i] = p[i] / z;
        out[i] = sp_expf(x[i] - shift);
        sum += out[i];
    }
    return sum;
}

float sp_dot(const float *a, const float *b, int n) {
    vec4 a0 = v4_splat(0.0f), a1 = a0, a2 = a0, a3 = a0;
    int i = 0;
    for (; i + 16 <= n; i += 16) {
        a0 = v4_add(a0, v4_mul(v4_load(a + i), v4_load(b + i)));
        a1 = v4_add(a1, v4_mul(v4_load(a + i + 4), v4_load(b + i + 4)));
        a2 = v4_add(a2, v4_mul(v4_load(a + i + 8), v4_load(b + i + 8)));
        a3 = v4_add(a3, v4_mul(v4_load(a + i + 12), v4_load(b + i + 12)));
    }
    float sum = v4_reduce16(a0, a1, a2, a3);
    for (; i < n; i++) sum += a[i] * b[i];
    return sum;
}

/* One input against rows i and i + half (two rows at once: x is loaded
 * once for both). */
static void matmul_tile1(float *out, const float *x, const float *w, int n,
                         int i, int half) {
    const float *w0 = w + (size_t)i * n, *w1 = w0 + (size_t)half * n;
    vec4 z = v4_splat(0.0f);
    vec4 a00 = z, a01 = z, a02 = z, a03 = z;
    vec4 a10 = z, a11 = z, a12 = z, a13 = z;
    int j = 0;
    for (; j + 16 <= n; j += 16) {
        vec4 x0 = v4_load(x + j), x1 = v4_load(x + j + 4);
        vec4 x2 = v4_load(x + j + 8), x3 = v4_load(x + j + 12);
        a00 = v4_add(a00, v4_mul(v4_load(w0 + j), x0));
        a01 = v4_add(a01, v4_mul(v4_load(w0 + j + 4), x1));
        a02 = v4_add(a02, v4_mul(v4_load(w0 + j + 8), x2));
        a03 = v4_add(a03, v4_mul(v4_load(w0 + j + 12), x3));
        a10 = v4_add(a10, v4_mul(v4_load(w1 + j), x0));
        a11 = v4_add(a11, v4_mul(v4_load(w1 + j + 4), x1));
        a12 = v4_add(a12, v4_mul(v4_load(w1 + j + 8), x2));
        a13 = v4_add(a13, v4_mul(v4_load(w1 + j + 12), x3));
    }
    float s0 = v4_reduce16(a00, a01, a02, a03);
    float s1 = v4_reduce16(a10, a11, a12, a13);
    for (; j < n; j++) {
        s0 += w0[j] * x[j];
        s1 += w1[j] * x[j];
    }
    out[i] = s0;
    out[i + half] = s1;
}

/* Two rows at a time, row i and row i + d/2: each block of x is loaded once
 * for both, the eight accumulators are eight independent chains of adds,
 * and the weights stream from two contiguous halves of W.  (Neighbouring
 * rows, i and i + 1, measured 2-4x slower on a matrix that does not fit in
 * the caches: the two streams then keep jumping over each other, and the
 * prefetcher loses them.  Four rows spill the sixteen accumulators of an
 * SSE2 or a V8 build to the stack.)  Each row still is exactly sp_dot: its
 * four accumulators see the same products in the same order, and its
 * reduction and tail are sp_dot's, so every build gets the same bits
 * (tests/c/test_kernels.c). */
void sp_matmul(float *out, const float *x, const float *w, int n, int d) {
    const int half = d / 2;
    for (int i = 0; i < half; i++) matmul_tile1(out, x, w, n, i, half);
    if (d % 2) out[d - 1] = sp_dot(w + (size_t)(d - 1) * n, x, n);
}

/* One tile of sp_matmul_batch: rows i and i + half of W against nb inputs
 * (nb <= SP_MATMUL_TILE, a constant where it is inlined).  Each dot product
 * keeps sp_dot's four accumulators -- lanes 0-3, 4-7, 8-11 and 12-15 of
 * every block of 16 -- but fills them one lane group at a time: for group
 * g, the 2 x nb accumulators of both rows and all inputs take the products
 * of block 0, 1, 2, ... in order, exactly the terms, order and zero start
 * of sp_dot's g-th accumulator.  So each weight vector is loaded once for
 * all nb inputs (2 x nb + 3 registers: an SSE2 or a V8 build does not
 * spill them), and every output is sp_dot's bits. */
#define SP_MATMUL_TILE 4

/* A tile's outputs: for each of its nb inputs, rows i and i + half, each
 * the fold of its four lane-group accumulators (sp_dot's v4_reduce16)
 * plus the tail of the row past the last whole block, in sp_dot's order. */
static inline __attribute__((always_inline)) void
tile_store(float *out, const float *x, const float *w0, const float *w1,
           int n, int d, int i, int half, int nb,
           vec4 acc[2][SP_MATMUL_TILE][4]) {
    const int blocks = n / 16;
    for (int b = 0; b < nb; b++) {
        const float *xb = x + (size_t)b * n;
        float s0 = v4_reduce16(acc[0][b][0], acc[0][b][1], acc[0][b][2],
                               acc[0][b][3]);
        float s1 = v4_reduce16(acc[1][b][0], acc[1][b][1], acc[1][b][2],
                               acc[1][b][3]);
        for (int j = blocks * 16; j < n; j++) {
            s0 += w0[j] * xb[j];
            s1 += w1[j] * xb[j];
        }
        out[(size_t)b * d + i] = s0;
        out[(size_t)b * d + i + half] = s1;
    }
}

static inline __attribute__((always_inline)) void
matmul_tile(float *out, const float *x, const float *w, int n, int d, int i,
            int half, int nb) {
    const float *w0 = w + (size_t)i * n, *w1 = w0 + (size_t)half * n;
    const int blocks = n / 16;
    vec4 acc[2][SP_MATMUL_TILE][4];
    /* one named accumulator per row and input, so that they live in
     * registers; nb is a constant here, so the ifs fold away */
#define SP_TILE_INPUTS(F) F(0) F(1) F(2) F(3)
#define SP_TILE_ZERO(b)                                                   \
    vec4 r0_##b = v4_splat(0.0f), r1_##b = r0_##b;                        \
    const float *x_##b = x + 4 * g + (size_t)(nb > b ? b : 0) * n;
#define SP_TILE_STEP(b)                                                   \
    if (nb > b) {                                                         \
        vec4 xv = v4_load(x_##b);                                         \
        x_##b += 16;                                                      \
        r0_##b = v4_add(r0_##b, v4_mul(wa, xv));                          \
        r1_##b = v4_add(r1_##b, v4_mul(wb, xv));                          \
    }
#define SP_TILE_SAVE(b)                                                   \
    if (nb > b) {                                                         \
        acc[0][b][g] = r0_##b;                                            \
        acc[1][b][g] = r1_##b;                                            \
    }
    for (int g = 0; g < 4; g++) {
        SP_TILE_INPUTS(SP_TILE_ZERO)
        const float *p0 = w0 + 4 * g, *p1 = w1 + 4 * g;
        for (int k = 0; k < blocks; k++) {
            vec4 wa = v4_load(p0), wb = v4_load(p1);
            p0 += 16;
            p1 += 16;
            SP_TILE_INPUTS(SP_TILE_STEP)
        }
        SP_TILE_INPUTS(SP_TILE_SAVE)
    }
#undef SP_TILE_INPUTS
#undef SP_TILE_ZERO
#undef SP_TILE_STEP
#undef SP_TILE_SAVE
    tile_store(out, x, w0, w1, n, d, i, half, nb, acc);
}

/* Two inputs against rows i and i + half: sp_dot's accumulators of lane
 * groups g and g + 1 at once (8 of them: as many independent chains of
 * adds as sp_matmul keeps, which a one-group tile of two inputs would
 * halve), then groups 2 and 3.  Same terms, order and start as sp_dot. */
static void matmul_tile2(float *out, const float *x, const float *w, int n,
                         int d, int i, int half) {
    const float *w0 = w + (size_t)i * n, *w1 = w0 + (size_t)half * n;
    const float *x0 = x, *x1 = x + n;
    const int blocks = n / 16;
    vec4 acc[2][SP_MATMUL_TILE][4]; /* [row][input][group] */
    for (int g = 0; g < 4; g += 2) {
        vec4 z = v4_splat(0.0f);
        vec4 a0g0 = z, a0g1 = z, a1g0 = z, a1g1 = z; /* row 0, input 0/1 */
        vec4 b0g0 = z, b0g1 = z, b1g0 = z, b1g1 = z; /* row 1 */
        const float *p0 = w0 + 4 * g, *p1 = w1 + 4 * g;
        const float *q0 = x0 + 4 * g, *q1 = x1 + 4 * g;
        for (int k = 0; k < blocks; k++) {
            vec4 wa0 = v4_load(p0), wa1 = v4_load(p0 + 4);
            vec4 wb0 = v4_load(p1), wb1 = v4_load(p1 + 4);
            vec4 xa = v4_load(q0), xb = v4_load(q0 + 4);
            a0g0 = v4_add(a0g0, v4_mul(wa0, xa));
            a0g1 = v4_add(a0g1, v4_mul(wa1, xb));
            b0g0 = v4_add(b0g0, v4_mul(wb0, xa));
            b0g1 = v4_add(b0g1, v4_mul(wb1, xb));
            xa = v4_load(q1);
            xb = v4_load(q1 + 4);
            a1g0 = v4_add(a1g0, v4_mul(wa0, xa));
            a1g1 = v4_add(a1g1, v4_mul(wa1, xb));
            b1g0 = v4_add(b1g0, v4_mul(wb0, xa));
            b1g1 = v4_add(b1g1, v4_mul(wb1, xb));
            p0 += 16;
            p1 += 16;
            q0 += 16;
            q1 += 16;
        }
        acc[0][0][g] = a0g0;
        acc[0][0][g + 1] = a0g1;
        acc[0][1][g] = a1g0;
        acc[0][1][g + 1] = a1g1;
        acc[1][0][g] = b0g0;
        acc[1][0][g + 1] = b0g1;
        acc[1][1][g] = b1g0;
        acc[1][1][g + 1] = b1g1;
    }
    tile_store(out, x, w0, w1, n, d, i, half, 2, acc);
}


void sp_matmul_batch(float *out, const float *x, const float *w, int n, int d,
                     int nb) {
    if (nb == 1) {
        sp_matmul(out, x, w, n, d);
        return;
    }
    /* row pair by row pair; for each, the inputs in tiles of 4 while more
     * than 5 are left, then 5 as 3 + 2, or 4, 3, 2 or 1 (the sizes that
     * measured fastest per input: 6 or 8 accumulators, independent chains
     * of adds).  The first tile reads the pair's weights from memory, the
     * others find them in the cache. */
    const int half = d / 2;
    for (int i = 0; i < half; i++) {
        int b = 0;
        for (; nb - b > 5; b += 4)
            matmul_tile(out + (size_t)b * d, x + (size_t)b * n, w, n, d, i,
                        half, 4);
        int left = nb - b;
        if (left == 4) {
            matmul_tile(out + (size_t)b * d, x + (size_t)b * n, w, n, d, i,
                        half, 4);
            continue;
        }
        if (left >= 3) { /* 3, or 5 = 3 + 2 */
            matmul_tile(out + (size_t)b * d, x + (size_t)b * n, w, n, d, i,
                        half, 3);
            b += 3;
            left -= 3;
        }
        if (left == 2)
            matmul_tile2(out + (size_t)b * d, x + (size_t)b * n, w, n, d, i,
                         half);
        else if (left == 1)
            matmul_tile1(out + (size_t)b * d, x + (size_t)b * n, w, n, i,
                         half);
    }
    if (d % 2)
        for (int b = 0; b < nb; b++)
            out[(size_t)b * d + d - 1] =
                sp_dot(w + (size_t)(d - 1) * n, x + (size_t)b * n, n);
}

/* the one-accumulator fold: (x > acc) ? x : acc, so NaN never wins */
static float max_fold(const float *x, int n) {
    vec4 acc = v4_splat(-INFINITY);
    int i = 0;
    for (; i + 4 <= n; i += 4) acc = v4_max(v4_load(x + i), acc);
    float m = -INFINITY;
    for (int l = 0; l < 4; l++) {
        float v = v4_lane(acc, l);
        m = v > m ? v : m;
    }
    for (; i < n; i++) m = x[i] > m ? x[i] : m;
    return m;
}

float sp_max(const float *x, int n) {
    /* Four independent accumulators (the fold above is one chain of
     * dependent maxes).  The largest value does not depend on the order it
     * is found in; only the sign of a zero maximum could (-0 and +0 tie),
     * so a zero result is recomputed by the fold, whose bits it must be. */
    if (n < 64) return max_fold(x, n);
    vec4 a0 = v4_splat(-INFINITY), a1 = a0, a2 = a0, a3 = a0;
    int i = 0;
    for (; i + 16 <= n; i += 16) {
        a0 = v4_max(v4_load(x + i), a0);
        a1 = v4_max(v4_load(x + i + 4), a1);
        a2 = v4_max(v4_load(x + i + 8), a2);
        a3 = v4_max(v4_load(x + i + 12), a3);
    }
    vec4 acc = v4_max(v4_max(a0, a1), v4_max(a2, a3)); /* never NaN */
    float m = -INFINITY;
    for (int l = 0; l < 4; l++) {
        float v = v4_lane(acc, l);
        m = v > m ? v : m;
    }
    for (; i < n; i++) m = x[i] > m ? x[i] : m;
    return m == 0.0f ? max_fold(x, n) : m;
}

void sp_group_max(const float *x, int n, int size, int groups, float *out) {
    /* per group: four accumulators over its blocks of 16 (size is a
     * multiple of 16), then the last group's tail one by one */
    for (int g = 0; g < groups; g++) {
        int i = g * size, end = g == groups - 1 ? n : i + size;
        vec4 a0 = v4_splat(-INFINITY), a1 = a0, a2 = a0, a3 = a0;
        for (; i + 16 <= end; i += 16) {
            a0 = v4_max(v4_load(x + i), a0);
            a1 = v4_max(v4_load(x + i + 4), a1);
            a2 = v4_max(v4_load(x + i + 8), a2);
            a3 = v4_max(v4_load(x + i + 12), a3);
        }
        vec4 acc = v4_max(v4_max(a0, a1), v4_max(a2, a3));
        float m = -INFINITY;
        for (int l = 0; l < 4; l++) {
            float v = v4_lane(acc, l);
            m = v > m ? v : m;
        }
        for (; i < end; i++) m = x[i] > m ? x[i] : m;
        out[g] = m;
    }
}

/* |x| (as max(x, -x): no bits of signs touched), for the finite lanes; the
 * -inf lanes give +inf */
static inline vec4 v4_abs(vec4 x) { return v4_max(x, v4_sub(v4_splat(0.0f), x)); }

double sp_sum_finite(const float *x, int n, int *count, float *max) {
    /* Every finite term is a float, so a whole multiple of the ulp of the
     * smallest nonzero |term|, u.  If the sum of the |terms| is at most
     * 2^53 u, every partial sum (in any order) is a whole multiple of u no
     * larger: a double holds it exactly, every addition is exact, and the
     * sum in index order is the exact sum, which two double lanes a
     * half-vector at a time find as well (the one-by-one loop is a chain of
     * dependent additions, 3-4 cycles a term).  One pass takes that sum and
     * what the test needs (the sum of the |terms| in float lanes: each
     * lane's rounding stays below a factor 1 + n 2^-26, far inside the
     * factor 2 the test leaves, and an overflow to +inf fails the test);
     * when the test fails, the one-by-one loop runs. */
    vec4 zero = v4_splat(0.0f), one = v4_splat(1.0f);
    vec4 inf = v4_splat(INFINITY), ninf = v4_splat(-INFINITY);
    vec4 small = inf;    /* min |nonzero finite| */
    vec4 finites = zero; /* per lane: exact below 2^24 */
    vec4 top = ninf, abs_sum = zero;
    vec2d s0 = v2d_splat(0.0), s1 = s0;
    int i = 0;
    for (; i + 4 <= n; i += 4) {
        vec4 xv = v4_load(x + i), finite = v4_gt(xv, ninf);
        vec4 xf = v4_and(xv, finite), af = v4_abs(xf); /* -inf -> +0 */
        s0 = v2d_add(s0, v2d_lo(xf));
        s1 = v2d_add(s1, v2d_hi(xf));
        abs_sum = v4_add(abs_sum, af);
        top = v4_max(xv, top);
        finites = v4_add(finites, v4_and(finite, one));
        /* zeros (the -inf lanes' among them) cannot be the smallest */
        small = v4_min(v4_add(af, v4_and(v4_ge(zero, af), inf)), small);
    }
    vec2d sv = v2d_add(s0, s1);
    double sum = v2d_lane(sv, 0) + v2d_lane(sv, 1), sum_abs = 0.0;
    float lo = INFINITY, m = -INFINITY;
    int c = 0;
    for (int l = 0; l < 4; l++) {
        m = v4_lane(top, l) > m ? v4_lane(top, l) : m;
        lo = v4_lane(small, l) < lo ? v4_lane(small, l) : lo;
        c += (int)v4_lane(finites, l);
        sum_abs += v4_lane(abs_sum, l);
    }
    for (; i < n; i++) {
        if (x[i] == -INFINITY) continue;
        float a = x[i] < 0.0f ? -x[i] : x[i];
        c++;
        sum += x[i];
        sum_abs += a;
        m = x[i] > m ? x[i] : m;
        if (a > 0.0f) lo = a < lo ? a : lo;
    }
    *count = c;
    *max = m;
    if (lo < INFINITY) { /* else every finite term is a zero */
        uint32_t b;
        memcpy(&b, &lo, 4);
        int e = (int)(b >> 23); /* biased exponent; 0: subnormal */
        uint64_t ub = (uint64_t)((e ? e - 150 : -149) + 1023) << 52;
        double u; /* the ulp of lo: 2^(e - 150), or 2^-149 */
        memcpy(&u, &ub, 8);
        if (!(2.0 * sum_abs <= 9007199254740992.0 * u)) { /* 2^53 u */
            sum = 0.0; /* not exact: the one-by-one loop */
            for (int j = 0; j < n; j++)
                if (x[j] != -INFINITY) sum += x[j];
        }
    }
    return sum;
}

double sp_entropy_nats(const float *e, const float *x, int n, double z,
                       float m, double log_z) {
    /* h -= (e[j] / z) * ((x[j] - m) - log_z) for the e[j] > 0, one by one:
     * the quotients, differences and products two double lanes at a time
     * (each the same correctly rounded operation), the subtractions from h
     * in order (their chain is the loop's own) */
    vec2d zv = v2d_splat(z), mv = v2d_splat((double)m), lz = v2d_splat(log_z);
    double h = 0.0;
    int j = 0;
    for (; j + 4 <= n; j += 4) {
        vec4 ev = v4_load(e + j), xv = v4_load(x + j);
        vec2d t0 = v2d_mul(v2d_div(v2d_lo(ev), zv),
                           v2d_sub(v2d_sub(v2d_lo(xv), mv), lz));
        vec2d t1 = v2d_mul(v2d_div(v2d_hi(ev), zv),
                           v2d_sub(v2d_sub(v2d_hi(xv), mv), lz));
        if (e[j] > 0.0f) h -= v2d_lane(t0, 0);
        if (e[j + 1] > 0.0f) h -= v2d_lane(t0, 1);
        if (e[j + 2] > 0.0f) h -= v2d_lane(t1, 0);
        if (e[j + 3] > 0.0f) h -= v2d_lane(t1, 1);
    }
    for (; j < n; j++)
        if (e[j] > 0.0f) h -= (e[j] / z) * (((double)x[j] - m) - log_z);
    return h;
}

void sp_copy(float *dst, const float *src, int n) {
    /* memcpy, sixteen floats a time: the WASM builds' memcpy is a libc loop
     * (no bulk memory), twice as slow on the vocabulary's arrays */
    int i = 0;
    for (; i + 16 <= n; i += 16) {
        vec4 a = v4_load(src + i), b = v4_load(src + i + 4);
        vec4 c = v4_load(src + i + 8), d = v4_load(src + i + 12);
        v4_store(dst + i, a);
        v4_store(dst + i + 4, b);
        v4_store(dst + i + 8, c);
        v4_store(dst + i + 12, d);
    }
    for (; i < n; i++) dst[i] = src[i];
}

void sp_div_scalar(float *x, float t, int n) {
    vec4 tv = v4_splat(t);
    int i = 0;
    for (; i + 4 <= n; i += 4) v4_store(x + i, v4_div(v4_load(x + i), tv));
    for (; i < n; i++) x[i] = x[i] / t;
}

void sp_sub_div(float *x, float shift, float t, int n) {
    vec4 sv = v4_splat(shift), tv = v4_splat(t);
    int i = 0;
    for (; i + 4 <= n; i += 4)
        v4_store(x + i, v4_div(v4_sub(v4_load(x + i), sv), tv));
    for (; i < n; i++) x[i] = (x[i] - shift) / t;
}

/* The scans test sixteen elements per branch; the block that holds a hit
 * is searched element by element.  sp_scan_gt and sp_scan_ge differ only
 * in their comparison. */
#define SP_SCAN(name, v4_cmp, cmp)                                          \
    int name(const float *x, float threshold, int from, int n) {           \
        vec4 t = v4_splat(threshold);                                       \
        int i = from;                                                       \
        for (; i + 16 <= n; i += 16) {                                      \
            vec4 m = v4_or(v4_or(v4_cmp(v4_load(x + i), t),                 \
                                 v4_cmp(v4_load(x + i + 4), t)),            \
                           v4_or(v4_cmp(v4_load(x + i + 8), t),             \
                                 v4_cmp(v4_load(x + i + 12), t)));          \
            if (v4_any(m)) break;                                           \
        }                                                                   \
        for (; i < n; i++)                                                  \
            if (x[i] cmp threshold) return i;                               \
        return n;                                                           \
    }
SP_SCAN(sp_scan_gt, v4_gt, >)
SP_SCAN(sp_scan_ge, v4_ge, >=)
#undef SP_SCAN

int sp_find_not_below(const float *x, float limit, int n) {
    /* first i with !(x[i] < limit): NaN, or >= limit */
    vec4 lim = v4_splat(limit);
    int i = 0;
    for (; i + 16 <= n; i += 16) {
        vec4 m = v4_and(v4_and(v4_lt(v4_load(x + i), lim),
                               v4_lt(v4_load(x + i + 4), lim)),
                        v4_and(v4_lt(v4_load(x + i + 8), lim),
                               v4_lt(v4_load(x + i + 12), lim)));
        if (!v4_all(m)) break;
    }
    for (; i < n; i++)
        if (!(x[i] < limit)) return i;
    return -1;
}

float sp_dot_shift_pos(const float *p, const float *x, float shift, int n) {
    /* sum of p[i] * (x[i] - shift) over the terms with p[i] > 0, so that
     * p = 0 at x = -inf contributes 0 rather than NaN */
    vec4 s = v4_splat(shift), zero = v4_splat(0.0f);
    vec4 a0 = zero, a1 = zero, a2 = zero, a3 = zero;
    int i = 0;
#define SP_TERM(o)                                                           \
    v4_and(v4_mul(v4_load(p + i + (o)), v4_sub(v4_load(x + i + (o)), s)),   \
           v4_gt(v4_load(p + i + (o)), zero))
    for (; i + 16 <= n; i += 16) {
        a0 = v4_add(a0, SP_TERM(0));
        a1 = v4_add(a1, SP_TERM(4));
        a2 = v4_add(a2, SP_TERM(8));
        a3 = v4_add(a3, SP_TERM(12));
    }
#undef SP_TERM
    float sum = v4_reduce16(a0, a1, a2, a3);
    for (; i < n; i++)
        if (p[i] > 0.0f) sum += p[i] * (x[i] - shift);
    return sum;
}

float sp_div_dot_shift_pos(float *p, float t, const float *x, float shift,
                           int n) {
    /* sp_div_scalar(p, t, n), then sp_dot_shift_pos(p, x, shift, n), in one
     * pass: each p[i] is divided as there (one IEEE division), and the sum
     * has the canonical order */
    vec4 tv = v4_splat(t), s = v4_splat(shift), zero = v4_splat(0.0f);
    vec4 a0 = zero, a1 = zero, a2 = zero, a3 = zero;
    int i = 0;
#define SP_TERM(o)                                                           \
    (q = v4_div(v4_load(p + i + (o)), tv), v4_store(p + i + (o), q),         \
     v4_and(v4_mul(q, v4_sub(v4_load(x + i + (o)), s)), v4_gt(q, zero)))
    for (; i + 16 <= n; i += 16) {
        vec4 q;
        a0 = v4_add(a0, SP_TERM(0));
        a1 = v4_add(a1, SP_TERM(4));
        a2 = v4_add(a2, SP_TERM(8));
        a3 = v4_add(a3, SP_TERM(12));
    }
#undef SP_TERM
    float sum = v4_reduce16(a0, a1, a2, a3);
    for (; i < n; i++) {
        p[i] = p[i] / t;
        if (p[i] > 0.0f) sum += p[i] * (x[i] - shift);
    }
    return sum;
}
