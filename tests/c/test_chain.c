/* test_chain.c — the sampler chain: the registry, the order and its
 * presets, a stage wherever the order puts it, the stage rows, and the
 * heaps the truncating stages rank with.  The stages on worked examples:
 * test_chain_cases.c (llama.cpp's cases, hand-computed ones, slow
 * references) and test_chain_newer.c (the field's newer samplers). */
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
        sp_params p = tu_params();
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
    sp_params p = tu_params();
    CHECK_EQ_INT(sp_params_set(&p, sp_param_find("top_k"), 2.5, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "top-k must be an integer (got 2.5)");
    sp_params_set(&p, sp_param_find("top_p"), 1.5, NULL);
    CHECK_EQ_INT(sp_params_check(&p, 0, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "top-p must be in (0, 1] (got 1.5)");
    p = tu_params();
    sp_params_set(&p, sp_param_find("epsilon_cutoff"), 1.0, NULL);
    CHECK_EQ_INT(sp_params_check(&p, 0, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "epsilon-cutoff must be in [0, 1) (got 1)");
    p = tu_params();
    sp_params_set(&p, sp_param_find("dry_base"), 0.5, NULL);
    CHECK_EQ_INT(sp_params_check(&p, 0, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "dry-base must be a finite number >= 1 (got 0.5)");
    p = tu_params();
    sp_params_set(&p, sp_param_find("mirostat"), 3, NULL);
    CHECK_EQ_INT(sp_params_check(&p, 0, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "mirostat must be in [0, 2] (got 3)");
}

static void test_order(void) {
    char text[512];
    sp_params p = tu_params();
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
    p = tu_params();
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
        sp_params p = tu_params();
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
    sp_params p = tu_params();
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
        sp_params q = tu_params();
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

TEST_SUITE(chain,
           TEST(test_registry),
           TEST(test_order),
           TEST(test_stage_rows),
           TEST(test_heaps),
           TEST(test_penalty_after_temperature));
