/*
 * test_hostile_text.c — hostile text: tokenizer.bin images (truncations, lengths,
 * scores, trailing bytes, another model's tokenizer) and prompts (invalid
 * UTF-8, characters outside the vocabulary, very long ones): each gets its
 * one-line message, nothing crashes, nothing leaks.
 *
 * (hostile.h: what the test_hostile*.c files share.)
 */
#include <float.h>
#include <limits.h>
#include <time.h>

#include "bpe_reference.h"
#include "hostile.h"

/* ---- tokenizer.bin ------------------------------------------------------------ */

static void test_tokenizer_files(void) {
    bb_bytes good = {0};
    bb_tiny_tokenizer(&good);
    sp_tokenizer *t = sp_tokenizer_load(good.data, good.len, 0, err);
    CHECK(t != NULL);
    CHECK(t && t->vocab == BB_TINY_VOCAB && t->bos == 1 && t->eos == 2);
    sp_tokenizer_free(t);
    t = sp_tokenizer_load(good.data, good.len, BB_TINY_VOCAB, err);
    CHECK(t != NULL);
    sp_tokenizer_free(t);

    size_t size = good.len;
    char needle[200];
    uint8_t *d = malloc(size + 64);
    if (!d) abort();
    memcpy(d, good.data, size);
    memset(d + size, 0x55, 64);
    /* piece 0 "<unk>": score at 4, length at 8, bytes at 12..17; piece 1 at
     * 17 */
    tokenizer_fails(d, 0, 0, "tokenizer: file has 0 bytes, shorter than its "
                    "4-byte header");
    tokenizer_fails(d, 3, 0, "tokenizer: file has 3 bytes");
    tokenizer_fails(d, 4, 0, "tokenizer: the file has no pieces");
    tokenizer_fails(d, 9, 0, "tokenizer: truncated at piece 0 (byte 4 of 9): "
                    "no room for its score and length");
    tokenizer_fails(d, 14, 0, "tokenizer: truncated in piece 0: 5 bytes "
                    "declared, 2 left");
    tokenizer_fails(d, 17 + 6, 0, "tokenizer: truncated at piece 1");
    tokenizer_fails(d, size - 1, 0, "tokenizer: truncated in piece 11: 3 "
                    "bytes declared, 2 left");
    /* trailing bytes */
    snprintf(needle, sizeof needle, "tokenizer: truncated at piece 12 (byte "
             "%zu of %zu): no room for its score and length", size, size + 3);
    tokenizer_fails(d, size + 3, 0, needle);
    tokenizer_fails(d, size + 3, 12, "tokenizer: 3 bytes of trailing data "
                    "after the 12 pieces");
    /* 8 more bytes read as a 13th piece: score 0x55555555, length huge */
    tokenizer_fails(d, size + 12, 0, "tokenizer: piece 12 has length "
                    "1431655765 (must be in 1..6, the file's "
                    "max_token_length)");
    /* another model's tokenizer: the counts disagree, and it says so */
    tokenizer_fails(d, size, 11, "tokenizer: 11 bytes of trailing data after "
                    "the 11 pieces (the file has 12 pieces, the model 11 "
                    "logits: not its tokenizer)");
    snprintf(needle, sizeof needle, "tokenizer: truncated at piece 12 (byte "
             "%zu of %zu): no room for its score and length (the file has 12 "
             "pieces, the model 13 logits: not its tokenizer)", size, size);
    tokenizer_fails(d, size, 13, needle);
    tokenizer_fails(d, size, 1000001, "(the file has 12 pieces, the model "
                    "1000001 logits");

    /* lengths: negative, zero, past max_token_length, past the end */
    static const struct {
        int32_t len;
        const char *needle;
    } lens[] = {
        {-1, "tokenizer: piece 0 has length -1 (must be in 1..6"},
        {INT32_MIN, "tokenizer: piece 0 has length -2147483648"},
        {0, "tokenizer: piece 0 has length 0 (must be in 1..6"},
        {7, "tokenizer: piece 0 has length 7 (must be in 1..6"},
        {INT32_MAX, "tokenizer: piece 0 has length 2147483647"},
    };
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        memcpy(d, good.data, size);
        memcpy(d + 8, &lens[i].len, 4);
        tokenizer_fails(d, size, 0, lens[i].needle);
    }
    /* max_token_length large enough that the length passes, the bytes are
     * not there */
    memcpy(d, good.data, size);
    int32_t v = 65536, len = 60000;
    memcpy(d, &v, 4);
    memcpy(d + 8, &len, 4);
    snprintf(needle, sizeof needle, "tokenizer: truncated in piece 0: 60000 "
             "bytes declared, %zu left", size - 12);
    tokenizer_fails(d, size, 0, needle);
    static const int32_t max_lens[] = {0, -5, 65537, INT32_MIN, INT32_MAX};
    for (size_t i = 0; i < sizeof max_lens / sizeof max_lens[0]; i++) {
        memcpy(d, good.data, size);
        memcpy(d, &max_lens[i], 4);
        snprintf(needle, sizeof needle, "tokenizer: max_token_length must be "
                 "in 1..65536 (got %d)", (int)max_lens[i]);
        tokenizer_fails(d, size, 0, needle);
    }
    /* scores: NaN, +inf, -inf */
    static const float nonfinite[3] = {NAN, INFINITY, -INFINITY};
    for (int k = 0; k < 3; k++) {
        memcpy(d, good.data, size);
        memcpy(d + 17, &nonfinite[k], 4);
        tokenizer_fails(d, size, 0, "tokenizer: piece 1 has a score that is "
                        "not finite");
    }
    /* a NUL inside a piece */
    memcpy(d, good.data, size);
    d[13] = 0;
    tokenizer_fails(d, size, 0, "tokenizer: piece 0 contains a NUL byte");
    free(d);

    /* duplicate pieces are allowed; the lowest id wins a lookup */
    bb_bytes dup = {0};
    static const char *const dup_pieces[] = {"<unk>", "<s>", "</s>", "a", "a",
                                             " ", "a", "aa"};
    bb_tokenizer(&dup, 5, 8, dup_pieces, NULL);
    t = sp_tokenizer_load(dup.data, dup.len, 0, err);
    CHECK(t != NULL);
    if (t) {
        CHECK_EQ_INT(sp_tokenizer_lookup(t, "a", 1), 3);
        int ids[8];
        CHECK_EQ_INT(sp_encode(t, "aaa", 1, 1, ids, 8, err), 5);
        CHECK_EQ_INT(ids[0], 1);
        CHECK_EQ_INT(ids[1], 5); /* " " */
        CHECK_EQ_INT(ids[2], 7); /* "aa" */
        CHECK_EQ_INT(ids[3], 3); /* "a" */
        CHECK_EQ_INT(ids[4], 2);
        sp_tokenizer_free(t);
    }
    bb_free(&dup);
    /* a one-piece tokenizer: no BOS, no EOS */
    bb_bytes one = {0};
    static const char *const one_piece[] = {"x"};
    bb_tokenizer(&one, 1, 1, one_piece, NULL);
    t = sp_tokenizer_load(one.data, one.len, 0, err);
    CHECK(t != NULL);
    if (t) {
        int ids[4];
        CHECK_EQ_INT(sp_encode(t, "x", 1, 0, ids, 4, err), -1);
        CHECK_STR_CONTAINS(err, "prompt: the tokenizer has no BOS token");
        CHECK_EQ_INT(sp_encode(t, "x", 0, 1, ids, 4, err), -1);
        CHECK_STR_CONTAINS(err, "prompt: the tokenizer has no EOS token");
        sp_tokenizer_free(t);
    }
    bb_free(&one);
    bb_free(&good);
}

