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
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "internal.h"
#include "sampler.h"
#include "testutil.h"

static sp_sampler *sampler;
static sp_step step;
static char err[SP_ERR_LEN];
static int n_cases = 0;

static sp_params params(void) {
    sp_params p;
    sp_params_default(&p);
    return p;
}

/* Warps logits[n] after history; reference: the chain's reference path. */
static int warp(const float *logits, int n, const int *hist, int nh,
                const sp_params *p, int reference) {
    sampler = tu_sampler_for(sampler, n);
    sp_sampler_set_reference(sampler, reference);
    int rc = tu_warp(&sampler, logits, n, hist, nh, p, &step, err);
    sp_sampler_set_reference(sampler, 0);
    return rc;
}

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

/* ---------------------------------------------------- test_sampler_queue */

/* llama.cpp's test_sampler_queue: 10 000 tokens, logit ln(id) (token 0:
 * ln 0 = -inf), the stages of `seq` in that order ('k' top-k, 'p' top-p,
 * 'm' min-p), each followed by dist.  llama.cpp's expectations, kept as it
 * computes them (integer sums of ids, since p_i is proportional to i): the
 * kept tokens are always the ids [min_token_id, 9999].  Ours: the same ids,
 * but for token 0, which the engine masks ("mask": its logit is -inf) where
 * llama.cpp keeps it at p = 0 (top-k 10 000 and top-p 1 keep all 10 000;
 * the top-p test adds it back when it reaches id 1). */
static void sampler_queue(const int n_vocab, const char *seq, int top_k,
                          float top_p, float min_p) {
    static float x[10000];
    for (int i = 0; i < n_vocab; i++) x[i] = logf((float)i);
    sp_params p = params();
    char order[64] = "";
    for (const char *s = seq; *s; s++) {
        if (*s == 'k') p.top_k = top_k;
        if (*s == 'p') p.top_p = top_p;
        if (*s == 'm') p.min_p = min_p;
        strcat(order, *s == 'k' ? "top_k," : *s == 'p' ? "top_p," : "min_p,");
    }
    CHECK_EQ_INT(sp_params_set_order(&p, order, err), SP_OK);
    /* llama.cpp's expectations, stage by stage */
    int min_token_id = 0;
    const int max_token_id = n_vocab - 1;
    int size = n_vocab; /* llama.cpp's cur_p.size */
    for (const char *s = seq; *s; s++) {
        if (*s == 'k') {
            int expected_size = size < top_k ? size : top_k;
            if (n_vocab - top_k > min_token_id) min_token_id = n_vocab - top_k;
            size = expected_size;
        } else if (*s == 'p') {
            const int softmax_divisor = n_vocab * (n_vocab - 1) / 2 - min_token_id * (min_token_id - 1) / 2;
            const int softmax_numerator_target = (int)ceilf(top_p * (float)softmax_divisor);
            min_token_id = n_vocab;
            int expected_size = 0, cumsum = 0;
            do {
                min_token_id--;
                expected_size++;
                cumsum += min_token_id;
            } while (cumsum < softmax_numerator_target);
            if (min_token_id == 1) {
                min_token_id--;
                expected_size += 1;
            }
            size = expected_size;
        } else {
            int expected_size = (int)ceilf((1.0f - min_p) * (float)n_vocab);
            if (expected_size < 1) expected_size = 1;
            if (expected_size > size) expected_size = size;
            int lo = (int)floorf(min_p * (float)n_vocab);
            if (lo < 1) lo = 1;
            if (n_vocab - size > lo) lo = n_vocab - size;
            if (lo > n_vocab - 1) lo = n_vocab - 1;
            min_token_id = lo;
            size = expected_size;
        }
    }
    (void)size; /* llama.cpp asserts it against its array, which holds token 0 at p = 0 */
    int lo = min_token_id < 1 ? 1 : min_token_id; /* ours: token 0 masked */
    n_cases++;
    for (int reference = 0; reference < 2; reference++) {
        CHECK_EQ_INT(warp(x, n_vocab, NULL, 0, &p, reference), SP_OK);
        int ok = step.n_kept == max_token_id - lo + 1 && step.kept[0] == lo &&
                 step.kept[step.n_kept - 1] == max_token_id;
        CHECK(ok);
        if (!ok)
            printf("  test_sampler_queue(%d, \"%s\", %d, %g, %g) (%s path): kept %d [%d..%d], want %d [%d..%d]\n",
                   n_vocab, seq, top_k, (double)top_p, (double)min_p,
                   reference ? "reference" : "fast", step.n_kept, step.kept[0],
                   step.kept[step.n_kept - 1], max_token_id - lo + 1, lo, max_token_id);
    }
}

