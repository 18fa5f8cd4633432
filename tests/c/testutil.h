/*
 * testutil.h — what several C tests need: reading a whole file, the
 * chi-square statistic with its 0.1% critical value, and random llama2.c
 * checkpoints of any shape.
 */
#ifndef SP_TESTUTIL_H
#define SP_TESTUTIL_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sampler.h"

/* The whole file, malloc'd (size in *size), or NULL. */
static inline uint8_t *read_all(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *data = malloc((size_t)n + 1);
    *size = data ? fread(data, 1, (size_t)n, f) : 0;
    fclose(f);
    return data;
}

/* The chi-square statistic of observed counts against probabilities p,
 * with the bins whose expected count is below 5 merged into one; *df gets
 * the degrees of freedom. */
static inline double chi_square(const long *obs, const double *p, int n,
                                long total, int *df) {
    double stat = 0, so = 0, se = 0;
    int bins = 0;
    for (int i = 0; i < n; i++) {
        double e = p[i] * total;
        if (e < 5) {
            so += obs[i];
            se += e;
            continue;
        }
        stat += (obs[i] - e) * (obs[i] - e) / e;
        bins++;
    }
    if (se > 0) {
        stat += (so - se) * (so - se) / se;
        bins++;
    }
    *df = bins - 1;
    return stat;
}

/* The chi-square quantile at 1 - 0.001 (Wilson-Hilferty). */
static inline double chi_square_critical(int df) {
    double z = 3.090232, a = 2.0 / (9.0 * df), c = 1 - a + z * sqrt(a);
    return df * c * c * c;
}

/* A llama2.c checkpoint (shared classifier) with weights uniform in
 * [offset, offset + scale) from a PCG32 stream; malloc'd, size in *size. */
static inline uint8_t *random_checkpoint(int dim, int hidden, int layers,
                                         int heads, int kv, int vocab, int seq,
                                         uint64_t seed, float scale,
                                         float offset, size_t *size) {
    int kv_dim = dim * kv / heads, hs = dim / heads;
    size_t floats = (size_t)vocab * dim + layers * (size_t)(dim + dim * dim +
                    2 * kv_dim * dim + dim * dim + dim + 3 * hidden * dim) +
                    dim + (size_t)seq * hs;
    *size = 28 + floats * 4;
    uint8_t *data = malloc(*size);
    int header[7] = {dim, hidden, layers, heads, kv, vocab, seq};
    memcpy(data, header, 28);
    float *w = (float *)(data + 28);
    sp_rng rng;
    sp_rng_seed(&rng, seed);
    for (size_t i = 0; i < floats; i++)
        w[i] = offset + scale * (float)sp_rng_uniform(&rng);
    return data;
}

#endif
