/* test_chain_cases.c — the stages on worked examples: llama.cpp's own
 * test cases (tests/test-sampling.cpp) where it has them (top-nσ, XTC,
 * DRY, dynamic temperature), hand-computed ones elsewhere (epsilon, eta,
 * top-a, no-repeat-ngram, mirostat), and the cutoffs against slow
 * references on random vocabularies. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chain_util.h"
#include "check.h"
#include "internal.h"
#include "sampler.h"
#include "sampler/candidates.h"
#include "testutil.h"

/* ---------------------------------------------- llama.cpp's test cases */

static const float P4[4] = {0.1f, 0.2f, 0.3f, 0.4f};

static void test_top_n_sigma(void) {
    float x[4];
    log_of(P4, 4, x);
    sp_params p = tu_params();
    p.top_n_sigma = 1.0f;
    CHECK_EQ_INT(warp(x, 4, NULL, 0, &p), SP_OK);
    expect_probs((const float[]){0.0f, 0.0f, 0.428571f, 0.571429f}, 4, "top-nσ 1");
    CHECK_EQ_INT(step.cut[0], SP_CUT_TOP_N_SIGMA);
    p.top_n_sigma = 0.0f; /* off, not greedy */
    CHECK_EQ_INT(warp(x, 4, NULL, 0, &p), SP_OK);
    expect_probs(P4, 4, "top-nσ 0");
    p.top_n_sigma = 3.0f;
    CHECK_EQ_INT(warp(x, 4, NULL, 0, &p), SP_OK);
    expect_probs(P4, 4, "top-nσ 3");
}

static void test_xtc(void) {
    static const float P[4] = {0.4f, 0.3f, 0.2f, 0.1f};
    float x[4];
    log_of(P, 4, x);
    sp_params p = tu_params();
    p.xtc_probability = 0.99f;
    p.xtc_threshold = 0.09f;
    CHECK_EQ_INT(warp(x, 4, NULL, 0, &p), SP_OK);
    expect_probs((const float[]){0, 0, 0, 1}, 4, "xtc 0.09");
    CHECK_EQ_INT(step.cut[0], SP_CUT_XTC);
    p.xtc_threshold = 0.19f;
    CHECK_EQ_INT(warp(x, 4, NULL, 0, &p), SP_OK);
    expect_probs((const float[]){0, 0, 2.0f / 3, 1.0f / 3}, 4, "xtc 0.19");
    p.xtc_threshold = 0.29f;
    CHECK_EQ_INT(warp(x, 4, NULL, 0, &p), SP_OK);
    expect_probs((const float[]){0, 0.5f, 1.0f / 3, 1.0f / 6}, 4, "xtc 0.29");
    p.xtc_threshold = 0.39f; /* one token above: nothing to exclude */
    CHECK_EQ_INT(warp(x, 4, NULL, 0, &p), SP_OK);
    expect_probs(P, 4, "xtc 0.39");
    /* the step's own draw decides: u >= probability leaves it alone */
    p.xtc_threshold = 0.09f;
    sp_sampler_state st = {0.995, NAN, 0, NULL, 0, NAN, NAN, NULL};
    sp_sampler_set_state(sampler, &st);
    CHECK_EQ_INT(sp_sampler_warp(sampler, x, NULL, 0, &p, &step, err), SP_OK);
    expect_probs(P, 4, "xtc skipped");
    /* over many steps of a text, XTC acts about as often as it should:
     * the draws are a stream of their own (binomial, 4 sigma) */
    int acted = 0, n = 4000;
    for (int i = 0; i < n; i++) acted += sp_xtc_uniform(42, i) < 0.3;
    CHECK(fabs(acted - 0.3 * n) < 4 * sqrt(n * 0.3 * 0.7));
    /* and differ from the text's own stream */
    sp_rng r;
    sp_rng_seed(&r, 42);
    CHECK(sp_rng_uniform(&r) != sp_xtc_uniform(42, 0));
}