static void test_sampler_queue(void) {
    sampler_queue(10000, "k", 10000, 1.0f, 1.0f);
    sampler_queue(10000, "k", 1, 1.0f, 1.0f);
    sampler_queue(10000, "p", 10000, 1.0f, 1.0f);
    /* test_sampler_queue(10000, "p", 10000, 0.0f, 1.0f): top-p 0 is
     * refused here (test_top_p); its smallest value keeps the argmax, as
     * llama.cpp's expectation says */
    sampler_queue(10000, "p", 10000, FLT_TRUE_MIN, 1.0f);
    sampler_queue(10000, "m", 10000, 1.0f, 1.0f);
    sampler_queue(10000, "m", 10000, 1.0f, 1e-12f);

    sampler_queue(10000, "k", 100, 1.0000f, 1.0f);
    sampler_queue(10000, "p", 10000, 0.0003f, 1.0f);
    sampler_queue(10000, "p", 10000, 0.8000f, 1.0f);
    sampler_queue(10000, "m", 10000, 1.0000f, 9997.9f / 9999.0f);
    sampler_queue(10000, "m", 10000, 1.0000f, 0.1f);

    sampler_queue(10000, "kp", 100, 0.8f, 0.1f);
    sampler_queue(10000, "km", 100, 0.8f, 0.1f);
    sampler_queue(10000, "pk", 100, 0.8f, 0.1f);
    sampler_queue(10000, "pm", 100, 0.8f, 0.1f);
    sampler_queue(10000, "mk", 100, 0.8f, 0.1f);
    sampler_queue(10000, "mp", 100, 0.8f, 9997.9f / 9999.0f);
    sampler_queue(10000, "mp", 100, 0.8f, 0.1f);

    sampler_queue(10000, "kpm", 100, 0.8f, 0.1f);
    sampler_queue(10000, "kmp", 100, 0.8f, 0.1f);
    sampler_queue(10000, "pkm", 100, 0.8f, 0.1f);
    sampler_queue(10000, "pmk", 100, 0.8f, 0.1f);
    sampler_queue(10000, "mkp", 100, 0.8f, 0.1f);
    sampler_queue(10000, "mpk", 100, 0.8f, 0.1f);
}

/* ------------------------- found by the differential test against llama.cpp */

/* tests/oracle/chain.test.js runs random chains through llama.cpp itself;
 * these are two of its cases, where the engine was wrong. */
static void test_mirostat_flat_head(void) {
    /* Mirostat v1 on a flat head (estimated Zipf exponent s < 1):
     * k = ((s-1) 2^mu / (1 - V^(1-s)))^(1/s) holds for s < 1 as for s > 1
     * (both factors of the fraction change sign), as llama.cpp computes
     * it; the engine kept every token there.  llama.cpp (b12211, through
     * wllama): temperature 1.3805646 then mirostat 1, tau 2.2104993, these
     * logits — keeps these 11 tokens. */
    static const float x[20] = {1.6517632f, -0.625516832f, 0.660710573f, -0.883293152f, 0.613656819f,
                                -1.01958251f, 0.363933533f, 1.8473649f, -2.20814347f, 1.58611715f,
                                0.197561458f, -0.143080696f, 1.48551321f, -0.24803476f, 0.229504809f,
                                0.721365392f, 1.29241395f, -0.462044448f, 1.42827415f, 1.84440136f};
    static const int want[11] = {0, 2, 4, 6, 7, 9, 12, 15, 16, 18, 19};
    sp_params p = params();
    p.mirostat = 1;
    p.mirostat_tau = 2.2104992866516113f;
    p.mirostat_eta = 0.08204372972249985f;
    p.temperature = 1.380564570426941f;
    CHECK_EQ_INT(sp_params_set_order(&p, "temperature", err), SP_OK);
    for (int reference = 0; reference < 2; reference++) {
        CHECK_EQ_INT(warp(x, 20, NULL, 0, &p, reference), SP_OK);
        CHECK_EQ_INT(step.n_kept, 11);
        int same = step.n_kept == 11;
        for (int i = 0; same && i < 11; i++) same = step.kept[i] == want[i];
        CHECK(same);
    }
    /* flatter still (T 1.42, logits within +-0.6): k < 1, the argmax alone */
    static const float flat[20] = {-0.551802635f, 0.343966454f, -0.256879032f, 0.00121176662f, -0.440750033f,
                                   0.297200233f, -0.142577931f, 0.156863332f, 0.457360446f, 0.140344605f,
                                   -0.207410142f, 0.179146275f, -0.0956000015f, 0.425358921f, -0.163171783f,
                                   -0.330020875f, -0.4825221f, 0.00223430572f, -0.214985460f, -0.38174969f};
    p.mirostat_tau = 0.6669019460678101f;
    p.temperature = 1.4217240810394287f;
    CHECK_EQ_INT(warp(flat, 20, NULL, 0, &p, 0), SP_OK);
    CHECK_EQ_INT(step.n_kept, 1);
    CHECK_EQ_INT(step.kept[0], 8);
    n_cases += 2;
}

