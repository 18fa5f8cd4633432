/* test_cfg.c — classifier-free guidance (Hugging Face's
 * UnbatchedClassifierFreeGuidanceLogitsProcessor): the stage's worked
 * numbers on a bare sampler, and the session's second run of the model
 * (the negative prompt, the prompt's last token alone, rewinds, looks at
 * the past, a scale turned on mid-text) on the shipped transformer. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "internal.h"
#include "sampler.h"
#include "testutil.h"

static char err[SP_ERR_LEN];

static int warp_cfg(sp_sampler **s, const float *cond, const float *uncond,
                    int n, float scale, sp_step *st) {
    sp_params p;
    sp_params_default(&p);
    p.cfg_scale = scale;
    *s = tu_sampler_for(*s, n);
    sp_sampler_state state = {0.0, NAN, 0, NULL, 0, NAN, NAN, uncond};
    sp_sampler_set_state(*s, &state);
    return sp_sampler_warp(*s, cond, NULL, 0, &p, st, err);
}

/* cond 2, 1, 0 and uncond 1, 1, 1 at scale 1.5: the uncond log-softmax is
 * -ln 3 everywhere, so out = 1.5 log_softmax(cond) - 0.5 (-ln 3) and the
 * final softmax is that of 1.5 (2, 1, 0) = 3, 1.5, 0: e^3, e^1.5, 1 over
 * their sum 20.0855 + 4.4817 + 1 = 25.5672: 0.785597, 0.175290,
 * 0.039112. */
static void test_worked_case(void) {
    sp_sampler *s = NULL;
    sp_step st;
    float cond[3] = {2, 1, 0}, uncond[3] = {1, 1, 1};
    CHECK_EQ_INT(warp_cfg(&s, cond, uncond, 3, 1.5f, &st), SP_OK);
    CHECK_NEAR(st.probs[0], 0.785597, 1e-6);
    CHECK_NEAR(st.probs[1], 0.175290, 1e-6);
    CHECK_NEAR(st.probs[2], 0.039112, 1e-6);
    /* the step record: the two runs and their mix */
    CHECK(st.probs_uncond && st.probs_cfg);
    if (st.probs_uncond && st.probs_cfg)
        for (int i = 0; i < 3; i++) {
            CHECK_NEAR(st.probs_uncond[i], 1.0 / 3.0, 1e-7);
            CHECK_NEAR(st.probs_cfg[i], st.probs[i], 1e-6);
        }
    CHECK_NEAR(st.probs_raw[0], 0.665241, 1e-6); /* the conditional run */
    /* scale 0: the unconditional distribution, whatever cond says:
     * uncond 1, 1, 3 -> e^-2 : e^-2 : 1 = 0.106507, 0.106507, 0.786986 */
    float u2[3] = {1, 1, 3};
    CHECK_EQ_INT(warp_cfg(&s, cond, u2, 3, 0.0f, &st), SP_OK);
    CHECK_NEAR(st.probs[0], 0.106507, 1e-6);
    CHECK_NEAR(st.probs[1], 0.106507, 1e-6);
    CHECK_NEAR(st.probs[2], 0.786986, 1e-6);
    /* uncond equal to cond: the conditional distribution at every scale */
    for (float scale = 0.0f; scale <= 4.0f; scale += 0.5f) {
        CHECK_EQ_INT(warp_cfg(&s, cond, cond, 3, scale, &st), SP_OK);
        for (int i = 0; i < 3; i++) CHECK_NEAR(st.probs[i], st.probs_raw[i], 1e-6);
    }
    /* scale 1: off; the step record has no guidance, the uncond unread */
    CHECK_EQ_INT(warp_cfg(&s, cond, NULL, 3, 1.0f, &st), SP_OK);
    CHECK(st.probs_uncond == NULL && st.probs_cfg == NULL);
    CHECK_NEAR(st.probs[0], 0.665241, 1e-6);
    /* on without the second run's logits: refused, and said why */
    CHECK_EQ_INT(warp_cfg(&s, cond, NULL, 3, 2.0f, &st), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "unconditional logits");
    /* a negative scale is no setting */
    CHECK_EQ_INT(warp_cfg(&s, cond, uncond, 3, -1.0f, &st), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "cfg-scale");
    /* it comes first, before the temperature: T 2 on the mix 3, 1.5, 0
     * (up to a shift) gives 1.5, 0.75, 0: e^1.5, e^0.75, 1 over 7.5987 */
    sp_params p;
    sp_params_default(&p);
    p.cfg_scale = 1.5f;
    p.temperature = 2.0f;
    sp_sampler_state state = {0.0, NAN, 0, NULL, 0, NAN, NAN, uncond};
    sp_sampler_set_state(s, &state);
    CHECK_EQ_INT(sp_sampler_warp(s, cond, NULL, 0, &p, &st, err), SP_OK);
    CHECK_NEAR(st.probs[0], 0.589798, 1e-6);
    CHECK_NEAR(st.probs[1], 0.278600, 1e-6);
    sp_sampler_free(s);
}

