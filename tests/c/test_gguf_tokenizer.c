/*
 * test_gguf_tokenizer.c — the tokenizers of GGUF files (c/engine/model/
 * gguf_vocab.h), held to what llama.cpp's llama-vocab.cpp and unicode.cpp
 * do: worked examples for each pre-tokenizer, the merge orders of
 * byte-level BPE and SentencePiece, special tokens, decoding, chat
 * templates, the errors; the Llama 2 vocabulary of ../shared/fixtures as a
 * SentencePiece GGUF against run.c's encode(); a GGUF file written and read
 * back.  Real vocabularies with more than 100 000 tokens are compared with
 * JavaScript tokenizers from npm in tests/js/gguf_tokenizer.test.js.
 *
 * A GGUF file's tokenizer, chat templates, errors, sessions and hostile
 * files: test_gguf_tokenizer_file.c; what both share: gguf_tok.h.
 */
#include "gguf_tok.h"

/* ---- Unicode ------------------------------------------------------------ */

static void test_unicode_classes(void) {
    /* the ASCII fast path and the ranges say the same */
    const uint32_t *r = sp_unicode_ranges();
    int same = 1;
    for (uint32_t cp = 0; cp < 128; cp++) {
        int k = 0;
        while (k + 1 < sp_unicode_n_ranges && (r[k + 1] >> 8) <= cp) k++;
        same &= (int)(r[k] & 0xff) == sp_unicode_ascii[cp];
    }
    CHECK(same);
    /* the unpacked ranges: sorted, starting at 0, ending in U+10FFFF */
    int sorted = r[0] >> 8 == 0;
    for (int i = 1; i < sp_unicode_n_ranges; i++) sorted &= (r[i] >> 8) > (r[i - 1] >> 8);
    CHECK(sorted && (r[sp_unicode_n_ranges - 1] >> 8) <= 0x10ffff);
    CHECK_EQ_INT(sp_unicode_classes('a'), SP_UC_LETTER);
    CHECK_EQ_INT(sp_unicode_classes('Z'), SP_UC_LETTER);
    CHECK_EQ_INT(sp_unicode_classes('5'), SP_UC_NUMBER);
    CHECK_EQ_INT(sp_unicode_classes(' '), SP_UC_SPACE);
    CHECK_EQ_INT(sp_unicode_classes('\t'), SP_UC_SPACE);
    CHECK_EQ_INT(sp_unicode_classes(0x0b), SP_UC_SPACE);
    CHECK_EQ_INT(sp_unicode_classes(0x1c), 0);      /* not White_Space */
    CHECK_EQ_INT(sp_unicode_classes(0x85), SP_UC_SPACE);  /* NEL */
    CHECK_EQ_INT(sp_unicode_classes(0xa0), SP_UC_SPACE);  /* no-break */
    CHECK_EQ_INT(sp_unicode_classes(0x3000), SP_UC_SPACE);
    CHECK_EQ_INT(sp_unicode_classes(0xfeff), 0);    /* JS's \s has it */
    CHECK_EQ_INT(sp_unicode_classes(0xe9), SP_UC_LETTER);   /* é */
    CHECK_EQ_INT(sp_unicode_classes(0x4e2d), SP_UC_LETTER); /* 中 */
    CHECK_EQ_INT(sp_unicode_classes(0x663), SP_UC_NUMBER);  /* ٣ */
    CHECK_EQ_INT(sp_unicode_classes(0xbd), SP_UC_NUMBER);   /* ½ */
    CHECK_EQ_INT(sp_unicode_classes(0x1f600), 0);   /* 😀 */
    CHECK_EQ_INT(sp_unicode_classes('!'), 0);
    CHECK_EQ_INT(sp_unicode_classes(0x10ffff), 0);
    CHECK_EQ_INT(sp_unicode_classes(0x110000), 0);
}

