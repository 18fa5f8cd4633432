/*
 * mathx.c — the engine's own transcendental functions.
 *
 * libm's expf, logf, sinf, cosf and powf are not the same functions in glibc
 * and in the WASM build's libc: their last bits differ, and a lesson's
 * "seed 42 gives this" would not survive that.  These are built from + - * /
 * only (correctly rounded in IEEE-754 everywhere), with fixed polynomials,
 * so every build computes the same bits.  Accuracy: sp_expf within 2 ulp;
 * the double versions within a few 1e-16 relative on the ranges used.
 */
#include <math.h>
#include <string.h>

#include "internal.h"

/* c[0] x^(n-1) + ... + c[n-1] by Horner's rule, from c[0]: every series
 * below (a subtraction is the addition of a negative coefficient, the
 * same bits) */
static double horner(const double *c, int n, double x) {
    double p = c[0];
    for (int i = 1; i < n; i++) p = p * x + c[i];
    return p;
}

/* ---- exp in float: the scalar twin of v4_exp in kernels.h --------------- */

float sp_expf(float x) {
    /* identical operation sequence to v4_exp() (internal.h, which says why
     * there is no clamp below and no multiplication by 2^k): keep them in
     * step */
    float xc = x < SP_EXP_HI ? x : SP_EXP_HI; /* v4_min: NaN -> HI */
    float rounded = xc * SP_LOG2E_F + SP_ROUND_MAGIC_F;
    float k = rounded - SP_ROUND_MAGIC_F; /* round to nearest */
    float r = (xc - k * SP_LN2_HI_F) - k * SP_LN2_LO_F;
    float p = sp_exp_poly_f(r);
    uint32_t pb, rb; /* v4_add_shl23: p * 2^k, k in rounded's low bits */
    memcpy(&pb, &p, 4);
    memcpy(&rb, &rounded, 4);
    pb += rb << 23;
    float y;
    memcpy(&y, &pb, 4);
    /* below the range, and for -inf and NaN: exactly 0 */
    return x >= SP_EXP_LO ? y : 0.0f;
}

/* ---- doubles ------------------------------------------------------------ */

static double round_nearest(double t) {
    /* |t| < 2^51: adding and removing 1.5 * 2^52 rounds to nearest even */
    const double magic = 6755399441055744.0;
    return (t + magic) - magic;
}

static double scale2(double y, int k) {
    /* y * 2^k for k in [-1022, 1023] */
    uint64_t bits = (uint64_t)(k + 1023) << 52;
    double s;
    memcpy(&s, &bits, 8);
    return y * s;
}

double sp_exp(double x) {
    if (x != x) return x;
    if (x > 709.0) return INFINITY;
    if (x < -708.0) return 0.0;
    const double ln2_hi = 6.93147180369123816490e-01; /* 0x3fe62e42fee00000 */
    const double ln2_lo = 1.90821492927058770002e-10;
    double k = round_nearest(x * 1.44269504088896338700);
    double r = (x - k * ln2_hi) - k * ln2_lo; /* |r| <= 0.347 */
    /* Taylor to r^13: truncation error below 1e-17 */
    static const double c[14] = {
        1.0 / 6227020800.0, 1.0 / 479001600.0, 1.0 / 39916800.0,
        1.0 / 3628800.0, 1.0 / 362880.0, 1.0 / 40320.0, 1.0 / 5040.0,
        1.0 / 720.0, 1.0 / 120.0, 1.0 / 24.0, 1.0 / 6.0, 0.5, 1.0, 1.0};
    return scale2(horner(c, 14, r), (int)k);
}

double sp_log(double x) {
    if (x != x || x < 0.0) return NAN;
    if (x == 0.0) return -INFINITY;
    if (x == INFINITY) return x;
    int e = 0;
    if (x < 2.2250738585072014e-308) { /* subnormal: make it normal */
        x *= 18014398509481984.0;      /* 2^54 */
        e = -54;
    }
    uint64_t bits;
    memcpy(&bits, &x, 8);
    e += (int)((bits >> 52) & 0x7ff) - 1023;
    bits = (bits & 0x000fffffffffffffull) | 0x3ff0000000000000ull;
    double m;
    memcpy(&m, &bits, 8); /* m in [1, 2) */
    if (m > 1.4142135623730951) {
        m *= 0.5;
        e += 1;
    }
    /* log m = 2 atanh(s), s = (m - 1) / (m + 1), |s| <= 0.1716 */
    double s = (m - 1.0) / (m + 1.0);
    double s2 = s * s;
    static const double c[12] = {
        1.0 / 23.0, 1.0 / 21.0, 1.0 / 19.0, 1.0 / 17.0, 1.0 / 15.0,
        1.0 / 13.0, 1.0 / 11.0, 1.0 / 9.0,  1.0 / 7.0,  1.0 / 5.0,
        1.0 / 3.0,  1.0};
    double p = horner(c, 12, s2);
    const double ln2_hi = 6.93147180369123816490e-01;
    const double ln2_lo = 1.90821492927058770002e-10;
    return e * ln2_hi + (2.0 * s * p + e * ln2_lo);
}

double sp_pow(double base, double exponent) {
    if (base == 1.0 || exponent == 0.0) return 1.0;
    if (base <= 0.0) return NAN; /* only positive bases are needed here */
    return sp_exp(exponent * sp_log(base));
}

/* sin and cos of r, |r| <= pi/4, by Taylor series (error < 1e-17) */
static double sin_kernel(double r) {
    double r2 = r * r;
    static const double c[7] = {-1.0 / 1307674368000.0, /* -1/15! */
                                1.0 / 6227020800.0, -1.0 / 39916800.0,
                                1.0 / 362880.0, -1.0 / 5040.0, 1.0 / 120.0,
                                -1.0 / 6.0};
    return r + r * r2 * horner(c, 7, r2);
}

static double cos_kernel(double r) {
    double r2 = r * r;
    static const double c[8] = {1.0 / 20922789888000.0, /* 1/16! */
                                -1.0 / 87178291200.0, 1.0 / 479001600.0,
                                -1.0 / 3628800.0, 1.0 / 40320.0, -1.0 / 720.0,
                                1.0 / 24.0, -0.5};
    return 1.0 + r2 * horner(c, 8, r2);
}

/* x = k * pi/2 + r, |r| <= pi/4 (Cody-Waite, pi/2 in three parts: accurate
 * for |x| up to about 1e9, far beyond any position * frequency here) */
static double reduce_half_pi(double x, int *quadrant) {
    const double p1 = 1.57079632673412561417e+00; /* 33 bits of pi/2 */
    const double p2 = 6.07710050630396597660e-11; /* next 33 bits */
    const double p3 = 2.02226624879595063154e-21; /* the rest */
    double k = round_nearest(x * 6.36619772367581382433e-01);
    *quadrant = (int)((int64_t)k & 3);
    return ((x - k * p1) - k * p2) - k * p3;
}

double sp_sin(double x) {
    if (!(x - x == 0.0)) return NAN; /* inf or NaN */
    int q;
    double r = reduce_half_pi(x, &q);
    switch (q) {
    case 0: return sin_kernel(r);
    case 1: return cos_kernel(r);
    case 2: return -sin_kernel(r);
    default: return -cos_kernel(r);
    }
}

double sp_cos(double x) {
    if (!(x - x == 0.0)) return NAN;
    int q;
    double r = reduce_half_pi(x, &q);
    switch (q) {
    case 0: return cos_kernel(r);
    case 1: return -sin_kernel(r);
    case 2: return -cos_kernel(r);
    default: return sin_kernel(r);
    }
}
