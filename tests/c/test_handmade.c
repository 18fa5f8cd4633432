/* test_handmade.c — the hand-made model (specs, the lessons' worked
 * examples, sessions from an empty prompt, penalties over the history),
 * edits by probability (a dragged bar's top), copies, and the bigram
 * trainer: models/bigram.bin again from the names list, byte for byte, and
 * the same bytes whatever the chunks; its errors. */
#define _DEFAULT_SOURCE /* popen */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "internal.h"
#include "testutil.h"

static char err[SP_ERR_LEN];

/* the final distribution of a hand-made model's first step under p */
static const sp_step *first_step(sp_session **s, const sp_model *m,
                                 const sp_params *p) {
    *s = sp_session_new(m, NULL, err);
    CHECK(*s != NULL);
    CHECK_EQ_INT(sp_session_start(*s, "", 1, err), SP_OK);
    CHECK_EQ_INT(sp_session_preview(*s, p, err), SP_OK);
    return sp_session_last_step(*s);
}

static int fails(const char *spec, const char *why) {
    err[0] = '\0';
    sp_model *m = sp_model_handmade(spec, err);
    sp_model_free(m);
    if (m || !strstr(err, why)) {
        fprintf(stderr, "spec %s: got \"%s\", wanted \"%s\"\n", spec, err, why);
        return 0;
    }
    return 1;
}

/* trains on text fed in chunks of `chunk` bytes (0: all at once) */
static uint8_t *train(const char *text, size_t len, size_t chunk,
                      size_t *size, int *rc) {
    sp_trainer *t = sp_trainer_new(err);
    uint8_t *out = NULL;
    *rc = SP_OK;
    for (size_t at = 0; at < len && *rc == SP_OK;) {
        size_t n = chunk && len - at > chunk ? chunk : len - at;
        *rc = sp_trainer_feed(t, (const uint8_t *)text + at, n, err);
        at += n;
    }
    if (*rc == SP_OK) *rc = sp_trainer_finish(t, 0.1, &out, size, err);
    sp_trainer_free(t);
    return out;
}