static void test_utf8_as_llama_cpp(void) {
    size_t at = 0;
    CHECK_EQ_INT(sp_utf8_next("\xc3\xa9", 2, &at), 0xe9);
    CHECK_EQ_INT(at, 2);
    at = 0; /* an overlong NUL passes, as in llama.cpp */
    CHECK_EQ_INT(sp_utf8_next("\xc0\x80", 2, &at), 0);
    CHECK_EQ_INT(at, 2);
    at = 0; /* a continuation byte alone: U+FFFD, one byte */
    CHECK_EQ_INT(sp_utf8_next("\x80z", 2, &at), 0xfffd);
    CHECK_EQ_INT(at, 1);
    at = 0; /* cut short */
    CHECK_EQ_INT(sp_utf8_next("\xe4\xb8", 2, &at), 0xfffd);
    CHECK_EQ_INT(at, 1);
    at = 0; /* a lead byte past U+10FFFF decodes; it cannot be written */
    CHECK_EQ_INT(sp_utf8_next("\xf5\x80\x80\x80", 4, &at), 0x140000);
    char out[4];
    CHECK_EQ_INT(sp_utf8_put(0x140000, out), 0);
    at = 0;
    CHECK_EQ_INT(sp_utf8_next("\xf8\x80", 2, &at), 0xfffd);
    CHECK_EQ_INT(sp_utf8_put(0x1f600, out), 4);
    CHECK(memcmp(out, "\xf0\x9f\x98\x80", 4) == 0);
}

/* ---- pre-tokenizers ------------------------------------------------------ */

static void test_pretok_gpt2(void) {
    CHECK_WORDS(SP_PRE_GPT2, "Hello world's  test 123  ", "Hello", " world",
                "'s", " ", " test", " 123", "  ");
    CHECK_WORDS(SP_PRE_GPT2, "I'M", "I", "'", "M"); /* lowercase only */
    CHECK_WORDS(SP_PRE_GPT2, "a\n\nb", "a", "\n", "\n", "b");
    CHECK_WORDS(SP_PRE_GPT2, "x += 10;", "x", " +=", " 10", ";");
    CHECK_WORDS(SP_PRE_GPT2, " ", " ");
}

static void test_pretok_llama3(void) {
    CHECK_WORDS(SP_PRE_LLAMA3, "I'm 12345 ok!!\n\n  hi", "I", "'m", " ", "123",
                "45", " ok", "!!\n\n", " ", " hi");
    CHECK_WORDS(SP_PRE_LLAMA3, "HELLO'S", "HELLO", "'S"); /* any case */
    CHECK_WORDS(SP_PRE_LLAMA3, " \n\n x", " \n\n", " x");
    CHECK_WORDS(SP_PRE_LLAMA3, "3.14", "3", ".", "14");
    CHECK_WORDS(SP_PRE_LLAMA3, "\xe4\xb8\xad\xe6\x96\x87", "\xe4\xb8\xad\xe6\x96\x87");
    CHECK_WORDS(SP_PRE_LLAMA3, "\xf0\x9f\x98\x80\xf0\x9f\x98\x80 x",
                "\xf0\x9f\x98\x80\xf0\x9f\x98\x80", " x");
    CHECK_WORDS(SP_PRE_LLAMA3, "(x)", "(x", ")"); /* [^\r\n\p{L}\p{N}]?\p{L}+ */
    /* a byte that starts no character is read as U+FFFD (a symbol) */
    CHECK_WORDS(SP_PRE_LLAMA3, "a\xff", "a", "\xef\xbf\xbd");
}

static void test_pretok_qwen2_smollm(void) {
    CHECK_WORDS(SP_PRE_QWEN2, "12345", "1", "2", "3", "4", "5");
    CHECK_WORDS(SP_PRE_QWEN2, "I'm  ok", "I", "'m", " ", " ok");
    CHECK_WORDS(SP_PRE_SMOLLM, "a 123b", "a", " ", "1", "2", "3", "b");
    CHECK_WORDS(SP_PRE_SMOLLM, " 2024", " ", "2", "0", "2", "4");
    CHECK_WORDS(SP_PRE_SMOLLM, "x's", "x", "'s");
}

