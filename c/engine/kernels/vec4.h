/*
 * vec4.h — four float lanes, and the canonical order of every reduction.
 *
 * One small vector type with three backends that compute the same bits:
 * WebAssembly simd128, x86 SSE2, and plain C (used by the scalar WASM build
 * and any other target).  Only lane-wise IEEE operations are exposed (add,
 * sub, mul, div, comparisons, selects), and one integer operation on the
 * bits, v4_add_shl23 (a's bits plus b's bits shifted left by 23: how the
 * exp scales by 2^k), so a backend can never round differently from
 * another; reductions are written once, here, on top of them, in one fixed
 * order:
 *
 *   CANONICAL SUM of n terms t[0..n): 16 partial sums, lane j taking the
 *   terms t[16*b + j] of every full block b, in block order; then the lanes
 *   are combined as ((l0..3 + l4..7) + (l8..11 + l12..15)) lane-wise, giving
 *   four values q0..q3, summed as (q0 + q1) + (q2 + q3); then the n % 16
 *   tail terms are added one by one in index order.
 *
 * The kernels in kernels.c (dot products, exp-and-sum) use this order, so
 * the SIMD and scalar builds agree to the last bit.
 *
 * Beside them, two double lanes (vec2d: a vec4's low or high half widened,
 * exactly; + - * /, each correctly rounded): for the quotients and the sums
 * the sampler keeps in double, which are no canonical sums (each is in the
 * order its loop wrote, or exact: sp_sum_finite).
 */
#ifndef SP_VEC4_H
#define SP_VEC4_H

#include <stdint.h>
#include <string.h>

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#define SP_VEC4_BACKEND "wasm-simd128"
#define SP_VEC4_LANES_ARE_SCALAR 0
typedef v128_t vec4;
static inline vec4 v4_load(const float *p) { return wasm_v128_load(p); }
static inline void v4_store(float *p, vec4 v) { wasm_v128_store(p, v); }
static inline vec4 v4_splat(float x) { return wasm_f32x4_splat(x); }
static inline vec4 v4_add(vec4 a, vec4 b) { return wasm_f32x4_add(a, b); }
static inline vec4 v4_sub(vec4 a, vec4 b) { return wasm_f32x4_sub(a, b); }
static inline vec4 v4_mul(vec4 a, vec4 b) { return wasm_f32x4_mul(a, b); }
static inline vec4 v4_div(vec4 a, vec4 b) { return wasm_f32x4_div(a, b); }
/* (a > b) ? a : b per lane — the SSE semantics, also for NaN */
static inline vec4 v4_max(vec4 a, vec4 b) { return wasm_f32x4_pmax(b, a); }
/* (a < b) ? a : b per lane */
static inline vec4 v4_min(vec4 a, vec4 b) { return wasm_f32x4_pmin(b, a); }
static inline vec4 v4_and(vec4 a, vec4 b) { return wasm_v128_and(a, b); }
static inline vec4 v4_or(vec4 a, vec4 b) { return wasm_v128_or(a, b); }
static inline vec4 v4_ge(vec4 a, vec4 b) { return wasm_f32x4_ge(a, b); }
static inline vec4 v4_gt(vec4 a, vec4 b) { return wasm_f32x4_gt(a, b); }
static inline vec4 v4_lt(vec4 a, vec4 b) { return wasm_f32x4_lt(a, b); }
static inline int v4_any(vec4 mask) { return wasm_v128_any_true(mask); }
static inline int v4_all(vec4 mask) { return wasm_i32x4_all_true(mask); }
static inline vec4 v4_add_shl23(vec4 a, vec4 b) {
    return wasm_i32x4_add(a, wasm_i32x4_shl(b, 23));
}
static inline float v4_lane(vec4 v, int i) {
    float f[4];
    wasm_v128_store(f, v);
    return f[i];
}
typedef v128_t vec2d;
static inline vec2d v2d_lo(vec4 v) { return wasm_f64x2_promote_low_f32x4(v); }
static inline vec2d v2d_hi(vec4 v) {
    return wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(v, v, 2, 3, 2, 3));
}
static inline vec2d v2d_splat(double x) { return wasm_f64x2_splat(x); }
static inline vec2d v2d_add(vec2d a, vec2d b) { return wasm_f64x2_add(a, b); }
static inline vec2d v2d_sub(vec2d a, vec2d b) { return wasm_f64x2_sub(a, b); }
static inline vec2d v2d_mul(vec2d a, vec2d b) { return wasm_f64x2_mul(a, b); }
static inline vec2d v2d_div(vec2d a, vec2d b) { return wasm_f64x2_div(a, b); }
static inline double v2d_lane(vec2d v, int i) {
    double d[2];
    wasm_v128_store(d, v);
    return d[i];
}