static void test_specs(void) {
    sp_params p;
    sp_params_default(&p);
    sp_session *s;

    /* logits (2, 1, 0): 0.665 / 0.245 / 0.090 at T = 1 */
    sp_model *m = sp_model_handmade("logits:2,1,0", err);
    CHECK(m != NULL);
    CHECK_EQ_INT(sp_model_kind_of(m), SP_MODEL_HANDMADE);
    CHECK_EQ_INT(sp_model_vocab(m), 3);
    const sp_step *st = first_step(&s, m, &p);
    CHECK_NEAR(st->probs[0], 0.665, 0.0005);
    CHECK_NEAR(st->probs[1], 0.245, 0.0005);
    CHECK_NEAR(st->probs[2], 0.090, 0.0005);
    int len;
    CHECK(strcmp(sp_decode(sp_model_tokenizer(m), -1, 1, &len), "b") == 0);
    sp_session_free(s);
    /* ... and 0.867 / 0.117 / 0.016 at T = 0.5 */
    p.temperature = 0.5f;
    st = first_step(&s, m, &p);
    CHECK_NEAR(st->probs[0], 0.867, 0.0005);
    CHECK_NEAR(st->probs[1], 0.117, 0.0005);
    CHECK_NEAR(st->probs[2], 0.016, 0.0005);
    sp_session_free(s);
    sp_model_free(m);

    /* (0.50, 0.20, 0.15, 0.08, 0.05, 0.02) at top-p 0.9 keeps 4 */
    sp_params_default(&p);
    p.top_p = 0.9f;
    m = sp_model_handmade("probs:0.5,0.2,0.15,0.08,0.05,0.02", err);
    CHECK(m != NULL);
    st = first_step(&s, m, &p);
    CHECK_EQ_INT(st->n_kept, 4);
    CHECK_NEAR(st->kept_mass, 0.93, 1e-6);
    CHECK_EQ_INT(st->cut[4], SP_CUT_TOP_P);
    sp_session_free(s);
    sp_model_free(m);

    /* labels, longest match, no begin token; penalties see the history */
    m = sp_model_handmade("logits:ab=2, a=1 ,b=0", err);
    CHECK(m != NULL);
    s = sp_session_new(m, NULL, err);
    CHECK_EQ_INT(sp_session_start(s, "abab", 7, err), SP_OK);
    CHECK_EQ_INT(sp_session_n_prompt(s), 2); /* "ab" "ab" */
    sp_session_free(s);
    s = sp_session_new(m, NULL, err);
    CHECK_EQ_INT(sp_session_start(s, "aba", 7, err), SP_OK);
    CHECK_EQ_INT(sp_session_n_prompt(s), 2); /* "ab" then "a" */
    CHECK(sp_session_start(s, "abc", 7, err) == SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "no token's label matches");
    sp_params_default(&p);
    CHECK_EQ_INT(sp_session_start(s, "", 7, err), SP_OK);
    CHECK_EQ_INT(sp_session_preview(s, &p, err), SP_OK);
    float before = sp_session_last_step(s)->probs[0];
    CHECK_EQ_INT(sp_session_step(s, &p, 0, err), SP_OK); /* force "ab" */
    p.repetition_penalty = 2.0f;
    CHECK_EQ_INT(sp_session_preview(s, &p, err), SP_OK);
    CHECK(sp_session_last_step(s)->probs[0] < before - 0.1f);
    /* time travel to step 0 (nothing before it) and a rewind to it */
    CHECK_EQ_INT(sp_session_peek(s, 0, &p, err), SP_OK);
    CHECK_NEAR(sp_session_last_step(s)->probs[0], before, 1e-7);
    CHECK_EQ_INT(sp_session_rewind(s, 0, err), SP_OK);
    CHECK_EQ_INT(sp_session_n_tokens(s), 0);
    for (int i = 0; i < 20; i++) CHECK_EQ_INT(sp_session_step(s, &p, -1, err), SP_OK);
    int tlen;
    char *text = sp_session_text(s, &tlen);
    CHECK(tlen >= 20 && tlen <= 40);
    free(text);
    /* a constraint from nothing */
    sp_constraint *c = sp_constraint_regex("(ab)+", err);
    CHECK_EQ_INT(sp_session_start(s, "", 3, err), SP_OK);
    CHECK_EQ_INT(sp_session_constrain(s, c, 6, err), SP_OK);
    for (int i = 0; i < 6 && !sp_session_finished(s); i++)
        CHECK_EQ_INT(sp_session_step(s, &p, -1, err), SP_OK);
    sp_session_free(s);
    sp_constraint_free(c);
    /* beam search from nothing */
    sp_beam_search *b = sp_beam_new(m, NULL, 2, 0, 8, err);
    CHECK(b != NULL);
    CHECK_EQ_INT(sp_beam_start(b, "", err), SP_OK);
    CHECK_EQ_INT(sp_beam_step(b, &p, err), SP_OK);
    int n;
    const int *toks = sp_beam_tokens(b, 0, &n);
    CHECK(n == 1 && toks[0] == 0);
    sp_beam_free(b);
    sp_model_free(m);

    /* thirty tokens: labels t0..t29 */
    char spec[400] = "logits:";
    for (int i = 0; i < 30; i++) strcat(spec, i ? ",0" : "0");
    m = sp_model_handmade(spec, err);
    CHECK(m != NULL && sp_model_vocab(m) == 30);
    CHECK(strcmp(sp_decode(sp_model_tokenizer(m), -1, 29, &len), "t29") == 0);
    sp_model_free(m);

    CHECK(fails("2,1,0", "starts with \"logits:\""));
    CHECK(fails("logits:2", "1 token; give 2 to"));
    CHECK(fails("logits:2,,0", "entry 2"));
    CHECK(fails("logits:2,nan", "entry 2 (\"nan\") is not a number"));
    CHECK(fails("logits:a=2,1", "label all of them or none"));
    CHECK(fails("logits:a=2,a=1", "the same label \"a\""));
    CHECK(fails("logits:a,b=2,c=1", "entry 1 (\"a\") is not a number"));
    CHECK(fails("logits:=2,b=1", "the label of entry 1"));
    CHECK(fails("logits:-inf,-inf", "every token is masked"));
    CHECK(fails("logits:1e9,0", "logit 1 is 1e+09"));
    CHECK(fails("probs:0.5,1.5", "probability 2 is 1.5"));
    CHECK(fails("probs:0,0", "every token is masked"));
    m = sp_model_handmade("logits:-inf,0", err);
    CHECK(m != NULL);
    sp_model_free(m);
}

