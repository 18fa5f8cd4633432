/*
 * test_transformer.c — the llama2.c decoder against run.c's own output on
 * stories260K.bin (../shared/fixtures/llama2c), and the loader's checks on
 * malformed checkpoints.
 *
 * Usage: test_transformer [repository root]   (default: the current folder)
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "internal.h"
#include "json_scan.h"

#define HEADER_BYTES 28

static size_t fixture_size;

/* a malloc'd copy of the fixture with `extra` more bytes of room */
static uint8_t *copy_of(const uint8_t *data, size_t extra) {
    uint8_t *c = malloc(fixture_size + extra + 1);
    if (!c) abort();
    memcpy(c, data, fixture_size);
    return c;
}

static void set_i32(uint8_t *data, int field, int32_t v) {
    memcpy(data + 4 * field, &v, 4);
}

static int argmax(const float *x, int n) {
    int best = 0;
    for (int i = 1; i < n; i++)
        if (x[i] > x[best]) best = i; /* ties: the lowest id */
    return best;
}

/* Loads data[0..size) (copied, so data stays ours) and expects failure
 * with a message containing `needle`. */
static void expect_fail(uint8_t *data, size_t size, const char *needle) {
    char err[SP_ERR_LEN] = "";
    sp_model m;
    memset(&m, 0, sizeof m);
    int rc = sp_transformer_load(&m, data, size, 0, err);
    CHECK_EQ_INT(rc, SP_ERR_FORMAT);
    CHECK(m.transformer == NULL);
    CHECK_STR_CONTAINS(err, needle);
    if (rc == SP_OK) sp_transformer_free(m.transformer);
    /* and the same when offered ownership: nothing is kept on failure */
    rc = sp_transformer_load(&m, data, size, 1, err);
    CHECK_EQ_INT(rc, SP_ERR_FORMAT);
    CHECK_STR_CONTAINS(err, needle);
    if (rc == SP_OK) {
        m.transformer = NULL; /* would own data: leak rather than double free */
    }
}