static sp_session *transformer_session(const char *root, sp_model **m,
                                       sp_tokenizer **tok) {
    *m = tu_load_model(root, "transformer.bin", err);
    CHECK(*m != NULL);
    char path[4096];
    snprintf(path, sizeof path, "%s/models/transformer_tokenizer.bin", root);
    size_t size;
    uint8_t *bytes = read_all(path, &size);
    CHECK(bytes != NULL);
    if (!*m || !bytes) return NULL;
    *tok = sp_tokenizer_load(bytes, size, sp_model_vocab(*m), err);
    free(bytes);
    CHECK(*tok != NULL);
    return sp_session_new(*m, *tok, err);
}

/* n tokens from prompt at scale with negative (NULL: none) into out. */
static int generate(sp_session *s, const char *prompt, const char *negative,
                    float scale, uint64_t seed, int n, int *out) {
    sp_params p;
    sp_params_default(&p);
    p.cfg_scale = scale;
    CHECK_EQ_INT(sp_session_set_negative_prompt(s, negative, err), SP_OK);
    CHECK_EQ_INT(sp_session_start(s, prompt, seed, err), SP_OK);
    int k = 0;
    for (; k < n; k++) {
        if (sp_session_step(s, &p, -1, err) != SP_OK) break;
        out[k] = sp_session_tokens(s)[sp_session_n_tokens(s) - 1];
        if (sp_session_finished(s)) { k++; break; }
    }
    return k;
}