static void test_dry(void) {
    /* test_dry's cases: history, expected, multiplier, base, allowed, last n, breakers */
    float x4[4] = {0, 0, 0, 0}, x5[5] = {0, 0, 0, 0, 0};
    sp_params p = tu_params();
    p.dry_multiplier = 1.0f;
    p.dry_base = 1.1f;
    p.dry_allowed_length = 2;
    p.dry_penalty_last_n = 4;
    CHECK_EQ_INT(warp(x4, 4, (const int[]){0, 1}, 2, &p), SP_OK);
    expect_probs((const float[]){0.25f, 0.25f, 0.25f, 0.25f}, 4, "dry 1");
    p.dry_penalty_last_n = 5;
    CHECK_EQ_INT(warp(x4, 4, (const int[]){0, 1, 2, 0, 1}, 5, &p), SP_OK);
    expect_probs((const float[]){0.296923f, 0.296923f, 0.109232f, 0.296923f}, 4, "dry 2");
    p.dry_penalty_last_n = 6;
    CHECK_EQ_INT(sp_params_add_dry_breaker(&p, (const int[]){3}, 1, err), SP_OK);
    CHECK_EQ_INT(warp(x5, 5, (const int[]){0, 1, 3, 4, 0, 1}, 6, &p), SP_OK);
    expect_probs((const float[]){0.2f, 0.2f, 0.2f, 0.2f, 0.2f}, 5, "dry 3");
    p.n_dry_breakers = 0;
    p.dry_multiplier = 2.0f;
    p.dry_penalty_last_n = 5;
    CHECK_EQ_INT(warp(x5, 5, (const int[]){0, 1, 2, 0, 1}, 5, &p), SP_OK);
    expect_probs((const float[]){0.241818f, 0.241818f, 0.032727f, 0.241818f, 0.241818f}, 5, "dry 4");
    p.dry_multiplier = 1.0f;
    p.dry_allowed_length = 4;
    p.dry_penalty_last_n = 7;
    CHECK_EQ_INT(warp(x5, 5, (const int[]){0, 1, 2, 3, 4, 0, 1}, 7, &p), SP_OK);
    expect_probs((const float[]){0.2f, 0.2f, 0.2f, 0.2f, 0.2f}, 5, "dry 5");
    /* a long repeat: the exponent grows with its length (1.75^3 for a
     * repeat of 5 with 2 allowed), and a whole history (last n 0) */
    p = tu_params();
    p.dry_multiplier = 0.8f;
    int h[10] = {0, 1, 2, 3, 4, 0, 1, 2, 3, 4};
    CHECK_EQ_INT(warp(x5, 5, h, 10, &p), SP_OK);
    /* 0 would extend "0 1 2 3 4" (5 long): logit -0.8 * 1.75^3 */
    double pen = 0.8 * pow(1.75, 3), z = 4 + exp(-pen);
    CHECK_NEAR(step.probs[0], exp(-pen) / z, 1e-6);
    CHECK_NEAR(step.probs[1], 1 / z, 1e-6);
}

/* What the step record says the repeat stages saw, for the page's strip:
 * DRY's candidates and their repeat lengths (the cases above), the
 * penalties' window counts; cleared at the next warp. */
