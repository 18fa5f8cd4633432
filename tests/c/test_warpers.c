/* test_warpers.c — every stage of the sampler pipeline, on the lessons'
 * worked examples and against brute-force references (full sorts, done here
 * in the test, never in the engine). */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sampler.h"
#include "testutil.h"

static sp_sampler *sampler;
static sp_step step;
static char err[SP_ERR_LEN];

static int warp(const float *logits, int n, const int *hist, int nh,
                const sp_params *p) {
    return tu_warp(&sampler, logits, n, hist, nh, p, &step, err);
}

/* --- references, by sorting --- */

typedef struct {
    double p;
    int id;
} ref_item;

static int by_prob_desc(const void *a, const void *b) {
    const ref_item *x = a, *y = b;
    if (x->p != y->p) return x->p > y->p ? -1 : 1;
    return x->id - y->id;
}

static double key_of;
static int by_key(const void *a, const void *b) {
    const ref_item *x = a, *y = b;
    double kx = fabs(-log(x->p) - key_of), ky = fabs(-log(y->p) - key_of);
    if (kx != ky) return kx < ky ? -1 : 1;
    return x->id - y->id;
}

static void softmax_ref(const float *x, int n, double *p) {
    double m = -INFINITY, z = 0;
    for (int i = 0; i < n; i++) m = x[i] > m ? x[i] : m;
    for (int i = 0; i < n; i++) z += (p[i] = exp(x[i] - m));
    for (int i = 0; i < n; i++) p[i] /= z;
}

/* The tokens a sort-based truncation keeps, as a mask: sort by cmp, keep
 * the shortest prefix whose probability reaches mass. */
static int prefix_ref(const float *x, int n, double mass, char *keep,
                      int (*cmp)(const void *, const void *)) {
    double *p = malloc(sizeof(double) * n);
    ref_item *it = malloc(sizeof(ref_item) * n);
    softmax_ref(x, n, p);
    double h = 0;
    for (int i = 0; i < n; i++) h -= p[i] > 0 ? p[i] * log(p[i]) : 0;
    key_of = h; /* what by_key measures surprisal against */
    for (int i = 0; i < n; i++) it[i] = (ref_item){p[i], i};
    qsort(it, n, sizeof *it, cmp);
    memset(keep, 0, n);
    double cum = 0;
    int k = 0;
    while (k < n) {
        keep[it[k].id] = 1;
        cum += it[k++].p;
        if (cum >= mass) break;
    }
    free(p);
    free(it);
    return k;
}

static int top_p_ref(const float *x, int n, double top_p, char *keep) {
    return prefix_ref(x, n, top_p, keep, by_prob_desc);
}

static int typical_ref(const float *x, int n, double mass, char *keep) {
    return prefix_ref(x, n, mass, keep, by_key);
}

static int kept_equals(const char *keep, int n) {
    for (int i = 0; i < n; i++)
        if ((step.cut[i] == 0) != (keep[i] != 0)) return 0;
    return 1;
}

/* the lessons' three logits */
static const float x3[3] = {2, 1, 0};

static sp_rng rng;
static float gauss(void) {
    /* Irwin-Hall: a cheap bell curve, enough for test logits */
    double s = 0;
    for (int i = 0; i < 12; i++) s += sp_rng_uniform(&rng);
    return (float)(s - 6.0);
}

