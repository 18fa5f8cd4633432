/* test_mathx.c — the engine's own exp, log, sin, cos and pow: accurate
 * against libm, exact where they must be, and the vector exp equal to the
 * scalar one bit for bit. */
#include <float.h>
#include <string.h>

#include "check.h"
#include "internal.h"

/* sp_expf the long way round (as it was written first): clamp to [LO, HI],
 * 2^k built as a float from the integer k, one multiplication.  The engine's
 * leaves out the low clamp and the multiplication (internal.h says why);
 * both must give these bits for every input. */
static float expf_long_way(float x) {
    float xc = x > SP_EXP_LO ? x : SP_EXP_LO;
    xc = xc < SP_EXP_HI ? xc : SP_EXP_HI;
    float t = xc * SP_LOG2E_F;
    float k = (t + SP_ROUND_MAGIC_F) - SP_ROUND_MAGIC_F;
    float r = (xc - k * SP_LN2_HI_F) - k * SP_LN2_LO_F;
    float p = sp_exp_poly_f(r); /* the polynomial is the engine's */
    float scale = sp_bits_float((uint32_t)((int32_t)k + 127) << 23);
    return x >= SP_EXP_LO ? p * scale : 0.0f;
}

/* sp_expf, v4_exp and v4_exp_upto_hi (on its lanes, <= SP_EXP_HI) against
 * the long way round: every 4099th bit pattern (all signs, NaNs and
 * infinities among them) and every float near the ends of the range.  (All
 * 2^32 of them agreed when the shortcuts were made.) */
static void test_exp_long_way(void) {
    int bad = 0, n = 0;
    float xs[4];
    for (uint64_t u = 0; u < (1ull << 32); u += 4099) {
        float x = sp_bits_float((uint32_t)u);
        bad += sp_float_bits(sp_expf(x)) != sp_float_bits(expf_long_way(x));
        n++;
        /* the softmaxes' exp, without the clamp: lanes <= HI and NaNs */
        if (!(x > SP_EXP_HI)) {
            float out[4];
            v4_store(out, v4_exp_upto_hi(v4_splat(x)));
            bad += sp_float_bits(out[0]) != sp_float_bits(expf_long_way(x));
        }
    }
    const float ends[] = {SP_EXP_LO, SP_EXP_HI, -86.98f, -87.34f, 0.0f};
    for (int e = 0; e < 5; e++) {
        uint32_t b = sp_float_bits(ends[e]);
        for (uint32_t d = 0; d < 40000; d++) {
            for (int l = 0; l < 4; l++) xs[l] = sp_bits_float(b - 20000 + d + (uint32_t)l * 40000u);
            float out[4];
            v4_store(out, v4_exp(v4_load(xs)));
            for (int l = 0; l < 4; l++) {
                bad += sp_float_bits(out[l]) != sp_float_bits(expf_long_way(xs[l]));
                bad += sp_float_bits(sp_expf(xs[l])) != sp_float_bits(out[l]);
            }
            n += 4;
        }
    }
    CHECK_EQ_INT(bad, 0);
    fprintf(stderr, "sp_expf, v4_exp, v4_exp_upto_hi: %d inputs, %d differ "
            "from the long way round\n", n, bad);
}

static void test_expf(void) {
    /* exp in float: within 2 ulp of the correctly rounded value */
    double worst = 0.0;
    for (double x = -87.0; x <= 88.0; x += 0.001) {
        float y = sp_expf((float)x);
        double ref = exp((double)(float)x);
        double ulp = ref * FLT_EPSILON;
        double err = fabs(y - ref) / ulp;
        if (err > worst) worst = err;
    }
    CHECK(worst <= 2.0);
    say("sp_expf: worst error %.2f ulp on [-87, 88]", worst);
    CHECK(sp_expf(0.0f) == 1.0f); /* the max of a softmax has exp 1 */
    CHECK(sp_expf(-INFINITY) == 0.0f);
    CHECK(sp_expf(NAN) == 0.0f);
    CHECK(sp_expf(-87.5f) == 0.0f);
    CHECK(sp_expf(-1000.0f) == 0.0f);
    CHECK(sp_expf(1000.0f) > 1e38f && sp_expf(1000.0f) < INFINITY);

    CHECK(sp_float_bits(sp_expf(-0.0f)) == sp_float_bits(sp_expf(0.0f))); /* snapshot() */
}