static void test_edits(void) {
    sp_params p;
    sp_params_default(&p);
    sp_session *s;
    sp_model *base = sp_model_handmade("logits:2,1,0", err);
    sp_model *m = sp_model_copy(base, err);
    CHECK(m != NULL);
    CHECK_EQ_INT(sp_model_set_prob(m, 0, 2, 0.5, err), SP_OK);
    const sp_step *st = first_step(&s, m, &p);
    CHECK_NEAR(st->probs[2], 0.5, 1e-6);
    /* the others keep their ratio (e : 1) and share 1 - p */
    CHECK_NEAR(st->probs[0] / st->probs[1], exp(1.0), 1e-5);
    CHECK_NEAR(st->probs[0] + st->probs[1], 0.5, 1e-6);
    /* only the dragged token's logit moved */
    const float *row = sp_model_row(m, 0);
    CHECK(row[0] == 2.0f && row[1] == 1.0f);
    CHECK_NEAR(row[2], log(0.5 / 0.5) + log(exp(2.0) + exp(1.0)), 1e-5);
    CHECK(sp_model_row(base, 0)[2] == 0.0f); /* the original is untouched */
    sp_session_free(s);
    CHECK(sp_model_set_prob(m, 0, 2, 1.0, err) == SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "p must be in (0, 1)");
    CHECK(sp_model_set_prob(m, 1, 2, 0.5, err) == SP_ERR_ARG);
    CHECK(sp_model_set_prob(m, 0, 3, 0.5, err) == SP_ERR_ARG);
    sp_model_free(m);
    sp_model_free(base);
    base = sp_model_handmade("logits:-inf,0", err);
    CHECK(sp_model_set_prob(base, 0, 1, 0.5, err) == SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "every other token is masked");
    sp_model_free(base);
}

static void test_bigram_edits(void) {
    const char *root = test_root;
    sp_model *base = tu_load_model(root, "bigram.bin", err);
    CHECK(base != NULL);
    if (!base) return;
    sp_model *m = sp_model_copy(base, err);
    CHECK(m != NULL && sp_model_vocab(m) == sp_model_vocab(base));
    int v = sp_model_vocab(m);
    CHECK_EQ_INT(sp_model_set_prob(m, 0, 5, 0.25, err), SP_OK);
    /* row 0 (after the boundary) has token 5 at 0.25, the rest rescaled */
    const float *row = sp_model_row(m, 0), *old = sp_model_row(base, 0);
    double z = 0, z_old = 0;
    for (int b = 0; b < v; b++) z += exp(row[b]), z_old += exp(old[b]);
    CHECK_NEAR(exp(row[5]) / z, 0.25, 1e-6);
    CHECK_NEAR((exp(row[7]) / z) / (exp(row[9]) / z),
               (exp(old[7]) / z_old) / (exp(old[9]) / z_old), 1e-5);
    /* other rows untouched */
    CHECK(memcmp(sp_model_row(m, 1), sp_model_row(base, 1), sizeof(float) * (size_t)v) == 0);
    /* a session on the copy starts with the edited row */
    sp_session *s = sp_session_new(m, NULL, err);
    sp_params p;
    sp_params_default(&p);
    CHECK_EQ_INT(sp_session_start(s, "", 1, err), SP_OK);
    CHECK_EQ_INT(sp_session_preview(s, &p, err), SP_OK);
    CHECK_NEAR(sp_session_last_step(s)->probs[5], 0.25, 1e-6);
    sp_session_free(s);
    CHECK(sp_model_set_prob(m, v, 1, 0.5, err) == SP_ERR_ARG);
    sp_model_free(m);
    sp_model_free(base);
}

