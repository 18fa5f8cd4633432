/*
 * kernels.c — the sampler's dense loops on vec4 (exps and their sums, maxima,
 * sums, copies, divisions); the forward pass's products are in matmul.c.
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

/* sum of p[i] * (x[i] - shift) over the terms with p[i] > 0, so that
 * p = 0 at x = -inf contributes 0 rather than NaN; when divide, each p[i]
 * is first divided by t in place (one IEEE division, as sp_div_scalar).
 * One loop for both kernels: the canonical order of vec4.h. */
static inline float dot_shift_pos(float *p, int divide, float t,
                                  const float *x, float shift, int n) {
    vec4 tv = v4_splat(t), s = v4_splat(shift), zero = v4_splat(0.0f);
    vec4 a[4] = {zero, zero, zero, zero};
    int i = 0;
    for (; i + 16 <= n; i += 16) {
        for (int k = 0; k < 4; k++) {
            float *pk = p + i + 4 * k;
            vec4 q = v4_load(pk);
            if (divide) {
                q = v4_div(q, tv);
                v4_store(pk, q);
            }
            a[k] = v4_add(a[k], v4_and(v4_mul(q, v4_sub(v4_load(x + i + 4 * k), s)),
                                       v4_gt(q, zero)));
        }
    }
    float sum = v4_reduce16(a[0], a[1], a[2], a[3]);
    for (; i < n; i++) {
        if (divide) p[i] = p[i] / t;
        if (p[i] > 0.0f) sum += p[i] * (x[i] - shift);
    }
    return sum;
}

float sp_dot_shift_pos(const float *p, const float *x, float shift, int n) {
    /* divide 0: p is only read */
    return dot_shift_pos((float *)p, 0, 1.0f, x, shift, n);
}

float sp_div_dot_shift_pos(float *p, float t, const float *x, float shift,
                           int n) {
    /* sp_div_scalar(p, t, n), then sp_dot_shift_pos(p, x, shift, n), in one
     * pass */
    return dot_shift_pos(p, 1, t, x, shift, n);
}
