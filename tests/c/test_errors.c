/* test_errors.c — the engine's errors (sampler.h SP_ERRORS): each failure
 * returns its class, the codes 0-5 that never change, and stores its own
 * code beside the message, so a front-end tells a bad regex from a bad
 * prompt, or the end of the context from a text that is finished, without
 * reading the English. */
#include <string.h>

#include "check.h"
#include "internal.h"
#include "testutil.h"

static char err[SP_ERR_LEN];

static void test_table(void) {
    /* the classes keep their numbers (the CLI's exit codes, old callers) */
    CHECK_EQ_INT(SP_OK, 0);
    CHECK_EQ_INT(SP_ERR_FORMAT, 1);
    CHECK_EQ_INT(SP_ERR_ARG, 2);
    CHECK_EQ_INT(SP_ERR_NOMEM, 3);
    CHECK_EQ_INT(SP_ERR_STATE, 4);
    CHECK_EQ_INT(SP_ERR_UNSATISFIABLE, 5);
    for (int c = 0; c <= SP_ERR_UNSATISFIABLE; c++)
        CHECK_EQ_INT(sp_error_class(c), c);
    CHECK_EQ_INT(sp_error_class(SP_ERR_CONTEXT_FULL), SP_ERR_STATE);
    CHECK_EQ_INT(sp_error_class(SP_ERR_NO_TOKEN), SP_ERR_STATE);
    CHECK_EQ_INT(sp_error_class(SP_ERR_LOGITS), SP_ERR_FORMAT);
    CHECK_EQ_INT(sp_error_class(SP_ERR_PROMPT_LONG), SP_ERR_ARG);
    CHECK(strcmp(sp_error_name(SP_ERR_ARG), "arg") == 0);
    CHECK(strcmp(sp_error_name(SP_ERR_CONTEXT_FULL), "context_full") == 0);
    CHECK(strcmp(sp_error_name(SP_ERR_PROMPT_LONG), "prompt_long") == 0);
    CHECK(sp_error_name(SP_ERR_COUNT) == NULL);
    CHECK(sp_error_name(-1) == NULL);
    CHECK_EQ_INT(sp_error_class(SP_ERR_COUNT), -1);
    /* every name is distinct */
    for (int a = 0; a < SP_ERR_COUNT; a++)
        for (int b = a + 1; b < SP_ERR_COUNT; b++)
            CHECK(strcmp(sp_error_name(a), sp_error_name(b)) != 0);
}

static void test_fail_stores_the_code(void) {
    CHECK_EQ_INT(sp_fail(err, SP_ERR_REGEX, "regex: %s", "x"), SP_ERR_ARG);
    CHECK(strcmp(err, "regex: x") == 0);
    CHECK_EQ_INT(sp_error_code(SP_ERR_ARG, err), SP_ERR_REGEX);
    CHECK_EQ_INT(sp_error_code(-1, err), SP_ERR_REGEX);
    /* a class the message does not belong to: the class is all there is */
    CHECK_EQ_INT(sp_error_code(SP_ERR_STATE, err), SP_ERR_STATE);
    CHECK_EQ_INT(sp_error_code(SP_OK, err), SP_OK);
    err[0] = '\0';
    CHECK_EQ_INT(sp_error_code(-1, err), SP_OK);
    CHECK_EQ_INT(sp_error_code(SP_ERR_NOMEM, NULL), SP_ERR_NOMEM);
    /* a message as long as the buffer leaves the code its byte */
    char long_text[400];
    memset(long_text, 'x', sizeof long_text - 1);
    long_text[sizeof long_text - 1] = '\0';
    sp_fail(err, SP_ERR_PROMPT_LONG, "%s", long_text);
    CHECK_EQ_INT(strlen(err), SP_ERR_LEN - 2);
    CHECK_EQ_INT(sp_error_code(SP_ERR_ARG, err), SP_ERR_PROMPT_LONG);
}

static void test_regex(void) {
    err[0] = '\0';
    CHECK(sp_constraint_regex("[a-", err) == NULL);
    CHECK_STR_CONTAINS(err, "regex: ");
    CHECK_EQ_INT(sp_error_code(-1, err), SP_ERR_REGEX);
}

/* A three-token model (a=2, b=1, c=0 as logits) and a session on it. */
static sp_session *handmade_session(sp_model **m) {
    *m = sp_model_handmade("logits:a=2,b=1,c=0", err);
    CHECK(*m != NULL);
    sp_session *s = sp_session_new(*m, NULL, err);
    CHECK(s != NULL);
    return s;
}