static void test_session(void) {
    const char *root = test_root;
    sp_model *m = NULL;
    sp_tokenizer *tok = NULL;
    sp_session *s = transformer_session(root, &m, &tok);
    CHECK(s != NULL);
    if (!s) goto done;
    enum { N = 48 };
    int off[N], same[N], a[N], b[N];
    const char *prompt = "And God said";
    int n_off = generate(s, prompt, NULL, 1.0f, 7, N, off);
    /* a negative prompt equal to the prompt: the conditional text */
    int n_same = generate(s, prompt, prompt, 3.0f, 7, N, same);
    CHECK_EQ_INT(n_same, n_off);
    CHECK(memcmp(off, same, sizeof(int) * (size_t)n_off) == 0);
    /* the prompt's last token alone (HF's default): another text */
    int n_a = generate(s, prompt, NULL, 2.0f, 7, N, a);
    CHECK(n_a != n_off || memcmp(off, a, sizeof(int) * (size_t)n_a) != 0);
    /* the same again: the second run starts anew with the prompt */
    int n_b = generate(s, prompt, NULL, 2.0f, 7, N, b);
    CHECK_EQ_INT(n_b, n_a);
    CHECK(memcmp(a, b, sizeof(int) * (size_t)n_a) == 0);
    /* a rewind keeps both runs consistent: rewind to 10, go on, same text */
    sp_params p;
    sp_params_default(&p);
    p.cfg_scale = 2.0f;
    CHECK_EQ_INT(sp_session_rewind(s, 10, err), SP_OK);
    for (int k = 10; k < n_a; k++) {
        CHECK_EQ_INT(sp_session_step(s, &p, -1, err), SP_OK);
        CHECK_EQ_INT(sp_session_tokens(s)[sp_session_n_tokens(s) - 1], a[k]);
    }
    /* a look at the past (step 5) gives that step's distribution again:
     * rewind to 5 and preview it, then peek at it from the end */
    CHECK_EQ_INT(sp_session_rewind(s, 5, err), SP_OK);
    CHECK_EQ_INT(sp_session_preview(s, &p, err), SP_OK);
    int v = sp_model_vocab(m);
    float *before = malloc(sizeof(float) * (size_t)v * 3);
    const sp_step *st = sp_session_last_step(s);
    CHECK(st && st->probs_uncond && st->probs_cfg);
    if (!before || !st || !st->probs_uncond) goto done;
    memcpy(before, st->probs, sizeof(float) * (size_t)v);
    memcpy(before + v, st->probs_uncond, sizeof(float) * (size_t)v);
    memcpy(before + 2 * v, st->probs_cfg, sizeof(float) * (size_t)v);
    for (int k = 5; k < 20 && k < n_a; k++)
        CHECK_EQ_INT(sp_session_step(s, &p, a[k], err), SP_OK);
    CHECK_EQ_INT(sp_session_peek(s, 5, &p, err), SP_OK);
    st = sp_session_last_step(s);
    CHECK(memcmp(before, st->probs, sizeof(float) * (size_t)v) == 0);
    CHECK(memcmp(before + v, st->probs_uncond, sizeof(float) * (size_t)v) == 0);
    CHECK(memcmp(before + 2 * v, st->probs_cfg, sizeof(float) * (size_t)v) == 0);
    free(before);
    /* ... and the text goes on as before after the look */
    for (int k = 20; k < n_a; k++) {
        CHECK_EQ_INT(sp_session_step(s, &p, -1, err), SP_OK);
        CHECK_EQ_INT(sp_session_tokens(s)[sp_session_n_tokens(s) - 1], a[k]);
    }
    /* guidance turned on mid-text: the second run catches up with the
     * tokens it has not seen (batched), as if it had run from the start */
    sp_params plain;
    sp_params_default(&plain);
    CHECK_EQ_INT(sp_session_start(s, prompt, 7, err), SP_OK);
    for (int k = 0; k < 12; k++)
        CHECK_EQ_INT(sp_session_step(s, &plain, a[k], err), SP_OK);
    for (int k = 12; k < n_a; k++) {
        CHECK_EQ_INT(sp_session_step(s, &p, -1, err), SP_OK);
        CHECK_EQ_INT(sp_session_tokens(s)[sp_session_n_tokens(s) - 1], a[k]);
    }
    /* a negative prompt longer than the context: refused, said why */
    char big[4000];
    for (int i = 0; i < (int)sizeof big - 1; i++) big[i] = "ab "[i % 3];
    big[sizeof big - 1] = '\0';
    CHECK_EQ_INT(sp_session_set_negative_prompt(s, big, err), SP_OK);
    CHECK_EQ_INT(sp_session_start(s, prompt, 7, err), SP_OK);
    CHECK(sp_session_step(s, &p, -1, err) != SP_OK);
    CHECK_STR_CONTAINS(err, "negative prompt");
    /* scale 1 runs nothing: the work counters are the plain text's; at
     * scale 2 the second run feeds one position a step (the prompt's last
     * token, then each generated one but the last): 8 more */
    sp_counters c1, c2;
    sp_session *plain_s = sp_session_new(m, tok, err);
    sp_session *cfg_s = sp_session_new(m, tok, err);
    CHECK_EQ_INT(sp_session_start(plain_s, prompt, 7, err), SP_OK);
    CHECK_EQ_INT(sp_session_start(cfg_s, prompt, 7, err), SP_OK);
    for (int k = 0; k < 8; k++) {
        CHECK_EQ_INT(sp_session_step(plain_s, &plain, a[k], err), SP_OK);
        CHECK_EQ_INT(sp_session_step(cfg_s, &p, a[k], err), SP_OK);
    }
    sp_session_counters(plain_s, &c1);
    sp_session_counters(cfg_s, &c2);
    CHECK(c2.tokens == c1.tokens + 8);
    sp_session_free(plain_s);
    sp_session_free(cfg_s);
done:
    sp_session_free(s);
    sp_tokenizer_free(tok);
    sp_model_free(m);
}

/* A bigram's logits depend on the previous token only: without a negative
 * prompt its unconditional run is the conditional one (the "last token"
 * is the one the text ends with), so guidance changes nothing. */
static void test_bigram(void) {
    const char *root = test_root;
    sp_model *m = tu_load_model(root, "bigram.bin", err);
    CHECK(m != NULL);
    if (!m) return;
    sp_session *s = sp_session_new(m, NULL, err);
    enum { N = 40 };
    int off[N], on[N], neg[N];
    int n_off = generate(s, "ma", NULL, 1.0f, 3, N, off);
    int n_on = generate(s, "ma", NULL, 4.0f, 3, N, on);
    CHECK_EQ_INT(n_on, n_off);
    CHECK(memcmp(off, on, sizeof(int) * (size_t)n_off) == 0);
    /* with a negative prompt, the first step differs (its previous token
     * is the negative prompt's last) and no later one */
    int n_neg = generate(s, "ma", "zz", 4.0f, 3, N, neg);
    CHECK(n_neg > 1);
    sp_session_free(s);
    sp_model_free(m);
}

TEST_SUITE(cfg,
           TEST(test_worked_case),
           TEST(test_session),
           TEST(test_bigram));
