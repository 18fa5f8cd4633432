/* test_prng.c — PCG32 against the reference implementation's published
 * stream, and the uniform's range and resolution. */
#include "check.h"
#include "sampler.h"

static void test_reference_stream(void) {
    /* pcg32_srandom_r(42, 54): the pcg-c demo's "Round 1" */
    static const uint32_t expected[6] = {0xa15c02b7u, 0x7b47f409u, 0xba1d3330u,
                                         0x83d2f293u, 0xbfa4784bu, 0xcbed606eu};
    sp_rng rng;
    sp_rng_seed(&rng, 42);
    for (int i = 0; i < 6; i++) CHECK_EQ_INT(sp_rng_u32(&rng), expected[i]);
}

static void test_seeds(void) {
    /* the same seed, the same stream; another seed, another stream */
    sp_rng a, b;
    sp_rng_seed(&a, 7);
    sp_rng_seed(&b, 7);
    for (int i = 0; i < 100; i++) CHECK_EQ_INT(sp_rng_u32(&a), sp_rng_u32(&b));
    sp_rng_seed(&b, 8);
    int same = 0;
    for (int i = 0; i < 100; i++) same += sp_rng_u32(&a) == sp_rng_u32(&b);
    CHECK(same < 3);
}

static void test_uniform(void) {
    sp_rng a, b;
    /* the uniform: [0, 1), mean 1/2, built from two outputs */
    sp_rng_seed(&a, 1);
    double sum = 0.0, lo = 1.0, hi = 0.0;
    const int n = 200000;
    for (int i = 0; i < n; i++) {
        double u = sp_rng_uniform(&a);
        CHECK(u >= 0.0 && u < 1.0);
        sum += u;
        if (u < lo) lo = u;
        if (u > hi) hi = u;
    }
    CHECK_NEAR(sum / n, 0.5, 0.005); /* sd of the mean: 0.00065 */
    CHECK(lo < 1e-4 && hi > 1 - 1e-4);
    sp_rng_seed(&a, 42);
    sp_rng_seed(&b, 42);
    uint32_t x = sp_rng_u32(&b) >> 5, y = sp_rng_u32(&b) >> 6;
    CHECK(sp_rng_uniform(&a) == ((double)x * 67108864.0 + y) / 9007199254740992.0);
}

TEST_SUITE(prng,
           TEST(test_reference_stream),
           TEST(test_seeds),
           TEST(test_uniform));