static void test_lessons_worked_examples(void) {
    sp_params p = tu_params();
    /* ---- the lessons' worked examples ------------------------------- */
    CHECK_EQ_INT(warp(x3, 3, NULL, 0, &p), SP_OK);
    CHECK_NEAR(step.probs[0], 0.665, 5e-4);
    CHECK_NEAR(step.probs[1], 0.245, 5e-4);
    CHECK_NEAR(step.probs[2], 0.090, 5e-4);
    double ref[3];
    softmax_ref(x3, 3, ref);
    for (int i = 0; i < 3; i++) CHECK_NEAR(step.probs[i], ref[i], 1e-7);
    CHECK_EQ_INT(step.n_kept, 3);
    /* entropy of (0.665, 0.245, 0.090): 1.2009 bits */
    CHECK_NEAR(step.entropy_bits, 1.2008929, 1e-6);
    CHECK_NEAR(step.entropy_raw_bits, 1.2008929, 1e-6);

    p.temperature = 0.5f;
    CHECK_EQ_INT(warp(x3, 3, NULL, 0, &p), SP_OK);
    CHECK_NEAR(step.probs[0], 0.867, 5e-4);
    CHECK_NEAR(step.probs[1], 0.117, 5e-4);
    CHECK_NEAR(step.probs[2], 0.016, 5e-4);
    /* the raw distribution is the model's, whatever the settings */
    CHECK_NEAR(step.probs_raw[0], 0.665, 5e-4);
    CHECK(step.entropy_bits < step.entropy_raw_bits);

    /* top-p: sorted (0.50, 0.20, 0.15, 0.08, 0.05, 0.02) at p = 0.9 keeps 4 */
    float six[6];
    const double sp6[6] = {0.50, 0.20, 0.15, 0.08, 0.05, 0.02};
    for (int i = 0; i < 6; i++) six[i] = (float)log(sp6[i]);
    p = tu_params();
    p.top_p = 0.9f;
    CHECK_EQ_INT(warp(six, 6, NULL, 0, &p), SP_OK);
    CHECK_EQ_INT(step.n_kept, 4);
    CHECK_EQ_INT(step.cut[4], SP_CUT_TOP_P);
    CHECK_EQ_INT(step.cut[5], SP_CUT_TOP_P);
    CHECK_NEAR(step.kept_mass, 0.93, 1e-6);
    CHECK_NEAR(step.probs[0], 0.50 / 0.93, 1e-6); /* renormalized */
    CHECK_EQ_INT(step.probs[5], 0);
    /* the same in another order: selection does not depend on positions */
    float shuffled[6] = {six[3], six[5], six[0], six[4], six[1], six[2]};
    CHECK_EQ_INT(warp(shuffled, 6, NULL, 0, &p), SP_OK);
    CHECK_EQ_INT(step.n_kept, 4);
    CHECK(step.cut[1] == SP_CUT_TOP_P && step.cut[3] == SP_CUT_TOP_P);
    /* at p = 0.85 the first three reach it exactly: keep 3 */
    p.top_p = 0.84f;
    CHECK_EQ_INT(warp(six, 6, NULL, 0, &p), SP_OK);
    CHECK_EQ_INT(step.n_kept, 3);
    p.top_p = 0.5f; /* 0.50 alone reaches 0.5 */
    CHECK_EQ_INT(warp(six, 6, NULL, 0, &p), SP_OK);
    CHECK_EQ_INT(step.n_kept, 1);
}

static void test_greedy_and_temperature(void) {
    sp_params p = tu_params();
    /* ---- greedy and temperature ------------------------------------- */
    p = tu_params();
    p.temperature = 0;
    CHECK_EQ_INT(warp(x3, 3, NULL, 0, &p), SP_OK);
    CHECK(step.probs[0] == 1.0f && step.probs[1] == 0 && step.probs[2] == 0);
    CHECK_EQ_INT(step.cut[1], SP_CUT_TEMPERATURE);
    CHECK_NEAR(step.entropy_bits, 0, 1e-12);
    float tie[4] = {1, 3, 3, 0};
    CHECK_EQ_INT(warp(tie, 4, NULL, 0, &p), SP_OK);
    CHECK(step.probs[1] == 1.0f && step.n_kept == 1); /* ties -> lowest id */
    /* T -> 0 equals greedy */
    p.temperature = 1e-3f;
    CHECK_EQ_INT(warp(x3, 3, NULL, 0, &p), SP_OK);
    CHECK(step.probs[0] == 1.0f && step.probs[1] == 0.0f);
    p.temperature = 1e-30f; /* no overflow to inf/NaN for a tiny T */
    CHECK_EQ_INT(warp(x3, 3, NULL, 0, &p), SP_OK);
    CHECK(step.probs[0] == 1.0f);
    /* a huge T approaches uniform */
    sp_rng_seed(&rng, 5);
    float wide[100];
    for (int i = 0; i < 100; i++) wide[i] = 10 * gauss();
    p.temperature = 1e6f;
    CHECK_EQ_INT(warp(wide, 100, NULL, 0, &p), SP_OK);
    double worst = 0;
    for (int i = 0; i < 100; i++)
        worst = fmax(worst, fabs(step.probs[i] - 0.01));
    CHECK(worst < 1e-6);
    CHECK_NEAR(step.entropy_bits, log2(100), 1e-5);
}

