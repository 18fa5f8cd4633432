/* test_bigram.c — the shipped bigram model, its file format's validation,
 * and sessions: sampling follows the model (chi-square), seeds reproduce,
 * rewinding and forcing keep the stream of uniforms aligned. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "internal.h"
#include "testutil.h"

static char err[SP_ERR_LEN];

static sp_model *load_copy(const uint8_t *data, size_t size) {
    uint8_t *copy = malloc(size ? size : 1);
    memcpy(copy, data, size);
    err[0] = '\0';
    return sp_model_load(copy, size, 1, err);
}

static void put_u32(uint8_t *p, uint32_t v) {
    p[0] = v & 255;
    p[1] = v >> 8 & 255;
    p[2] = v >> 16 & 255;
    p[3] = v >> 24;
}

/* models/bigram.bin's bytes (malloc'd, *size), or NULL (a failed check). */
static uint8_t *bigram_file(size_t *size) {
    char path[4096];
    snprintf(path, sizeof path, "%s/models/bigram.bin", test_root);
    uint8_t *file = read_all(path, size);
    CHECK(file != NULL);
    return file;
}

/* The model loaded, its tokenizer, and every row a distribution. */
static void test_rows(void) {
    size_t size;
    uint8_t *file = bigram_file(&size);
    if (!file) return;
    sp_model *m = load_copy(file, size);
    CHECK(m != NULL);
    if (!m) {
        free(file);
        return;
    }
    CHECK_EQ_INT(sp_model_kind_of(m), SP_MODEL_BIGRAM);
    int v = sp_model_vocab(m);
    CHECK(v > 27 && v < 64);
    const sp_tokenizer *tok = sp_model_tokenizer(m);
    CHECK(tok != NULL);
    CHECK_EQ_INT(sp_tokenizer_bos(tok), 0);
    int len;
    CHECK(strcmp(sp_decode(tok, -1, 0, &len), "\n") == 0 && len == 1);

    /* ---- every row is a distribution --------------------------------- */
    sp_state *st = sp_state_new(m);
    double worst = 0;
    for (int a = 0; a < v; a++) {
        float *logits = sp_forward(m, st, a, 0);
        double z = 0;
        for (int b = 0; b < v; b++) z += exp(logits[b]);
        worst = fmax(worst, fabs(z - 1));
    }
    CHECK(worst < 1e-5);
    sp_state_free(st);

    sp_model_free(m);
    free(file);
}

/* Generated text follows the model: chi-square per context, with the
 * power to see a model 5% off. */
static void test_chi_square(void) {
    size_t size;
    uint8_t *file = bigram_file(&size);
    if (!file) return;
    sp_model *m = load_copy(file, size);
    free(file);
    CHECK(m != NULL);
    if (!m) return;
    int v = sp_model_vocab(m);
    /* ---- chi-square: generated text follows the model ----------------- */
    sp_session *s = sp_session_new(m, NULL, err);
    CHECK(s != NULL);
    CHECK_EQ_INT(sp_session_start(s, "", 2024, err), SP_OK);
    sp_params p;
    sp_params_default(&p);
    enum { STEPS = 300000 };
    long *counts = calloc((size_t)v * v, sizeof(long));
    long *per_context = calloc((size_t)v, sizeof(long));
    double *probs = calloc((size_t)v * v, sizeof(double));
    for (int i = 0; i < STEPS; i++) {
        const int *toks = sp_session_tokens(s);
        int prev = toks[sp_session_n_tokens(s) - 1];
        CHECK_EQ_INT(sp_session_step(s, &p, -1, err), SP_OK);
        const sp_step *step = sp_session_last_step(s);
        if (per_context[prev] == 0)
            for (int b = 0; b < v; b++) probs[prev * v + b] = step->probs[b];
        counts[prev * v + step->token]++;
        per_context[prev]++;
    }
    int tested = 0, passed = 0, powered = 0;
    for (int a = 0; a < v; a++) {
        if (per_context[a] < 5000) continue;
        int df;
        double stat = chi_square(counts + a * v, probs + a * v, v,
                                 per_context[a], &df);
        tested++;
        passed += stat < chi_square_critical(df);
        /* power: the same counts against a distribution 5% off */
        double off[64];
        double z = 0;
        for (int b = 0; b < v; b++) z += off[b] = probs[a * v + b] * (b % 2 ? 1.05 : 0.95);
        for (int b = 0; b < v; b++) off[b] /= z;
        double wrong = chi_square(counts + a * v, off, v, per_context[a], &df);
        powered += wrong > chi_square_critical(df);
        if (a == 0)
            fprintf(stderr, "bigram after the boundary: chi-square %.1f, %d df "
                    "(critical %.1f; a 5%%-off model scores %.1f)\n", stat, df,
                    chi_square_critical(df), wrong);
    }
    CHECK(tested >= 10);
    CHECK_EQ_INT(passed, tested);
    CHECK(powered >= tested / 2);
    free(counts);
    free(per_context);
    free(probs);

    sp_session_free(s);
    sp_model_free(m);
}