static void test_repeat_state(void) {
    float x5[5] = {0, 0, 0, 0, 0};
    sp_params p = tu_params();
    p.dry_multiplier = 1.0f;
    p.dry_base = 1.1f;
    p.dry_allowed_length = 2;
    p.dry_penalty_last_n = 5;
    CHECK_EQ_INT(warp(x5, 5, (const int[]){0, 1, 2, 0, 1}, 5, &p), SP_OK);
    CHECK_EQ_INT(step.dry_n, 1); /* 2 would extend "0 1" */
    CHECK_EQ_INT(step.dry_longest, 2);
    CHECK_EQ_INT(step.dry_length[2], 2);
    CHECK_EQ_INT(step.dry_length[0], 0);
    CHECK_EQ_INT(step.penalties_n, -1); /* off */
    p = tu_params();
    p.dry_multiplier = 0.8f;
    int h[10] = {0, 1, 2, 3, 4, 0, 1, 2, 3, 4};
    CHECK_EQ_INT(warp(x5, 5, h, 10, &p), SP_OK);
    CHECK_EQ_INT(step.dry_n, 1); /* 0 would extend "0 1 2 3 4" */
    CHECK_EQ_INT(step.dry_longest, 5);
    CHECK_EQ_INT(step.dry_length[0], 5);
    CHECK_EQ_INT(step.dry_length[2], 0); /* the last warp's, cleared */
    p = tu_params();
    p.frequency_penalty = 0.5f;
    CHECK_EQ_INT(warp(x5, 5, (const int[]){0, 1, 1, 2, 1}, 5, &p), SP_OK);
    CHECK_EQ_INT(step.penalties_n, 3);
    CHECK_EQ_INT(step.penalty_count[1], 3);
    CHECK_EQ_INT(step.penalty_count[0], 1);
    CHECK_EQ_INT(step.penalty_count[3], 0);
    CHECK_EQ_INT(step.dry_n, -1);
    CHECK_EQ_INT(step.dry_length[0], 0);
    p = tu_params();
    p.repetition_penalty = 1.5f; /* the same counts with the other penalty */
    CHECK_EQ_INT(warp(x5, 5, (const int[]){4, 4}, 2, &p), SP_OK);
    CHECK_EQ_INT(step.penalties_n, 1);
    CHECK_EQ_INT(step.penalty_count[4], 2);
    CHECK_EQ_INT(step.penalty_count[1], 0);
    p = tu_params(); /* off: nothing */
    CHECK_EQ_INT(warp(x5, 5, (const int[]){4, 4}, 2, &p), SP_OK);
    CHECK_EQ_INT(step.penalties_n, -1);
    CHECK_EQ_INT(step.penalty_count[4], 0);
    /* the surprise mirostat learns from */
    CHECK_NEAR(sp_surprise_bits(0.25f), 2.0, 1e-12);
    CHECK(sp_surprise_bits(0.0f) == 0.0);
}

static void test_dynatemp(void) {
    float x[4];
    log_of(P4, 4, x);
    sp_params p = tu_params();
    p.dynatemp_range = 0.0f; /* llama.cpp's temp_ext cases */
    CHECK_EQ_INT(warp(x, 4, NULL, 0, &p), SP_OK);
    expect_probs(P4, 4, "temp_ext 1");
    p.temperature = 0.0f;
    CHECK_EQ_INT(warp(x, 4, NULL, 0, &p), SP_OK);
    expect_probs((const float[]){0, 0, 0, 1}, 4, "temp_ext 0");
    /* range 1 around T 1: the entropy's share picks T in [0, 2] */
    p = tu_params();
    p.dynatemp_range = 1.0f;
    CHECK_EQ_INT(warp(x, 4, NULL, 0, &p), SP_OK);
    double h = 0;
    for (int i = 0; i < 4; i++) h -= P4[i] * log(P4[i]);
    double t = 0 + 2 * (h / log(4.0)); /* exponent 1 */
    double z = 0;
    for (int i = 0; i < 4; i++) z += pow(P4[i], 1 / t);
    for (int i = 0; i < 4; i++) CHECK_NEAR(step.probs[i], pow(P4[i], 1 / t) / z, 1e-5);
    /* an exponent sharpens the mapping; a range below T clamps at 0 */
    p.dynatemp_exp = 2.0f;
    CHECK_EQ_INT(warp(x, 4, NULL, 0, &p), SP_OK);
    t = 2 * pow(h / log(4.0), 2);
    z = 0;
    for (int i = 0; i < 4; i++) z += pow(P4[i], 1 / t);
    CHECK_NEAR(step.probs[3], pow(P4[3], 1 / t) / z, 1e-5);
}

/* ------------------------------------------------- hand-computed cases */