static void test_top_k(void) {
    sp_params p = tu_params();
    /* ---- top-k ------------------------------------------------------- */
    float ties[5] = {3, 2, 2, 2, 1};
    p = tu_params();
    p.top_k = 2; /* the 2nd largest is 2: all three 2s stay */
    CHECK_EQ_INT(warp(ties, 5, NULL, 0, &p), SP_OK);
    CHECK_EQ_INT(step.n_kept, 4);
    CHECK_EQ_INT(step.cut[4], SP_CUT_TOP_K);
    p.top_k = 1;
    CHECK_EQ_INT(warp(ties, 5, NULL, 0, &p), SP_OK);
    CHECK(step.n_kept == 1 && step.probs[0] == 1.0f);
    p.top_k = 5; /* k >= V: off */
    CHECK_EQ_INT(warp(ties, 5, NULL, 0, &p), SP_OK);
    CHECK_EQ_INT(step.n_kept, 5);
    p.top_k = 0;
    CHECK_EQ_INT(warp(ties, 5, NULL, 0, &p), SP_OK);
    CHECK_EQ_INT(step.n_kept, 5);

}

/* The argmax survives every top-k >= 1 and top-p > 0, and top-p and
 * typical-p keep exactly what a full sort would keep. */
static void test_against_full_sorts(void) {
    sp_params p = tu_params();
    enum { V = 2000 };
    static float big[V];
    static char keep[V];
    int mismatch_p = 0, mismatch_t = 0, lost_argmax = 0;
    for (int trial = 0; trial < 60; trial++) {
        sp_rng_seed(&rng, 1000 + trial);
        int n = trial < 30 ? 37 + trial * 7 : V;
        float scale = 0.5f + trial % 5;
        for (int i = 0; i < n; i++) big[i] = scale * gauss();
        if (trial % 3 == 0) /* Zipf-like */
            for (int i = 0; i < n; i++)
                big[i] = -1.1f * logf((float)(1 + (i * 7919) % n));
        int arg = 0;
        for (int i = 1; i < n; i++) if (big[i] > big[arg]) arg = i;
        p = tu_params();
        p.top_k = 1 + trial % 50;
        p.top_p = trial % 7 == 0 ? 1e-6f : 0.05f + 0.9f * (trial % 10) / 10.0f;
        CHECK_EQ_INT(warp(big, n, NULL, 0, &p), SP_OK);
        if (step.cut[arg] != SP_CUT_NONE) lost_argmax++;
        p = tu_params();
        p.top_p = 0.1f + 0.85f * (float)((trial * 37) % 100) / 100.0f;
        CHECK_EQ_INT(warp(big, n, NULL, 0, &p), SP_OK);
        int k = top_p_ref(big, n, p.top_p, keep);
        if (!kept_equals(keep, n) || k != step.n_kept) mismatch_p++;
        p = tu_params();
        p.typical_p = p.top_p;
        CHECK_EQ_INT(warp(big, n, NULL, 0, &p), SP_OK);
        k = typical_ref(big, n, p.typical_p, keep);
        if (!kept_equals(keep, n) || k != step.n_kept) mismatch_t++;
    }
    CHECK_EQ_INT(lost_argmax, 0);
    CHECK_EQ_INT(mismatch_p, 0);
    CHECK_EQ_INT(mismatch_t, 0);
}

