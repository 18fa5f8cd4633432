/* test_inspect.c — a look inside the forward pass (model/inspect.c,
 * decode/session_inspect.c): the capture changes no logit and costs no
 * memory when off; the attention weights are distributions over the
 * cached positions, the same bits whether a pass was batched or single;
 * the last layer's lens is the model's distribution, bit for bit (logits,
 * probs_raw, entropy); a session's previews and peeks carry the record,
 * the same numbers as a state of its own, after a batched pass ahead too,
 * without touching the text, its random numbers or its work counters;
 * the bigram and the hand-made model say why they have no attention.
 * The numbers themselves are checked against a reference forward pass in
 * tests/py/test_inspect_parity.py. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "internal.h"
#include "testutil.h"

static char err[SP_ERR_LEN];

static sp_model *checkpoint(int dim, int hidden, int layers, int heads, int kv,
                            int vocab, uint64_t seed) {
    size_t size;
    uint8_t *data = random_checkpoint(dim, hidden, layers, heads, kv, vocab,
                                      96, seed, 0.4f, -0.2f, &size);
    return sp_model_load(data, size, 1, err);
}

static sp_model *shipped(const char *file) {
    char path[1024];
    snprintf(path, sizeof path, "%s/models/%s", test_root, file);
    size_t size;
    uint8_t *data = read_all(path, &size);
    return data ? sp_model_load(data, size, 1, err) : NULL;
}

static sp_tokenizer *shipped_tokenizer(int vocab) {
    char path[1024];
    snprintf(path, sizeof path, "%s/models/transformer_tokenizer.bin", test_root);
    size_t size;
    uint8_t *data = read_all(path, &size);
    sp_tokenizer *t = data ? sp_tokenizer_load(data, size, vocab, err) : NULL;
    free(data);
    return t;
}

static size_t att_floats(const sp_inspection *in) {
    return (size_t)in->n_layers * (size_t)in->n_heads * (size_t)in->n_keys;
}

/* A copy of what a state kept after feeding tokens[0..n) in passes of
 * `batch` (1: single calls), or NULL. */
static float *capture_after(const sp_model *m, const int *tokens, int n,
                            int batch, sp_inspection *in, float **lens0) {
    sp_state *st = sp_state_new(m);
    CHECK_EQ_INT(sp_state_set_capture(m, st, 1, err), SP_OK);
    for (int p = 0; p < n; p += batch) {
        int k = n - p < batch ? n - p : batch;
        if (batch == 1) CHECK(sp_forward(m, st, tokens[p], p) != NULL);
        else CHECK(sp_forward_batch(m, st, tokens + p, k, p, 1) != NULL);
    }
    float *copy = NULL;
    if (sp_state_inspect(m, st, in, err) == SP_OK) {
        copy = malloc(sizeof(float) * att_floats(in));
        memcpy(copy, in->attention, sizeof(float) * att_floats(in));
        in->attention = copy;
        const float *p = sp_state_lens(m, st, 0, NULL, NULL, err);
        *lens0 = malloc(sizeof(float) * (size_t)sp_model_vocab(m));
        memcpy(*lens0, p, sizeof(float) * (size_t)sp_model_vocab(m));
    }
    sp_state_free(st);
    return copy;
}

/* Off, nothing is kept; on, the logits keep their bits; every head's
 * weights are a distribution over 0..pos; batched passes keep the same
 * bits as single calls (every batch size), the lens too. */