static void test_epsilon_eta_top_a(void) {
    static const float P[5] = {0.5f, 0.3f, 0.1f, 0.06f, 0.04f};
    float x[5];
    log_of(P, 5, x);
    sp_params p = tu_params();
    p.epsilon_cutoff = 0.07f; /* cuts 0.06 and 0.04 */
    CHECK_EQ_INT(warp(x, 5, NULL, 0, &p), SP_OK);
    expect_probs((const float[]){0.5f / 0.9f, 0.3f / 0.9f, 0.1f / 0.9f, 0, 0}, 5, "epsilon");
    CHECK_EQ_INT(step.cut[3], SP_CUT_EPSILON);
    /* eta: H = 1.2813 nats; min(0.09, 0.3 e^-H = 0.0833) keeps >= 0.0833 */
    p = tu_params();
    p.eta_cutoff = 0.09f;
    CHECK_EQ_INT(warp(x, 5, NULL, 0, &p), SP_OK);
    expect_probs((const float[]){0.5f / 0.9f, 0.3f / 0.9f, 0.1f / 0.9f, 0, 0}, 5, "eta");
    CHECK_EQ_INT(step.cut[4], SP_CUT_ETA);
    /* top-a 0.5: keep p >= 0.5 * 0.25 = 0.125 */
    p = tu_params();
    p.top_a = 0.5f;
    CHECK_EQ_INT(warp(x, 5, NULL, 0, &p), SP_OK);
    expect_probs((const float[]){0.625f, 0.375f, 0, 0, 0}, 5, "top-a");
    CHECK_EQ_INT(step.cut[2], SP_CUT_TOP_A);
    /* the most likely token, and any tied with it, always stays */
    float flat[3] = {0, 0, -5};
    p = tu_params();
    p.epsilon_cutoff = 0.9f;
    CHECK_EQ_INT(warp(flat, 3, NULL, 0, &p), SP_OK);
    CHECK_EQ_INT(step.n_kept, 2);
    p = tu_params();
    p.top_a = 50.0f;
    CHECK_EQ_INT(warp(flat, 3, NULL, 0, &p), SP_OK);
    CHECK_EQ_INT(step.n_kept, 2);
}

static void test_no_repeat_ngram(void) {
    float x[6] = {0, 0, 0, 0, 0, 0};
    sp_params p = tu_params();
    p.no_repeat_ngram_size = 3;
    /* the text ends "1 2", which was followed by 3 and by 5 before: both
     * would repeat a trigram */
    CHECK_EQ_INT(warp(x, 6, (const int[]){1, 2, 3, 0, 1, 2, 5, 1, 2}, 9, &p), SP_OK);
    CHECK_EQ_INT(step.cut[3], SP_CUT_NO_REPEAT_NGRAM);
    CHECK_EQ_INT(step.cut[5], SP_CUT_NO_REPEAT_NGRAM);
    CHECK_EQ_INT(step.n_kept, 4);
    /* size 1: every token seen is out */
    p.no_repeat_ngram_size = 1;
    CHECK_EQ_INT(warp(x, 6, (const int[]){0, 4}, 2, &p), SP_OK);
    CHECK_EQ_INT(step.n_kept, 4);
    CHECK_EQ_INT(step.cut[4], SP_CUT_NO_REPEAT_NGRAM);
    /* too short a text for a whole n-gram: nothing */
    p.no_repeat_ngram_size = 4;
    CHECK_EQ_INT(warp(x, 6, (const int[]){1, 2}, 2, &p), SP_OK);
    CHECK_EQ_INT(step.n_kept, 6);
}

static void test_mirostat(void) {
    static const float P[4] = {0.5f, 0.25f, 0.125f, 0.125f};
    float x[4];
    log_of(P, 4, x);
    sp_params p = tu_params();
    p.mirostat = 2;
    p.mirostat_tau = 1.0f; /* mu starts at 2: keep -log2 p <= 2 */
    CHECK_EQ_INT(warp(x, 4, NULL, 0, &p), SP_OK);
    expect_probs((const float[]){2.0f / 3, 1.0f / 3, 0, 0}, 4, "mirostat v2");
    CHECK_EQ_INT(step.cut[2], SP_CUT_MIROSTAT);
    /* mu learns: token 0 (p 2/3, surprise 0.585 bits) moves it up */
    CHECK_NEAR(sp_mirostat_update(&p, NAN, 2.0f / 3), 2 - 0.1 * (log2(1.5) - 1), 1e-6);
    /* mu 0.5: nothing at or below it but the most likely */
    sp_sampler_state st = {0.0, 0.5f, 0, NULL, 0, NAN, NAN, NULL};
    sp_sampler_set_state(sampler, &st);
    CHECK_EQ_INT(sp_sampler_warp(sampler, x, NULL, 0, &p, &step, err), SP_OK);
    CHECK_EQ_INT(step.n_kept, 1);
    CHECK(step.probs[0] == 1.0f);
    /* v1 on a Zipf distribution: k from its exponent (s = 1.2) */
    enum { V = 1000 };
    float *z = malloc(sizeof(float) * V);
    for (int i = 0; i < V; i++) z[i] = (float)(-1.2 * log(i + 1.0));
    p = tu_params();
    p.mirostat = 1;
    p.mirostat_tau = 3.0f; /* mu 6 */
    CHECK_EQ_INT(warp(z, V, NULL, 0, &p), SP_OK);
    double s = 1.2, eps = s - 1;
    double k = pow(eps * pow(2, 6.0) / (1 - pow(V, -eps)), 1 / s);
    CHECK_EQ_INT(step.n_kept, (int)k);
    free(z);
    CHECK(sp_mirostat_update(&p, 1.5f, 0.5f) != 1.5f);
    p.mirostat = 0;
    CHECK(sp_mirostat_update(&p, 1.5f, 0.5f) == 1.5f);
}

