/* test_chain.c — the sampler chain: the registry, the order and its
 * presets, and the newer samplers (top-nσ, epsilon, eta, top-a, XTC, DRY,
 * dynamic temperature, no-repeat-ngram, mirostat) on worked examples —
 * llama.cpp's own test cases (tests/test-sampling.cpp) where it has them,
 * hand-computed ones elsewhere — and against slow references on random
 * vocabularies. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "internal.h"
#include "sampler.h"
#include "sampler/candidates.h"
#include "testutil.h"

static sp_sampler *sampler;
static sp_step step;
static char err[SP_ERR_LEN];

static int warp(const float *logits, int n, const int *hist, int nh,
                const sp_params *p) {
    return tu_warp(&sampler, logits, n, hist, nh, p, &step, err);
}

static sp_params params(void) {
    sp_params p;
    sp_params_default(&p);
    return p;
}

/* logits = ln p, as llama.cpp's sampler_tester builds them */
static void log_of(const float *probs, int n, float *out) {
    for (int i = 0; i < n; i++) out[i] = logf(probs[i]);
}

/* The final distribution equals want (within 1e-5, as llama.cpp checks). */
static void expect_probs(const float *want, int n, const char *what) {
    int ok = 1;
    for (int i = 0; i < n; i++)
        if (fabs((double)step.probs[i] - want[i]) > 1e-5) ok = 0;
    CHECK(ok);
    if (!ok) {
        printf("  %s: got", what);
        for (int i = 0; i < n; i++) printf(" %.6f", (double)step.probs[i]);
        printf("\n");
    }
}

/* ---------------------------------------------------------- the registry */