static void test_probs_after_mirostat(void) {
    /* The step record's probs is 0 at every cut token, whatever the
     * sampler did before: mirostat v1 borrowed the list of the last warp's
     * kept tokens (which the final softmax clears from probs) as scratch,
     * and a warp after it left the cut tokens of the warp before at their
     * old probabilities (the draw, over the kept tokens, never saw them). */
    float a[20], b[20];
    for (int i = 0; i < 20; i++) {
        a[i] = (float)((i * 7) % 20) / 4.0f;
        b[i] = (float)((i * 13) % 20) / 5.0f;
    }
    sp_params top_p = params(), miro = params();
    top_p.top_p = 0.5f;
    miro.mirostat = 1;
    miro.mirostat_tau = 1.5f;
    for (int round = 0; round < 3; round++) {
        const sp_params *p = round == 1 ? &miro : &top_p;
        CHECK_EQ_INT(warp(round == 1 ? a : b, 20, NULL, 0, p, 0), SP_OK);
        double sum = 0;
        int stray = 0;
        for (int i = 0; i < 20; i++) {
            sum += step.probs[i];
            if (step.cut[i] != SP_CUT_NONE && step.probs[i] != 0.0f) stray++;
        }
        CHECK_EQ_INT(stray, 0);
        CHECK_NEAR(sum, 1.0, 1e-6);
    }
    n_cases++;
}

/* ---------------------------------------------------------- adaptive-p */

/* Adaptive-p (llama.cpp's llama_sampler_adaptive_p, PR #17927), worked
 * by hand.  p = (0.5, 0.3, 0.15, 0.05), target 0.3, decay 0.9: the sums
 * start at 0.3 / 0.1 = 3 and 1 / 0.1 = 10 (average 0.3), so the first step
 * aims at 2 * 0.3 - 0.3 = 0.3.  d = |p - 0.3| / 0.3 = (2/3, 0, 1/2, 5/6);
 * logits 5 - 10 d^2 / (1 + d) = (2.3333, 5, 3.3333, 1.2121); softmax
 * (0.054241, 0.780639, 0.147444, 0.017676).  Token 0 drawn (p 0.5 before
 * the stage): sum 0.5 + 0.9 * 3 = 3.2, weight 1 + 0.9 * 10 = 10, average
 * 0.32, the next aim 0.6 - 0.32 = 0.28: logits (1.8974, 4.9583, 3.6899,
 * 1.6730), softmax (0.034305, 0.732305, 0.205982, 0.027408). */