#elif defined(__SSE2__)
#include <emmintrin.h>
#define SP_VEC4_BACKEND "sse2"
#define SP_VEC4_LANES_ARE_SCALAR 0
typedef __m128 vec4;
static inline vec4 v4_load(const float *p) { return _mm_loadu_ps(p); }
static inline void v4_store(float *p, vec4 v) { _mm_storeu_ps(p, v); }
static inline vec4 v4_splat(float x) { return _mm_set1_ps(x); }
static inline vec4 v4_add(vec4 a, vec4 b) { return _mm_add_ps(a, b); }
static inline vec4 v4_sub(vec4 a, vec4 b) { return _mm_sub_ps(a, b); }
static inline vec4 v4_mul(vec4 a, vec4 b) { return _mm_mul_ps(a, b); }
static inline vec4 v4_div(vec4 a, vec4 b) { return _mm_div_ps(a, b); }
static inline vec4 v4_max(vec4 a, vec4 b) { return _mm_max_ps(a, b); }
static inline vec4 v4_min(vec4 a, vec4 b) { return _mm_min_ps(a, b); }
static inline vec4 v4_and(vec4 a, vec4 b) { return _mm_and_ps(a, b); }
static inline vec4 v4_or(vec4 a, vec4 b) { return _mm_or_ps(a, b); }
static inline vec4 v4_ge(vec4 a, vec4 b) { return _mm_cmpge_ps(a, b); }
static inline vec4 v4_gt(vec4 a, vec4 b) { return _mm_cmpgt_ps(a, b); }
static inline vec4 v4_lt(vec4 a, vec4 b) { return _mm_cmplt_ps(a, b); }
static inline int v4_any(vec4 mask) { return _mm_movemask_ps(mask) != 0; }
static inline int v4_all(vec4 mask) { return _mm_movemask_ps(mask) == 0xf; }
static inline vec4 v4_add_shl23(vec4 a, vec4 b) {
    return _mm_castsi128_ps(_mm_add_epi32(_mm_castps_si128(a),
                                          _mm_slli_epi32(_mm_castps_si128(b), 23)));
}
static inline float v4_lane(vec4 v, int i) {
    float f[4];
    _mm_storeu_ps(f, v);
    return f[i];
}
typedef __m128d vec2d;
static inline vec2d v2d_lo(vec4 v) { return _mm_cvtps_pd(v); }
static inline vec2d v2d_hi(vec4 v) { return _mm_cvtps_pd(_mm_movehl_ps(v, v)); }
static inline vec2d v2d_splat(double x) { return _mm_set1_pd(x); }
static inline vec2d v2d_add(vec2d a, vec2d b) { return _mm_add_pd(a, b); }
static inline vec2d v2d_sub(vec2d a, vec2d b) { return _mm_sub_pd(a, b); }
static inline vec2d v2d_mul(vec2d a, vec2d b) { return _mm_mul_pd(a, b); }
static inline vec2d v2d_div(vec2d a, vec2d b) { return _mm_div_pd(a, b); }
static inline double v2d_lane(vec2d v, int i) {
    double d[2];
    _mm_storeu_pd(d, v);
    return d[i];
}

#else
#define SP_VEC4_BACKEND "scalar"
/* 1 here: a kernel may choose another way for plain C (a float max is a
 * data-dependent branch in V8's scalar code) -- never other bits */
#define SP_VEC4_LANES_ARE_SCALAR 1
typedef struct { float f[4]; } vec4;
#define SP_V4_MAP(expr)                                                     \
    vec4 r;                                                                 \
    for (int l = 0; l < 4; l++) r.f[l] = (expr);                            \
    return r