static void malformed(const uint8_t *good) {
    uint8_t *d = copy_of(good, 8);

    expect_fail(d, 20, "shorter than the 28-byte header");
    expect_fail(d, 0, "file has 0 bytes");
    expect_fail(d, fixture_size / 2, "checkpoint: file has 528270 bytes, "
                "header implies 1056540");
    expect_fail(d, fixture_size - 1, "file has 1056539 bytes, header implies "
                "1056540");
    memset(d + fixture_size, 0, 8);
    expect_fail(d, fixture_size + 1, "file has 1056541 bytes, header implies "
                "1056540");

    /* header fields: dim 64, hidden 172, layers 5, heads 8, kv 4, vocab 512,
     * seq_len 512 */
    static const struct {
        int field;
        int32_t value;
        const char *needle;
    } cases[] = {
        {3, 7, "n_heads (7) does not divide dim (64)"},
        {4, 3, "n_kv_heads (3) does not divide n_heads (8)"},
        {4, 16, "n_kv_heads (16) does not divide n_heads (8)"},
        {3, 64, "head size 1 (dim 64 / n_heads 64) is odd"},
        {0, 0, "dim must be > 0 (got 0)"},
        {0, -64, "dim must be > 0 (got -64)"},
        {1, 0, "hidden_dim must be > 0 (got 0)"},
        {2, -1, "n_layers must be > 0 (got -1)"},
        {3, 0, "n_heads must be > 0 (got 0)"},
        {4, -4, "n_kv_heads must be > 0 (got -4)"},
        {6, 0, "seq_len must be > 0 (got 0)"},
        {6, 2000000, "seq_len must be in 1..1000000 (got 2000000)"},
        {5, 0, "vocab_size must be in 1..1000000 in absolute value (got 0)"},
        {5, 2000000000, "vocab_size must be in 1..1000000 in absolute value "
                        "(got 2000000000)"},
        {5, INT32_MIN, "vocab_size must be in 1..1000000 in absolute value "
                       "(got -2147483648)"},
        {5, -511, "file has 1056540 bytes, header implies 1187100"},
        {1, 2000000000, "header implies"},
        {0, 1073741824, "too large"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memcpy(d, good, HEADER_BYTES);
        set_i32(d, cases[i].field, cases[i].value);
        expect_fail(d, fixture_size, cases[i].needle);
    }
    memcpy(d, good, HEADER_BYTES);

    /* a NaN in layer 0's wq, element 123; and an inf in the last rms weight */
    size_t wq = HEADER_BYTES + 4 * (size_t)(512 * 64 + 5 * 64);
    float nan = NAN, inf = INFINITY, keep;
    memcpy(&keep, d + wq + 4 * 123, 4);
    memcpy(d + wq + 4 * 123, &nan, 4);
    expect_fail(d, fixture_size, "checkpoint: weight 123 (wq) is not finite");
    memcpy(d + wq + 4 * 123, &keep, 4);
    size_t rms_final = fixture_size - 4 * (size_t)(512 * 8) - 4;
    memcpy(d + rms_final, &inf, 4);
    expect_fail(d, fixture_size, "weight 63 (rms_final_weight) is not finite");
    memcpy(d + rms_final, &keep, 4);
    /* the unused freq_cis tables may hold anything */
    memcpy(d + fixture_size - 4, &nan, 4);
    char err[SP_ERR_LEN] = "";
    sp_model m;
    memset(&m, 0, sizeof m);
    CHECK_EQ_INT(sp_transformer_load(&m, d, fixture_size, 0, err), SP_OK);
    sp_transformer_free(m.transformer);
    free(d);
}

/* The greedy run of the golden file (teacher-forced: the input at position
 * i is golden token i - 1) and its logits; returns the largest logit
 * difference seen. */
static double golden_logits(const sp_transformer *t, const char *golden) {
    const char *tokens = js_get(golden, "greedy_next_tokens");
    const char *logits_at = js_get(golden, "logits_at_positions");
    CHECK(js_first(tokens) != NULL);
    CHECK(logits_at != NULL);
    CHECK_EQ_INT(js_number(js_get(golden, "start_token")), 1);
    void *st = sp_transformer_state_new(t);
    CHECK(st != NULL);
    if (!st) return INFINITY;
    double max_diff = 0.0;
    int n_logit_checks = 0, n_tokens = 0, mismatches = 0, token = 1;
    int pos = 0;
    for (const char *e = js_first(tokens); e; e = js_next(e), pos++) {
        float *logits = sp_transformer_forward(t, st, token, pos);
        CHECK(logits != NULL);
        if (!logits) break;
        int expected = (int)js_number(e);
        int got = argmax(logits, 512);
        if (got != expected) {
            mismatches++;
            fprintf(stderr, "position %d: argmax %d, run.c %d\n", pos, got,
                    expected);
        }
        n_tokens++;
        char key[16];
        snprintf(key, sizeof key, "%d", pos);
        const char *row = js_get(logits_at, key);
        if (row) {
            int i = 0;
            for (const char *v = js_first(row); v; v = js_next(v), i++) {
                if (i >= 512) break;
                double diff = fabs((double)logits[i] - js_number(v));
                if (!(diff <= max_diff)) max_diff = diff; /* NaN sticks */
            }
            CHECK_EQ_INT(i, 512);
            n_logit_checks++;
        }
        token = expected;
    }
    CHECK_EQ_INT(mismatches, 0);
    CHECK_EQ_INT(n_tokens, 256);
    CHECK_EQ_INT(n_logit_checks, 3);
    CHECK(max_diff <= 1e-4);
    fprintf(stderr, "golden: %d greedy tokens, %d mismatches; logits at %d "
            "positions, max |difference| %.3g\n", n_tokens, mismatches,
            n_logit_checks, max_diff);

    /* out-of-range inputs give NULL rather than reading out of bounds */
    CHECK(sp_transformer_forward(t, st, 512, 0) == NULL);
    CHECK(sp_transformer_forward(t, st, -1, 0) == NULL);
    CHECK(sp_transformer_forward(t, st, 1, 512) == NULL);
    sp_transformer_state_free(st);
    return max_diff;
}

/* runs tokens 1, 5, 9 from position 0 and keeps the logits of the last */
static void run3(const sp_transformer *t, float *out) {
    void *st = sp_transformer_state_new(t);
    CHECK(st != NULL);
    if (!st) return;
    const int toks[3] = {1, 5, 9};
    float *logits = NULL;
    for (int i = 0; i < 3; i++) logits = sp_transformer_forward(t, st, toks[i], i);
    memcpy(out, logits, 512 * sizeof(float));
    sp_transformer_state_free(st);
}

static void unshared_classifier(const uint8_t *good, const float *ref) {
    size_t emb_bytes = 512 * 64 * 4;
    uint8_t *d = copy_of(good, emb_bytes);
    memcpy(d + fixture_size, good + HEADER_BYTES, emb_bytes);
    set_i32(d, 5, -512);
    char err[SP_ERR_LEN] = "";
    sp_model m;
    memset(&m, 0, sizeof m);
    int rc = sp_transformer_load(&m, d, fixture_size + emb_bytes, 0, err);
    CHECK_EQ_INT(rc, SP_OK);
    if (rc != SP_OK) {
        fprintf(stderr, "%s\n", err);
        free(d);
        return;
    }
    CHECK_EQ_INT(m.vocab, 512);
    float got[512];
    run3(m.transformer, got);
    CHECK(memcmp(got, ref, sizeof got) == 0);
    sp_transformer_free(m.transformer);

    /* the classifier really is the appended one: zero its row 7 (owned) */
    memset(d + fixture_size + 7 * 64 * 4, 0, 64 * 4);
    rc = sp_transformer_load(&m, d, fixture_size + emb_bytes, 1, err);
    CHECK_EQ_INT(rc, SP_OK);
    if (rc != SP_OK) {
        free(d);
        return;
    }
    run3(m.transformer, got);
    CHECK(got[7] == 0.0f);
    CHECK(got[6] == ref[6] && got[8] == ref[8]);
    sp_transformer_free(m.transformer); /* frees d */
}

/* stories260K (the llama2.c fixture) and its golden logits, read once;
 * NULL when the fixtures are missing (a skip) or wrong (a failed check). */
static uint8_t *fixture;
static char *golden;
static int fixture_read, fixture_missing;

static uint8_t *stories260k(void) {
    if (fixture_missing) fixtures_missing("stories260K");
    if (fixture_read) return fixture;
    fixture_read = 1;
    char dir[4096], path[4200];
    snprintf(dir, sizeof dir, "%s/../shared/fixtures/llama2c", test_root);
    snprintf(path, sizeof path, "%s/stories260K.bin", dir);
    fixture = (uint8_t *)js_read_file(path, &fixture_size);
    if (!fixture) {
        FILE *probe = fopen(dir, "r");
        CHECK(probe == NULL); /* the folder is there: the file must be */
        if (probe) fclose(probe);
        else fixtures_missing("stories260K");
        fixture_missing = !probe;
        return NULL;
    }
    snprintf(path, sizeof path, "%s/stories260K.golden.json", dir);
    golden = js_read_file(path, NULL);
    CHECK(golden != NULL);
    CHECK_EQ_INT(fixture_size, 1056540);
    if (!golden || fixture_size != 1056540) {
        free(fixture);
        fixture = NULL;
    }
    return fixture;
}

/* The model, copied (the fixture stays ours), and the logits of three
 * steps (run3) into ref; 0 (a skip or a failed check) when it cannot. */
static int load_model(sp_model *m, float *ref) {
    uint8_t *data = stories260k();
    if (!data) return 0;
    char err[SP_ERR_LEN] = "";
    memset(m, 0, sizeof *m);
    int rc = sp_transformer_load(m, data, fixture_size, 0, err);
    CHECK_EQ_INT(rc, SP_OK);
    if (rc != SP_OK) {
        fprintf(stderr, "load: %s\n", err);
        return 0;
    }
    run3(m->transformer, ref);
    return 1;
}

/* The model's logits against run.c's (stories260K.golden.json). */
static void test_golden(void) {
    sp_model m;
    float ref[512];
    if (!load_model(&m, ref)) return;
    CHECK_EQ_INT(m.kind, SP_MODEL_TRANSFORMER);
    CHECK_EQ_INT(m.vocab, 512);
    CHECK_EQ_INT(m.seq_len, 512);
    CHECK(m.tokenizer == NULL);
    golden_logits(m.transformer, golden);
    sp_transformer_free(m.transformer);
}

/* The same model read in place (owned): identical bits; and a fresh state
 * gives the same logits as the first one did. */
static void test_in_place(void) {
    sp_model m, owned;
    float ref[512];
    char err[SP_ERR_LEN] = "";
    if (!load_model(&m, ref)) return;
    memset(&owned, 0, sizeof owned);
    uint8_t *image = copy_of(fixture, 0);
    int rc = sp_transformer_load(&owned, image, fixture_size, 1, err);
    CHECK_EQ_INT(rc, SP_OK);
    if (rc == SP_OK) {
        float got[512];
        run3(owned.transformer, got);
        CHECK(memcmp(got, ref, sizeof got) == 0);
        sp_transformer_free(owned.transformer); /* frees image */
    } else {
        free(image);
    }
    float again[512];
    run3(m.transformer, again);
    CHECK(memcmp(again, ref, sizeof again) == 0);
    sp_transformer_free(m.transformer);
}

static void test_unshared_classifier(void) {
    sp_model m;
    float ref[512];
    if (!load_model(&m, ref)) return;
    unshared_classifier(fixture, ref);
    sp_transformer_free(m.transformer);
}

static void test_malformed(void) {
    sp_model m;
    float ref[512];
    if (!load_model(&m, ref)) return;
    malformed(fixture);
    sp_transformer_free(m.transformer);
}

TEST_SUITE(transformer,
           TEST(test_golden),
           TEST(test_in_place),
           TEST(test_unshared_classifier),
           TEST(test_malformed));
