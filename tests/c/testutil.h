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

/* The default settings, which each test changes from. */
static inline sp_params tu_params(void) {
    sp_params p;
    sp_params_default(&p);
    return p;
}

/* A sampler for a vocabulary of n tokens: s itself when its vocabulary is n,
 * else a new one (s freed). */
static inline sp_sampler *tu_sampler_for(sp_sampler *s, int n) {
    if (s && sp_sampler_vocab(s) == n) return s;
    sp_sampler_free(s);
    return sp_sampler_new(n);
}

/* Speculative decoding at temperature 0 is greedy decoding: sp's target
 * session s, started on "Jo" with seed 9 and run for 80 tokens in rounds,
 * holds the tokens of plain (greedy on "Jo").  Returns 1 when every round
 * succeeded and the tokens are the same. */
static inline int tu_spec_is_greedy(sp_speculator *sp, sp_session *s,
                                    const sp_session *plain,
                                    const sp_params *greedy, char *err) {
    int ok = sp_spec_start(sp, "Jo", 9, err) == SP_OK;
    while (ok && sp_session_n_generated(s) < 80)
        ok = sp_spec_round(sp, greedy, err) == SP_OK;
    return ok && memcmp(sp_session_tokens(s), sp_session_tokens(plain),
                        sizeof(int) * (size_t)sp_session_n_tokens(plain)) == 0;
}

/* The exact distributions of the first two tokens a session generates
 * from prompt under p: p1[v] the first's (the preview), p2[v] the second's
 * (each first token a forced, then the preview after it, weighted by
 * p1[a]); both zeroed first.  The seed is 1 (p draws nothing here). */
static inline void tu_two_token_probs(sp_session *s, const char *prompt,
                                      const sp_params *p, int v, double *p1,
                                      double *p2, char *err) {
    for (int a = 0; a < v; a++) p1[a] = p2[a] = 0.0;
    sp_session_start(s, prompt, 1, err);
    sp_session_preview(s, p, err);
    for (int a = 0; a < v; a++) p1[a] = sp_session_last_step(s)->probs[a];
    for (int a = 0; a < v; a++) {
        if (p1[a] == 0) continue;
        sp_session_rewind(s, 0, err);
        sp_session_step(s, p, a, err);
        sp_session_preview(s, p, err);
        for (int c = 0; c < v; c++)
            p2[c] += p1[a] * sp_session_last_step(s)->probs[c];
    }
}

/* One warp of logits[n] after hist[nh] into *step, with *s made for n
 * tokens (tu_sampler_for) and a bare sampler's state (no XTC draw,
 * mirostat and adaptive-p at their start, no end tokens); err cleared
 * first.  Returns the warp's rc. */
static inline int tu_warp(sp_sampler **s, const float *logits, int n,
                          const int *hist, int nh, const sp_params *p,
                          sp_step *step, char *err) {
    *s = tu_sampler_for(*s, n);
    sp_sampler_state none = {0.0, NAN, 0, NULL, 0, NAN, NAN, NULL};
    sp_sampler_set_state(*s, &none);
    err[0] = '\0';
    return sp_sampler_warp(*s, logits, hist, nh, p, step, err);
}

/* models/<file> under root, loaded (the model owns the bytes), or NULL
 * with err set. */
static inline sp_model *tu_load_model(const char *root, const char *file,
                                      char *err) {
    char path[4096];
    snprintf(path, sizeof path, "%s/models/%s", root, file);
    size_t size;
    uint8_t *data = read_all(path, &size);
    if (!data) {
        snprintf(err, SP_ERR_LEN, "cannot read %.200s", path);
        return NULL;
    }
    return sp_model_load(data, size, 1, err);
}

#endif
