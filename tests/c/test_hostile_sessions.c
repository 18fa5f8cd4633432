/*
 * test_hostile_sessions.c — sessions at their limits (context full, finished,
 * rewinds out of range) and a soak of 100 000 tokens over 1 000 restarts
 * (ASan's leak checker sees the end).
 *
 * (hostile.h: what the test_hostile*.c files share.)
 */
#include <float.h>
#include <limits.h>
#include <time.h>

#include "hostile.h"

/* ---- sessions ----------------------------------------------------------------- */

typedef struct {
    sp_model *model;
    sp_tokenizer *tok;
} tiny_pair;

static tiny_pair tiny_load(uint32_t seed, float scale) {
    tiny_pair tp = {NULL, NULL};
    bb_bytes mb = {0}, tb = {0};
    bb_checkpoint(&mb, BB_TINY, seed, scale);
    bb_tiny_tokenizer(&tb);
    tp.model = model_ok(&mb);
    tp.tok = sp_tokenizer_load(tb.data, tb.len, BB_TINY_VOCAB, err);
    CHECK(tp.tok != NULL);
    bb_free(&mb);
    bb_free(&tb);
    return tp;
}

static void tiny_free(tiny_pair *tp) {
    sp_tokenizer_free(tp->tok);
    sp_model_free(tp->model);
}