/* ---- prompts --------------------------------------------------------------- */


static void test_prompts(void) {
    bb_bytes tb = {0};
    bb_tiny_tokenizer(&tb);
    sp_tokenizer *t = sp_tokenizer_load(tb.data, tb.len, 0, err);
    CHECK(t != NULL);
    if (!t) return;
    int ids[64];

    /* characters outside the vocabulary, with and without byte fallback;
     * the message shows control characters escaped: still one line */
    CHECK_EQ_INT(sp_encode(t, "ab\nc", 1, 0, ids, 64, err), 5);
    CHECK_EQ_INT(ids[3], 9); /* "\n" -> <0x0A> */
    CHECK_EQ_INT(sp_encode(t, "a\tb", 1, 0, ids, 64, err), -1);
    CHECK_STR_CONTAINS(err, "prompt: the character '\\t' (byte offset 1) is "
                       "not in the model's vocabulary");
    check_one_line(err);
    CHECK_EQ_INT(sp_encode(t, "a\rb", 1, 0, ids, 64, err), -1);
    CHECK_STR_CONTAINS(err, "the character '\\r' (byte offset 1)");
    CHECK_EQ_INT(sp_encode(t, "\x1b[2J", 1, 0, ids, 64, err), -1);
    CHECK_STR_CONTAINS(err, "the character '\\x1b' (byte offset 0)");
    /* invalid UTF-8: byte fallback as in run.c where there is one */
    CHECK_EQ_INT(sp_encode(t, "a\xff", 1, 0, ids, 64, err), 3);
    CHECK_EQ_INT(ids[1], 8); /* " a" */
    CHECK_EQ_INT(ids[2], 10);
    CHECK_EQ_INT(sp_encode(t, "a\xfe", 1, 0, ids, 64, err), -1);
    CHECK_STR_CONTAINS(err, "the character '\\xfe' (byte offset 1)");
    CHECK_EQ_INT(sp_encode(t, "\xc3\x28", 1, 0, ids, 64, err), -1);
    CHECK_STR_CONTAINS(err, "the character '\\xc3' (byte offset 0)");
    CHECK_EQ_INT(sp_encode(t, "\xe2\x80\xa8", 1, 0, ids, 64, err), -1);
    CHECK_STR_CONTAINS(err, "the character '\\xe2\\x80\\xa8' (byte offset 0)");
    CHECK_EQ_INT(sp_encode(t, "\xc3\xa9", 1, 0, ids, 64, err), -1);
    CHECK_STR_CONTAINS(err, "the character '\xc3\xa9' (byte offset 0)");
    /* too many tokens for the room given */
    CHECK_EQ_INT(sp_encode(t, "abcabc", 1, 1, ids, 3, err), -1);
    CHECK_STR_CONTAINS(err, "prompt: more than 3 tokens");
    CHECK_EQ_INT(sp_encode(t, "", 1, 1, ids, 2, err), 2);

    /* the heap-based merges pick what run.c's scan picks: random strings
     * over the tokenizer's characters */
    uint32_t x = 12345;
    static const char alphabet[] = "abc \n\xff";
    int *a = malloc(sizeof(int) * 300), *b = malloc(sizeof(int) * 300);
    char text[256];
    for (int round = 0; round < 3000; round++) {
        int n = (int)(x % 40);
        for (int i = 0; i < n; i++) {
            x = x * 1664525u + 1013904223u;
            text[i] = alphabet[(x >> 16) % 6];
        }
        text[n] = '\0';
        x = x * 1664525u + 1013904223u;
        int got = sp_encode(t, text, (int)(x >> 31), 0, a, 300, err);
        int want = reference_encode(t, text, (int)(x >> 31), 0, b);
        CHECK_EQ_INT(got, want);
        if (got == want && got > 0 && memcmp(a, b, sizeof(int) * got)) {
            CHECK(!"heap merges differ from run.c's");
            fprintf(stderr, "text: \"%s\"\n", text);
            break;
        }
    }
    free(a);
    free(b);

    /* a long prompt: a megabyte of "ab" merges in O(n log n) */
    size_t big = 1 << 20;
    char *long_text = malloc(big + 1);
    int *long_ids = malloc(sizeof(int) * (big + 3));
    for (size_t i = 0; i < big; i++) long_text[i] = "abc"[i % 3];
    long_text[big] = '\0';
    clock_t t0 = clock();
    int n = sp_encode(t, long_text, 1, 0, long_ids, (int)big + 3, err);
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    CHECK_EQ_INT(n, 2 + (int)(big / 3) + 1); /* BOS, " ", "abc"..., "a" */
    fprintf(stderr, "1 MiB prompt: %d tokens in %.2f s\n", n, secs);
    CHECK(secs < 10.0);
    free(long_text);
    free(long_ids);
    /* past the limit: refused before any work */
    size_t huge = (1 << 24) + 1;
    char *huge_text = malloc(huge + 1);
    memset(huge_text, 'a', huge);
    huge_text[huge] = '\0';
    CHECK_EQ_INT(sp_encode(t, huge_text, 1, 0, ids, 64, err), -1);
    CHECK_STR_CONTAINS(err, "prompt: 16777217 bytes is too long (at most "
                       "16777216)");
    free(huge_text);
    sp_tokenizer_free(t);
    bb_free(&tb);

    /* the bigram's character tokenizer */
    bb_bytes bg = {0};
    bb_bigram(&bg, BB_SMALL_BIGRAM_VOCAB, 0, BB_SMALL_BIGRAM_PIECES, 7);
    sp_model *m = model_ok(&bg);
    bb_free(&bg);
    if (!m) return;
    const sp_tokenizer *ct = sp_model_tokenizer(m);
    CHECK_EQ_INT(sp_encode(ct, "a b\xc3\xa9\xe2\x82\xac", 0, 0, ids, 64, err),
                 5);
    CHECK_EQ_INT(sp_encode(ct, "ab\xff", 0, 0, ids, 64, err), -1);
    CHECK_STR_CONTAINS(err, "prompt: invalid UTF-8 at byte offset 2 (byte "
                       "0xff)");
    CHECK_EQ_INT(sp_encode(ct, "a\xc3", 0, 0, ids, 64, err), -1);
    CHECK_STR_CONTAINS(err, "prompt: invalid UTF-8 at byte offset 1 (byte "
                       "0xc3)");
    CHECK_EQ_INT(sp_encode(ct, "\xed\xa0\x80", 0, 0, ids, 64, err), -1);
    CHECK_STR_CONTAINS(err, "prompt: invalid UTF-8 at byte offset 0 (byte "
                       "0xed)");
    CHECK_EQ_INT(sp_encode(ct, "\xc0\x80", 0, 0, ids, 64, err), -1);
    CHECK_STR_CONTAINS(err, "invalid UTF-8 at byte offset 0 (byte 0xc0)");
    CHECK_EQ_INT(sp_encode(ct, "a\tb", 0, 0, ids, 64, err), -1);
    CHECK_STR_CONTAINS(err, "prompt: the character '\\t' (byte offset 1) is "
                       "not in the model's vocabulary");
    check_one_line(err);
    CHECK_EQ_INT(sp_encode(ct, "\xc2\x85", 0, 0, ids, 64, err), -1);
    CHECK_STR_CONTAINS(err, "the character '\\xc2\\x85' (byte offset 0)");
    CHECK_EQ_INT(sp_encode(ct, "abab", 1, 1, ids, 4, err), -1);
    CHECK_STR_CONTAINS(err, "prompt: more than 4 tokens");
    sp_model_free(m);
}

TEST_SUITE(hostile_text,
           TEST(test_tokenizer_files),
           TEST(test_prompts));