static void test_min_p(void) {
    sp_params p = tu_params();
    /* ---- min-p: p >= min_p * max p ---------------------------------- */
    float mp[4];
    const double pm[4] = {0.5, 0.3, 0.15, 0.05};
    for (int i = 0; i < 4; i++) mp[i] = (float)log(pm[i]);
    p = tu_params();
    p.min_p = 0.2f; /* threshold 0.1: 0.05 goes */
    CHECK_EQ_INT(warp(mp, 4, NULL, 0, &p), SP_OK);
    CHECK_EQ_INT(step.n_kept, 3);
    CHECK_EQ_INT(step.cut[3], SP_CUT_MIN_P);
    p.min_p = 1.0f; /* only the max itself */
    CHECK_EQ_INT(warp(mp, 4, NULL, 0, &p), SP_OK);
    CHECK_EQ_INT(step.n_kept, 1);

    /* typical-p on a worked example: p = (0.4, 0.3, 0.2, 0.1), H = 1.2799
     * nats; |-ln p - H| = 0.364, 0.076, 0.330, 1.023 -> order 1, 2, 0, 3;
     * mass 0.5 is reached by tokens 1 and 2 */
    const double pt[4] = {0.4, 0.3, 0.2, 0.1};
    float tl[4];
    for (int i = 0; i < 4; i++) tl[i] = (float)log(pt[i]);
    p = tu_params();
    p.typical_p = 0.5f;
    CHECK_EQ_INT(warp(tl, 4, NULL, 0, &p), SP_OK);
    CHECK(step.n_kept == 2 && step.cut[1] == 0 && step.cut[2] == 0);
    CHECK_EQ_INT(step.cut[0], SP_CUT_TYPICAL_P);
}

static void test_penalties(void) {
    double ref[3];
    sp_params p = tu_params();
    /* ---- penalties --------------------------------------------------- */
    float pen[3] = {2, -1, 0.5f};
    int hist[3] = {0, 1, 0};
    p = tu_params();
    p.repetition_penalty = 2;
    p.temperature = 0; /* look at the penalized logits through greedy */
    CHECK_EQ_INT(warp(pen, 3, hist, 3, &p), SP_OK);
    /* 2 -> 1 (divided once, though seen twice), -1 -> -2, 0.5 untouched */
    CHECK(step.probs[0] == 1.0f);
    p.temperature = 1;
    CHECK_EQ_INT(warp(pen, 3, hist, 3, &p), SP_OK);
    float after[3] = {1, -2, 0.5f};
    softmax_ref(after, 3, ref);
    for (int i = 0; i < 3; i++) CHECK_NEAR(step.probs[i], ref[i], 1e-6);
    /* frequency and presence: counts 2 and 1 */
    p = tu_params();
    p.frequency_penalty = 0.5f;
    p.presence_penalty = 1.0f;
    CHECK_EQ_INT(warp(pen, 3, hist, 3, &p), SP_OK);
    float fp[3] = {2 - (2 * 0.5f + 1), -1 - (0.5f + 1), 0.5f};
    softmax_ref(fp, 3, ref);
    for (int i = 0; i < 3; i++) CHECK_NEAR(step.probs[i], ref[i], 1e-6);
    /* penalty-last-n: only the last 1 token (0) */
    p = tu_params();
    p.repetition_penalty = 2;
    p.penalty_last_n = 1;
    int hist2[3] = {1, 1, 0};
    CHECK_EQ_INT(warp(pen, 3, hist2, 3, &p), SP_OK);
    float last1[3] = {1, -1, 0.5f};
    softmax_ref(last1, 3, ref);
    for (int i = 0; i < 3; i++) CHECK_NEAR(step.probs[i], ref[i], 1e-6);
    /* penalties never turn a huge logit into inf */
    float huge[2] = {3e38f, 0};
    p = tu_params();
    p.repetition_penalty = 1e-30f;
    CHECK_EQ_INT(warp(huge, 2, hist, 1, &p), SP_OK);
    CHECK(step.probs[0] == 1.0f);
}