static void test_adaptive_p(void) {
    static const float P[4] = {0.5f, 0.3f, 0.15f, 0.05f};
    float x[4];
    for (int i = 0; i < 4; i++) x[i] = logf(P[i]);
    sp_params p = params();
    p.adaptive_target = 0.3f;
    p.adaptive_decay = 0.9f;
    CHECK_EQ_INT(sp_params_check(&p, 4, err), SP_OK);
    CHECK_EQ_INT(sp_stage_active(&p, SP_STAGE_ADAPTIVE_P), 1);
    CHECK(!strcmp(sp_stage_name(SP_STAGE_ADAPTIVE_P), "adaptive_p"));
    CHECK_EQ_INT(sp_stage_find("adaptive_p"), -1); /* no order moves it */
    static const float first[4] = {0.054241f, 0.780639f, 0.147444f, 0.017676f};
    static const float second[4] = {0.034305f, 0.732305f, 0.205982f, 0.027408f};
    for (int reference = 0; reference < 2; reference++) {
        CHECK_EQ_INT(warp(x, 4, NULL, 0, &p, reference), SP_OK);
        for (int i = 0; i < 4; i++) CHECK_NEAR(step.probs[i], first[i], 2e-6);
        CHECK_EQ_INT(step.n_kept, 4); /* it reshapes, it cuts nothing */
        CHECK_NEAR(step.adaptive_average, 0.3, 1e-7);
        CHECK_NEAR(step.adaptive_aim, 0.3, 1e-7);
        CHECK(step.probs_adaptive_in != NULL);
        for (int i = 0; i < 4; i++) CHECK_NEAR(step.probs_adaptive_in[i], P[i], 1e-7);
        CHECK(step.mirostat_mu != step.mirostat_mu); /* mirostat off: NaN */
    }
    /* the state learns from the drawn token's probability before it */
    float sum = NAN, weight = NAN;
    sp_adaptive_update(&p, &sum, &weight, step.probs_adaptive_in[0]);
    CHECK_NEAR(sum, 3.2, 1e-5); /* float sums, as llama.cpp keeps them */
    CHECK_NEAR(weight, 10.0, 1e-5);
    sp_sampler_state st = {0.0, NAN, 0, NULL, 0, sum, weight};
    sp_sampler_set_state(sampler, &st);
    CHECK_EQ_INT(sp_sampler_warp(sampler, x, NULL, 0, &p, &step, err), SP_OK);
    CHECK_NEAR(step.adaptive_average, 0.32, 1e-6);
    CHECK_NEAR(step.adaptive_aim, 0.28, 1e-6);
    for (int i = 0; i < 4; i++) CHECK_NEAR(step.probs[i], second[i], 2e-6);
    /* off: nothing reshaped, no state; a cut token stays cut (top-k 2) */
    p.top_k = 2;
    CHECK_EQ_INT(warp(x, 4, NULL, 0, &p, 0), SP_OK);
    CHECK_EQ_INT(step.n_kept, 2);
    CHECK(step.probs_adaptive_in[2] == 0.0f && step.probs[2] == 0.0f);
    p.adaptive_target = -1.0f;
    CHECK_EQ_INT(warp(x, 4, NULL, 0, &p, 0), SP_OK);
    CHECK(step.probs_adaptive_in == NULL);
    CHECK(step.adaptive_average != step.adaptive_average);
    sp_adaptive_update(&p, &sum, &weight, 0.9f); /* off: unchanged */
    CHECK_NEAR(sum, 3.2, 1e-5);
    /* the ranges, and one terminal stage at a time */
    p = params();
    p.adaptive_target = 1.5f;
    CHECK_EQ_INT(sp_params_check(&p, 4, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "adaptive-target");
    p.adaptive_target = 0.5f;
    p.adaptive_decay = 1.0f; /* llama.cpp clamps to 0.99; ours: any below 1 */
    CHECK_EQ_INT(sp_params_check(&p, 4, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "adaptive-decay must be in [0, 1)");
    p.adaptive_decay = 0.9f;
    p.mirostat = 2;
    CHECK_EQ_INT(sp_params_check(&p, 4, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "mirostat and adaptive-target are both set");
    n_cases++;
}

/* A session keeps adaptive-p's sums step by step: each step's average is
 * the one the drawn tokens' probabilities before the stage make, and a
 * rewind finds it again. */
static void test_adaptive_p_session(void) {
    sp_model *m = sp_model_handmade("probs:0.5,0.3,0.15,0.05", err);
    CHECK(m != NULL);
    if (!m) return;
    sp_session *s = sp_session_new(m, NULL, err);
    sp_params p = params();
    p.adaptive_target = 0.2f;
    p.adaptive_decay = 0.5f;
    CHECK_EQ_INT(sp_session_start(s, "", 7, err), SP_OK);
    static const float P[4] = {0.5f, 0.3f, 0.15f, 0.05f};
    float sum = 0.2f / 0.5f, weight = 1.0f / 0.5f, averages[12];
    int tokens[12];
    for (int i = 0; i < 12; i++) {
        CHECK_EQ_INT(sp_session_step(s, &p, -1, err), SP_OK);
        const sp_step *st = sp_session_last_step(s);
        averages[i] = st->adaptive_average;
        tokens[i] = st->token;
        CHECK_NEAR(st->adaptive_average, sum / weight, 1e-6);
        sum = P[st->token] + 0.5f * sum;
        weight = 1.0f + 0.5f * weight;
    }
    /* time travel: step 5 again, with the state it had */
    CHECK_EQ_INT(sp_session_rewind(s, 5, err), SP_OK);
    CHECK_EQ_INT(sp_session_step(s, &p, -1, err), SP_OK);
    CHECK_EQ_INT(sp_session_last_step(s)->token, tokens[5]);
    CHECK(sp_session_last_step(s)->adaptive_average == averages[5]);
    sp_session_free(s);
    sp_model_free(m);
    n_cases++;
}

int main(int argc, char **argv) {
    (void)argc;
    (void)argv;
    test_temp();
    test_top_k();
    test_top_p();
    test_min_p();
    test_xtc();
    test_typical();
    test_penalties();
    test_dry();
    test_top_n_sigma();
    test_sampler_queue();
    test_mirostat_flat_head();
    test_probs_after_mirostat();
    test_adaptive_p();
    test_adaptive_p_session();
    printf("llama.cpp's cases (test-sampling.cpp at f0817df, and two of the differential test's): %d\n", n_cases);
    sp_sampler_free(sampler);
    CHECK_DONE();
}