static void test_prompt(void) {
    sp_model *m;
    sp_session *s = handmade_session(&m);
    int rc = sp_session_start(s, "axz", 1, err);
    CHECK_EQ_INT(rc, SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "prompt: ");
    CHECK_EQ_INT(sp_error_code(rc, err), SP_ERR_PROMPT);
    sp_session_free(s);
    sp_model_free(m);
}

static void test_no_token_and_finished(void) {
    sp_model *m;
    sp_session *s = handmade_session(&m);
    CHECK_EQ_INT(sp_session_start(s, "", 1, err), SP_OK);
    sp_params p;
    sp_params_default(&p);
    for (int t = 0; t < 3; t++)
        CHECK_EQ_INT(sp_params_add_bias(&p, t, -INFINITY, err), SP_OK);
    int rc = sp_session_step(s, &p, -1, err);
    CHECK_EQ_INT(rc, SP_ERR_STATE);
    CHECK_EQ_INT(sp_error_code(rc, err), SP_ERR_NO_TOKEN);

    /* the regex "a" is matched by the first token and nothing can follow:
     * the text is finished, and the next step says so */
    sp_params_default(&p);
    sp_constraint *c = sp_constraint_regex("a", err);
    CHECK(c != NULL);
    CHECK_EQ_INT(sp_session_constrain(s, c, 0, err), SP_OK);
    CHECK_EQ_INT(sp_session_step(s, &p, -1, err), SP_OK);
    rc = sp_session_step(s, &p, -1, err);
    CHECK_EQ_INT(rc, SP_ERR_STATE);
    CHECK_EQ_INT(sp_error_code(rc, err), SP_ERR_FINISHED);
    sp_session_free(s);
    sp_constraint_free(c);
    sp_model_free(m);
}

static void test_logits(void) {
    sp_sampler *smp = sp_sampler_new(3);
    sp_params p;
    sp_params_default(&p);
    sp_step step;
    float logits[3] = {1.0f, NAN, 0.0f};
    int rc = sp_sampler_warp(smp, logits, NULL, 0, &p, &step, err);
    CHECK_EQ_INT(rc, SP_ERR_FORMAT);
    CHECK_EQ_INT(sp_error_code(rc, err), SP_ERR_LOGITS);
    sp_sampler_free(smp);
}

/* The shipped transformer's context: a prompt that fills it, and a text
 * that reaches its end. */
static void test_context(void) {
    const char *root = test_root;
    sp_model *m = tu_load_model(root, "transformer.bin", err);
    CHECK(m != NULL);
    if (!m) return;
    char path[4096];
    size_t size;
    snprintf(path, sizeof path, "%s/models/transformer_tokenizer.bin", root);
    uint8_t *tfile = read_all(path, &size);
    CHECK(tfile != NULL);
    sp_tokenizer *tok = sp_tokenizer_load(tfile, size, sp_model_vocab(m), err);
    free(tfile);
    CHECK(tok != NULL);
    int seq_len = sp_model_seq_len(m);
    CHECK(seq_len > 0 && seq_len < 4096);
    sp_session *s = sp_session_new(m, tok, err);
    char prompt[8192];
    for (int i = 0; i < seq_len; i++) memcpy(prompt + 2 * i, "a ", 2);
    prompt[2 * seq_len] = '\0';
    int rc = sp_session_start(s, prompt, 1, err);
    CHECK_EQ_INT(rc, SP_ERR_ARG);
    CHECK_EQ_INT(sp_error_code(rc, err), SP_ERR_PROMPT_LONG);

    /* greedy, with the end-of-text tokens (BOS, EOS) banned: the text runs to the end
     * of the context */
    CHECK_EQ_INT(sp_session_start(s, "Once", 1, err), SP_OK);
    sp_params p;
    sp_params_default(&p);
    p.top_k = 1;
    CHECK_EQ_INT(sp_params_add_bias(&p, sp_tokenizer_eos(tok), -INFINITY,
                                    err), SP_OK);
    CHECK_EQ_INT(sp_params_add_bias(&p, sp_tokenizer_bos(tok), -INFINITY,
                                    err), SP_OK);
    rc = SP_OK;
    int steps = 0;
    while (rc == SP_OK && steps <= seq_len) {
        rc = sp_session_step(s, &p, -1, err);
        steps++;
    }
    CHECK_EQ_INT(rc, SP_ERR_STATE);
    CHECK_EQ_INT(sp_error_code(rc, err), SP_ERR_CONTEXT_FULL);
    sp_session_free(s);
    sp_tokenizer_free(tok);
    sp_model_free(m);
}

TEST_SUITE(errors,
           TEST(test_table),
           TEST(test_fail_stores_the_code),
           TEST(test_regex),
           TEST(test_prompt),
           TEST(test_no_token_and_finished),
           TEST(test_logits),
           TEST(test_context));