static void test_vector_exp(void) {
    /* the vector exp is the scalar exp, lane by lane, to the bit */
    float xs[16] = {-90.0f, -87.0f, -86.99f, -20.5f, -1.0f, -0.5f, -1e-8f, 0.0f,
                    1e-8f, 0.34657f, 0.5f, 1.0f, 10.0f, 87.9f, 88.0f, 100.0f};
    for (int i = 0; i < 16; i += 4) {
        float out[4];
        v4_store(out, v4_exp(v4_load(xs + i)));
        for (int l = 0; l < 4; l++)
            CHECK_EQ_INT(sp_float_bits(out[l]), sp_float_bits(sp_expf(xs[i + l])));
    }
}

static void test_doubles(void) {
    /* doubles: relative error near the last bit */
    double we = 0, wl = 0, ws = 0, wc = 0;
    for (double x = -700; x < 700; x += 0.0137) {
        double r = exp(x);
        double e = fabs(sp_exp(x) - r) / r;
        if (e > we) we = e;
    }
    for (double x = 1e-300; x < 1e300; x *= 1.37) {
        double r = log(x);
        double e = fabs(sp_log(x) - r) / fabs(r ? r : 1);
        if (e > wl) wl = e;
    }
    for (double x = -1e5; x < 1e5; x += 0.731) {
        double es = fabs(sp_sin(x) - sin(x)), ec = fabs(sp_cos(x) - cos(x));
        if (es > ws) ws = es;
        if (ec > wc) wc = ec;
    }
    say("sp_exp %.2g, sp_log %.2g (relative); sp_sin %.2g, sp_cos %.2g "
        "(absolute)", we, wl, ws, wc);
    CHECK(we < 1e-14);
    CHECK(wl < 1e-14);
    CHECK(ws < 1e-10 && wc < 1e-10); /* RoPE angles: |x| up to ~1e5 */
    CHECK(sp_log(1.0) == 0.0);
    CHECK(isinf(sp_log(0.0)) && sp_log(0.0) < 0);
    CHECK(isnan(sp_log(-1.0)));
    CHECK_NEAR(sp_log(2.2250738585072014e-310), log(2.2250738585072014e-310), 1e-12);
    CHECK_NEAR(sp_pow(10000.0, 0.5), 100.0, 1e-12);
    CHECK_NEAR(sp_pow(10000.0, 30.0 / 32.0), pow(10000.0, 30.0 / 32.0), 1e-9);
}

static void test_canonical_sum(void) {
    /* the canonical sum: 16 lanes then the tail, the same in every build */
    float a[37], b[37];
    for (int i = 0; i < 37; i++) {
        a[i] = 1.0f + (float)i / 3.0f;
        b[i] = 1.0f / (1.0f + (float)i);
    }
    float lanes[16] = {0};
    for (int i = 0; i < 32; i++) lanes[i % 16] += a[i] * b[i];
    float q[4];
    for (int l = 0; l < 4; l++)
        q[l] = (lanes[l] + lanes[4 + l]) + (lanes[8 + l] + lanes[12 + l]);
    float expect = (q[0] + q[1]) + (q[2] + q[3]);
    for (int i = 32; i < 37; i++) expect += a[i] * b[i];
    CHECK_EQ_INT(sp_float_bits(sp_dot(a, b, 37)), sp_float_bits(expect));
}

TEST_SUITE(mathx,
           TEST(test_expf),
           TEST(test_exp_long_way),
           TEST(test_vector_exp),
           TEST(test_doubles),
           TEST(test_canonical_sum));