/* ------------------------------------------ slow references, at random */

/* p_i of the alive tokens, as the stage sees them (double, sorted nowhere) */
static void softmax(const float *x, int n, double *p) {
    double m = -INFINITY, z = 0;
    for (int i = 0; i < n; i++) m = x[i] > m ? x[i] : m;
    for (int i = 0; i < n; i++) z += (p[i] = exp(x[i] - m));
    for (int i = 0; i < n; i++) p[i] /= z;
}

static void test_references(void) {
    sp_rng r;
    sp_rng_seed(&r, 12345);
    double *p = malloc(sizeof(double) * 2000);
    float *x = malloc(sizeof(float) * 2000);
    int mismatches = 0, cases = 0;
    for (int round = 0; round < 40; round++) {
        int n = 2 + (int)(sp_rng_u32(&r) % 1999);
        double spread = 1 + 6 * sp_rng_uniform(&r);
        for (int i = 0; i < n; i++) x[i] = (float)(spread * (sp_rng_uniform(&r) - 0.5));
        softmax(x, n, p);
        double pmax = 0, h = 0, mean = 0, var = 0, xmax = -INFINITY;
        for (int i = 0; i < n; i++) {
            pmax = p[i] > pmax ? p[i] : pmax;
            h -= p[i] > 0 ? p[i] * log(p[i]) : 0;
            mean += x[i];
            xmax = x[i] > xmax ? x[i] : xmax;
        }
        mean /= n;
        for (int i = 0; i < n; i++) var += (x[i] - mean) * (x[i] - mean);
        double sigma = sqrt(var / n);
        for (int kind = 0; kind < 4; kind++) {
            sp_params q = tu_params();
            double v = sp_rng_uniform(&r);
            if (kind == 0) q.epsilon_cutoff = (float)(v * 2 / n);
            if (kind == 1) q.eta_cutoff = (float)(v * 0.05);
            if (kind == 2) q.top_a = (float)(v * 3);
            if (kind == 3) q.top_n_sigma = (float)(v * 3);
            CHECK_EQ_INT(warp(x, n, NULL, 0, &q), SP_OK);
            double eta = fmin(q.eta_cutoff, sqrt(q.eta_cutoff) * exp(-h));
            for (int i = 0; i < n; i++) {
                int keep;
                if (kind == 3) keep = x[i] >= xmax - q.top_n_sigma * sigma;
                else {
                    double cut = kind == 0 ? q.epsilon_cutoff : kind == 1 ? eta : q.top_a * pmax * pmax;
                    keep = p[i] >= cut || x[i] == xmax;
                }
                /* a token within rounding of the line may go either way */
                double margin = kind == 3 ? fabs(x[i] - (xmax - q.top_n_sigma * sigma))
                                          : fabs(p[i] - (kind == 0 ? q.epsilon_cutoff : kind == 1 ? eta : q.top_a * pmax * pmax));
                if (margin < 1e-6) continue;
                mismatches += keep != (step.probs[i] > 0);
            }
            cases++;
        }
    }
    CHECK_EQ_INT(mismatches, 0);
    printf("references: %d random vocabularies, %d mismatches\n", cases, mismatches);
    free(p);
    free(x);
}


TEST_SUITE(chain_cases,
           TEST(test_top_n_sigma),
           TEST(test_xtc),
           TEST(test_dry),
           TEST(test_repeat_state),
           TEST(test_dynatemp),
           TEST(test_epsilon_eta_top_a),
           TEST(test_no_repeat_ngram),
           TEST(test_mirostat),
           TEST(test_references));
