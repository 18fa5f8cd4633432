/* test_watermark.c — the watermark stage and its detector (Kirchenbauer
 * et al. 2023), with worked numbers: which ids are green, the
 * probabilities after the bias, the z-score and its p-value; a generated
 * text's z with and without the watermark; the green share of ids drawn
 * without the key. */
#include <string.h>

#include "check.h"
#include "internal.h"
#include "sampler.h"
#include "testutil.h"

static char err[SP_ERR_LEN];

static sp_params params(void) {
    sp_params p;
    sp_params_default(&p);
    return p;
}

/* The green list, worked by hand: vocabulary 4, gamma 0.5 (floor(4 x 0.5)
 * = 2 green ids), key 2, previous token 1.  PCG32 seeded with
 * (2 << 32) | 1 gives u0 = 0xac89461c, u1 = 0xbedf8bfa.  Swap 0: the high
 * word of u0 x 4 is 2 (its low word 0xb2251870, and 2^32 mod 4 = 0: no
 * redraw), so positions 0 and 2 swap: 2 1 0 3.  Swap 1: the high word of
 * u1 x 3 is 2, position 1 + 2 = 3: 2 3 0 1.  Green: {2, 3}; red: {0, 1}.
 * The same with key 1, previous token 0: u0 = 0xf49f500e (x 4: 3) and
 * u1 = 0xd28a1676 (x 3: 2): 3 1 2 0, then 3 0 2 1: green {3, 0}. */
static void test_green_list(void) {
    uint8_t g[4];
    int perm[4];
    sp_rng r;
    sp_rng_seed(&r, (uint64_t)2 << 32 | 1);
    CHECK(sp_rng_u32(&r) == 0xac89461cu);
    CHECK(sp_rng_u32(&r) == 0xbedf8bfau);
    CHECK_EQ_INT(sp_watermark_green(4, 0.5f, 2, 1, g, perm), 2);
    CHECK(g[0] == 0 && g[1] == 0 && g[2] == 1 && g[3] == 1);
    CHECK_EQ_INT(perm[0], 2);
    CHECK_EQ_INT(perm[1], 3);
    CHECK_EQ_INT(sp_watermark_green(4, 0.5f, 1, 0, g, perm), 2);
    CHECK(g[0] == 1 && g[1] == 0 && g[2] == 0 && g[3] == 1);
    for (int t = 0; t < 4; t++)
        CHECK_EQ_INT(sp_watermark_is_green(4, 0.5f, 2, 1, t, perm), t >= 2);
    /* floor(vocab gamma): 10 x 0.25 = 2.5 -> 2 green */
    uint8_t g10[10];
    int perm10[10];
    CHECK_EQ_INT(sp_watermark_green(10, 0.25f, 15485863, 2, g10, perm10), 2);
    /* bad arguments */
    CHECK_EQ_INT(sp_watermark_green(4, 1.0f, 2, 1, g, perm), -1);
    CHECK_EQ_INT(sp_watermark_green(4, 0.5f, 2, 4, g, perm), -1);
    CHECK_EQ_INT(sp_watermark_is_green(4, 0.5f, -1, 1, 0, perm), -1);
}

/* The stage on p = 0.4, 0.3, 0.2, 0.1 after token 1 (key 2, gamma 0.5:
 * green {2, 3}), delta = ln 2: the green tokens' odds double,
 * 0.4 : 0.3 : 0.4 : 0.2 over 1.3 = 0.307692, 0.230769, 0.307692,
 * 0.153846.  The green mass the model gave: 0.2 + 0.1 = 0.3.  Spike
 * entropy: zeta = (1 - 0.5)(2 - 1) / (1 + (2 - 1) 0.5) = 1/3, sum p / (1 +
 * p / 3) = 0.352941 + 0.272727 + 0.1875 + 0.096774 = 0.909943. */
