/* test_llama_cases.c — llama.cpp's own sampler cases as named cases of
 * ours: every case of llama.cpp's tests/test-sampling.cpp for a sampler
 * the engine has, as read at ggml-org/llama.cpp commit
 * f0817df540977d3e3bd9038e7e108fa4f3b4bbde.
 *
 * How llama.cpp's cases read: logits = ln p of the given probabilities
 * (llama.cpp's sampler_tester), one sampler, then `dist` (a softmax over
 * the tokens left), and the expected probabilities by POSITION in
 * llama.cpp's candidate array — which some samplers sort (top-k, top-p,
 * top-nσ, XTC) and others leave in id order.  Here every expectation is
 * written by TOKEN ID (the position each id had in llama.cpp's array,
 * worked out from the sampler's definition), and a token llama.cpp drops or
 * leaves at p = 0 is a token our step record cuts.  Cases that llama.cpp
 * runs without `dist` (typical, XTC) expect unnormalized probabilities;
 * ours are the same tokens renormalized (each expectation divided by
 * their sum).  Tolerance 1e-5, as llama.cpp's check().  Every case runs
 * twice: through the chain's shortcuts and its reference path
 * (sp_sampler_set_reference), which must agree.
 *
 * Where ours differs from llama.cpp, on purpose (each case says so):
 *  - a -inf logit is a token the model masked (cut "mask"), never part of
 *    the nucleus; llama.cpp keeps it in its array at p = 0 (the sampler
 *    queue's token 0, logit ln 0);
 *  - top-p is in (0, 1] and min-p in [0, 1], as Hugging Face's warpers
 *    define them; llama.cpp also takes top-p 0 (greedy) and min-p above 1
 *    (the argmax alone).  Ours refuses them by name; the smallest top-p it
 *    takes keeps the argmax alone, as llama.cpp's 0 does, and min-p 1 keeps
 *    the argmax alone, as llama.cpp's 1.05 does;
 *  - test_dist_rng (llama.cpp's own random streams, mt19937 and
 *    lowbias32) is not ported: the engine draws from PCG32, one stream per
 *    seed, the same in every build (sampler.h, DETERMINISM);
 *  - the perf section (test_perf) is the bench's job (./build.sh bench).
 * Not here yet: test_p_less (two cases, in later versions of the file) is
 * a stage the engine does not have.  Mirostat has no case in that file:
 * tests/oracle/chain.test.js runs it one step against llama.cpp itself.
 * The sampler queue, the differential test's two cases and adaptive-p:
 * test_llama_queue.c; what both share: llama_cases.h.
 */
#include "llama_cases.h"

/* A token id with its expected final probability. */
typedef struct {
    int id;
    float p;
} id_p;

/* One llama.cpp case: probs (logits ln p) after history, under p, must
 * leave exactly the tokens of want (by id; each with its probability,
 * renormalized over want when normalize is set: llama.cpp's case has no
 * `dist`) and cut every other one. */
static void llama_case(const char *name, const float *probs, int n,
                       const int *hist, int nh, const sp_params *p,
                       const id_p *want, int n_want, int normalize) {
    float x[64], expect[64];
    for (int i = 0; i < n; i++) x[i] = logf(probs[i]);
    double sum = 0;
    for (int i = 0; i < n; i++) expect[i] = 0.0f;
    for (int k = 0; k < n_want; k++) sum += want[k].p;
    for (int k = 0; k < n_want; k++)
        expect[want[k].id] = normalize ? (float)(want[k].p / sum) : want[k].p;
    n_cases++;
    for (int reference = 0; reference < 2; reference++) {
        int rc = warp(x, n, hist, nh, p, reference);
        CHECK_EQ_INT(rc, SP_OK);
        if (rc != SP_OK) {
            printf("  %s: %s\n", name, err);
            return;
        }
        int ok = 1;
        for (int i = 0; i < n; i++) {
            int kept_here = step.cut[i] == SP_CUT_NONE;
            int wanted = 0;
            for (int k = 0; k < n_want; k++) wanted |= want[k].id == i;
            if (kept_here != wanted) ok = 0;
            if (fabs((double)step.probs[i] - expect[i]) > 1e-5) ok = 0;
        }
        CHECK(ok);
        if (reference == 0) { /* the numbers, as test-sampling.cpp's DUMP */
            char line[512];
            int at = 0;
            for (int i = 0; i < n && at < 480; i++)
                if (step.cut[i] == SP_CUT_NONE)
                    at += snprintf(line + at, sizeof line - (size_t)at,
                                   " %d:%.6f", i, (double)step.probs[i]);
            say("%-34s ->%s", name, line);
        }
        if (!ok) {
            printf("  %s (%s path): got", name, reference ? "reference" : "fast");
            for (int i = 0; i < n; i++)
                printf(" %d:%.6f%s", i, (double)step.probs[i],
                       step.cut[i] == SP_CUT_NONE ? "" : "(cut)");
            printf("\n");
        }
    }
}

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define WANT(...) ((const id_p[]){__VA_ARGS__}), N(((const id_p[]){__VA_ARGS__}))