static void test_logit_bias(void) {
    sp_params p = tu_params();
    /* ---- logit bias --------------------------------------------------- */
    p = tu_params();
    p.n_bias = 2;
    p.bias[0] = (sp_bias){0, -INFINITY};
    p.bias[1] = (sp_bias){2, 1.0f};
    CHECK_EQ_INT(warp(x3, 3, NULL, 0, &p), SP_OK);
    CHECK_EQ_INT(step.cut[0], SP_CUT_BIAS);
    CHECK_EQ_INT(step.probs[0], 0);
    CHECK_NEAR(step.probs[1], 0.5, 1e-7); /* 1 vs 0 + 1 */
    p.temperature = 0; /* greedy never picks a banned token */
    CHECK_EQ_INT(warp(x3, 3, NULL, 0, &p), SP_OK);
    CHECK(step.probs[0] == 0 && step.n_kept == 1);
    p.n_bias = 3;
    p.bias[2] = (sp_bias){1, -INFINITY};
    p.bias[1] = (sp_bias){2, -INFINITY};
    CHECK_EQ_INT(warp(x3, 3, NULL, 0, &p), SP_ERR_STATE);
    CHECK_STR_CONTAINS(err, "every token is banned");
}

static void test_masked_logits(void) {
    sp_params p = tu_params();
    /* ---- masked logits and the report --------------------------------- */
    float masked[4] = {1, -INFINITY, 1, 0};
    p = tu_params();
    CHECK_EQ_INT(warp(masked, 4, NULL, 0, &p), SP_OK);
    CHECK_EQ_INT(step.cut[1], SP_CUT_MASK);
    CHECK_EQ_INT(step.n_kept, 3);
    CHECK_EQ_INT(step.argmax_raw, 0);
    CHECK(!isnan(step.entropy_raw_bits));
    float bad[3] = {1, NAN, 0};
    CHECK_EQ_INT(warp(bad, 3, NULL, 0, &p), SP_ERR_FORMAT);
    CHECK_STR_CONTAINS(err, "token 1 is NaN");
    float all_masked[2] = {-INFINITY, -INFINITY};
    CHECK_EQ_INT(warp(all_masked, 2, NULL, 0, &p), SP_ERR_STATE);
}

static void test_bad_parameters(void) {
    sp_params p = tu_params();
    /* ---- bad parameters name themselves ------------------------------- */
    struct { const char *name; sp_params p; } bads[8];
    for (int i = 0; i < 8; i++) bads[i].p = tu_params();
    bads[0].name = "temperature"; bads[0].p.temperature = -1;
    bads[1].name = "temperature"; bads[1].p.temperature = NAN;
    bads[2].name = "top-k"; bads[2].p.top_k = -3;
    bads[3].name = "top-p"; bads[3].p.top_p = 0;
    bads[4].name = "top-p"; bads[4].p.top_p = 1.5f;
    bads[5].name = "min-p"; bads[5].p.min_p = -0.1f;
    bads[6].name = "repetition-penalty"; bads[6].p.repetition_penalty = 0;
    bads[7].name = "logit-bias"; bads[7].p.n_bias = 1;
    bads[7].p.bias[0] = (sp_bias){7, 1};
    for (int i = 0; i < 8; i++) {
        CHECK_EQ_INT(warp(x3, 3, NULL, 0, &bads[i].p), SP_ERR_ARG);
        CHECK_STR_CONTAINS(err, bads[i].name);
    }
    int bad_hist[1] = {9};
    p = tu_params();
    p.repetition_penalty = 1.1f; /* the history is read only by penalties */
    CHECK_EQ_INT(warp(x3, 3, bad_hist, 1, &p), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "history token 9");
}