static void test_capture(const sp_model *m, const char *name) {
    int vocab = sp_model_vocab(m), tokens[80];
    for (int i = 0; i < 80; i++) tokens[i] = (i * 17 + 3) % vocab;
    sp_state *off = sp_state_new(m), *on = sp_state_new(m);
    CHECK_EQ_INT(sp_state_set_capture(m, on, 1, err), SP_OK);
    sp_inspection in;
    CHECK_EQ_INT(sp_state_inspect(m, on, &in, err), SP_ERR_STATE);
    CHECK_STR_CONTAINS(err, "no forward pass");
    CHECK_EQ_INT(sp_state_inspect(m, off, &in, err), SP_ERR_STATE);
    CHECK_STR_CONTAINS(err, "capture is off");
    CHECK(sp_state_lens(m, off, 0, NULL, NULL, err) == NULL);
    int bad = 0;
    for (int p = 0; p < 70; p++) {
        float *a = sp_forward(m, off, tokens[p], p);
        float *b = sp_forward(m, on, tokens[p], p);
        bad += memcmp(a, b, sizeof(float) * (size_t)vocab) != 0;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK(off->lens_logits == NULL && off->lens_probs == NULL);
    CHECK_EQ_INT(sp_state_inspect(m, on, &in, err), SP_OK);
    CHECK_EQ_INT(in.pos, 69);
    CHECK_EQ_INT(in.token, tokens[69]);
    CHECK_EQ_INT(in.n_keys, 70);
    CHECK_EQ_INT(in.lens_top, 0);
    double worst = 0;
    int outside = 0;
    for (int r = 0; r < in.n_layers * in.n_heads; r++) {
        double sum = 0;
        for (int k = 0; k < in.n_keys; k++) {
            float w = in.attention[(size_t)r * (size_t)in.n_keys + (size_t)k];
            outside += !(w >= 0.0f && w <= 1.0f);
            sum += w;
        }
        if (fabs(sum - 1) > worst) worst = fabs(sum - 1);
    }
    CHECK_EQ_INT(outside, 0);
    CHECK(worst < 1e-5);
    /* the last layer's lens: the pass's logits, bit for bit */
    const float *logits;
    double h;
    CHECK(sp_state_lens(m, on, in.n_layers, NULL, NULL, err) == NULL);
    CHECK_STR_CONTAINS(err, "outside");
    const float *p = sp_state_lens(m, on, in.n_layers - 1, &logits, &h, err);
    CHECK(p && memcmp(logits, sp_state_logits(m, on),
                      sizeof(float) * (size_t)vocab) == 0);
    /* batched = single, every batch size, the attention and a lens */
    sp_inspection one, many;
    float *lens_one = NULL, *lens_many = NULL;
    float *a1 = capture_after(m, tokens, 45, 1, &one, &lens_one);
    int differ = 0;
    for (int batch = 2; batch <= SP_BATCH_MAX; batch++) {
        float *ab = capture_after(m, tokens, 45, batch, &many, &lens_many);
        differ += !a1 || !ab || many.pos != one.pos ||
                  memcmp(a1, ab, sizeof(float) * att_floats(&one)) != 0 ||
                  memcmp(lens_one, lens_many,
                         sizeof(float) * (size_t)vocab) != 0;
        free(ab);
        free(lens_many);
    }
    CHECK_EQ_INT(differ, 0);
    free(a1);
    free(lens_one);
    /* off again: the room is given back, the logits are as before */
    CHECK_EQ_INT(sp_state_set_capture(m, on, 0, err), SP_OK);
    CHECK(on->lens_logits == NULL);
    CHECK_EQ_INT(sp_state_inspect(m, on, &in, err), SP_ERR_STATE);
    sp_state_free(off);
    sp_state_free(on);
    say("%s: capture off = on (70 positions), rows sum to 1 (worst %.2g), "
        "batched = single for sizes 1..%d", name, worst, SP_BATCH_MAX);
}

/* A session that looks inside: the step record's inspection at each
 * preview is a fresh state's, the last layer's lens is probs_raw's top
 * and entropy, a peek later gives the same bits, and the text, its
 * random numbers and the work counters are those of a session that does
 * not look. */
static void test_session(void) {
    sp_model *m = shipped("transformer.bin");
    CHECK(m != NULL);
    if (!m) return;
    sp_tokenizer *tok = shipped_tokenizer(sp_model_vocab(m));
    sp_session *s = sp_session_new(m, tok, err), *plain = sp_session_new(m, tok, err);
    CHECK_EQ_INT(sp_session_set_inspect(s, 4, 5, err), SP_ERR_ARG);
    CHECK_EQ_INT(sp_session_set_inspect(s, SP_INSPECT_LENS, 0, err), SP_ERR_ARG);
    CHECK_EQ_INT(sp_session_set_inspect(s, SP_INSPECT_LENS, SP_LENS_TOP_MAX + 1, err), SP_ERR_ARG);
    CHECK_EQ_INT(sp_session_set_inspect(s, SP_INSPECT_ATTENTION | SP_INSPECT_LENS, 5, err), SP_OK);
    CHECK_EQ_INT(sp_session_start(s, "And God sa", 7, err), SP_OK);
    CHECK_EQ_INT(sp_session_start(plain, "And God sa", 7, err), SP_OK);
    sp_params p;
    sp_params_default(&p);
    p.temperature = 0.8f;
    int steps = 24, bad = 0, lens_bad = 0;
    float *seen = malloc(sizeof(float) * 4 * 4 * 256 * (size_t)steps);
    size_t at = 0;
    for (int i = 0; i < steps; i++) {
        CHECK_EQ_INT(sp_session_preview(s, &p, err), SP_OK);
        const sp_step *st = sp_session_last_step(s);
        const sp_inspection *in = st->inspect;
        CHECK(in != NULL);
        if (!in) break;
        int n = sp_session_n_tokens(s);
        CHECK_EQ_INT(in->pos, n - 1);
        sp_inspection fresh;
        float *lens0 = NULL;
        float *att = capture_after(m, sp_session_tokens(s), n, SP_BATCH_MAX,
                                   &fresh, &lens0);
        bad += !att || memcmp(att, in->attention,
                              sizeof(float) * att_floats(in)) != 0;
        free(att);
        free(lens0);
        memcpy(seen + at, in->attention, sizeof(float) * att_floats(in));
        at += att_floats(in);
        /* the last layer: the raw distribution's top and entropy */
        int ids[5];
        double cum[5];
        sp_step raw = *st;
        raw.probs_tempered = st->probs_raw; /* rank by the raw distribution */
        sp_step_top(&raw, 5, ids, cum);
        const int *top = in->lens_ids + (size_t)(in->n_layers - 1) * 5;
        const float *tp = in->lens_p + (size_t)(in->n_layers - 1) * 5;
        for (int k = 0; k < 5; k++)
            lens_bad += top[k] != ids[k] ||
                        memcmp(&tp[k], &st->probs_raw[ids[k]], 4) != 0;
        lens_bad += in->lens_entropy_bits[in->n_layers - 1] !=
                    st->entropy_raw_bits;
        /* a second preview: the same record, made once */
        CHECK_EQ_INT(sp_session_preview(s, &p, err), SP_OK);
        CHECK(sp_session_last_step(s)->inspect == in);
        CHECK_EQ_INT(sp_session_step(s, &p, -1, err), SP_OK);
        CHECK(sp_session_last_step(s)->inspect == NULL); /* a step's: peek */
        CHECK_EQ_INT(sp_session_step(plain, &p, -1, err), SP_OK);
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(lens_bad, 0);
    CHECK_EQ_INT(sp_session_n_tokens(s), sp_session_n_tokens(plain));
    CHECK(memcmp(sp_session_tokens(s), sp_session_tokens(plain),
                 sizeof(int) * (size_t)sp_session_n_tokens(s)) == 0);
    /* time travel: each past step's look, run again, has the same bits */
    sp_counters before, after;
    sp_session_counters(s, &before);
    at = 0;
    bad = 0;
    for (int i = 0; i < steps; i++) {
        CHECK_EQ_INT(sp_session_peek(s, i, &p, err), SP_OK);
        const sp_inspection *in = sp_session_last_step(s)->inspect;
        CHECK(in != NULL);
        if (!in) break;
        CHECK_EQ_INT(in->pos, sp_session_n_prompt(s) + i - 1);
        bad += memcmp(seen + at, in->attention, sizeof(float) * att_floats(in)) != 0;
        at += att_floats(in);
    }
    CHECK_EQ_INT(bad, 0);
    sp_session_counters(s, &after);
    CHECK(memcmp(&before, &after, sizeof before) == 0);
    /* and the live step after the peeks: its own position again */
    CHECK_EQ_INT(sp_session_preview(s, &p, err), SP_OK);
    CHECK_EQ_INT(sp_session_last_step(s)->inspect->pos, sp_session_n_tokens(s) - 1);
    CHECK_EQ_INT(sp_session_step(s, &p, -1, err), SP_OK);
    CHECK_EQ_INT(sp_session_step(plain, &p, -1, err), SP_OK);
    CHECK_EQ_INT(sp_session_tokens(s)[sp_session_n_tokens(s) - 1],
                 sp_session_tokens(plain)[sp_session_n_tokens(plain) - 1]);
    /* attention alone: no lens */
    CHECK_EQ_INT(sp_session_set_inspect(s, SP_INSPECT_ATTENTION, 0, err), SP_OK);
    CHECK_EQ_INT(sp_session_preview(s, &p, err), SP_OK);
    CHECK(sp_session_last_step(s)->inspect->lens_top == 0);
    CHECK(sp_session_last_step(s)->inspect->lens_ids == NULL);
    /* off: no record */
    CHECK_EQ_INT(sp_session_set_inspect(s, 0, 0, err), SP_OK);
    CHECK_EQ_INT(sp_session_preview(s, &p, err), SP_OK);
    CHECK(sp_session_last_step(s)->inspect == NULL);
    free(seen);
    sp_session_free(s);
    sp_session_free(plain);
    sp_tokenizer_free(tok);
    sp_model_free(m);
}

/* After a batched pass that fed drafts beyond the text (speculative
 * decoding's), the pending step's look is its own position's. */
static void test_ahead(void) {
    sp_model *m = shipped("transformer.bin");
    if (!m) return;
    sp_tokenizer *tok = shipped_tokenizer(sp_model_vocab(m));
    sp_session *s = sp_session_new(m, tok, err);
    CHECK_EQ_INT(sp_session_set_inspect(s, SP_INSPECT_ATTENTION, 0, err), SP_OK);
    CHECK_EQ_INT(sp_session_start(s, "In the beginning", 3, err), SP_OK);
    sp_params p;
    sp_params_default(&p);
    int drafts[4] = {80, 71, 4, 72}, fed = 0;
    CHECK_EQ_INT(sp_session_feed_ahead(s, drafts, 4, &fed, err), SP_OK);
    CHECK_EQ_INT(fed, 4);
    CHECK_EQ_INT(sp_session_step(s, &p, drafts[0], err), SP_OK);
    CHECK_EQ_INT(sp_session_preview(s, &p, err), SP_OK);
    const sp_inspection *in = sp_session_last_step(s)->inspect;
    int n = sp_session_n_tokens(s);
    CHECK(in && in->pos == n - 1 && in->token == drafts[0]);
    sp_inspection fresh;
    float *lens0 = NULL;
    float *att = capture_after(m, sp_session_tokens(s), n, 1, &fresh, &lens0);
    CHECK(in && att && memcmp(att, in->attention, sizeof(float) * att_floats(in)) == 0);
    free(att);
    free(lens0);
    sp_session_feed_ahead_end(s);
    sp_session_free(s);
    sp_tokenizer_free(tok);
    sp_model_free(m);
}

/* No attention to look at: said, by name. */
static void test_no_attention(void) {
    sp_model *b = shipped("bigram.bin");
    CHECK(b != NULL);
    if (b) {
        sp_state *st = sp_state_new(b);
        CHECK_EQ_INT(sp_state_set_capture(b, st, 1, err), SP_ERR_ARG);
        CHECK_STR_CONTAINS(err, "a bigram has no attention");
        CHECK_STR_CONTAINS(err, "previous token");
        sp_session *s = sp_session_new(b, NULL, err);
        CHECK_EQ_INT(sp_session_set_inspect(s, SP_INSPECT_ATTENTION, 0, err), SP_ERR_ARG);
        CHECK_STR_CONTAINS(err, "row of its table");
        sp_session_free(s);
        sp_state_free(st);
        sp_model_free(b);
    }
    sp_model *h = sp_model_handmade("logits:2,1,0", err);
    CHECK(sp_model_no_attention(h) != NULL);
    sp_state *st = sp_state_new(h);
    sp_inspection in;
    CHECK_EQ_INT(sp_state_inspect(h, st, &in, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "hand-made");
    sp_state_free(st);
    sp_model_free(h);
}

/* grouped heads (4 / 2, 6 / 3), one head, one layer, odd sizes */
static void test_random_shapes(void) {
    const int shapes[][6] = {{16, 32, 2, 4, 2, 37}, {24, 50, 1, 1, 1, 41},
                             {48, 96, 3, 6, 3, 99}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        const int *c = shapes[i];
        sp_model *m = checkpoint(c[0], c[1], c[2], c[3], c[4], c[5], 21 + i);
        CHECK(m != NULL);
        char name[64];
        snprintf(name, sizeof name, "random %dx%d, %d/%d heads", c[2], c[0],
                 c[3], c[4]);
        if (m) test_capture(m, name);
        sp_model_free(m);
    }
}

static void test_shipped_capture(void) {
    sp_model *t = shipped("transformer.bin");
    CHECK(t != NULL);
    if (t) test_capture(t, "shipped transformer");
    sp_model_free(t);
}

TEST_SUITE(inspect, TEST(test_random_shapes), TEST(test_shipped_capture),
           TEST(test_session), TEST(test_ahead), TEST(test_no_attention));