/* ---- byte-level BPE ----------------------------------------------------- */

static void test_bpe_merges_by_rank(void) {
    char err[SP_ERR_LEN];
    sp_tokenizer *t = bpe_toy("gpt-2", TOY, 18, TOY_MERGES, 11, NULL, err);
    CHECK(t != NULL);
    if (!t) {
        fprintf(stderr, "%s\n", err);
        return;
    }
    CHECK_EQ_INT(sp_tokenizer_kind(t), SP_TOK_BYTE_BPE);
    CHECK_IDS(t, "hello world", 0, 0, 11, 16);
    CHECK_IDS(t, "lll", 0, 0, 9, 2);   /* equal ranks: the leftmost first */
    CHECK_IDS(t, "ord", 0, 0, 17);     /* through "rd", which is no token */
    CHECK_IDS(t, "rd", 0, 0, 6, 7);    /* "rd": its bytes' tokens */
    CHECK_IDS(t, "wor", 0, 0, 5, 13);  /* "o r" ranks, "w o" is no rule */
    CHECK_IDS(t, "hew", 0, 0, 8, 5);
    CHECK_IDS(t, "", 0, 0);
    /* no BOS: gpt-2 adds none (and 11, llama.cpp's default id, is a
     * plain token here) */
    CHECK_IDS(t, "he", 1, 1, 8);
    check_decoded(t, -1, 16, " world");
    check_decoded(t, 11, 12, " w");
    sp_tokenizer_free(t);

    /* Llama 3's ignore_merges: a word that is a token is taken whole */
    static const char *const few[] = {"h e", "l l", "ll o"};
    t = bpe_toy("gpt-2", TOY, 18, few, 3, NULL, err);
    CHECK_IDS(t, "hello", 0, 0, 8, 10);
    sp_tokenizer_free(t);
    t = bpe_toy("llama-bpe", TOY, 18, few, 3, NULL, err);
    CHECK(t != NULL);
    if (!t) return;
    CHECK_IDS(t, "hello", 0, 0, 11);
    /* and it begins a text with BOS (llama.cpp's default BOS id is 11) */
    CHECK_IDS(t, "he", 1, 0, 11, 8);
    sp_tokenizer_free(t);
}

static void test_bpe_specials(void) {
    static const char *const raw[] = {
        "h", "e", "l", "o", "he", "ll", "llo", "hello", "w", "x", "y", "z",
        "<|im_start|>", "<|im_end|>", "xyz", "wx", "<|user|>", "<|endoftext|>",
    };
    static const char *const merges[] = {"h e", "l l", "ll o", "he llo"};
    int32_t types[18];
    for (int i = 0; i < 18; i++) types[i] = SP_TT_NORMAL;
    types[12] = SP_TT_CONTROL;
    /* 13 "<|im_end|>" stays normal: llama.cpp makes it control (and an
     * end of generation) by its text */
    types[14] = types[15] = SP_TT_CONTROL;
    types[16] = SP_TT_USER_DEFINED;
    types[17] = SP_TT_CONTROL;
    char err[SP_ERR_LEN];
    sp_tokenizer *t = bpe_toy("gpt-2", raw, 18, merges, 4, types, err);
    CHECK(t != NULL);
    if (!t) return;
    CHECK_IDS(t, "<|im_start|>hello<|im_end|>", 0, 0, 12, 7, 13);
    CHECK_IDS(t, "<|user|>hello", 0, 0, 16, 7);
    /* specials are found longest first, each everywhere, before the
     * shorter: "xyz" wins over "wx", which starts earlier */
    CHECK_IDS(t, "wxyz", 0, 0, 8, 14);
    CHECK_IDS(t, "wxwx", 0, 0, 15, 15);
    /* an unterminated one is plain text -- here of bytes that have no
     * token, which llama.cpp drops */
    int ids[16];
    CHECK_EQ_INT(sp_encode(t, "<|im_start|", 0, 0, ids, 16, err), 0);
    CHECK(sp_tokenizer_is_eog(t, 13));
    CHECK(sp_tokenizer_is_eog(t, 17)); /* <|endoftext|> */
    CHECK(!sp_tokenizer_is_eog(t, 12));
    CHECK(!sp_tokenizer_is_text(t, 12));
    CHECK(!sp_tokenizer_is_text(t, 13));
    CHECK(sp_tokenizer_is_text(t, 16));
    CHECK(sp_tokenizer_is_text(t, 7));
    check_decoded(t, -1, 12, "<|im_start|>");
    check_decoded(t, -1, 13, "<|im_end|>");
    sp_tokenizer_free(t);
}