static void test_registry(void) {
    int n = sp_param_count();
    CHECK(n >= 25);
    for (int i = 0; i < n; i++) {
        const sp_param_info *in = sp_param_at(i);
        /* the flag is the name with - for _, and both find it */
        char flag[64];
        snprintf(flag, sizeof flag, "%s", in->name);
        for (char *c = flag; *c; c++)
            if (*c == '_') *c = '-';
        CHECK(!strcmp(flag, in->flag));
        CHECK_EQ_INT(sp_param_find(in->name), i);
        CHECK_EQ_INT(sp_param_find(in->flag), i);
        /* the neutral value is in range and does nothing: default params */
        sp_params p = params();
        CHECK(sp_params_get(&p, i) == (double)(float)in->neutral);
        CHECK_EQ_INT(sp_params_check(&p, 0, err), SP_OK);
        /* a lesson's slider stays in the engine's range */
        CHECK(in->ui_min >= in->min && in->ui_max <= in->max);
        CHECK(in->label[0] && in->doc[0] && in->code[0]);
        for (int j = 0; j < i; j++) CHECK(strcmp(sp_param_at(j)->code, in->code));
    }
    CHECK(sp_param_at(n) == NULL);
    CHECK_EQ_INT(sp_param_find("top-p"), sp_param_find("top_p"));
    CHECK_EQ_INT(sp_param_find("nope"), -1);
    /* integers are whole; ranges have the messages they always had */
    sp_params p = params();
    CHECK_EQ_INT(sp_params_set(&p, sp_param_find("top_k"), 2.5, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "top-k must be an integer (got 2.5)");
    sp_params_set(&p, sp_param_find("top_p"), 1.5, NULL);
    CHECK_EQ_INT(sp_params_check(&p, 0, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "top-p must be in (0, 1] (got 1.5)");
    p = params();
    sp_params_set(&p, sp_param_find("epsilon_cutoff"), 1.0, NULL);
    CHECK_EQ_INT(sp_params_check(&p, 0, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "epsilon-cutoff must be in [0, 1) (got 1)");
    p = params();
    sp_params_set(&p, sp_param_find("dry_base"), 0.5, NULL);
    CHECK_EQ_INT(sp_params_check(&p, 0, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "dry-base must be a finite number >= 1 (got 0.5)");
    p = params();
    sp_params_set(&p, sp_param_find("mirostat"), 3, NULL);
    CHECK_EQ_INT(sp_params_check(&p, 0, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "mirostat must be in [0, 2] (got 3)");
}

static void test_order(void) {
    char text[512];
    sp_params p = params();
    sp_params_order_text(&p, text, sizeof text);
    CHECK(!strcmp(text, "cfg,bias,sequence_bias,penalties,dry,no_repeat_ngram,"
                        "bad_words,min_new_tokens,"
                        "exp_decay_length_penalty,watermark,temperature,"
                        "quadratic_sampling,top_n_sigma,top_k,top_p,top_h,min_p,p_less,"
                        "typical_p,epsilon,eta,tfs,top_a,xtc"));
    CHECK_EQ_INT(sp_params_set_order(&p, "hf", err), SP_OK);
    sp_params_order_text(&p, text, sizeof text);
    CHECK(!strcmp(text, "cfg,bias,sequence_bias,penalties,no_repeat_ngram,"
                        "bad_words,temperature,top_h,"
                        "top_k,top_p,min_p,typical_p,epsilon,eta,watermark"));
    CHECK_EQ_INT(sp_params_set_order(&p, "llama.cpp", err), SP_OK);
    sp_params_order_text(&p, text, sizeof text);
    CHECK(!strcmp(text, "bias,penalties,dry,top_n_sigma,top_k,typical_p,"
                        "top_p,min_p,xtc,temperature"));
    CHECK_EQ_INT(sp_params_set_order(&p, " top_p ; temperature,min_p", err),
                 SP_OK);
    sp_params_order_text(&p, text, sizeof text);
    CHECK(!strcmp(text, "top_p,temperature,min_p"));
    CHECK_EQ_INT(sp_params_set_order(&p, "top_p,nucleus", err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "samplers: 'nucleus' is not a stage");
    CHECK_EQ_INT(sp_params_set_order(&p, "top_p,top_p", err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "samplers: top_p is listed twice");
    CHECK_EQ_INT(sp_params_set_order(&p, "default", err), SP_OK);
    CHECK_EQ_INT(p.n_order, 0);
    /* a stage set but left out of the order is an error, never ignored */
    sp_params_set_order(&p, "top_k,temperature", err);
    p.top_p = 0.9f;
    CHECK_EQ_INT(sp_params_check(&p, 0, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "top-p is set but the samplers' order leaves out top_p");
    p.top_p = 1.0f;
    CHECK_EQ_INT(sp_params_check(&p, 0, err), SP_OK);
    p.n_bias = 1;
    p.bias[0] = (sp_bias){0, -INFINITY};
    CHECK_EQ_INT(sp_params_check(&p, 0, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "logit-bias is set but the samplers' order leaves out bias");

    /* the order matters: temperature before top-p sharpens what top-p
     * sees (fewer tokens reach 0.8); after it, top-p sees the model's */
    float x[6] = {2.0f, 1.5f, 1.0f, 0.5f, 0.0f, -0.5f};
    p = params();
    p.temperature = 0.5f;
    p.top_p = 0.8f;
    sp_params_set_order(&p, "temperature,top_p", err);
    CHECK_EQ_INT(warp(x, 6, NULL, 0, &p), SP_OK);
    int sharp = step.n_kept;
    sp_params_set_order(&p, "top_p,temperature", err);
    CHECK_EQ_INT(warp(x, 6, NULL, 0, &p), SP_OK);
    int wide = step.n_kept;
    CHECK_EQ_INT(sharp, 2); /* at T 0.5: 0.634 + 0.233 >= 0.8 */
    CHECK_EQ_INT(wide, 3);  /* at T 1: 0.414 + 0.251 + 0.152 >= 0.8 */
}

/* A stage acts wherever the chain puts it (llama.cpp's chain): the
 * repetition penalty after the temperature divides or multiplies the
 * tempered logit x / T, whose sign is the logit's.  [2, 1, 0] at T 0.5 is
 * [4, 2, 0]; token 0 seen, penalty 2: [2, 2, 0], so p = e^2 / (2 e^2 + 1)
 * = 0.468311 twice and 1 / (2 e^2 + 1) = 0.063379 (the temperature alone
 * gives 0.866813, 0.117310, 0.015876).  Negative logits are multiplied:
 * [-1, -2, -3] / 0.5 = [-2, -4, -6], token 0 seen: [-4, -4, -6], the same
 * distribution.  Both paths, the fast and the reference. */
static void test_penalty_after_temperature(void) {
    const float pos[3] = {2, 1, 0}, neg[3] = {-1, -2, -3};
    double z = 2 * exp(2.0) + 1;
    const float want[3] = {(float)(exp(2.0) / z), (float)(exp(2.0) / z),
                           (float)(1 / z)};
    const int seen[1] = {0};
    for (int reference = 0; reference < 2; reference++) {
        sp_params p = params();
        p.repetition_penalty = 2.0f;
        p.temperature = 0.5f;
        CHECK_EQ_INT(sp_params_set_order(&p, "temperature;penalties", err), SP_OK);
        CHECK_EQ_INT(warp(pos, 3, seen, 1, &p), SP_OK); /* makes the sampler */
        sp_sampler_set_reference(sampler, reference);
        CHECK_EQ_INT(warp(pos, 3, seen, 1, &p), SP_OK);
        expect_probs(want, 3, reference ? "penalty after T (reference)"
                                        : "penalty after T");
        CHECK_EQ_INT(warp(neg, 3, seen, 1, &p), SP_OK);
        expect_probs(want, 3, reference ? "penalty after T, x < 0 (reference)"
                                        : "penalty after T, x < 0");
        /* and before it, as the default order has it: [1, 1, 0] / 0.5 */
        p.n_order = 0;
        CHECK_EQ_INT(warp(pos, 3, seen, 1, &p), SP_OK);
        expect_probs(want, 3, "penalty before T");
        sp_sampler_set_reference(sampler, 0);
    }
}

/* ------------------------------------------------------ the stage rows */

/* Every row gives a name, a cut code, an activity test: the names find
 * their rows back (mirostat's is no order's), the switches of the
 * parameter table turn their own row on, and nothing is on by default. */
static void test_stage_rows(void) {
    sp_params p = params();
    for (int s = 0; s < SP_STAGE_ALL; s++) {
        CHECK(sp_stage_name(s) && sp_stage_label(s) && sp_stage_doc(s));
        CHECK_EQ_INT(sp_stage_find(sp_stage_name(s)), s < SP_STAGE_COUNT ? s : -1);
        CHECK_EQ_INT(sp_stage_active(&p, s), 0);
    }
    CHECK(sp_stage_name(SP_STAGE_ALL) == NULL);
    CHECK(!strcmp(sp_stage_name(SP_STAGE_MIROSTAT), "mirostat"));
    CHECK(!strcmp(sp_cut_name(sp_stage_cut(SP_STAGE_MIROSTAT)), "mirostat"));
    CHECK(!strcmp(sp_cut_name(sp_stage_cut(SP_STAGE_TOP_K)), "top_k"));
    CHECK_EQ_INT(sp_stage_cut(SP_STAGE_PENALTIES), SP_CUT_NONE);
    CHECK_EQ_INT(sp_stage_cut(SP_STAGE_DRY), SP_CUT_NONE);
    /* the codes keep their numbers: a step record's bytes hold them */
    CHECK_EQ_INT(SP_CUT_MASK, 7);
    CHECK_EQ_INT(SP_CUT_MIROSTAT, 15);
    CHECK(!strcmp(sp_cut_name(SP_CUT_CONSTRAINT), "constraint"));
    for (int i = 0; i < sp_param_count(); i++) {
        const sp_param_info *in = sp_param_at(i);
        CHECK(in->stage >= 0 && in->stage < SP_STAGE_ALL);
        if (!(in->flags & SP_PARAM_SWITCH)) continue;
        sp_params q = params();
        sp_params_set(&q, i, in->ui_on, NULL);
        if (!sp_stage_active(&q, in->stage)) printf("  %s does not turn on %s\n", in->name, sp_stage_name(in->stage));
        CHECK(sp_stage_active(&q, in->stage));
        for (int s = 0; s < SP_STAGE_ALL; s++)
            if (s != in->stage) CHECK_EQ_INT(sp_stage_active(&q, s), 0);
    }
    CHECK_EQ_INT(sp_param_at(sp_param_find("mirostat_eta"))->stage, SP_STAGE_MIROSTAT);
    /* XTC at probability 0.5 with a threshold above 0.5 cuts nothing: off */
    p.xtc_probability = 0.5f;
    p.xtc_threshold = 0.55f;
    CHECK_EQ_INT(sp_stage_active(&p, SP_STAGE_XTC), 0);
    p.xtc_threshold = 0.5f;
    CHECK_EQ_INT(sp_stage_active(&p, SP_STAGE_XTC), 1);
}

/* ------------------------------------------ the field's newer samplers */

/* Top-H (Hugging Face's TopHLogitsWarper): p = 0.5, 0.3, 0.1, 0.06, 0.04
 * (all five inside the window of 100) have the entropy terms -p ln p =
 * 0.346574, 0.361192, 0.230259, 0.168805, 0.128755: H = 1.235584 nats and
 * running sums 0.346574, 0.707765, 0.938024, 1.106829, 1.235584.
 *   top-h 0.4: tau = 0.494233, keeps 1 token;
 *   top-h 0.6: tau = 0.741350, keeps 2 (0.625, 0.375);
 *   top-h 0.8: tau = 0.988467, keeps 3 (0.5 / 0.9, 0.3 / 0.9, 0.1 / 0.9).
 * 200 equal logits: the window is tokens 0..99 (ties by id), q = 0.01 each,
 * the running sum after k tokens k/100 ln 100: top-h 0.255 keeps 25, and
 * top-h 1 the whole window (100), never more. */
static void test_top_h_case(void) {
    static const float P[5] = {0.5f, 0.3f, 0.1f, 0.06f, 0.04f};
    float x[5];
    log_of(P, 5, x);
    sp_params p = params();
    p.top_h = 0.4f;
    CHECK_EQ_INT(warp(x, 5, NULL, 0, &p), SP_OK);
    expect_probs((const float[]){1, 0, 0, 0, 0}, 5, "top-h 0.4");
    CHECK_EQ_INT(step.cut[1], SP_CUT_TOP_H);
    CHECK(!strcmp(sp_cut_name(SP_CUT_TOP_H), "top_h"));
    p.top_h = 0.6f;
    CHECK_EQ_INT(warp(x, 5, NULL, 0, &p), SP_OK);
    expect_probs((const float[]){0.625f, 0.375f, 0, 0, 0}, 5, "top-h 0.6");
    p.top_h = 0.8f;
    CHECK_EQ_INT(warp(x, 5, NULL, 0, &p), SP_OK);
    expect_probs((const float[]){0.5f / 0.9f, 0.3f / 0.9f, 0.1f / 0.9f, 0, 0},
                 5, "top-h 0.8");
    static float flat[200];
    p.top_h = 0.255f;
    CHECK_EQ_INT(warp(flat, 200, NULL, 0, &p), SP_OK);
    CHECK_EQ_INT(step.n_kept, 25);
    CHECK_EQ_INT(step.kept[24], 24);
    p.top_h = 1.0f;
    CHECK_EQ_INT(warp(flat, 200, NULL, 0, &p), SP_OK);
    CHECK_EQ_INT(step.n_kept, 100);
    CHECK_EQ_INT(step.cut[100], SP_CUT_TOP_H);
    /* off at 0; the range is [0, 1] */
    p.top_h = 0.0f;
    CHECK_EQ_INT(warp(x, 5, NULL, 0, &p), SP_OK);
    CHECK_EQ_INT(step.n_kept, 5);
    p.top_h = 1.5f;
    CHECK_EQ_INT(sp_params_check(&p, 0, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "top-h must be in [0, 1] (got 1.5)");
}

/* P-less: p = 0.5, 0.3, 0.1, 0.06, 0.04 have sum p^2 = 0.25 + 0.09 + 0.01 +
 * 0.0036 + 0.0016 = 0.3552: only 0.5 reaches it.  p = 0.35, 0.3, 0.2, 0.15:
 * 0.1225 + 0.09 + 0.04 + 0.0225 = 0.275, so 0.35 and 0.3 stay (0.538462,
 * 0.461538).  Four equal tokens: every p is the sum, 0.25, and all stay. */
static void test_p_less_case(void) {
    static const float P[5] = {0.5f, 0.3f, 0.1f, 0.06f, 0.04f};
    static const float Q[4] = {0.35f, 0.3f, 0.2f, 0.15f};
    float x[5];
    sp_params p = params();
    p.p_less = 1;
    log_of(P, 5, x);
    CHECK_EQ_INT(warp(x, 5, NULL, 0, &p), SP_OK);
    expect_probs((const float[]){1, 0, 0, 0, 0}, 5, "p-less, sum 0.3552");
    CHECK_EQ_INT(step.cut[1], SP_CUT_P_LESS);
    CHECK(!strcmp(sp_cut_name(SP_CUT_P_LESS), "p_less"));
    log_of(Q, 4, x);
    CHECK_EQ_INT(warp(x, 4, NULL, 0, &p), SP_OK);
    expect_probs((const float[]){0.35f / 0.65f, 0.3f / 0.65f, 0, 0}, 4, "p-less, sum 0.275");
    const float flat[4] = {0, 0, 0, 0};
    CHECK_EQ_INT(warp(flat, 4, NULL, 0, &p), SP_OK);
    CHECK_EQ_INT(step.n_kept, 4);
    p.p_less = 2; /* a switch: 0 or 1 */
    CHECK_EQ_INT(sp_params_check(&p, 0, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "p-less must be in [0, 1] (got 2)");
}

/* Tail-free (llama.cpp's llama_sample_tail_free): p = 0.4, 0.3, 0.2, 0.05,
 * 0.03, 0.02 have first differences 0.1, 0.1, 0.15, 0.02, 0.01 and second
 * differences 0, 0.05, 0.13, 0.01 (sum 0.19): shares 0, 0.263158, 0.684211,
 * 0.052632, running 0, 0.263158, 0.947368, 1.  z = 0.95 first passes at
 * index 3: three tokens stay (0.4, 0.3, 0.2 over 0.9); z = 0.9 at index 2:
 * two (4/7, 3/7); z = 0.2 at index 1: one (index 0 never counts). */
static void test_tfs_case(void) {
    static const float P[6] = {0.4f, 0.3f, 0.2f, 0.05f, 0.03f, 0.02f};
    float x[6];
    log_of(P, 6, x);
    sp_params p = params();
    p.tfs = 0.95f;
    CHECK_EQ_INT(warp(x, 6, NULL, 0, &p), SP_OK);
    expect_probs((const float[]){0.4f / 0.9f, 0.3f / 0.9f, 0.2f / 0.9f, 0, 0, 0}, 6, "tfs 0.95");
    CHECK_EQ_INT(step.cut[3], SP_CUT_TFS);
    CHECK(!strcmp(sp_cut_name(SP_CUT_TFS), "tfs"));
    p.tfs = 0.9f;
    CHECK_EQ_INT(warp(x, 6, NULL, 0, &p), SP_OK);
    expect_probs((const float[]){4.0f / 7, 3.0f / 7, 0, 0, 0, 0}, 6, "tfs 0.9");
    p.tfs = 0.2f;
    CHECK_EQ_INT(warp(x, 6, NULL, 0, &p), SP_OK);
    expect_probs((const float[]){1, 0, 0, 0, 0, 0}, 6, "tfs 0.2");
    p.tfs = 1.0f; /* off */
    CHECK_EQ_INT(warp(x, 6, NULL, 0, &p), SP_OK);
    CHECK_EQ_INT(step.n_kept, 6);
}

/* Quadratic sampling (text-generation-webui's): logits 2, 1, 0 (softmax
 * 0.665241, 0.244728, 0.090031), d = x - max = 0, -1, -2.
 *   factor 1, curve 1: 2 - d^2 = 2, 1, -2: 0.721399, 0.265388, 0.013213;
 *   factor 0.25: 2, 1.75, 1: 0.465836, 0.362793, 0.171371 (flatter);
 *   factor 1, curve 2 (k = s = 0.5): 2 - 0.5 d^2 + 0.5 d^3 = 2, 1, -4:
 *   0.729736, 0.268455, 0.001809 (the far tail falls faster).
 * It reshapes, cuts nothing: every token stays. */
static void test_quadratic_case(void) {
    const float x[3] = {2, 1, 0};
    sp_params p = params();
    p.smoothing_factor = 1.0f;
    CHECK_EQ_INT(warp(x, 3, NULL, 0, &p), SP_OK);
    expect_probs((const float[]){0.721399f, 0.265388f, 0.013213f}, 3, "quadratic 1");
    CHECK_EQ_INT(step.n_kept, 3);
    p.smoothing_factor = 0.25f;
    CHECK_EQ_INT(warp(x, 3, NULL, 0, &p), SP_OK);
    expect_probs((const float[]){0.465836f, 0.362793f, 0.171371f}, 3, "quadratic 0.25");
    p.smoothing_factor = 1.0f;
    p.smoothing_curve = 2.0f;
    CHECK_EQ_INT(warp(x, 3, NULL, 0, &p), SP_OK);
    expect_probs((const float[]){0.729736f, 0.268455f, 0.001809f}, 3, "quadratic 1, curve 2");
    /* after top-k (a list), as a reordered chain has it */
    p.top_k = 2;
    CHECK_EQ_INT(sp_params_set_order(&p, "top_k,quadratic_sampling", err), SP_OK);
    CHECK_EQ_INT(warp(x, 3, NULL, 0, &p), SP_OK);
    expect_probs((const float[]){0.731059f, 0.268941f, 0}, 3, "top-k 2, quadratic 1, curve 2");
    /* the snapshot (what the cutoffs see) is taken after it */
    p = params();
    p.smoothing_factor = 1.0f;
    p.temperature = 0.5f;
    CHECK_EQ_INT(warp(x, 3, NULL, 0, &p), SP_OK);
    /* T 0.5: 4, 2, 0 -> 4 - d^2 = 4, 0, -12 */
    CHECK_NEAR(step.probs_tempered[1], exp(-4.0) / (1 + exp(-4.0) + exp(-16.0)), 1e-6);
    p.smoothing_curve = 0.5f; /* the range is [1, inf) */
    CHECK_EQ_INT(sp_params_check(&p, 0, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "smoothing-curve must be a finite number >= 1 (got 0.5)");
}

/* The length stages act on the end-of-text tokens the sampler's state
 * names, at the step it says (a session sets both; a bare sampler knows no
 * end token and they do nothing).  Logits 2, 1, -1, token 2 ends the text.
 *   min-new-tokens 3: cut at steps 0, 1, 2, back at step 3;
 *   exponential decay (start 2, factor 1.5): step 2 nothing, step 4 adds
 *   |-1| (1.5^2 - 1) = 1.25, so -1 -> 0.25 (softmax of 2, 1, 0.25:
 *   0.648654, 0.238627, 0.112719; before: 0.705385, 0.259496, 0.035119);
 *   token 1 ending the text at step 3 with
 *   factor 2: 1 + |1| (2 - 1) = 2, tied with token 0 (0.5, 0.5 before the
 *   third). */
static void warp_at(const float *x, int n, const sp_params *p, int step_index,
                    const int *ends, int n_ends) {
    if (!sampler || sp_sampler_vocab(sampler) != n) {
        sp_sampler_free(sampler);
        sampler = sp_sampler_new(n);
    }
    sp_sampler_state st = {0.0, NAN, step_index, ends, n_ends, NAN, NAN, NULL};
    sp_sampler_set_state(sampler, &st);
    CHECK_EQ_INT(sp_sampler_warp(sampler, x, NULL, 0, p, &step, err), SP_OK);
}

static void test_length_cases(void) {
    const float x[3] = {2, 1, -1};
    const int end2[1] = {2}, end1[1] = {1};
    sp_params p = params();
    p.min_new_tokens = 3;
    for (int i = 0; i < 3; i++) {
        warp_at(x, 3, &p, i, end2, 1);
        CHECK_EQ_INT(step.cut[2], SP_CUT_MIN_NEW_TOKENS);
    }
    warp_at(x, 3, &p, 3, end2, 1);
    CHECK_EQ_INT(step.n_kept, 3);
    CHECK(!strcmp(sp_cut_name(SP_CUT_MIN_NEW_TOKENS), "min_new_tokens"));
    /* no end token known (a bare sampler): nothing */
    CHECK_EQ_INT(warp(x, 3, NULL, 0, &p), SP_OK);
    CHECK_EQ_INT(step.n_kept, 3);
    p = params();
    p.exp_decay_start = 2;
    p.exp_decay_factor = 1.5f;
    warp_at(x, 3, &p, 2, end2, 1);
    expect_probs((const float[]){0.705385f, 0.259496f, 0.035119f}, 3, "decay, step 2");
    warp_at(x, 3, &p, 4, end2, 1);
    expect_probs((const float[]){0.648654f, 0.238627f, 0.112719f}, 3, "decay, step 4");
    CHECK_EQ_INT(step.n_penalized, 1);
    p.exp_decay_factor = 2.0f;
    warp_at(x, 3, &p, 3, end1, 1);
    CHECK_NEAR(step.probs[0], step.probs[1], 1e-7);
    /* the CLI's pair sets both */
    CHECK_EQ_INT(sp_param_at(sp_param_find("exp_decay_factor"))->stage, SP_STAGE_EXP_DECAY);
}

/* A session gives the stages its model's end-of-text tokens and its step:
 * the bigram's boundary (its end token) banned for 12 steps makes the
 * first name at least 12 characters long. */
static void test_length_session(const char *root) {
    char path[512];
    snprintf(path, sizeof path, "%s/models/bigram.bin", root);
    size_t size;
    uint8_t *bytes = read_all(path, &size);
    CHECK(bytes != NULL);
    if (!bytes) return;
    sp_model *m = sp_model_load(bytes, size, 1, err);
    CHECK(m != NULL);
    sp_session *s = sp_session_new(m, NULL, err);
    CHECK(s != NULL);
    sp_params p = params();
    p.min_new_tokens = 12;
    CHECK_EQ_INT(sp_session_start(s, "", 7, err), SP_OK);
    int eos = sp_tokenizer_eos(sp_session_tokenizer(s));
    CHECK(eos >= 0);
    for (int i = 0; i < 12; i++) {
        CHECK_EQ_INT(sp_session_step(s, &p, -1, err), SP_OK);
        CHECK(sp_session_tokens(s)[sp_session_n_tokens(s) - 1] != eos);
        CHECK_EQ_INT(sp_session_last_step(s)->cut[eos], SP_CUT_MIN_NEW_TOKENS);
    }
    CHECK_EQ_INT(sp_session_step(s, &p, -1, err), SP_OK);
    CHECK(sp_session_last_step(s)->cut[eos] != SP_CUT_MIN_NEW_TOKENS);
    sp_session_free(s);
    sp_model_free(m);
}

/* ------------------------------------------------------------ the heaps */

static void test_heaps(void) {
    float heap[16], kth, max;
    const float x[8] = {3, 1, 4, 1, 5, 9, 2, 6};
    CHECK(sp_heap_kth(heap, x, 8, 3) == 5.0f); /* 9, 6, 5 */
    CHECK(sp_heap_kth(heap, x, 8, 1) == 9.0f);
    CHECK(sp_heap_kth(heap, x, 8, 8) == 1.0f);
    /* -inf is no value; ties count: the 2nd largest of 7, 7, 2 is 7 */
    const float y[5] = {-INFINITY, 2, -INFINITY, 7, 7};
    CHECK(sp_heap_kth(heap, y, 5, 2) == 7.0f);
    CHECK(sp_heap_kth(heap, y, 5, 3) == 2.0f);
    CHECK_EQ_INT(sp_scan_kth(heap, x, 8, 3, &kth, &max), 1);
    CHECK(kth == 5.0f && max == 9.0f);
    CHECK_EQ_INT(sp_scan_kth(heap, y, 5, 4, &kth, &max), 0); /* 3 finite */
    /* the m best by (value desc, tie asc), best first */
    const float v[4] = {0.2f, 0.5f, 0.2f, 0.1f};
    const int ids[4] = {7, 3, 5, 1};
    int out[4];
    CHECK_EQ_INT(sp_top_ranked(v, NULL, 4, 3, out), 3);
    CHECK(out[0] == 1 && out[1] == 0 && out[2] == 2);
    CHECK_EQ_INT(sp_top_ranked(v, ids, 4, 3, out), 3);
    CHECK(out[0] == 1 && out[1] == 2 && out[2] == 0); /* id 5 before id 7 */
    CHECK_EQ_INT(sp_top_ranked(v, NULL, 4, 10, out), 4);
    CHECK(out[0] == 1 && out[1] == 0 && out[2] == 2 && out[3] == 3);
    CHECK_EQ_INT(sp_top_ranked(v, NULL, 4, 0, out), 0);
}

/* ---------------------------------------------- llama.cpp's test cases */

static const float P4[4] = {0.1f, 0.2f, 0.3f, 0.4f};

static void test_top_n_sigma(void) {
    float x[4];
    log_of(P4, 4, x);
    sp_params p = params();
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
    sp_params p = params();
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
    sp_params p = params();
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
    p = params();
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
    sp_params p = params();
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
    p = params();
    p.dry_multiplier = 0.8f;
    int h[10] = {0, 1, 2, 3, 4, 0, 1, 2, 3, 4};
    CHECK_EQ_INT(warp(x5, 5, h, 10, &p), SP_OK);
    CHECK_EQ_INT(step.dry_n, 1); /* 0 would extend "0 1 2 3 4" */
    CHECK_EQ_INT(step.dry_longest, 5);
    CHECK_EQ_INT(step.dry_length[0], 5);
    CHECK_EQ_INT(step.dry_length[2], 0); /* the last warp's, cleared */
    p = params();
    p.frequency_penalty = 0.5f;
    CHECK_EQ_INT(warp(x5, 5, (const int[]){0, 1, 1, 2, 1}, 5, &p), SP_OK);
    CHECK_EQ_INT(step.penalties_n, 3);
    CHECK_EQ_INT(step.penalty_count[1], 3);
    CHECK_EQ_INT(step.penalty_count[0], 1);
    CHECK_EQ_INT(step.penalty_count[3], 0);
    CHECK_EQ_INT(step.dry_n, -1);
    CHECK_EQ_INT(step.dry_length[0], 0);
    p = params();
    p.repetition_penalty = 1.5f; /* the same counts with the other penalty */
    CHECK_EQ_INT(warp(x5, 5, (const int[]){4, 4}, 2, &p), SP_OK);
    CHECK_EQ_INT(step.penalties_n, 1);
    CHECK_EQ_INT(step.penalty_count[4], 2);
    CHECK_EQ_INT(step.penalty_count[1], 0);
    p = params(); /* off: nothing */
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
    sp_params p = params();
    p.dynatemp_range = 0.0f; /* llama.cpp's temp_ext cases */
    CHECK_EQ_INT(warp(x, 4, NULL, 0, &p), SP_OK);
    expect_probs(P4, 4, "temp_ext 1");
    p.temperature = 0.0f;
    CHECK_EQ_INT(warp(x, 4, NULL, 0, &p), SP_OK);
    expect_probs((const float[]){0, 0, 0, 1}, 4, "temp_ext 0");
    /* range 1 around T 1: the entropy's share picks T in [0, 2] */
    p = params();
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
    sp_params p = params();
    p.epsilon_cutoff = 0.07f; /* cuts 0.06 and 0.04 */
    CHECK_EQ_INT(warp(x, 5, NULL, 0, &p), SP_OK);
    expect_probs((const float[]){0.5f / 0.9f, 0.3f / 0.9f, 0.1f / 0.9f, 0, 0}, 5, "epsilon");
    CHECK_EQ_INT(step.cut[3], SP_CUT_EPSILON);
    /* eta: H = 1.2813 nats; min(0.09, 0.3 e^-H = 0.0833) keeps >= 0.0833 */
    p = params();
    p.eta_cutoff = 0.09f;
    CHECK_EQ_INT(warp(x, 5, NULL, 0, &p), SP_OK);
    expect_probs((const float[]){0.5f / 0.9f, 0.3f / 0.9f, 0.1f / 0.9f, 0, 0}, 5, "eta");
    CHECK_EQ_INT(step.cut[4], SP_CUT_ETA);
    /* top-a 0.5: keep p >= 0.5 * 0.25 = 0.125 */
    p = params();
    p.top_a = 0.5f;
    CHECK_EQ_INT(warp(x, 5, NULL, 0, &p), SP_OK);
    expect_probs((const float[]){0.625f, 0.375f, 0, 0, 0}, 5, "top-a");
    CHECK_EQ_INT(step.cut[2], SP_CUT_TOP_A);
    /* the most likely token, and any tied with it, always stays */
    float flat[3] = {0, 0, -5};
    p = params();
    p.epsilon_cutoff = 0.9f;
    CHECK_EQ_INT(warp(flat, 3, NULL, 0, &p), SP_OK);
    CHECK_EQ_INT(step.n_kept, 2);
    p = params();
    p.top_a = 50.0f;
    CHECK_EQ_INT(warp(flat, 3, NULL, 0, &p), SP_OK);
    CHECK_EQ_INT(step.n_kept, 2);
}

static void test_no_repeat_ngram(void) {
    float x[6] = {0, 0, 0, 0, 0, 0};
    sp_params p = params();
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
    sp_params p = params();
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
    p = params();
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
            sp_params q = params();
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

int main(int argc, char **argv) {
    (void)argc;
    (void)argv;
    test_registry();
    test_order();
    test_stage_rows();
    test_heaps();
    test_penalty_after_temperature();
    test_top_n_sigma();
    test_xtc();
    test_dry();
    test_repeat_state();
    test_dynatemp();
    test_epsilon_eta_top_a();
    test_no_repeat_ngram();
    test_mirostat();
    test_references();
    /* the field's newer samplers */
    test_top_h_case();
    test_p_less_case();
    test_tfs_case();
    test_quadratic_case();
    test_length_cases();
    test_length_session(argc > 1 ? argv[1] : ".");
    sp_sampler_free(sampler);
    CHECK_DONE();
}
