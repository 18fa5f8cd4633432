/* test_llama_queue.c — llama.cpp's test_sampler_queue (stages in an order
 * over 10 000 tokens), two cases the differential test against llama.cpp
 * found (mirostat on a flat head, the probabilities after mirostat) and
 * adaptive-p worked by hand, alone and in a session.  llama.cpp's
 * per-stage cases: test_llama_cases.c (its header says how they read). */
#include "llama_cases.h"

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
        /* the goal it worked towards, in the step (the page's line) */
        CHECK(step.adaptive_goal == 0.3f);
        CHECK(step.mirostat_goal != step.mirostat_goal);
    }
    /* the state learns from the drawn token's probability before it */
    float sum = NAN, weight = NAN;
    sp_adaptive_update(&p, &sum, &weight, step.probs_adaptive_in[0]);
    CHECK_NEAR(sum, 3.2, 1e-5); /* float sums, as llama.cpp keeps them */
    CHECK_NEAR(weight, 10.0, 1e-5);
    sp_sampler_state st = {0.0, NAN, 0, NULL, 0, sum, weight, NULL};
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
    CHECK(step.adaptive_goal != step.adaptive_goal); /* off: NaN */
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

TEST_SUITE(llama_queue,
           TEST(test_sampler_queue),
           TEST(test_mirostat_flat_head),
           TEST(test_probs_after_mirostat),
           TEST(test_adaptive_p),
           TEST(test_adaptive_p_session));