static const float P4[4] = {0.1f, 0.2f, 0.3f, 0.4f};
static const float P4_DESC[4] = {0.4f, 0.3f, 0.2f, 0.1f};
static const float P5_FLAT[5] = {0.2f, 0.2f, 0.2f, 0.2f, 0.2f};
static const float P4_FLAT[4] = {0.25f, 0.25f, 0.25f, 0.25f};

/* -------------------------------------------------- test_temp, temp_ext */

static void case_temp(const char *name, float temp, float delta,
                      float exponent, const id_p *want, int n_want) {
    sp_params p = params();
    p.temperature = temp;
    p.dynatemp_range = delta;
    p.dynatemp_exp = exponent;
    llama_case(name, P4, 4, NULL, 0, &p, want, n_want, 0);
}

static void test_temp(void) {
    /* test_temp({.1,.2,.3,.4}, {.1,.2,.3,.4}, 1.0): unchanged, id order */
    case_temp("test_temp(1.0)", 1.0f, 0.0f, 1.0f,
              WANT({0, 0.1f}, {1, 0.2f}, {2, 0.3f}, {3, 0.4f}));
    /* temp 0: every logit but the largest set to -inf */
    case_temp("test_temp(0.0)", 0.0f, 0.0f, 1.0f, WANT({3, 1.0f}));
    /* test_temp_ext(temp, delta 0, exponent 1): plain temperature */
    case_temp("test_temp_ext(1.0, 0, 1)", 1.0f, 0.0f, 1.0f,
              WANT({0, 0.1f}, {1, 0.2f}, {2, 0.3f}, {3, 0.4f}));
    case_temp("test_temp_ext(0.0, 0, 1)", 0.0f, 0.0f, 1.0f, WANT({3, 1.0f}));
}

/* ------------------------------------------------------------ test_top_k */

static void case_top_k(const char *name, int k, const id_p *want, int n_want) {
    sp_params p = params();
    p.top_k = k;
    llama_case(name, P4, 4, NULL, 0, &p, want, n_want, 0);
}

static void test_top_k(void) {
    case_top_k("test_top_k(1)", 1, WANT({3, 1.0f}));
    /* {0.44444, 0.33333, 0.22222}: llama.cpp's array sorted, ids 3, 2, 1 */
    case_top_k("test_top_k(3)", 3, WANT({3, 0.44444f}, {2, 0.33333f}, {1, 0.22222f}));
    case_top_k("test_top_k(4)", 4, WANT({3, 0.4f}, {2, 0.3f}, {1, 0.2f}, {0, 0.1f}));
    /* k 0: off (llama.cpp returns at once; the array stays in id order) */
    case_top_k("test_top_k(0)", 0, WANT({0, 0.1f}, {1, 0.2f}, {2, 0.3f}, {3, 0.4f}));
}

/* ------------------------------------------------------------ test_top_p */

static void case_top_p(const char *name, float top_p, const id_p *want, int n_want) {
    sp_params p = params();
    p.top_p = top_p;
    llama_case(name, P4, 4, NULL, 0, &p, want, n_want, 0);
}

