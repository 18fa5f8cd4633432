/*
 * kernels.c — the dense loops of the engine, on vec4.
 *
 * Every sum here is in the canonical order of vec4.h (16 lanes blockwise, a
 * fixed combining tree, then the tail in index order), so the WASM SIMD,
 * SSE2 and scalar builds compute the same bits.  Loads are unaligned-safe.
 */
#include <float.h>

#include "internal.h"

float sp_exp_shift_sum(const float *x, float shift, float *out, int n) {
    vec4 s = v4_splat(shift);
    vec4 a0 = v4_splat(0.0f), a1 = a0, a2 = a0, a3 = a0;
    int i = 0;
    for (; i + 16 <= n; i += 16) {
        vec4 e0 = v4_exp(v4_sub(v4_load(x + i), s));
        vec4 e1 = v4_exp(v4_sub(v4_load(x + i + 4), s));
        vec4 e2 = v4_exp(v4_sub(v4_load(x + i + 8), s));
        vec4 e3 = v4_exp(v4_sub(v4_load(x + i + 12), s));
        v4_store(out + i, e0);
        v4_store(out + i + 4, e1);
        v4_store(out + i + 8, e2);
        v4_store(out + i + 12, e3);
        a0 = v4_add(a0, e0);
        a1 = v4_add(a1, e1);
        a2 = v4_add(a2, e2);
        a3 = v4_add(a3, e3);
    }
    float sum = v4_reduce16(a0, a1, a2, a3);
    for (; i < n; i++) {
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

void sp_matmul(float *out, const float *x, const float *w, int n, int d) {
    for (int i = 0; i < d; i++) out[i] = sp_dot(w + (size_t)i * n, x, n);
}

float sp_max(const float *x, int n) {
    /* v4_max(x, acc) = (x > acc) ? x : acc: a NaN in x never replaces acc */
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

int sp_scan_gt(const float *x, float threshold, int from, int n) {
    vec4 t = v4_splat(threshold);
    int i = from;
    for (; i + 4 <= n; i += 4) {
        if (v4_any(v4_gt(v4_load(x + i), t))) break;
    }
    for (; i < n; i++)
        if (x[i] > threshold) return i;
    return n;
}

int sp_scan_ge(const float *x, float threshold, int from, int n) {
    vec4 t = v4_splat(threshold);
    int i = from;
    for (; i + 4 <= n; i += 4) {
        if (v4_any(v4_ge(v4_load(x + i), t))) break;
    }
    for (; i < n; i++)
        if (x[i] >= threshold) return i;
    return n;
}

int sp_find_not_below(const float *x, float limit, int n) {
    /* first i with !(x[i] < limit): NaN, or >= limit */
    vec4 lim = v4_splat(limit);
    int i = 0;
    for (; i + 4 <= n; i += 4) {
        if (!v4_all(v4_lt(v4_load(x + i), lim))) break;
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
