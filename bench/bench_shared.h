/*
 * bench_shared.h — what the benchmark's workload files (bench_core.c,
 * bench_model.c, bench_spec.c) share: the checksums they return, the
 * uniform floats their inputs are made of (one copy, static inline) and the
 * benchmark's sampler settings.
 */
#ifndef SP_BENCH_SHARED_H
#define SP_BENCH_SHARED_H

#include <stdint.h>
#include <string.h>

#include "sampler.h"

/* FNV-1a over 32-bit words; the result is reduced to 52 bits so that it
 * survives the trip through a double. */
static inline uint64_t hash_u32(uint64_t h, uint32_t w) {
    for (int i = 0; i < 4; i++) {
        h ^= (w >> (8 * i)) & 0xffu;
        h *= 0x100000001b3ull;
    }
    return h;
}
static inline uint64_t hash_f32(uint64_t h, float f) {
    uint32_t w;
    memcpy(&w, &f, 4);
    return hash_u32(h, w);
}
static inline uint64_t hash_f64(uint64_t h, double d) {
    uint64_t w;
    memcpy(&w, &d, 8);
    return hash_u32(hash_u32(h, (uint32_t)w), (uint32_t)(w >> 32));
}
#define HASH_SEED 0xcbf29ce484222325ull
static inline double hash_out(uint64_t h) { return (double)(h >> 12); }

/* uniform float in [0, 1) from 24 random bits */
static inline float rand01(sp_rng *r) {
    return (float)(sp_rng_u32(r) >> 8) * (1.0f / 16777216.0f);
}

/* The hash of n floats' bits from HASH_SEED (bench_spec.c's checksums). */
static inline double hash_floats(const float *x, int n) {
    uint64_t h = HASH_SEED;
    for (int i = 0; i < n; i++) h = hash_f32(h, x[i]);
    return hash_out(h);
}

/* The benchmark's sampler settings (bench.h, bench_sampler_init) into p
 * (bench_core.c); bench_generate_run's too. */
void bench_base_params(sp_params *p);

#endif /* SP_BENCH_SHARED_H */