static void test_sessions(void) {
    tiny_pair tp = tiny_load(1, 0.5f);
    if (!tp.model || !tp.tok) {
        tiny_free(&tp);
        return;
    }
    sp_params p;
    sp_params_default(&p);
    /* BOS and EOS banned: the text runs until the context is full */
    p.n_bias = 2;
    p.bias[0] = (sp_bias){1, -INFINITY};
    p.bias[1] = (sp_bias){2, -INFINITY};

    sp_session *s = sp_session_new(tp.model, tp.tok, err);
    CHECK(s != NULL);
    if (!s) {
        tiny_free(&tp);
        return;
    }
    /* before start */
    CHECK_EQ_INT(sp_session_step(s, &p, -1, err), SP_ERR_STATE);
    CHECK_STR_CONTAINS(err, "session: not started");
    CHECK_EQ_INT(sp_session_preview(s, &p, err), SP_ERR_STATE);
    CHECK_EQ_INT(sp_session_rewind(s, 0, err), SP_ERR_STATE);
    CHECK_STR_CONTAINS(err, "session: not started");

    /* prompts that do not fit the context of 8 */
    CHECK_EQ_INT(sp_session_start(s, "abcabcabcabcabcabcabc", 1, err),
                 SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "prompt: 9 tokens leave no room in the model's "
                       "context of 8");
    CHECK_EQ_INT(sp_session_step(s, &p, -1, err), SP_ERR_STATE);
    CHECK_STR_CONTAINS(err, "session: not started");
    CHECK_EQ_INT(sp_session_start(s, "a\tb", 1, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "the character '\\t'");

    /* context full: 3 prompt tokens (BOS, " ", "ab"), 5 generated, then a
     * clean stop, again and again */
    CHECK_EQ_INT(sp_session_start(s, "ab", UINT64_MAX, err), SP_OK);
    CHECK_EQ_INT(sp_session_n_prompt(s), 3);
    int first[8];
    int steps = 0, rc;
    while ((rc = sp_session_step(s, &p, -1, err)) == SP_OK) steps++;
    CHECK_EQ_INT(steps, 5);
    CHECK_EQ_INT(rc, SP_ERR_STATE);
    CHECK_STR_CONTAINS(err, "context full: 8 tokens, the model's seq_len");
    CHECK_EQ_INT(sp_session_n_tokens(s), 8);
    memcpy(first, sp_session_tokens(s), sizeof first);
    for (int i = 0; i < 8; i++) CHECK(first[i] >= 0 && first[i] < 12);
    CHECK_EQ_INT(sp_session_step(s, &p, -1, err), SP_ERR_STATE);
    CHECK_EQ_INT(sp_session_preview(s, &p, err), SP_ERR_STATE);
    CHECK_STR_CONTAINS(err, "context full");
    CHECK_EQ_INT(sp_session_n_tokens(s), 8);
    /* rewinds: out of range refused, in range regenerates the same text */
    CHECK_EQ_INT(sp_session_rewind(s, 6, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "rewind: 6 is outside 0..5");
    CHECK_EQ_INT(sp_session_rewind(s, -1, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "rewind: -1 is outside 0..5");
    CHECK_EQ_INT(sp_session_rewind(s, INT_MIN, err), SP_ERR_ARG);
    CHECK_EQ_INT(sp_session_rewind(s, 5, err), SP_OK);
    CHECK_EQ_INT(sp_session_step(s, &p, -1, err), SP_ERR_STATE);
    CHECK_EQ_INT(sp_session_rewind(s, 2, err), SP_OK);
    CHECK_EQ_INT(sp_session_n_tokens(s), 5);
    while (sp_session_step(s, &p, -1, err) == SP_OK) {}
    CHECK(memcmp(first, sp_session_tokens(s), sizeof first) == 0);
    CHECK_EQ_INT(sp_session_rewind(s, 0, err), SP_OK);
    while (sp_session_step(s, &p, -1, err) == SP_OK) {}
    CHECK(memcmp(first, sp_session_tokens(s), sizeof first) == 0);

    /* forcing: out of range refused (nothing consumed), EOS finishes */
    CHECK_EQ_INT(sp_session_start(s, "", 0, err), SP_OK);
    CHECK_EQ_INT(sp_session_n_prompt(s), 1);
    CHECK_EQ_INT(sp_session_step(s, &p, 12, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "force: token 12 is outside the vocabulary "
                       "(0..11)");
    CHECK_EQ_INT(sp_session_step(s, &p, INT_MAX, err), SP_ERR_ARG);
    CHECK_EQ_INT(sp_session_n_tokens(s), 1);
    CHECK_EQ_INT(sp_session_step(s, &p, 4, err), SP_OK);
    CHECK_EQ_INT(sp_session_step(s, &p, 2, err), SP_OK); /* banned, forced */
    CHECK(sp_session_finished(s));
    CHECK_EQ_INT(sp_session_step(s, &p, -1, err), SP_ERR_STATE);
    CHECK_STR_CONTAINS(err, "the text is finished: the model emitted its "
                       "end-of-text token");
    CHECK_EQ_INT(sp_session_preview(s, &p, err), SP_ERR_STATE);
    CHECK_EQ_INT(sp_session_rewind(s, 1, err), SP_OK);
    CHECK(!sp_session_finished(s));
    CHECK_EQ_INT(sp_session_step(s, &p, -1, err), SP_OK);
    /* bad parameters in a step: refused, the session goes on */
    sp_params bad = p;
    bad.top_p = 2.0f;
    int before = sp_session_n_tokens(s);
    CHECK_EQ_INT(sp_session_step(s, &bad, -1, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "top-p must be in (0, 1] (got 2)");
    CHECK_EQ_INT(sp_session_n_tokens(s), before);
    CHECK_EQ_INT(sp_session_step(s, &p, -1, err), SP_OK);
    /* every token banned: a clean refusal */
    bad = p;
    bad.n_bias = BB_TINY_VOCAB;
    for (int i = 0; i < BB_TINY_VOCAB; i++) bad.bias[i] = (sp_bias){i, -INFINITY};
    CHECK_EQ_INT(sp_session_step(s, &bad, -1, err), SP_ERR_STATE);
    CHECK_STR_CONTAINS(err, "no token left");
    sp_session_free(s);

    /* a tokenizer of another vocabulary */
    bb_bytes tb = {0};
    bb_tokenizer(&tb, 6, 11, BB_TINY_PIECES, BB_TINY_SCORES);
    sp_tokenizer *small = sp_tokenizer_load(tb.data, tb.len, 0, err);
    CHECK(small != NULL);
    CHECK(sp_session_new(tp.model, small, err) == NULL);
    CHECK_STR_CONTAINS(err, "tokenizer: it has 11 pieces, the model 12 "
                       "logits: not its tokenizer");
    sp_tokenizer_free(small);
    bb_free(&tb);
    static const char *const more[13] = {"<unk>", "<s>", "</s>", " ", "a", "b",
                                         "c", "ab", " a", "<0x0A>", "<0xFF>",
                                         "abc", "z"};
    bb_tokenizer(&tb, 6, 13, more, NULL);
    sp_tokenizer *big = sp_tokenizer_load(tb.data, tb.len, 0, err);
    CHECK(sp_session_new(tp.model, big, err) == NULL);
    CHECK_STR_CONTAINS(err, "tokenizer: it has 13 pieces, the model 12 "
                       "logits: not its tokenizer");
    sp_tokenizer_free(big);
    bb_free(&tb);
    CHECK(sp_session_new(tp.model, NULL, err) == NULL);
    CHECK_STR_CONTAINS(err, "session: the model has no tokenizer");
    tiny_free(&tp);

    /* weights that are finite but overflow the forward pass: the first
     * non-finite logits are reported, never sampled from.  The layers are
     * all zero (x stays the embedding), the embedding rows are ones, and
     * row 5 is 3e38: logit 5 = 8 x 3e38 = +inf. */
    bb_bytes ob = {0}, otb = {0};
    bb_checkpoint(&ob, BB_TINY, 1, 0.0f);
    for (int i = 0; i < BB_TINY_VOCAB * 8; i++) {
        float w = i / 8 == 5 ? 3e38f : 1.0f;
        memcpy(ob.data + bb_float_at((uint64_t)i), &w, 4);
    }
    bb_tiny_tokenizer(&otb);
    tp.model = model_ok(&ob);
    tp.tok = sp_tokenizer_load(otb.data, otb.len, 0, err);
    bb_free(&ob);
    bb_free(&otb);
    if (tp.model && tp.tok) {
        s = sp_session_new(tp.model, tp.tok, err);
        CHECK(s != NULL);
        CHECK_EQ_INT(sp_session_start(s, "", 1, err), SP_OK);
        CHECK_EQ_INT(sp_session_step(s, &p, -1, err), SP_ERR_FORMAT);
        CHECK_STR_CONTAINS(err, "logits: token 5 is +inf; the model's output "
                           "is not finite");
        CHECK_EQ_INT(sp_session_preview(s, &p, err), SP_ERR_FORMAT);
        CHECK_EQ_INT(sp_session_step(s, &p, 4, err), SP_ERR_FORMAT);
        CHECK_EQ_INT(sp_session_n_tokens(s), 1); /* nothing was appended */
        sp_session_free(s);
    }
    tiny_free(&tp);
}

/* ---- long sessions ---------------------------------------------------------------- */

/* 1 000 generations of 100 tokens: a new session every other time, the
 * same one reused otherwise; ASan's leak checker sees the end. */
static void test_soak(void) {
    char path[4200];
    snprintf(path, sizeof path, "%s/models/bigram.bin", test_root);
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL); /* the shipped model: never missing */
    if (!f) return;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *data = malloc((size_t)n);
    if (fread(data, 1, (size_t)n, f) != (size_t)n) n = 0;
    fclose(f);
    sp_model *m = sp_model_load(data, (size_t)n, 1, err);
    CHECK(m != NULL);
    tiny_pair tp = tiny_load(5, 0.5f);
    if (!m || !tp.model) {
        sp_model_free(m);
        tiny_free(&tp);
        return;
    }
    sp_params p;
    sp_params_default(&p);
    p.temperature = 0.9f;
    p.top_p = 0.95f;
    p.repetition_penalty = 1.1f;
    long tokens = 0;
    sp_session *s = NULL;
    clock_t t0 = clock();
    for (int round = 0; round < 1000; round++) {
        if (round % 2 == 0) {
            sp_session_free(s);
            s = sp_session_new(m, NULL, err);
        }
        if (!s || sp_session_start(s, "the", (uint64_t)round * 7919u, err)) {
            CHECK(!"a bigram session failed to start");
            fprintf(stderr, "%s\n", err);
            break;
        }
        for (int i = 0; i < 100; i++) {
            if (sp_session_step(s, &p, -1, err) != SP_OK) {
                CHECK(!"a bigram step failed");
                fprintf(stderr, "%s\n", err);
                break;
            }
            tokens++;
        }
        if (round % 100 == 99) CHECK_EQ_INT(sp_session_rewind(s, 50, err), SP_OK);
    }
    sp_session_free(s);
    /* the tiny transformer: many short generations to a full context */
    for (int round = 0; round < 300; round++) {
        s = sp_session_new(tp.model, tp.tok, err);
        CHECK(s != NULL);
        if (!s) break;
        CHECK_EQ_INT(sp_session_start(s, "a", (uint64_t)round, err), SP_OK);
        while (sp_session_step(s, &p, -1, err) == SP_OK) tokens++;
        sp_session_free(s);
    }
    say("%ld tokens in %.2f s", tokens, (double)(clock() - t0) / CLOCKS_PER_SEC);
    CHECK(tokens >= 100000);
    tiny_free(&tp);
    sp_model_free(m);
}

TEST_SUITE(hostile_sessions,
           TEST(test_sessions),
           TEST(test_soak));