static void test_stage_case(void) {
    const float x[4] = {logf(0.4f), logf(0.3f), logf(0.2f), logf(0.1f)};
    const int h[1] = {1};
    sp_params p = params();
    p.watermark_gamma = 0.5f;
    p.watermark_key = 2;
    p.watermark_delta = logf(2.0f);
    CHECK_EQ_INT(sp_params_check(&p, 4, err), SP_OK);
    sp_sampler *s = sp_sampler_new(4);
    sp_step st;
    CHECK_EQ_INT(sp_sampler_warp(s, x, h, 1, &p, &st, err), SP_OK);
    const double want[4] = {0.4 / 1.3, 0.3 / 1.3, 0.4 / 1.3, 0.2 / 1.3};
    for (int i = 0; i < 4; i++) CHECK_NEAR(st.probs[i], want[i], 1e-6);
    CHECK(st.green != NULL);
    CHECK(st.green && !st.green[0] && !st.green[1] && st.green[2] && st.green[3]);
    CHECK_NEAR(st.green_mass, 0.3, 1e-6);
    CHECK_NEAR(st.spike_entropy, 0.909942689, 1e-6);
    CHECK_EQ_INT(st.cut[0], SP_CUT_NONE);
    /* the same after a preview: the list is the cached one */
    CHECK_EQ_INT(sp_sampler_warp(s, x, h, 1, &p, &st, err), SP_OK);
    for (int i = 0; i < 4; i++) CHECK_NEAR(st.probs[i], want[i], 1e-6);
    /* after token 0 with key 1 the list is {0, 3}: 0.8 : 0.3 : 0.2 : 0.2 */
    const int h0[1] = {0};
    p.watermark_key = 1;
    CHECK_EQ_INT(sp_sampler_warp(s, x, h0, 1, &p, &st, err), SP_OK);
    CHECK_NEAR(st.probs[0], 0.8 / 1.5, 1e-6);
    CHECK_NEAR(st.probs[1], 0.3 / 1.5, 1e-6);
    CHECK_NEAR(st.probs[3], 0.2 / 1.5, 1e-6);
    /* a banned token stays banned */
    sp_params_add_bias(&p, 0, -INFINITY, err);
    CHECK_EQ_INT(sp_sampler_warp(s, x, h0, 1, &p, &st, err), SP_OK);
    CHECK(st.probs[0] == 0.0f);
    CHECK_NEAR(st.probs[3], 0.2 / 0.7, 1e-6);
    /* no previous token: nothing to seed the list with, the stage does
     * nothing (as Hugging Face's skips a text shorter than its context) */
    p = params();
    p.watermark_delta = 2.0f;
    CHECK_EQ_INT(sp_sampler_warp(s, x, NULL, 0, &p, &st, err), SP_OK);
    CHECK(st.green == NULL);
    CHECK(isnan(st.green_mass));
    CHECK_NEAR(st.probs[0], 0.4, 1e-6);
    /* off at delta 0: the very bits of the default chain, no green list */
    sp_step off;
    sp_params d = params();
    CHECK_EQ_INT(sp_sampler_warp(s, x, h, 1, &d, &st, err), SP_OK);
    float base[4];
    memcpy(base, st.probs, sizeof base);
    d.watermark_gamma = 0.7f;
    d.watermark_key = 99;
    CHECK_EQ_INT(sp_sampler_warp(s, x, h, 1, &d, &off, err), SP_OK);
    CHECK(!memcmp(base, off.probs, sizeof base));
    CHECK(off.green == NULL);
    /* a history token outside the vocabulary is an error when on */
    const int hb[1] = {9};
    CHECK_EQ_INT(sp_sampler_warp(s, x, hb, 1, &p, &st, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "history token 9 is outside the vocabulary");
    /* the ranges */
    p.watermark_gamma = 1.0f;
    CHECK_EQ_INT(sp_params_check(&p, 0, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "watermark-gamma must be in (0, 1) (got 1)");
    p = params();
    p.watermark_delta = -1.0f;
    CHECK_EQ_INT(sp_params_check(&p, 0, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "watermark-delta must be a finite number >= 0");
    sp_sampler_free(s);
}

/* Why a confident step carries no signal: p = 1 - 3e-9 on a red token
 * (logits 20, 0, 0, 0 after token 1, key 2: red {0, 1}).  delta = 2 moves
 * it to e^20 / (e^20 + 1 + 2 e^2) = 1 - 7.1e-9: still the token drawn.  The
 * spike entropy says so: 1.0000 of a possible 1 / (1 + zeta) for a flat
 * step... it is sum p / (1 + zeta p) ~ 1 / (1 + zeta) = 0.2393 here, the
 * smallest a step can have (zeta = 0.5 (e^2 - 1) / (1 + 0.5 (e^2 - 1)) =
 * 0.76159). */
static void test_confident_step(void) {
    const float x[4] = {20, 0, 0, 0};
    const int h[1] = {1};
    sp_params p = params();
    p.watermark_gamma = 0.5f;
    p.watermark_key = 2;
    p.watermark_delta = 2.0f;
    sp_sampler *s = sp_sampler_new(4);
    sp_step st;
    CHECK_EQ_INT(sp_sampler_warp(s, x, h, 1, &p, &st, err), SP_OK);
    CHECK(st.probs[0] > 0.9999999f);
    CHECK(st.green_mass < 1e-8);
    double e2 = exp(2.0) - 1, zeta = 0.5 * e2 / (1 + 0.5 * e2);
    CHECK_NEAR(zeta, 0.761594156, 1e-8);
    CHECK_NEAR(st.spike_entropy, 1 / (1 + zeta), 1e-6);
    sp_sampler_free(s);
}

/* Detection, counted by hand: after token 1 (key 2, gamma 0.5) the green
 * ids are {2, 3}; after 2 and after 3 the engine's own lists say.  A text
 * of 4 scored tokens of which 3 are green: z = (3 - 0.5 x 4) / sqrt(4 x
 * 0.5 x 0.5) = 1, p = 0.158655.  At gamma 0.25: T = 4, G = 3 gives z =
 * 2 / sqrt(0.75) = 2.309401, p = 0.0104607. */
static void test_detect_numbers(void) {
    int perm[4];
    /* build a text green, green, green, red by choosing each token */
    int ids[5] = {1, 0, 0, 0, 0};
    for (int i = 1; i < 5; i++) {
        int want = i < 4;
        for (int t = 0; t < 4; t++)
            if (sp_watermark_is_green(4, 0.5f, 2, ids[i - 1], t, perm) == want) {
                ids[i] = t;
                break;
            }
    }
    CHECK_EQ_INT(ids[1], 2); /* the first green id after 1 */
    sp_watermark_score sc;
    int8_t per[5];
    double run[5];
    CHECK_EQ_INT(sp_watermark_detect(4, 0.5f, 2, ids, 5, 1, per, run, &sc, err), SP_OK);
    CHECK_EQ_INT(sc.tokens, 4);
    CHECK_EQ_INT(sc.green, 3);
    /* the running z: 1 of 1 green, 2 of 2, 3 of 3, 3 of 4: (g - t/2) /
     * sqrt(t/4) = 1, 1.414214, 1.732051, 1 */
    CHECK(isnan(run[0]));
    CHECK_NEAR(run[1], 1.0, 1e-12);
    CHECK_NEAR(run[2], sqrt(2.0), 1e-12);
    CHECK_NEAR(run[3], sqrt(3.0), 1e-12);
    CHECK_NEAR(run[4], 1.0, 1e-12);
    CHECK_NEAR(sc.z, 1.0, 1e-12);
    CHECK_NEAR(sc.p_value, 0.158655254, 2e-7);
    CHECK(per[0] == -1 && per[1] == 1 && per[2] == 1 && per[3] == 1 && per[4] == 0);
    /* first 0: the same tokens (ids[0] has no token before it) */
    CHECK_EQ_INT(sp_watermark_detect(4, 0.5f, 2, ids, 5, 0, per, NULL, &sc, err), SP_OK);
    CHECK_EQ_INT(sc.tokens, 4);
    /* the formula at gamma 0.25 (a vocabulary of 8: 2 green) */
    int g8[5] = {0, 0, 0, 0, 0}, perm8[8];
    for (int i = 1; i < 5; i++) {
        int want = i < 4;
        for (int t = 0; t < 8; t++)
            if (sp_watermark_is_green(8, 0.25f, 5, g8[i - 1], t, perm8) == want) {
                g8[i] = t;
                break;
            }
    }
    CHECK_EQ_INT(sp_watermark_detect(8, 0.25f, 5, g8, 5, 1, NULL, NULL, &sc, err), SP_OK);
    CHECK_EQ_INT(sc.green, 3);
    CHECK_NEAR(sc.z, 2.309401077, 1e-9);
    CHECK_NEAR(sc.p_value, 0.0104606677, 0.0104606677 * 2e-7);
    /* nothing to score: z and p are not numbers */
    CHECK_EQ_INT(sp_watermark_detect(4, 0.5f, 2, ids, 1, 1, NULL, NULL, &sc, err), SP_OK);
    CHECK_EQ_INT(sc.tokens, 0);
    CHECK(isnan(sc.z) && isnan(sc.p_value));
    /* errors name what is wrong */
    ids[2] = 7;
    CHECK_EQ_INT(sp_watermark_detect(4, 0.5f, 2, ids, 5, 1, NULL, NULL, &sc, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "token 7 is outside the vocabulary (0..3)");
    CHECK_EQ_INT(sp_watermark_detect(4, 0.0f, 2, ids, 5, 1, NULL, NULL, &sc, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "watermark-gamma must be in (0, 1)");
}

/* Ids drawn without the key: after each of 1 000 previous tokens, every
 * id of a 1 000-token vocabulary is green on floor(250) lists of 1 000
 * about as often as gamma says: the count of lists each id is green on is
 * Binomial(1000, 0.25) (mean 250), so sum (c - 250)^2 / (250 x 0.75) over
 * the 1 000 ids is chi-square with ~999 degrees of freedom.  And the
 * green share of 20 000 uniform (prev, token) pairs is 0.25 within 4
 * standard deviations (0.0031). */
static void test_green_share(void) {
    enum { V = 1000 };
    static uint8_t g[V];
    static int perm[V], count[V];
    for (int prev = 0; prev < V; prev++) {
        CHECK_EQ_INT(sp_watermark_green(V, 0.25f, 15485863, prev, g, perm), 250);
        for (int i = 0; i < V; i++) count[i] += g[i];
    }
    double chi = 0;
    for (int i = 0; i < V; i++) chi += (count[i] - 250.0) * (count[i] - 250.0) / (250 * 0.75);
    printf("watermark: green counts over 1000 lists, chi-square %.1f (df 999, "
           "0.1%% critical %.1f)\n", chi, chi_square_critical(999));
    CHECK(chi < chi_square_critical(999));
    CHECK(chi > 999 - 4 * sqrt(2 * 999.0)); /* not suspiciously even */
    sp_rng r;
    sp_rng_seed(&r, 1234);
    int green = 0, n = 20000;
    for (int i = 0; i < n; i++) {
        int prev = (int)(sp_rng_u32(&r) % V), t = (int)(sp_rng_u32(&r) % V);
        green += sp_watermark_is_green(V, 0.25f, 15485863, prev, t, perm);
    }
    double share = (double)green / n, sd = sqrt(0.25 * 0.75 / n);
    printf("watermark: green share of %d random pairs %.4f (gamma 0.25, sd %.4f)\n",
           n, share, sd);
    CHECK(fabs(share - 0.25) < 4 * sd);
}

/* A generated text: the bigram names model (its boundary ends a name, not
 * the text), 200 characters from an empty prompt at T = 1, watermarked
 * (gamma 0.25, delta 2) and not; the detector with the key scores the
 * 200 generated tokens (the first after the prompt's boundary token).
 * Measured: z = 10.61, 11.10, 10.94 (115-118 green of 200) with the
 * watermark; -2.61, 0.33, -1.80 without.  Without it z spreads wider than
 * a standard normal here: a vocabulary of 54 has only 54 green lists, and
 * the model's choice after a character and that character's green list
 * are the same pair every time it comes back, so the 200 tokens are not
 * 200 independent trials; hence |z| < 3, not 2. */
static double generate_z(sp_model *m, float delta, uint64_t seed, int *green,
                         int *tokens) {
    sp_session *s = sp_session_new(m, NULL, err);
    CHECK(s != NULL);
    if (!s) return NAN;
    sp_params p = params();
    p.watermark_delta = delta;
    CHECK_EQ_INT(sp_session_start(s, "", seed, err), SP_OK);
    for (int i = 0; i < 200; i++) CHECK_EQ_INT(sp_session_step(s, &p, -1, err), SP_OK);
    sp_watermark_score sc;
    CHECK_EQ_INT(sp_watermark_detect(sp_session_vocab(s), 0.25f, 15485863,
                                     sp_session_tokens(s), sp_session_n_tokens(s),
                                     sp_session_n_prompt(s), NULL, NULL, &sc, err),
                 SP_OK);
    *green = sc.green;
    *tokens = sc.tokens;
    sp_session_free(s);
    return sc.z;
}

static void test_generated(void) {
    const char *root = test_root;
    char path[512];
    size_t size;
    snprintf(path, sizeof path, "%s/models/bigram.bin", root);
    uint8_t *bytes = read_all(path, &size);
    CHECK(bytes != NULL);
    if (!bytes) return;
    sp_model *m = sp_model_load(bytes, size, 1, err);
    CHECK(m != NULL);
    int g, t;
    for (uint64_t seed = 1; seed <= 3; seed++) {
        double zw = generate_z(m, 2.0f, seed, &g, &t);
        printf("watermark: seed %llu, delta 2: %d of %d tokens green, z = %.2f\n",
               (unsigned long long)seed, g, t, zw);
        CHECK_EQ_INT(t, 200); /* after the prompt's boundary token */
        CHECK(zw > 4);
        double z0 = generate_z(m, 0.0f, seed, &g, &t);
        printf("watermark: seed %llu, off: %d of %d tokens green, z = %.2f\n",
               (unsigned long long)seed, g, t, z0);
        CHECK(fabs(z0) < 3);
    }
    sp_model_free(m);
}

TEST_SUITE(watermark,
           TEST(test_green_list),
           TEST(test_stage_case),
           TEST(test_confident_step),
           TEST(test_detect_numbers),
           TEST(test_green_share),
           TEST(test_generated));
