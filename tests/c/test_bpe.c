/*
 * test_bpe.c — llama2.c's tokenizer.bin: the Llama 2 vocabulary of
 * ../shared/fixtures/llama2c against run.c's encode() output, decode round
 * trips, byte fallback, the merge rules on a small made-up vocabulary, and
 * the loader's checks on malformed files.
 *
 * Usage: test_bpe [repository root]   (default: the current folder)
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "internal.h"
#include "json_scan.h"
#include "testutil.h"

/* ---- building tokenizer files -------------------------------------------- */

typedef struct {
    uint8_t *data;
    size_t len, cap;
} bytes;

static void put(bytes *b, const void *p, size_t n) {
    if (b->len + n > b->cap) {
        b->cap = (b->len + n) * 2;
        b->data = realloc(b->data, b->cap);
        if (!b->data) abort();
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

static void put_i32(bytes *b, int32_t v) { put(b, &v, 4); }
static void put_f32(bytes *b, float v) { put(b, &v, 4); }

static void put_piece(bytes *b, float score, const char *s) {
    put_f32(b, score);
    put_i32(b, (int32_t)strlen(s));
    put(b, s, strlen(s));
}

/* ---- helpers ------------------------------------------------------------- */

/* decodes ids[1..n) as run.c's generate() prints what follows the prompt's
 * first token ids[0] (each decoded after the one before) */
static char *decode_all(const sp_tokenizer *t, const int *ids, int n,
                        size_t *len) {
    size_t cap = 16, at = 0;
    char *out = malloc(cap);
    if (!out) abort();
    for (int i = 1; i < n; i++) {
        int piece_len;
        const char *piece = sp_decode(t, ids[i - 1], ids[i], &piece_len);
        if (at + (size_t)piece_len + 1 > cap) {
            cap = (at + (size_t)piece_len + 1) * 2;
            out = realloc(out, cap);
            if (!out) abort();
        }
        memcpy(out + at, piece, (size_t)piece_len);
        at += (size_t)piece_len;
    }
    out[at] = '\0';
    *len = at;
    return out;
}

static void check_round_trip(const sp_tokenizer *t, const char *text) {
    int ids[256];
    char err[SP_ERR_LEN] = "";
    int n = sp_encode(t, text, 1, 0, ids, 256, err);
    CHECK(n > 0);
    if (n <= 0) {
        fprintf(stderr, "encode \"%s\": %s\n", text, err);
        return;
    }
    size_t len;
    char *back = decode_all(t, ids, n, &len);
    CHECK_EQ_INT(len, strlen(text));
    CHECK(memcmp(back, text, strlen(text)) == 0);
    if (len != strlen(text) || memcmp(back, text, len) != 0)
        fprintf(stderr, "round trip: \"%s\" came back as \"%s\"\n", text, back);
    free(back);
}

static sp_tokenizer *expect_load_fail(const uint8_t *data, size_t size,
                                      int vocab, const char *needle) {
    char err[SP_ERR_LEN] = "";
    sp_tokenizer *t = sp_tokenizer_load(data, size, vocab, err);
    CHECK(t == NULL);
    CHECK_STR_CONTAINS(err, needle);
    sp_tokenizer_free(t);
    return NULL;
}

/* ---- the Llama 2 vocabulary ---------------------------------------------- */

static void golden_cases(const sp_tokenizer *t, const char *golden) {
    CHECK_EQ_INT(js_number(js_get(golden, "vocab_size")), 32000);
    int n_cases = 0;
    for (const char *c = js_first(js_get(golden, "encode")); c;
         c = js_next(c), n_cases++) {
        char *text = js_string(js_get(c, "text"));
        CHECK(text != NULL);
        if (!text) continue;
        int bos = js_bool(js_get(c, "bos")), eos = js_bool(js_get(c, "eos"));
        int want[256], n_want = 0;
        for (const char *v = js_first(js_get(c, "ids")); v && n_want < 256;
             v = js_next(v))
            want[n_want++] = (int)js_number(v);
        int got[256];
        char err[SP_ERR_LEN] = "";
        int n = sp_encode(t, text, bos, eos, got, 256, err);
        CHECK_EQ_INT(n, n_want);
        int same = n == n_want;
        for (int i = 0; same && i < n; i++) same = got[i] == want[i];
        CHECK(same);
        if (!same) fprintf(stderr, "encode \"%s\" differs (%s)\n", text, err);
        free(text);
    }
    CHECK_EQ_INT(n_cases, 8);
}

static void llama_vocab(const sp_tokenizer *t) {
    CHECK_EQ_INT(t->kind, SP_TOK_BPE);
    CHECK_EQ_INT(sp_tokenizer_vocab(t), 32000);
    CHECK_EQ_INT(sp_tokenizer_bos(t), 1);
    CHECK_EQ_INT(sp_tokenizer_eos(t), 2);
    CHECK_EQ_INT(t->max_token_length, 27);
    for (int b = 0; b < 256; b++) CHECK_EQ_INT(t->byte_fallback[b], b + 3);

    /* decode: the leading space goes after BOS only; <0xXX> is one byte */
    int len;
    const char *s = sp_decode(t, 1, 9038, &len); /* " Once" */
    CHECK_EQ_INT(len, 4);
    CHECK(memcmp(s, "Once", 4) == 0);
    s = sp_decode(t, 263, 9038, &len);
    CHECK_EQ_INT(len, 5);
    CHECK(memcmp(s, " Once", 5) == 0);
    s = sp_decode(t, 1, 3 + 0x0a, &len);
    CHECK_EQ_INT(len, 1);
    CHECK_EQ_INT(s[0], '\n');
    s = sp_decode(t, 5, 3 + 0xf0, &len);
    CHECK_EQ_INT(len, 1);
    CHECK_EQ_INT((unsigned char)s[0], 0xf0);
    s = sp_decode(t, 5, 3, &len); /* <0x00>: a NUL byte, counted */
    CHECK_EQ_INT(len, 1);
    CHECK_EQ_INT(s[0], 0);
    s = sp_decode(t, 5, 32000, &len); /* out of range */
    CHECK_EQ_INT(len, 0);

    check_round_trip(t, "Once upon a time");
    check_round_trip(t, "  two  spaces");
    check_round_trip(t, "The quick brown fox jumps over the lazy dog.");
    check_round_trip(t, "h\xc3\xa9llo w\xc3\xb6rld, 1 \xe2\x82\xac");
    check_round_trip(t, "line one\nline\ttwo");

    /* byte fallback: U+1F600 is not a piece: its four bytes' pieces */
    const char *emoji = "\xf0\x9f\x98\x80";
    int ids[16];
    char err[SP_ERR_LEN] = "";
    int n = sp_encode(t, emoji, 0, 0, ids, 16, err);
    CHECK_EQ_INT(n, 5);
    if (n == 5) {
        CHECK_EQ_INT(ids[0], 29871); /* the dummy prefix " " */
        CHECK_EQ_INT(ids[1], 3 + 0xf0);
        CHECK_EQ_INT(ids[2], 3 + 0x9f);
        CHECK_EQ_INT(ids[3], 3 + 0x98);
        CHECK_EQ_INT(ids[4], 3 + 0x80);
    }
    check_round_trip(t, "a \xf0\x9f\x98\x80 smile \xf0\x9f\xa6\x99!");

    /* the count limit applies to the merged result */
    n = sp_encode(t, "Once upon a time", 1, 0, ids, 5, err);
    CHECK_EQ_INT(n, 5);
    n = sp_encode(t, "Once upon a time", 1, 0, ids, 4, err);
    CHECK_EQ_INT(n, -1);
    CHECK_STR_CONTAINS(err, "prompt: more than 4 tokens");
    n = sp_encode(t, "", 0, 0, ids, 0, err);
    CHECK_EQ_INT(n, 0);
    n = sp_encode(t, "", 0, 1, ids, 16, err);
    CHECK_EQ_INT(n, 1);
    CHECK_EQ_INT(ids[0], 2);
}

/* ---- merges on a made-up vocabulary -------------------------------------- */

static void test_merge_rules(void) {
    bytes b = {0};
    put_i32(&b, 6);
    put_piece(&b, 0, "<unk>");
    put_piece(&b, 0, "\n<s>\n");
    put_piece(&b, 0, "\n</s>\n");
    put_piece(&b, -5, " "); /* 3 */
    put_piece(&b, -5, "a"); /* 4 */
    put_piece(&b, -5, "b"); /* 5 */
    put_piece(&b, 1, "ab");   /* 6 */
    put_piece(&b, 1, "ba");   /* 7: ties with "ab" */
    put_piece(&b, 0.5f, " a"); /* 8 */
    put_piece(&b, -2e10f, "bb"); /* 9: below run.c's -1e10 floor */
    put_piece(&b, 0, "\xc3\xa9"); /* 10: a 2-byte character */
    char err[SP_ERR_LEN] = "";
    sp_tokenizer *t = sp_tokenizer_load(b.data, b.len, 0, err);
    CHECK(t != NULL);
    if (!t) {
        fprintf(stderr, "%s\n", err);
        free(b.data);
        return;
    }
    CHECK_EQ_INT(sp_tokenizer_vocab(t), 11);
    for (int i = 0; i < 256; i++) CHECK_EQ_INT(t->byte_fallback[i], -1);

    int ids[16];
    /* " aba": pairs " a" 0.5, "ab" 1, "ba" 1 -> the first best, "ab" */
    int n = sp_encode(t, "aba", 0, 0, ids, 16, err);
    CHECK_EQ_INT(n, 3);
    CHECK(n == 3 && ids[0] == 3 && ids[1] == 6 && ids[2] == 4);
    /* "bb" scores below the floor: never merged */
    n = sp_encode(t, "bb", 1, 1, ids, 16, err);
    CHECK_EQ_INT(n, 5);
    CHECK(n == 5 && ids[0] == 1 && ids[1] == 3 && ids[2] == 5 &&
          ids[3] == 5 && ids[4] == 2);
    n = sp_encode(t, "\xc3\xa9", 0, 0, ids, 16, err);
    CHECK_EQ_INT(n, 2);
    CHECK(n == 2 && ids[1] == 10);
    /* no byte pieces: a missing character is an error */
    n = sp_encode(t, "abc", 0, 0, ids, 16, err);
    CHECK_EQ_INT(n, -1);
    CHECK_STR_CONTAINS(err, "prompt: the character 'c' (byte offset 2) is "
                       "not in the model's vocabulary");
    n = sp_encode(t, "a\xf0\x9f\x98\x80", 0, 0, ids, 16, err);
    CHECK_EQ_INT(n, -1);
    CHECK_STR_CONTAINS(err, "the character '\xf0\x9f\x98\x80' (byte offset "
                       "1) is not in the model's vocabulary");
    /* decode: no byte pieces here, "<0x41>"-like text stays text */
    int len;
    const char *s = sp_decode(t, 1, 8, &len);
    CHECK_EQ_INT(len, 1);
    CHECK(s[0] == 'a');
    sp_tokenizer_free(t);

    /* reading exactly vocab pieces */
    t = sp_tokenizer_load(b.data, b.len, 11, err);
    CHECK(t != NULL);
    sp_tokenizer_free(t);
    free(b.data);
}

/* ---- malformed files ----------------------------------------------------- */

static void malformed(const uint8_t *data, size_t size) {
    expect_load_fail(data, 3, 0, "tokenizer: file has 3 bytes, shorter than "
                     "its 4-byte header");
    /* cut inside the last piece ("<0x..>"-free: the last piece of Llama's
     * vocabulary is one character of 3 bytes) */
    expect_load_fail(data, size - 1, 0, "tokenizer: truncated in piece 31999: "
                     "3 bytes declared, 2 left");
    expect_load_fail(data, size - 1, 32000, "truncated in piece 31999");
    expect_load_fail(data, size - 5, 0, "tokenizer: truncated at piece "
                     "31999");
    expect_load_fail(data, size, 32001, "truncated at piece 32000");

    uint8_t *d = malloc(size + 16);
    if (!d) abort();
    memcpy(d, data, size);
    /* trailing garbage */
    memset(d + size, 0x55, 16);
    expect_load_fail(d, size + 3, 32000, "tokenizer: 3 bytes of trailing "
                     "data after the 32000 pieces");
    expect_load_fail(d, size + 16, 0, "tokenizer: piece 32000 has length "
                     "1431655765 (must be in 1..27");
    expect_load_fail(d, size, 31999, "bytes of trailing data after the 31999 "
                     "pieces");
    /* piece 0: score at 4, length at 8 */
    int32_t v = -1;
    memcpy(d + 8, &v, 4);
    expect_load_fail(d, size, 0, "tokenizer: piece 0 has length -1 (must be "
                     "in 1..27");
    v = 0;
    memcpy(d + 8, &v, 4);
    expect_load_fail(d, size, 0, "piece 0 has length 0");
    v = 28;
    memcpy(d + 8, &v, 4);
    expect_load_fail(d, size, 0, "piece 0 has length 28 (must be in 1..27");
    memcpy(d, data, 12);
    float nan = NAN;
    memcpy(d + 4, &nan, 4);
    expect_load_fail(d, size, 0, "piece 0 has a score that is not finite");
    memcpy(d, data, 12);
    d[12 + 2] = 0; /* "<unk>" -> "<u\0k>" */
    expect_load_fail(d, size, 0, "piece 0 contains a NUL byte");
    d[12 + 2] = data[12 + 2];
    v = 0;
    memcpy(d, &v, 4);
    expect_load_fail(d, size, 0, "max_token_length must be in 1..65536 (got "
                     "0)");
    memcpy(d, data, 4);

    /* header only */
    expect_load_fail(d, 4, 0, "tokenizer: the file has no pieces");
    free(d);
}

/* A tokenizer.bin chosen as the model is named as what it is (its header
 * read as a checkpoint's said "hidden_dim must be > 0 (got 0)"). */
static void tokenizer_as_model(const uint8_t *data, size_t size,
                                    int pieces) {
    char err[SP_ERR_LEN] = "", want[128];
    uint8_t *copy = malloc(size);
    memcpy(copy, data, size);
    sp_model *m = sp_model_load(copy, size, 0, err);
    CHECK(m == NULL);
    snprintf(want, sizeof want, "model: this is a llama2.c tokenizer.bin "
             "(%d pieces), not a model: choose a checkpoint, with this file "
             "as its tokenizer", pieces);
    CHECK_STR_CONTAINS(err, want);
    sp_model_free(m);
    free(copy);
}

/* tokenizer.bin of three pieces "a", "bc", "d" (scores 0, -1, -2). */
static uint8_t *tiny_tokenizer_bin(size_t *size) {
    static const char *pieces[] = {"a", "bc", "d"};
    uint8_t *d = malloc(64);
    size_t at = 0;
    int32_t max_len = 2;
    memcpy(d, &max_len, 4);
    at = 4;
    for (int i = 0; i < 3; i++) {
        float score = (float)-i;
        int32_t len = (int32_t)strlen(pieces[i]);
        memcpy(d + at, &score, 4);
        memcpy(d + at + 4, &len, 4);
        memcpy(d + at + 8, pieces[i], (size_t)len);
        at += 8 + (size_t)len;
    }
    *size = at;
    return d;
}

/* A checkpoint without its tokenizer: a tokenizer of ids reads "<i>"
 * pieces, begins with BOS 1 as run.c does, and a session runs on it. */
static void test_ids_tokenizer(void) {
    char err[SP_ERR_LEN] = "";
    sp_tokenizer *t = sp_tokenizer_ids(512, err);
    CHECK(t != NULL);
    if (!t) return;
    CHECK_EQ_INT(sp_tokenizer_vocab(t), 512);
    CHECK_EQ_INT(sp_tokenizer_kind(t), SP_TOK_LABEL);
    CHECK_EQ_INT(sp_tokenizer_bos(t), 1);
    CHECK_EQ_INT(sp_tokenizer_eos(t), 2);
    int ids[16];
    int n = sp_encode(t, "<17><4><511>", 1, 0, ids, 16, err);
    CHECK_EQ_INT(n, 4);
    if (n == 4) {
        CHECK_EQ_INT(ids[0], 1);
        CHECK_EQ_INT(ids[1], 17);
        CHECK_EQ_INT(ids[2], 4);
        CHECK_EQ_INT(ids[3], 511);
    }
    CHECK_EQ_INT(sp_encode(t, "<17>", 0, 0, ids, 16, err), 1);
    CHECK_EQ_INT(sp_encode(t, "<512>", 1, 0, ids, 16, err), -1);
    CHECK_STR_CONTAINS(err, "no token's label matches the text at byte offset 0");
    int len = 0;
    const char *piece = sp_decode(t, 1, 17, &len);
    CHECK_EQ_INT(len, 4);
    CHECK(len == 4 && memcmp(piece, "<17>", 4) == 0);
    CHECK(sp_tokenizer_ids(0, err) == NULL);
    CHECK_STR_CONTAINS(err, "must have 1..1000000 tokens (got 0)");

    /* a random checkpoint of 512 tokens, explored with ids */
    size_t size;
    uint8_t *ck = random_checkpoint(16, 32, 1, 2, 2, 512, 32, 7, 0.2f, -0.1f,
                                    &size);
    sp_model *m = sp_model_load(ck, size, 1, err);
    CHECK(m != NULL);
    sp_session *s = m ? sp_session_new(m, t, err) : NULL;
    CHECK(s != NULL);
    if (s) {
        CHECK_EQ_INT(sp_session_start(s, "", 1, err), SP_OK);
        CHECK_EQ_INT(sp_session_n_prompt(s), 1); /* BOS */
        sp_params p;
        sp_params_default(&p);
        for (int i = 0; i < 5; i++) CHECK_EQ_INT(sp_session_step(s, &p, -1, err), SP_OK);
        CHECK_EQ_INT(sp_session_n_generated(s), 5);
        CHECK_EQ_INT(sp_session_start(s, "<17><4>", 1, err), SP_OK);
        CHECK_EQ_INT(sp_session_n_prompt(s), 3);
        CHECK_EQ_INT(sp_session_tokens(s)[1], 17);
    }
    sp_session_free(s);
    sp_model_free(m);
    sp_tokenizer_free(t);

    /* the hand-made model's labels still begin with no BOS */
    sp_model *h = sp_model_handmade("logits:2,1,0", err);
    CHECK(h != NULL);
    if (h) CHECK_EQ_INT(sp_encode(sp_model_tokenizer(h), "ab", 1, 0, ids, 16, err), 2);
    sp_model_free(h);
}

/* A tokenizer.bin made here, as a model. */
static void test_tiny_as_model(void) {
    size_t tiny_size;
    uint8_t *tiny = tiny_tokenizer_bin(&tiny_size);
    tokenizer_as_model(tiny, tiny_size, 3);
    free(tiny);
}

/* The Llama 2 tokenizer (the llama2.c fixture's tokenizer.bin) given to
 * run(t, t0, data, size, golden): t read for 32 000 tokens, t0 for the
 * file's own count; a skip without the fixtures. */
static void with_llama2(void (*run)(const sp_tokenizer *, const uint8_t *,
                                    size_t, const char *)) {
    char dir[4096], path[4200];
    snprintf(dir, sizeof dir, "%s/../shared/fixtures/llama2c", test_root);
    snprintf(path, sizeof path, "%s/tokenizer.bin", dir);
    size_t size = 0;
    uint8_t *data = (uint8_t *)js_read_file(path, &size);
    if (!data) {
        FILE *probe = fopen(dir, "r");
        if (!probe) {
            fixtures_missing("the Llama 2 tokenizer");
            return;
        }
        fclose(probe);
        CHECK(!"the fixtures are there, but not tokenizer.bin");
        return;
    }
    snprintf(path, sizeof path, "%s/tokenizer.golden.json", dir);
    char *golden = js_read_file(path, NULL);
    CHECK(golden != NULL);
    char err[SP_ERR_LEN] = "";
    sp_tokenizer *t = sp_tokenizer_load(data, size, 32000, err);
    CHECK(t != NULL);
    sp_tokenizer *t0 = sp_tokenizer_load(data, size, 0, err);
    CHECK(t0 != NULL);
    if (t && t0) {
        CHECK_EQ_INT(sp_tokenizer_vocab(t0), 32000);
        run(t, data, size, golden);
    } else {
        fprintf(stderr, "load: %s\n", err);
    }
    sp_tokenizer_free(t);
    sp_tokenizer_free(t0);
    free(data);
    free(golden);
}

static void llama_vocab_case(const sp_tokenizer *t, const uint8_t *data,
                             size_t size, const char *golden) {
    (void)data, (void)size, (void)golden;
    llama_vocab(t);
}
static void golden_case(const sp_tokenizer *t, const uint8_t *data,
                        size_t size, const char *golden) {
    (void)data, (void)size;
    if (golden) golden_cases(t, golden);
}
static void malformed_case(const sp_tokenizer *t, const uint8_t *data,
                           size_t size, const char *golden) {
    (void)t, (void)golden;
    malformed(data, size);
}
static void as_model_case(const sp_tokenizer *t, const uint8_t *data,
                          size_t size, const char *golden) {
    (void)t, (void)golden;
    tokenizer_as_model(data, size, 32000);
}

static void test_llama_vocab(void) { with_llama2(llama_vocab_case); }
static void test_golden(void) { with_llama2(golden_case); }
static void test_malformed(void) { with_llama2(malformed_case); }
static void test_llama2_as_model(void) { with_llama2(as_model_case); }

TEST_SUITE(bpe,
           TEST(test_merge_rules),
           TEST(test_ids_tokenizer),
           TEST(test_tiny_as_model),
           TEST(test_llama_vocab),
           TEST(test_golden),
           TEST(test_malformed),
           TEST(test_llama2_as_model));