static inline vec4 v4_load(const float *p) { vec4 r; memcpy(r.f, p, 16); return r; }
static inline void v4_store(float *p, vec4 v) { memcpy(p, v.f, 16); }
static inline vec4 v4_splat(float x) { SP_V4_MAP(x); }
static inline vec4 v4_add(vec4 a, vec4 b) { SP_V4_MAP(a.f[l] + b.f[l]); }
static inline vec4 v4_sub(vec4 a, vec4 b) { SP_V4_MAP(a.f[l] - b.f[l]); }
static inline vec4 v4_mul(vec4 a, vec4 b) { SP_V4_MAP(a.f[l] * b.f[l]); }
static inline vec4 v4_div(vec4 a, vec4 b) { SP_V4_MAP(a.f[l] / b.f[l]); }
static inline vec4 v4_max(vec4 a, vec4 b) { SP_V4_MAP(a.f[l] > b.f[l] ? a.f[l] : b.f[l]); }
static inline vec4 v4_min(vec4 a, vec4 b) { SP_V4_MAP(a.f[l] < b.f[l] ? a.f[l] : b.f[l]); }
/* masks are all-ones / all-zeros lanes, as in the SIMD backends */
static inline float sp_v4_bits(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static inline uint32_t sp_v4_ubits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline vec4 v4_and(vec4 a, vec4 b) { SP_V4_MAP(sp_v4_bits(sp_v4_ubits(a.f[l]) & sp_v4_ubits(b.f[l]))); }
static inline vec4 v4_or(vec4 a, vec4 b) { SP_V4_MAP(sp_v4_bits(sp_v4_ubits(a.f[l]) | sp_v4_ubits(b.f[l]))); }
static inline vec4 v4_ge(vec4 a, vec4 b) { SP_V4_MAP(sp_v4_bits(a.f[l] >= b.f[l] ? 0xffffffffu : 0u)); }
static inline vec4 v4_gt(vec4 a, vec4 b) { SP_V4_MAP(sp_v4_bits(a.f[l] > b.f[l] ? 0xffffffffu : 0u)); }
static inline vec4 v4_lt(vec4 a, vec4 b) { SP_V4_MAP(sp_v4_bits(a.f[l] < b.f[l] ? 0xffffffffu : 0u)); }
static inline int v4_all(vec4 m) {
    return (sp_v4_ubits(m.f[0]) & sp_v4_ubits(m.f[1]) & sp_v4_ubits(m.f[2]) &
            sp_v4_ubits(m.f[3])) == 0xffffffffu;
}
static inline int v4_any(vec4 m) {
    return (sp_v4_ubits(m.f[0]) | sp_v4_ubits(m.f[1]) | sp_v4_ubits(m.f[2]) |
            sp_v4_ubits(m.f[3])) != 0;
}
static inline vec4 v4_add_shl23(vec4 a, vec4 b) {
    /* wraps as the SIMD backends' lanes do */
    SP_V4_MAP(sp_v4_bits(sp_v4_ubits(a.f[l]) + (sp_v4_ubits(b.f[l]) << 23)));
}
static inline float v4_lane(vec4 v, int i) { return v.f[i]; }
typedef struct { double d[2]; } vec2d;
#define SP_V2D_MAP(expr)                                                    \
    vec2d r;                                                                \
    for (int l = 0; l < 2; l++) r.d[l] = (expr);                            \
    return r
static inline vec2d v2d_lo(vec4 v) { SP_V2D_MAP((double)v.f[l]); }
static inline vec2d v2d_hi(vec4 v) { SP_V2D_MAP((double)v.f[2 + l]); }
static inline vec2d v2d_splat(double x) { SP_V2D_MAP(x); }
static inline vec2d v2d_add(vec2d a, vec2d b) { SP_V2D_MAP(a.d[l] + b.d[l]); }
static inline vec2d v2d_sub(vec2d a, vec2d b) { SP_V2D_MAP(a.d[l] - b.d[l]); }
static inline vec2d v2d_mul(vec2d a, vec2d b) { SP_V2D_MAP(a.d[l] * b.d[l]); }
static inline vec2d v2d_div(vec2d a, vec2d b) { SP_V2D_MAP(a.d[l] / b.d[l]); }
static inline double v2d_lane(vec2d v, int i) { return v.d[i]; }
#undef SP_V2D_MAP
#undef SP_V4_MAP
#endif

/* (q0 + q1) + (q2 + q3): the fixed horizontal sum of one vector. */
static inline float v4_hsum(vec4 v) {
    return (v4_lane(v, 0) + v4_lane(v, 1)) + (v4_lane(v, 2) + v4_lane(v, 3));
}

/* Combines four accumulators (16 lanes) in the canonical tree. */
static inline float v4_reduce16(vec4 a0, vec4 a1, vec4 a2, vec4 a3) {
    return v4_hsum(v4_add(v4_add(a0, a1), v4_add(a2, a3)));
}

/* v in each lane of a block of 16 floats (a block the sampler cuts whole
 * stores -inf so). */
static inline void v4_fill16(float *p, vec4 v) {
    v4_store(p, v);
    v4_store(p + 4, v);
    v4_store(p + 8, v);
    v4_store(p + 12, v);
}

#endif /* SP_VEC4_H */
