/* test_chain_newer.c — the field's newer samplers on worked examples:
 * top-H, p-less, tail-free sampling, quadratic sampling, and the length
 * stages (min-new-tokens, the exponential decay length penalty), alone and
 * in a session. */
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
    sp_params p = tu_params();
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
    sp_params p = tu_params();
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
    sp_params p = tu_params();
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
    sp_params p = tu_params();
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
    p = tu_params();
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
    sp_params p = tu_params();
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
    p = tu_params();
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
static void test_length_session(void) {
    const char *root = test_root;
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
    sp_params p = tu_params();
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


TEST_SUITE(chain_newer,
           TEST(test_top_h_case),
           TEST(test_p_less_case),
           TEST(test_tfs_case),
           TEST(test_quadratic_case),
           TEST(test_length_cases),
           TEST(test_length_session));