static void test_trainer(void) {
    /* the names list models/train_bigram.py reads; made from its .gz */
    size_t size = 0;
    uint8_t *names = NULL;
    FILE *f = popen("zcat /usr/share/dict/propernames.gz 2>/dev/null || "
                    "cat /usr/share/dict/propernames 2>/dev/null", "r");
    if (f) {
        size_t cap = 1 << 16;
        names = malloc(cap);
        size_t got;
        while ((got = fread(names + size, 1, cap - size, f)) > 0) {
            size += got;
            if (size == cap) names = realloc(names, cap *= 2);
        }
        pclose(f);
    }
    if (size == 0) {
        skip("the byte-for-byte bigram: /usr/share/dict/propernames is "
             "missing (apt-get install miscfiles)");
    } else {
        size_t got_size;
        int rc;
        uint8_t *model = train((const char *)names, size, 0, &got_size, &rc);
        CHECK_EQ_INT(rc, SP_OK);
        size_t want_size;
        char path[4096];
        snprintf(path, sizeof path, "%s/models/bigram.bin", test_root);
        uint8_t *want = read_all(path, &want_size);
        CHECK(want != NULL);
        CHECK(model && want && got_size == want_size &&
              memcmp(model, want, want_size) == 0);
        /* the same bytes fed 1, 7 and 4096 bytes at a time */
        size_t chunks[] = {1, 7, 4096};
        for (int i = 0; i < 3; i++) {
            size_t s2;
            uint8_t *again = train((const char *)names, size, chunks[i], &s2, &rc);
            CHECK(again && s2 == got_size && memcmp(again, model, s2) == 0);
            free(again);
        }
        free(model);
        free(want);
    }
    free(names);

    /* line breaks and stripping as Python reads text files */
    size_t s1, s2;
    int rc;
    const char *unix_text = "Ana\nBo b\n\n  Cy  \n";
    const char *other = "\xc2\xa0" "Ana\r\nBo b\t\r\r  Cy\xe3\x80\x80";
    uint8_t *a = train(unix_text, strlen(unix_text), 0, &s1, &rc);
    uint8_t *b = train(other, strlen(other), 3, &s2, &rc);
    CHECK(a && b && s1 == s2 && memcmp(a, b, s1) == 0);
    sp_model *m = sp_model_load(a, s1, 0, err);
    CHECK(m != NULL);
    /* the boundary, ' ', A B C a b n o y */
    CHECK_EQ_INT(sp_model_vocab(m), 10);
    int len;
    CHECK(strcmp(sp_decode(sp_model_tokenizer(m), -1, 1, &len), " ") == 0);
    sp_model_free(m);
    free(a);
    free(b);
    /* a multi-byte character: its own token, in code point order */
    const char *utf = "caf\xc3\xa9\n\xe2\x82\xac\n";
    a = train(utf, strlen(utf), 1, &s1, &rc);
    m = a ? sp_model_load(a, s1, 0, err) : NULL;
    CHECK(m && sp_model_vocab(m) == 6);
    if (m) CHECK(strcmp(sp_decode(sp_model_tokenizer(m), -1, 5, &len), "\xe2\x82\xac") == 0);
    sp_model_free(m);
    free(a);

    /* bad input */
    a = train("", 0, 0, &s1, &rc);
    CHECK(!a && rc == SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "the text is empty");
    a = train(" \n\t\n", 4, 0, &s1, &rc);
    CHECK(!a && rc == SP_ERR_ARG);
    a = train("ab\0cd", 5, 0, &s1, &rc);
    CHECK(!a && rc == SP_ERR_FORMAT);
    CHECK_STR_CONTAINS(err, "NUL byte at offset 2: this is a binary file");
    a = train("ab\xff", 3, 0, &s1, &rc);
    CHECK(!a && rc == SP_ERR_FORMAT);
    CHECK_STR_CONTAINS(err, "not UTF-8 (byte 0xff at offset 2)");
    a = train("ab\xc3", 3, 0, &s1, &rc);
    CHECK(!a && rc == SP_ERR_FORMAT);
    CHECK_STR_CONTAINS(err, "ends inside a character");
    a = train("\xed\xa0\x80", 3, 1, &s1, &rc); /* a surrogate */
    CHECK(!a && rc == SP_ERR_FORMAT);
    sp_trainer *t = sp_trainer_new(err);
    static uint8_t big[1 << 20];
    memset(big, 'a', sizeof big);
    for (int i = 0; i < 64; i++) CHECK_EQ_INT(sp_trainer_feed(t, big, sizeof big, err), SP_OK);
    CHECK(sp_trainer_feed(t, big, 1, err) == SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "larger than 64 MiB");
    uint8_t *out;
    CHECK(sp_trainer_finish(t, 0.1, &out, &s1, err) == SP_ERR_STATE);
    sp_trainer_free(t);
    /* too many different characters: 4096 CJK ideographs */
    char *many = malloc(4096 * 3);
    for (int i = 0; i < 4096; i++) {
        int c = 0x4e00 + i;
        many[3 * i] = (char)(0xe0 | c >> 12);
        many[3 * i + 1] = (char)(0x80 | (c >> 6 & 0x3f));
        many[3 * i + 2] = (char)(0x80 | (c & 0x3f));
    }
    a = train(many, 4096 * 3, 0, &s1, &rc);
    CHECK(!a && rc == SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "more than 4095 different characters");
    a = train(many, 4095 * 3, 0, &s1, &rc); /* exactly the most */
    CHECK(a != NULL);
    m = a ? sp_model_load(a, s1, 0, err) : NULL;
    CHECK(m && sp_model_vocab(m) == 4096);
    sp_model_free(m);
    free(a);
    free(many);
}

TEST_SUITE(handmade,
           TEST(test_specs),
           TEST(test_edits),
           TEST(test_bigram_edits),
           TEST(test_trainer));
