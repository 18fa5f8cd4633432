/*
 * prng.c — PCG32 (M. E. O'Neill, "PCG: A Family of Simple Fast
 * Space-Efficient Statistically Good Algorithms for Random Number
 * Generation", 2014; pcg-random.org), the XSH-RR variant: a 64-bit LCG state
 * and a 32-bit permuted output.  Seeding follows the reference
 * pcg32_srandom_r(initstate = seed, initseq = 54), so sp_rng_seed(42)
 * reproduces the reference demo's stream (0xa15c02b7, 0x7b47f409, ...).
 * Integer arithmetic only: the same numbers in every build.
 */
#include "sampler.h"

#define PCG_MULTIPLIER 6364136223846793005ull
#define PCG_STREAM 54ull /* initseq: fixed, so the seed is the whole key */

static uint64_t pcg_increment(void) { return (PCG_STREAM << 1u) | 1u; }

uint32_t sp_rng_u32(sp_rng *rng) {
    uint64_t old = rng->state;
    rng->state = old * PCG_MULTIPLIER + pcg_increment();
    uint32_t xorshifted = (uint32_t)(((old >> 18u) ^ old) >> 27u);
    uint32_t rot = (uint32_t)(old >> 59u);
    return (xorshifted >> rot) | (xorshifted << ((-rot) & 31u));
}

void sp_rng_seed(sp_rng *rng, uint64_t seed) {
    rng->state = 0u;
    sp_rng_u32(rng);
    rng->state += seed;
    sp_rng_u32(rng);
}

double sp_rng_uniform(sp_rng *rng) {
    /* 27 + 26 = 53 random bits, the full precision of a double */
    uint32_t a = sp_rng_u32(rng) >> 5;
    uint32_t b = sp_rng_u32(rng) >> 6;
    return ((double)a * 67108864.0 + (double)b) * (1.0 / 9007199254740992.0);
}

double sp_xtc_uniform(uint64_t seed, int step) {
    /* the seed moved by a multiple of the golden ratio per step: a PCG32
     * stream per step, unrelated to the text's own */
    sp_rng r;
    sp_rng_seed(&r, seed ^ (0x9E3779B97F4A7C15ULL * (uint64_t)(step + 1)));
    return sp_rng_uniform(&r);
}