static void test_draw(void) {
    sp_params p = tu_params();
    /* ---- the draw ------------------------------------------------------ */
    p = tu_params();
    CHECK_EQ_INT(warp(x3, 3, NULL, 0, &p), SP_OK);
    sp_sampler_draw(&step, 0.0);
    CHECK_EQ_INT(step.token, 0);
    sp_sampler_draw(&step, 0.6653);
    CHECK_EQ_INT(step.token, 1);
    sp_sampler_draw(&step, 0.9999999);
    CHECK_EQ_INT(step.token, 2);
    CHECK_EQ_INT(sp_sampler_draw(&step, 1.0), SP_ERR_ARG);
    /* chi-square: draws follow the final distribution ... */
    p.top_k = 40;
    p.temperature = 0.8f;
    sp_rng_seed(&rng, 77);
    float dist[64];
    for (int i = 0; i < 64; i++) dist[i] = 2 * gauss();
    CHECK_EQ_INT(warp(dist, 64, NULL, 0, &p), SP_OK);
    long count[64] = {0};
    double probs[64], uniform[64];
    const long draws = 200000;
    sp_rng_seed(&rng, 4242);
    for (long i = 0; i < draws; i++) {
        sp_sampler_draw(&step, sp_rng_uniform(&rng));
        count[step.token]++;
    }
    int kept_nonzero = 0;
    for (int i = 0; i < 64; i++) {
        probs[i] = step.probs[i];
        uniform[i] = step.cut[i] ? 0 : 1.0 / step.n_kept;
        if (step.cut[i] && count[i]) kept_nonzero = 1;
    }
    CHECK(!kept_nonzero); /* never a cut token */
    int df;
    double stat = chi_square(count, probs, 64, draws, &df);
    fprintf(stderr, "draw: chi-square %.1f with %d df (critical %.1f)\n", stat,
            df, chi_square_critical(df));
    CHECK(stat < chi_square_critical(df));
    /* ... and the test has power: against the uniform it fails loudly */
    stat = chi_square(count, uniform, 64, draws, &df);
    CHECK(stat > 10 * chi_square_critical(df));
}

static void test_ranked_top(void) {
    double ref6[6];
    sp_params p = tu_params();
    /* ---- the ranked top of the step: what the nucleus view draws -------- */
    float rank[6] = {1, 3, 2, 3, -INFINITY, 0};
    p = tu_params();
    p.temperature = 0.5f;
    p.top_p = 0.9f;
    CHECK_EQ_INT(warp(rank, 6, NULL, 0, &p), SP_OK);
    int ids[6];
    double cum[6];
    CHECK_EQ_INT(sp_step_top(&step, 4, ids, cum), 4);
    CHECK(ids[0] == 1 && ids[1] == 3 && ids[2] == 2 && ids[3] == 0);
    /* the tempered distribution: softmax((x - 3) / 0.5) */
    float tempered[6] = {-4, 0, -2, 0, -INFINITY, -6};
    softmax_ref(tempered, 6, ref6);
    CHECK_NEAR(cum[0], ref6[1], 1e-6);
    CHECK_NEAR(cum[3], ref6[1] + ref6[3] + ref6[2] + ref6[0], 1e-6);
    CHECK_EQ_INT(sp_step_top(&step, 10, ids, cum), 6);
    CHECK(ids[5] == 4); /* the masked token ranks last */
    CHECK_NEAR(cum[5], 1.0, 1e-6);
    /* top-p at 0.9 keeps the prefix whose cumulative mass reaches 0.9 */
    int prefix = 0;
    while (cum[prefix] < 0.9) prefix++;
    CHECK_EQ_INT(step.n_kept, prefix + 1);

    sp_sampler_free(sampler);
}

TEST_SUITE(warpers,
           TEST(test_lessons_worked_examples),
           TEST(test_greedy_and_temperature),
           TEST(test_top_k),
           TEST(test_against_full_sorts),
           TEST(test_min_p),
           TEST(test_penalties),
           TEST(test_logit_bias),
           TEST(test_masked_logits),
           TEST(test_bad_parameters),
           TEST(test_draw),
           TEST(test_ranked_top));