static void test_seeds(void) {
    size_t size;
    uint8_t *file = bigram_file(&size);
    if (!file) return;
    sp_model *m = load_copy(file, size);
    free(file);
    CHECK(m != NULL);
    if (!m) return;
    int v = sp_model_vocab(m);
    sp_session *s = sp_session_new(m, NULL, err);
    sp_params p;
    sp_params_default(&p);
    /* ---- seeds reproduce; rewinding and forcing keep the uniforms ------- */
    int first[40], again[40];
    CHECK_EQ_INT(sp_session_start(s, "Ma", 7, err), SP_OK);
    CHECK_EQ_INT(sp_session_n_prompt(s), 3); /* boundary, M, a */
    for (int i = 0; i < 40; i++) {
        sp_session_step(s, &p, -1, err);
        first[i] = sp_session_last_step(s)->token;
    }
    CHECK_EQ_INT(sp_session_rewind(s, 10, err), SP_OK);
    for (int i = 10; i < 40; i++) {
        sp_session_step(s, &p, -1, err);
        again[i] = sp_session_last_step(s)->token;
        CHECK_EQ_INT(again[i], first[i]);
    }
    /* a forced token consumes the step's uniform: step 12 onwards draw the
     * same u's as before */
    double u_before[40];
    CHECK_EQ_INT(sp_session_start(s, "Ma", 7, err), SP_OK);
    for (int i = 0; i < 20; i++) {
        sp_session_step(s, &p, -1, err);
        u_before[i] = sp_session_last_step(s)->u;
    }
    CHECK_EQ_INT(sp_session_rewind(s, 11, err), SP_OK);
    int forced = (first[11] + 1) % v;
    CHECK_EQ_INT(sp_session_step(s, &p, forced, err), SP_OK);
    CHECK_EQ_INT(sp_session_last_step(s)->token, forced);
    CHECK(sp_session_last_step(s)->u == u_before[11]);
    sp_session_step(s, &p, -1, err);
    CHECK(sp_session_last_step(s)->u == u_before[12]);
    CHECK_EQ_INT(sp_session_rewind(s, 99, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "rewind");
    CHECK_EQ_INT(sp_session_step(s, &p, 5000, err), SP_ERR_ARG);
    /* a prompt outside the vocabulary is an error that names the character */
    CHECK_EQ_INT(sp_session_start(s, "Zoë", 1, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "'ë'");
    CHECK_EQ_INT(sp_session_step(s, &p, -1, err), SP_ERR_STATE);
    sp_session_free(s);
    sp_model_free(m);

}

static void test_malformed(void) {
    size_t size;
    uint8_t *file = bigram_file(&size);
    if (!file) return;
    /* ---- malformed files: one line that says what is wrong ----------- */
    struct { const char *what; size_t at; uint32_t value; size_t cut; } cases[] = {
        {"checkpoint:", 0, 0x41414141u, 0}, /* not a bigram: read as llama2.c */
        {"version 9", 4, 9, 0},
        {"vocab 1 is out of range", 8, 1, 0},
        {"vocab 100000 is out of range", 8, 100000, 0},
        {"boundary token 999", 12, 999, 0},
        {"header implies", 0, 0, 3},
        {"the header alone", 0, 0, size - 10},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t *bad = malloc(size);
        memcpy(bad, file, size);
        if (cases[i].cut == 0) put_u32(bad + cases[i].at, cases[i].value);
        sp_model *bm = load_copy(bad, size - cases[i].cut);
        CHECK(bm == NULL);
        CHECK_STR_CONTAINS(err, cases[i].what);
        free(bad);
    }
    uint8_t *bad = malloc(size);
    memcpy(bad, file, size);
    bad[16] = 9; /* first piece length */
    CHECK(load_copy(bad, size) == NULL);
    CHECK_STR_CONTAINS(err, "piece 0 has length 9");
    memcpy(bad, file, size);
    float nan_value = NAN;
    memcpy(bad + size - 4, &nan_value, 4);
    CHECK(load_copy(bad, size) == NULL);
    CHECK_STR_CONTAINS(err, "is not finite");
    memcpy(bad, file, size);
    bad[19] = bad[17]; /* piece 1 (at 18: length, 19: byte) = piece 0 */
    CHECK(load_copy(bad, size) == NULL);
    CHECK_STR_CONTAINS(err, "pieces 0 and 1 are the same");
    free(bad);
    free(file);
}

TEST_SUITE(bigram,
           TEST(test_rows),
           TEST(test_chi_square),
           TEST(test_seeds),
           TEST(test_malformed));