static void test_top_p(void) {
    /* test_top_p(.., {1.0}, 0): llama.cpp's top-p 0 keeps the argmax.  Ours
     * takes top-p in (0, 1] and refuses 0 by name; its smallest top-p
     * keeps the argmax alone, as llama.cpp's 0 does. */
    sp_params p = params();
    p.top_p = 0.0f;
    CHECK_EQ_INT(sp_params_check(&p, 4, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "top-p must be in (0, 1] (got 0)");
    case_top_p("test_top_p(0) as top-p = FLT_TRUE_MIN", FLT_TRUE_MIN, WANT({3, 1.0f}));
    /* 0.4 + 0.3 = 0.7 reaches 0.7: ids 3, 2 (sorted) */
    case_top_p("test_top_p(0.7)", 0.7f, WANT({3, 0.571429f}, {2, 0.428571f}));
    case_top_p("test_top_p(0.8)", 0.8f, WANT({3, 0.44444f}, {2, 0.33333f}, {1, 0.22222f}));
    case_top_p("test_top_p(1.0)", 1.0f, WANT({0, 0.1f}, {1, 0.2f}, {2, 0.3f}, {3, 0.4f}));
}

/* ------------------------------------------------------------ test_min_p */

static void case_min_p(const char *name, float min_p, const id_p *want, int n_want) {
    sp_params p = params();
    p.min_p = min_p;
    llama_case(name, P4, 4, NULL, 0, &p, want, n_want, 0);
}

static void test_min_p(void) {
    /* min-p keeps p_i >= min_p * p_max (p_max 0.4); llama.cpp's array stays
     * in id order */
    case_min_p("test_min_p(0.00)", 0.00f, WANT({0, 0.1f}, {1, 0.2f}, {2, 0.3f}, {3, 0.4f}));
    case_min_p("test_min_p(0.24)", 0.24f, WANT({0, 0.1f}, {1, 0.2f}, {2, 0.3f}, {3, 0.4f}));
    case_min_p("test_min_p(0.26)", 0.26f, WANT({1, 0.2f / 0.9f}, {2, 0.3f / 0.9f}, {3, 0.4f / 0.9f}));
    case_min_p("test_min_p(0.49)", 0.49f, WANT({1, 0.2f / 0.9f}, {2, 0.3f / 0.9f}, {3, 0.4f / 0.9f}));
    case_min_p("test_min_p(0.51)", 0.51f, WANT({2, 0.3f / 0.7f}, {3, 0.4f / 0.7f}));
    case_min_p("test_min_p(0.74)", 0.74f, WANT({2, 0.3f / 0.7f}, {3, 0.4f / 0.7f}));
    case_min_p("test_min_p(0.76)", 0.76f, WANT({3, 0.4f / 0.4f}));
    case_min_p("test_min_p(1.00)", 1.00f, WANT({3, 0.4f / 0.4f}));
    /* test_min_p(1.05): llama.cpp keeps the argmax (its min_keep); ours
     * takes min-p in [0, 1] and refuses 1.05 by name (1.00 above keeps
     * the argmax alone, as llama.cpp's 1.05 does) */
    sp_params p = params();
    p.min_p = 1.05f;
    CHECK_EQ_INT(sp_params_check(&p, 4, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "min-p must be in [0, 1] (got 1.05");
}

/* -------------------------------------------------------------- test_xtc */

static void case_xtc(const char *name, float threshold, const id_p *want, int n_want) {
    sp_params p = params();
    p.xtc_probability = 0.99f; /* the step's draw is 0 here: XTC acts */
    p.xtc_threshold = threshold;
    llama_case(name, P4_DESC, 4, NULL, 0, &p, want, n_want, 1);
}

static void test_xtc(void) {
    /* XTC removes every token at or above the threshold but the least
     * likely of them; llama.cpp's case has no dist: {0.1} is id 3 alone */
    case_xtc("test_xtc(0.99, 0.09)", 0.09f, WANT({3, 0.1f}));
    case_xtc("test_xtc(0.99, 0.19)", 0.19f, WANT({2, 0.2f}, {3, 0.1f}));
    case_xtc("test_xtc(0.99, 0.29)", 0.29f, WANT({1, 0.3f}, {2, 0.2f}, {3, 0.1f}));
    /* one token above the threshold: nothing to exclude */
    case_xtc("test_xtc(0.99, 0.39)", 0.39f, WANT({0, 0.4f}, {1, 0.3f}, {2, 0.2f}, {3, 0.1f}));
}

/* ---------------------------------------------------------- test_typical */

static void test_typical(void) {
    sp_params p = params();
    p.typical_p = 0.5f;
    /* no dist in llama.cpp's case: {0.97} unnormalized is id 0 alone */
    llama_case("test_typical({.97,.01,.01,.01}, 0.5)",
               (const float[]){0.97f, 0.01f, 0.01f, 0.01f}, 4, NULL, 0, &p,
               WANT({0, 0.97f}), 1);
    /* H = 1.3322 nats: the three 0.2s (surprise 1.609) are nearer than 0.4
     * (0.916); two of them hold 0.4 < 0.5, three 0.6 */
    llama_case("test_typical({.4,.2,.2,.2}, 0.5)",
               (const float[]){0.4f, 0.2f, 0.2f, 0.2f}, 4, NULL, 0, &p,
               WANT({1, 0.2f}, {2, 0.2f}, {3, 0.2f}), 1);
}

/* -------------------------------------------------------- test_penalties */

static void case_penalties(const char *name, const int *hist, int nh,
                           float repeat, float freq, float present,
                           const float *want5) {
    sp_params p = params();
    p.repetition_penalty = repeat;
    p.frequency_penalty = freq;
    p.presence_penalty = present;
    p.penalty_last_n = nh; /* llama.cpp's case: the window is the history */
    id_p want[5];
    int n_want = 0;
    for (int i = 0; i < 5; i++)
        if (!(repeat == 50.0f && want5[i] == 0.0f)) want[n_want++] = (id_p){i, want5[i]};
    llama_case(name, P5_FLAT, 5, hist, nh, &p, want, n_want, 0);
}

static void test_penalties(void) {
    /* repeat 50: a seen token's logit ln 0.2 < 0 is multiplied by 50,
     * e^(50 ln 0.2) = 0.2^50 ~ 1e-35 (p 0 to the tolerance; llama.cpp's
     * expectation is 0, ours too up to 1e-35 — kept, as llama.cpp keeps
     * it, so compared as a probability, not a cut) */
    const float r1[5] = {0, 0.25f, 0.25f, 0.25f, 0.25f};
    const float r2[5] = {0, 0, 0, 0.5f, 0.5f};
    for (int pass = 0; pass < 3; pass++) {
        static const int h1[] = {0}, h2[] = {0, 1, 2}, h3[] = {0, 1, 2, 0, 0};
        const int *h = pass == 0 ? h1 : pass == 1 ? h2 : h3;
        int nh = pass == 0 ? 1 : pass == 1 ? 3 : 5;
        const float *w = pass == 0 ? r1 : r2;
        char name[96];
        snprintf(name, sizeof name, "test_penalties(repeat 50, history of %d)", nh);
        sp_params p = params();
        p.repetition_penalty = 50.0f;
        p.penalty_last_n = nh;
        float x[5];
        for (int i = 0; i < 5; i++) x[i] = logf(P5_FLAT[i]);
        for (int reference = 0; reference < 2; reference++) {
            CHECK_EQ_INT(warp(x, 5, h, nh, &p, reference), SP_OK);
            int ok = step.n_kept == 5;
            for (int i = 0; i < 5; i++) ok &= fabs((double)step.probs[i] - w[i]) <= 1e-5;
            CHECK(ok);
            if (!ok) printf("  %s: wrong\n", name);
        }
        n_cases++;
    }
    /* frequency 5, presence 5: logit - 5 count - 5 */
    case_penalties("test_penalties({0}, freq 5, presence 5)", (const int[]){0}, 1, 1.0f, 5.0f, 5.0f,
                   (const float[]){0.000011f, 0.249997f, 0.249997f, 0.249997f, 0.249997f});
    case_penalties("test_penalties({0,1,2}, freq 5, presence 5)", (const int[]){0, 1, 2}, 3, 1.0f, 5.0f, 5.0f,
                   (const float[]){0.000023f, 0.000023f, 0.000023f, 0.499966f, 0.499966f});
    case_penalties("test_penalties({0,1,2,0,0}, freq 5, presence 5)", (const int[]){0, 1, 2, 0, 0}, 5, 1.0f, 5.0f, 5.0f,
                   (const float[]){0.000000f, 0.000023f, 0.000023f, 0.499977f, 0.499977f});
}

/* -------------------------------------------------------------- test_dry */

static void case_dry(const char *name, const float *probs, int n,
                     const int *hist, int nh, float mult, float base,
                     int allowed, int last_n, int breaker, const id_p *want,
                     int n_want) {
    sp_params p = params();
    p.dry_multiplier = mult;
    p.dry_base = base;
    p.dry_allowed_length = allowed;
    p.dry_penalty_last_n = last_n;
    if (breaker >= 0) CHECK_EQ_INT(sp_params_add_dry_breaker(&p, &breaker, 1, err), SP_OK);
    llama_case(name, probs, n, hist, nh, &p, want, n_want, 0);
}

static void test_dry(void) {
    case_dry("test_dry({0,1}, 1.0, 1.1, 2, 4)", P4_FLAT, 4, (const int[]){0, 1}, 2,
             1.0f, 1.1f, 2, 4, -1, WANT({0, 0.25f}, {1, 0.25f}, {2, 0.25f}, {3, 0.25f}));
    /* "0 1" repeats "0 1" followed by 2: 2 is pushed down by 1.0 * 1.1^0 */
    case_dry("test_dry({0,1,2,0,1}, 1.0, 1.1, 2, 5)", P4_FLAT, 4, (const int[]){0, 1, 2, 0, 1}, 5,
             1.0f, 1.1f, 2, 5, -1,
             WANT({0, 0.296923f}, {1, 0.296923f}, {2, 0.109232f}, {3, 0.296923f}));
    /* the breaker 3 ends every repeat */
    case_dry("test_dry({0,1,3,4,0,1}, breaker {3})", P5_FLAT, 5, (const int[]){0, 1, 3, 4, 0, 1}, 6,
             1.0f, 1.1f, 2, 6, 3,
             WANT({0, 0.2f}, {1, 0.2f}, {2, 0.2f}, {3, 0.2f}, {4, 0.2f}));
    case_dry("test_dry({0,1,2,0,1}, 2.0, 1.1, 2, 5)", P5_FLAT, 5, (const int[]){0, 1, 2, 0, 1}, 5,
             2.0f, 1.1f, 2, 5, -1,
             WANT({0, 0.241818f}, {1, 0.241818f}, {2, 0.032727f}, {3, 0.241818f}, {4, 0.241818f}));
    /* a repeat of 2 is within the allowed 4 */
    case_dry("test_dry({0,1,2,3,4,0,1}, allowed 4)", P5_FLAT, 5, (const int[]){0, 1, 2, 3, 4, 0, 1}, 7,
             1.0f, 1.1f, 4, 7, -1,
             WANT({0, 0.2f}, {1, 0.2f}, {2, 0.2f}, {3, 0.2f}, {4, 0.2f}));
}

/* ------------------------------------------------------ test_top_n_sigma */

static void case_top_n_sigma(const char *name, float n_sigma, const id_p *want, int n_want) {
    sp_params p = params();
    p.top_n_sigma = n_sigma;
    llama_case(name, P4, 4, NULL, 0, &p, want, n_want, 0);
}

static void test_top_n_sigma(void) {
    /* ln p = -2.303, -1.609, -1.204, -0.916: mean -1.508, sigma 0.525;
     * keep x >= -0.916 - 0.525: ids 3 and 2 ({0.571429, 0.428571, 0, 0}
     * of llama.cpp's sorted array) */
    case_top_n_sigma("test_top_n_sigma(1)", 1.0f, WANT({3, 0.571429f}, {2, 0.428571f}));
    /* 0: off, not greedy (llama.cpp's PR #13345) */
    case_top_n_sigma("test_top_n_sigma(0)", 0.0f, WANT({0, 0.1f}, {1, 0.2f}, {2, 0.3f}, {3, 0.4f}));
    case_top_n_sigma("test_top_n_sigma(3)", 3.0f, WANT({3, 0.4f}, {2, 0.3f}, {1, 0.2f}, {0, 0.1f}));
}

TEST_SUITE(llama_cases,
           TEST(test_temp),
           TEST(test_top_k),
           TEST(test_top_p),
           TEST(test_min_p),
           TEST(test_xtc),
           TEST(test_typical),
           TEST(test_penalties),
           TEST(test_dry),
           TEST(test_top_n_sigma));