/* ---- SentencePiece: the Llama 2 vocabulary -------------------------------- */

/* The llama2.c tokenizer.bin as a GGUF "llama" tokenizer: its pieces with
 * U+2581 for the spaces llama2.c's export wrote (and "<s>", "</s>" for its
 * "\n<s>\n", "\n</s>\n"), the token types llama.cpp's converter gives
 * Llama 2 (0 unknown, 1-2 control, 3-258 bytes). */
static sp_tokenizer *spm_of(const sp_tokenizer *l2, char *err) {
    int n = l2->vocab;
    char **tokens = malloc(sizeof(char *) * (size_t)n);
    int32_t *types = malloc(sizeof(int32_t) * (size_t)n);
    for (int i = 0; i < n; i++) {
        const char *p = i == 1 ? "<s>" : i == 2 ? "</s>" : l2->pieces[i];
        tokens[i] = malloc(3 * strlen(p) + 1);
        size_t k = 0;
        for (; *p; p++) {
            if (*p == ' ') {
                memcpy(tokens[i] + k, "\xe2\x96\x81", 3);
                k += 3;
            } else {
                tokens[i][k++] = *p;
            }
        }
        tokens[i][k] = '\0';
        types[i] = i == 0 ? SP_TT_UNKNOWN : i <= 2 ? SP_TT_CONTROL
                 : i <= 258 ? SP_TT_BYTE : SP_TT_NORMAL;
    }
    sp_gguf_vocab_spec spec;
    sp_gguf_vocab_spec_init(&spec);
    spec.model = "llama";
    spec.n_tokens = n;
    spec.tokens = (const char *const *)tokens;
    spec.scores = l2->scores;
    spec.types = types;
    sp_tokenizer *t = sp_tokenizer_new_gguf(&spec, err);
    for (int i = 0; i < n; i++) free(tokens[i]);
    free(tokens);
    free(types);
    return t;
}

/* texts on which llama.cpp's SentencePiece and run.c's encode() agree:
 * valid UTF-8, no special token's text */
static const char *const SPM_CORPUS[] = {
    "Hello world",
    "Once upon a time, there was a little girl named Lily.",
    "  two leading spaces, and  two  inside",
    "trailing space ",
    "line one\nline two\n\n\tindented",
    "numbers 0 12 345 6789 3.14159 -42 1e10",
    "naïve café résumé — “quotes” ‘single’",
    "日本語のテキストと中文文本",
    "emoji 😀🎉👍🏽 and 🇫🇷 flags",
    "code: for (int i = 0; i < n; i++) { x += a[i] * b[i]; }",
    "def f(x):\n    return x**2  # square\n",
    "Ünïcödé ß ẞ ﬁ ligature, Ελληνικά, русский, עברית, العربية",
    "\xe2\x80\x8bzero width\xe2\x80\x8b",
    "a",
    " ",
    "x\x01\x02\x7f control bytes",
};

static void test_spm_llama2(void) {
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/../shared/fixtures/llama2c", test_root);
    char path[1100], err[SP_ERR_LEN];
    snprintf(path, sizeof path, "%s/tokenizer.bin", dir);
    size_t size;
    uint8_t *data = read_all(path, &size);
    if (!data) {
        fixtures_missing("the Llama 2 vocabulary as a GGUF tokenizer");
        return;
    }
    sp_tokenizer *l2 = sp_tokenizer_load(data, size, 0, err);
    free(data);
    CHECK(l2 != NULL);
    if (!l2) return;
    sp_tokenizer *t = spm_of(l2, err);
    CHECK(t != NULL);
    if (!t) {
        fprintf(stderr, "%s\n", err);
        sp_tokenizer_free(l2);
        return;
    }
    CHECK_EQ_INT(sp_tokenizer_kind(t), SP_TOK_SPM);
    CHECK_EQ_INT(sp_tokenizer_bos(t), 1);
    CHECK_EQ_INT(sp_tokenizer_eos(t), 2);
    CHECK_IDS(t, "Hello world", 1, 0, 1, 15043, 3186);
    int a[2048], b[2048];
    for (size_t k = 0; k < sizeof SPM_CORPUS / sizeof SPM_CORPUS[0]; k++) {
        int n = sp_encode(t, SPM_CORPUS[k], 1, 0, a, 2048, err);
        int m = reference_encode(l2, SPM_CORPUS[k], 1, 0, b);
        int same = n == m && n > 0 && memcmp(a, b, sizeof(int) * (size_t)n) == 0;
        CHECK(same);
        if (!same) fprintf(stderr, "SentencePiece vs run.c differ on \"%s\" "
                           "(%d vs %d ids)\n", SPM_CORPUS[k], n, m);
    }
    /* llama.cpp's own ways: a special token in the text is that token,
     * and the text after it gets the space SentencePiece puts first */
    int n1 = reference_encode(l2, "Hi", 1, 0, b);
    int n2 = reference_encode(l2, "there", 0, 0, b + n1 + 1);
    b[n1] = 2;
    int n = sp_encode(t, "Hi</s>there", 1, 0, a, 2048, err);
    CHECK(n == n1 + 1 + n2 && memcmp(a, b, sizeof(int) * (size_t)n) == 0);
    CHECK_IDS(t, "<s>Hello", 1, 0, 1, 1, 15043);
    CHECK_IDS(t, "", 1, 0, 1);
    CHECK_EQ_INT(sp_encode(t, "", 0, 0, a, 2048, err), 0);
    /* a character cut by its lead byte's length, as llama.cpp does
     * (run.c stops at the first byte that is no continuation) */
    int space = sp_tokenizer_lookup(t, "\xe2\x96\x81", 3);
    CHECK(space > 258);
    CHECK_IDS(t, "\xc3(", 1, 0, 1, space, 3 + 0xc3, 3 + '(');
    /* decoding */
    check_decoded(t, 1, 15043, "Hello");  /* the first after BOS */
    check_decoded(t, 15043, 3186, " world");
    check_decoded(t, -1, 15043, " Hello");
    check_decoded(t, 5, 13, "\n");        /* <0x0A> */
    check_decoded(t, 5, 1, "<s>");
    check_decoded(t, 5, 0, "<unk>");
    CHECK(sp_tokenizer_is_eog(t, 2));
    CHECK(!sp_tokenizer_is_eog(t, 1));
    CHECK(!sp_tokenizer_is_text(t, 0));
    CHECK(sp_tokenizer_is_text(t, 13));
    sp_tokenizer_free(t);
    sp_tokenizer_free(l2);
}

TEST_SUITE(gguf_tokenizer,
           TEST(test_unicode_classes),
           TEST(test_utf8_as_llama_cpp),
           TEST(test_pretok_gpt2),
           TEST(test_pretok_llama3),
           TEST(test_pretok_qwen2_smollm),
           TEST(test_bpe_merges_by_rank),
           TEST(test_bpe_specials),
           TEST(test_spm_llama2));
