/*
 * test_gguf_tokenizer.c — the tokenizers of GGUF files (c/engine/model/
 * gguf_vocab.h), held to what llama.cpp's llama-vocab.cpp and unicode.cpp
 * do: worked examples for each pre-tokenizer, the merge orders of
 * byte-level BPE and SentencePiece, special tokens, decoding, chat
 * templates, the errors; the Llama 2 vocabulary of ../shared/fixtures as a
 * SentencePiece GGUF against run.c's encode(); a GGUF file written and read
 * back.  Real vocabularies with more than 100 000 tokens are compared with
 * JavaScript tokenizers from npm in tests/js/gguf_tokenizer.test.js.
 */
#include "check.h"
#include "testutil.h"
#include "bpe_reference.h"
#include "model/gguf_vocab.h"
#include "model/unicode.h"
#include "../fuzz/build_gguf.h"

/* ---- helpers ------------------------------------------------------------ */

/* raw bytes spelled as GPT-2's byte-level characters */
static char *spell(const char *raw, size_t len) {
    char *out = malloc(2 * len + 1);
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += (size_t)sp_bytebpe_char((unsigned char)raw[i], out + n);
    out[n] = '\0';
    return out;
}

/* a merge rule "a b" of raw bytes, spelled (malloc'd) */
static char *spell_merge(const char *raw) {
    const char *sp = strchr(raw + 1, ' ');
    char *a = spell(raw, (size_t)(sp - raw));
    char *b = spell(sp + 1, strlen(sp + 1));
    char *m = malloc(strlen(a) + strlen(b) + 2);
    sprintf(m, "%s %s", a, b);
    free(a);
    free(b);
    return m;
}

/* A byte-level BPE tokenizer over the raw pieces and merges ("a b", raw
 * bytes on each side), types (NULL: all normal), special ids bos = eos =
 * -1 unless given. */
static sp_tokenizer *bpe_toy(const char *pre, const char *const *raw, int n,
                             const char *const *raw_merges, int m,
                             const int32_t *types, char *err) {
    char **tokens = malloc(sizeof(char *) * (size_t)n);
    char **merges = malloc(sizeof(char *) * (size_t)(m ? m : 1));
    for (int i = 0; i < n; i++)
        tokens[i] = types && types[i] != SP_TT_NORMAL
                        ? strcpy(malloc(strlen(raw[i]) + 1), raw[i])
                        : spell(raw[i], strlen(raw[i]));
    for (int i = 0; i < m; i++) merges[i] = spell_merge(raw_merges[i]);
    sp_gguf_vocab_spec spec;
    sp_gguf_vocab_spec_init(&spec);
    spec.model = "gpt2";
    spec.pre = pre;
    spec.n_tokens = n;
    spec.tokens = (const char *const *)tokens;
    spec.types = types;
    spec.n_merges = m;
    spec.merges = (const char *const *)merges;
    sp_tokenizer *t = sp_tokenizer_new_gguf(&spec, err);
    for (int i = 0; i < n; i++) free(tokens[i]);
    for (int i = 0; i < m; i++) free(merges[i]);
    free(tokens);
    free(merges);
    return t;
}

#define CHECK_IDS(t, text, bos, eos, ...)                                    \
    do {                                                                     \
        const int want_[] = {__VA_ARGS__};                                   \
        check_ids(__LINE__, t, text, bos, eos, want_,                        \
                  (int)(sizeof want_ / sizeof want_[0]));                    \
    } while (0)

static void check_ids(int line, const sp_tokenizer *t, const char *text,
                      int bos, int eos, const int *want, int n_want) {
    int ids[512];
    char err[SP_ERR_LEN] = "";
    int n = sp_encode(t, text, bos, eos, ids, 512, err);
    int same = n == n_want;
    for (int i = 0; same && i < n; i++) same = ids[i] == want[i];
    check_count++;
    if (!same) {
        check_failures++;
        fprintf(stderr, "line %d: \"%s\" gave", line, text);
        for (int i = 0; i < n; i++) fprintf(stderr, " %d", ids[i]);
        fprintf(stderr, " (%s), expected", n < 0 ? err : "");
        for (int i = 0; i < n_want; i++) fprintf(stderr, " %d", want[i]);
        fprintf(stderr, "\n");
    }
}

/* the words a pre-tokenizer cuts, NULL-terminated */
static void check_words(int line, sp_pre_kind pre, const char *text,
                        const char *const *want) {
    char *out;
    size_t *starts, bad;
    int n = sp_pretokenize(pre, text, strlen(text), &out, &starts, &bad);
    int n_want = 0;
    while (want[n_want]) n_want++;
    int same = n == n_want;
    for (int i = 0; same && i < n; i++)
        same = starts[i + 1] - starts[i] == strlen(want[i]) &&
               memcmp(out + starts[i], want[i], strlen(want[i])) == 0;
    check_count++;
    if (!same) {
        check_failures++;
        fprintf(stderr, "line %d: pre-tokenizer %d cut \"%s\" into", line,
                (int)pre, text);
        for (int i = 0; i < n; i++)
            fprintf(stderr, " [%.*s]", (int)(starts[i + 1] - starts[i]),
                    out + starts[i]);
        fprintf(stderr, "\n");
    }
    free(out);
    free(starts);
}
#define CHECK_WORDS(pre, text, ...)                                          \
    do {                                                                     \
        const char *const want_[] = {__VA_ARGS__, NULL};                     \
        check_words(__LINE__, pre, text, want_);                             \
    } while (0)

static void check_decoded(const sp_tokenizer *t, int prev, int id,
                          const char *want) {
    int len = -1;
    const char *s = sp_decode(t, prev, id, &len);
    check_count++;
    if (len != (int)strlen(want) || memcmp(s, want, (size_t)len) != 0) {
        check_failures++;
        fprintf(stderr, "token %d after %d decodes to \"%.*s\", expected "
                "\"%s\"\n", id, prev, len, s, want);
    }
}

/* ---- Unicode ------------------------------------------------------------ */

static void test_unicode_classes(void) {
    /* the ASCII fast path and the ranges say the same */
    int same = 1;
    for (uint32_t cp = 0; cp < 128; cp++) {
        int k = 0;
        while (k + 1 < sp_unicode_n_ranges && (sp_unicode_ranges[k + 1] >> 8) <= cp) k++;
        same &= (int)(sp_unicode_ranges[k] & 0xff) == sp_unicode_ascii[cp];
    }
    CHECK(same);
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

static const char *const TOY[] = {
    "h", "e", "l", "o", " ", "w", "r", "d",           /* 0..7 */
    "he", "ll", "llo", "hello", " w", "or", " wor",   /* 8..14 */
    " worl", " world", "ord",                         /* 15..17 */
};
static const char *const TOY_MERGES[] = {
    "r d", "h e", "l l", "ll o", "he llo", "  w", "o r", " w or", " wor l",
    " worl d", "o rd",
};

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

static void test_spm_llama2(const char *dir) {
    char path[1024], err[SP_ERR_LEN];
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

/* ---- a GGUF file ------------------------------------------------------------ */

static const char CHATML[] =
    "{% for message in messages %}{{'<|im_start|>' + message['role'] + "
    "'\\n' + message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}";

/* TOY as a GGUF file's tokenizer, with "<|im_end|>" as EOS */
static void toy_gguf(bb_bytes *out, const char *model, const char *pre) {
    gg_file f;
    gg_init(&f);
    gg_str(&f, "general.architecture", "llama");
    gg_str(&f, "tokenizer.ggml.model", model);
    if (pre) gg_str(&f, "tokenizer.ggml.pre", pre);
    const char *tokens[19];
    int32_t types[19];
    for (int i = 0; i < 18; i++) {
        tokens[i] = spell(TOY[i], strlen(TOY[i]));
        types[i] = SP_TT_NORMAL;
    }
    tokens[18] = "<|im_end|>";
    types[18] = SP_TT_CONTROL;
    gg_arr_str(&f, "tokenizer.ggml.tokens", tokens, 19);
    gg_arr(&f, "tokenizer.ggml.token_type", GG_I32, types, 19, 4);
    char *merges[11];
    for (int i = 0; i < 11; i++) merges[i] = spell_merge(TOY_MERGES[i]);
    gg_arr_str(&f, "tokenizer.ggml.merges", (const char *const *)merges, 11);
    gg_u32(&f, "tokenizer.ggml.bos_token_id", 11);
    gg_u32(&f, "tokenizer.ggml.eos_token_id", 18);
    gg_bool(&f, "tokenizer.ggml.add_bos_token", 1);
    gg_str(&f, "tokenizer.chat_template", CHATML);
    gg_finish(&f, 3, out);
    gg_free(&f);
    for (int i = 0; i < 18; i++) free((char *)tokens[i]);
    for (int i = 0; i < 11; i++) free(merges[i]);
}

static void test_gguf_file(void) {
    char err[SP_ERR_LEN];
    bb_bytes file = {0};
    toy_gguf(&file, "gpt2", "gpt-2");
    sp_tokenizer *t = sp_tokenizer_load(file.data, file.len, 0, err);
    CHECK(t != NULL);
    if (t) {
        CHECK_EQ_INT(sp_tokenizer_vocab(t), 19);
        CHECK_IDS(t, "hello world", 1, 0, 11, 11, 16);
        CHECK_IDS(t, "hello<|im_end|>", 0, 0, 11, 18);
        CHECK(sp_tokenizer_is_eog(t, 18));
        CHECK_EQ_INT(sp_tokenizer_chat(t), SP_CHAT_CHATML);
        char *w = sp_chat_wrap(t, "hi", err);
        CHECK(w && strcmp(w, "<|im_start|>user\nhi<|im_end|>\n"
                             "<|im_start|>assistant\n") == 0);
        free(w);
        sp_tokenizer_free(t);
    }
    /* the model's logits must match */
    t = sp_tokenizer_load(file.data, file.len, 32000, err);
    CHECK(t == NULL);
    CHECK_STR_CONTAINS(err, "the file has 19 tokens, the model 32000 logits");
    bb_free(&file);

    toy_gguf(&file, "gpt2", "gemma4");
    CHECK(sp_tokenizer_load(file.data, file.len, 0, err) == NULL);
    CHECK_STR_CONTAINS(err, "pre-tokenizer gemma4 is not supported");
    bb_free(&file);
    toy_gguf(&file, "gpt2", NULL);
    CHECK(sp_tokenizer_load(file.data, file.len, 0, err) == NULL);
    CHECK_STR_CONTAINS(err, "names no pre-tokenizer");
    bb_free(&file);
    toy_gguf(&file, "bert", "gpt-2");
    CHECK(sp_tokenizer_load(file.data, file.len, 0, err) == NULL);
    CHECK_STR_CONTAINS(err, "the tokenizer 'bert' (tokenizer.ggml.model) is "
                            "not supported");
    bb_free(&file);

    gg_file f;
    gg_init(&f);
    gg_str(&f, "general.architecture", "llama");
    gg_finish(&f, 3, &file);
    gg_free(&f);
    CHECK(sp_tokenizer_load(file.data, file.len, 0, err) == NULL);
    CHECK_STR_CONTAINS(err, "the file has no tokenizer");
    bb_free(&file);
}

/* ---- chat templates, errors --------------------------------------------------- */

static sp_tokenizer *with_template(const char *tmpl, char *err) {
    static const char *const tokens[] = {"a", "b", "<|eot_id|>"};
    sp_gguf_vocab_spec spec;
    sp_gguf_vocab_spec_init(&spec);
    spec.model = "gpt2";
    spec.pre = "llama-bpe";
    spec.n_tokens = 3;
    spec.tokens = tokens;
    spec.merges = tokens; /* none used: n_merges 0 */
    spec.special[SP_SPECIAL_BOS] = 0;
    spec.chat_template = tmpl;
    return sp_tokenizer_new_gguf(&spec, err);
}

static void test_chat_templates(void) {
    char err[SP_ERR_LEN];
    sp_tokenizer *t = with_template(
        "{{- bos_token }}{% for m in messages %}{{ '<|start_header_id|>' + "
        "m['role'] + '<|end_header_id|>\\n\\n' + m['content'] | trim + "
        "'<|eot_id|>' }}{% endfor %}", err);
    CHECK(t && sp_tokenizer_chat(t) == SP_CHAT_LLAMA3);
    char *w = t ? sp_chat_wrap(t, "  What is 2+2?\n", err) : NULL;
    CHECK(w && strcmp(w, "<|start_header_id|>user<|end_header_id|>\n\n"
                         "What is 2+2?<|eot_id|><|start_header_id|>assistant"
                         "<|end_header_id|>\n\n") == 0);
    free(w);
    CHECK(t && sp_tokenizer_is_eog(t, 2)); /* <|eot_id|> by its text */
    sp_tokenizer_free(t);

    t = with_template("{% for m in messages %}[INST] {{ m['content'] }} "
                      "[/INST]{% endfor %}", err);
    CHECK(t && sp_tokenizer_chat(t) == SP_CHAT_OTHER);
    CHECK(t && sp_chat_wrap(t, "hi", err) == NULL);
    CHECK_STR_CONTAINS(err, "neither ChatML-style nor Llama 3-style");
    sp_tokenizer_free(t);

    t = with_template(NULL, err);
    CHECK(t && sp_tokenizer_chat(t) == SP_CHAT_NONE);
    CHECK(t && sp_chat_wrap(t, "hi", err) == NULL);
    CHECK_STR_CONTAINS(err, "has no chat template");
    sp_tokenizer_free(t);
    CHECK_EQ_INT(sp_chat_detect("chatml"), SP_CHAT_CHATML);
    CHECK_EQ_INT(sp_chat_detect("<|im_start|><|im_sep|>"), SP_CHAT_OTHER);
}

static void test_errors(void) {
    char err[SP_ERR_LEN];
    static const char *const dup[] = {"a", "b", "a"};
    sp_gguf_vocab_spec spec;
    sp_gguf_vocab_spec_init(&spec);
    spec.model = "llama";
    spec.n_tokens = 3;
    spec.tokens = dup;
    CHECK(sp_tokenizer_new_gguf(&spec, err) == NULL);
    CHECK_STR_CONTAINS(err, "duplicate token in the vocabulary: 'a' has ids "
                            "0 and 2");
    static const char *const ok[] = {"a", "b", "c"};
    spec.tokens = ok;
    float nan_scores[3] = {0, NAN, 0};
    spec.scores = nan_scores;
    CHECK(sp_tokenizer_new_gguf(&spec, err) == NULL);
    CHECK_STR_CONTAINS(err, "token 1's score is not a number");
    /* SentencePiece adds BOS (id 1 by default); a file may say it has none */
    spec.scores = NULL;
    spec.special[SP_SPECIAL_BOS] = 7; /* out of range: the default stays */
    sp_tokenizer *t = sp_tokenizer_new_gguf(&spec, err);
    CHECK(t && sp_tokenizer_bos(t) == 1);
    sp_tokenizer_free(t);
    spec.model = "gpt2";
    spec.pre = "qwen2";
    spec.merges = ok;
    spec.add_bos = 1; /* BOS defaults to 11: none in 3 tokens */
    CHECK(sp_tokenizer_new_gguf(&spec, err) == NULL);
    CHECK_STR_CONTAINS(err, "add_bos_token is true, but "
                            "tokenizer.ggml.bos_token_id is not set");
    spec.add_bos = -1;
    spec.merges = NULL;
    CHECK(sp_tokenizer_new_gguf(&spec, err) == NULL);
    CHECK_STR_CONTAINS(err, "needs its merges");
    /* invalid UTF-8 past U+10FFFF: llama.cpp cannot go on, nor do we */
    spec.merges = ok;
    t = sp_tokenizer_new_gguf(&spec, err);
    int ids[16];
    CHECK(t && sp_encode(t, "ab\xf7\xbf\xbf\xbf", 0, 0, ids, 16, err) < 0);
    CHECK_STR_CONTAINS(err, "invalid UTF-8 at byte offset 2");
    /* too many ids for the buffer */
    CHECK(t && sp_encode(t, "abcabc", 0, 0, ids, 2, err) < 0);
    CHECK_STR_CONTAINS(err, "more than 2 tokens");
    sp_tokenizer_free(t);
}

/* ---- in a session ------------------------------------------------------------ */

/* TOY's GGUF tokenizer driving a random transformer of its 19 tokens: the
 * prompt through the chat template, a generation that ends at an end of
 * generation token, a constraint that never lets a control token through */
static void test_session(void) {
    char err[SP_ERR_LEN];
    bb_bytes file = {0}, ckpt = {0};
    toy_gguf(&file, "gpt2", "gpt-2");
    sp_tokenizer *t = sp_tokenizer_load(file.data, file.len, 0, err);
    bb_free(&file);
    bb_config c = {8, 16, 1, 2, 2, 19, 32};
    bb_checkpoint(&ckpt, c, 7, 1.0f);
    sp_model *m = sp_model_load(ckpt.data, ckpt.len, 0, err);
    CHECK(t && m);
    if (!t || !m) {
        fprintf(stderr, "%s\n", err);
        goto done;
    }
    sp_session *s = sp_session_new(m, t, err);
    CHECK(s != NULL);
    if (!s) goto done;
    char *prompt = sp_chat_wrap(t, "hello", err);
    CHECK(prompt != NULL);
    /* the file adds BOS (11); the template's specials are single tokens,
     * "user" and "assistant" have no tokens in TOY and are dropped */
    CHECK(sp_session_start(s, prompt ? prompt : "", 1, err) == SP_OK);
    free(prompt);
    sp_params p;
    sp_params_default(&p);
    CHECK(sp_session_step(s, &p, 16, err) == SP_OK); /* " world" */
    CHECK(!sp_session_finished(s));
    CHECK(sp_session_step(s, &p, 18, err) == SP_OK); /* <|im_end|>: EOS */
    CHECK(sp_session_finished(s));
    CHECK(sp_session_is_end(s, 18));
    CHECK(!sp_session_is_end(s, 16));
    /* a constraint: the text "hello" or "hello world", then an end; the
     * end (EOS, here <|im_end|>) only once the text matches, never
     * another special's text */
    sp_constraint *re = sp_constraint_regex("hello( world)?", err);
    CHECK(re && sp_session_start(s, "", 1, err) == SP_OK);
    CHECK(re && sp_session_constrain(s, re, 8, err) == SP_OK);
    CHECK(sp_session_preview(s, &p, err) == SP_OK);
    const sp_step *st = sp_session_last_step(s);
    int hello = 0, end = 0;
    for (int i = 0; st && i < st->n_kept; i++) {
        hello |= st->kept[i] == 11;
        end |= st->kept[i] == 18;
    }
    CHECK(hello && !end); /* "hello" may start it; the end may not yet */
    CHECK(sp_session_step(s, &p, 11, err) == SP_OK);
    CHECK(sp_session_preview(s, &p, err) == SP_OK);
    st = sp_session_last_step(s);
    int world = 0;
    end = 0;
    for (int i = 0; st && i < st->n_kept; i++) {
        world |= st->kept[i] == 16;
        end |= st->kept[i] == 18;
        int k = st->kept[i]; /* " ", " w", " wor", " worl", " world", the end */
        CHECK(k == 4 || k == 12 || k == 14 || k == 15 || k == 16 || k == 18);
    }
    CHECK(world && end); /* " world", or the end: "hello" matches */
    sp_constraint_free(re);
    sp_session_free(s);
done:
    sp_model_free(m);
    sp_tokenizer_free(t);
    bb_free(&ckpt);
}

/* ---- hostile files ------------------------------------------------------------ */

/* A GGUF with tokenizer.ggml.model "gpt2" and what `bad` writes: loading it
 * must fail with a message containing want. */
static void check_bad_file(int line, void (*bad)(gg_file *), const char *want) {
    gg_file f;
    gg_init(&f);
    gg_str(&f, "tokenizer.ggml.model", "gpt2");
    gg_str(&f, "tokenizer.ggml.pre", "gpt-2");
    bad(&f);
    bb_bytes file = {0};
    gg_finish(&f, 3, &file);
    gg_free(&f);
    char err[SP_ERR_LEN] = "";
    sp_tokenizer *t = sp_tokenizer_load(file.data, file.len, 0, err);
    bb_free(&file);
    check_count++;
    if (t || !strstr(err, want)) {
        check_failures++;
        fprintf(stderr, "line %d: %s, expected an error containing \"%s\"\n",
                line, t ? "loaded" : err, want);
    }
    sp_tokenizer_free(t);
}

static const char *const AB[] = {"a", "b"};
static void tokens_ab(gg_file *f) { gg_arr_str(f, "tokenizer.ggml.tokens", AB, 2); }
static void no_tokens(gg_file *f) { gg_arr_str(f, "tokenizer.ggml.merges", AB, 0); }
static void int_tokens(gg_file *f) {
    int32_t v[2] = {1, 2};
    gg_arr(f, "tokenizer.ggml.tokens", GG_I32, v, 2, 4);
}
static void empty_tokens(gg_file *f) { gg_arr_str(f, "tokenizer.ggml.tokens", AB, 0); }
static void string_scores(gg_file *f) {
    tokens_ab(f);
    gg_arr_str(f, "tokenizer.ggml.scores", AB, 2);
}
static void few_scores(gg_file *f) {
    tokens_ab(f);
    float v[1] = {0};
    gg_arr(f, "tokenizer.ggml.scores", GG_F32V, v, 1, 4);
}
static void u8_types(gg_file *f) {
    tokens_ab(f);
    uint8_t v[2] = {1, 1};
    gg_arr(f, "tokenizer.ggml.token_type", GG_U8, v, 2, 1);
}
static void few_types(gg_file *f) {
    tokens_ab(f);
    int32_t v[1] = {1};
    gg_arr(f, "tokenizer.ggml.token_type", GG_I32, v, 1, 4);
}
static void int_merges(gg_file *f) {
    tokens_ab(f);
    int32_t v[1] = {1};
    gg_arr(f, "tokenizer.ggml.merges", GG_I32, v, 1, 4);
}
static void no_merges(gg_file *f) { tokens_ab(f); }
static void string_bos(gg_file *f) {
    tokens_ab(f);
    gg_arr_str(f, "tokenizer.ggml.merges", AB, 0);
    gg_str(f, "tokenizer.ggml.bos_token_id", "1");
}
static void int_add_bos(gg_file *f) {
    tokens_ab(f);
    gg_arr_str(f, "tokenizer.ggml.merges", AB, 0);
    gg_u32(f, "tokenizer.ggml.add_bos_token", 1);
}
static void int_template(gg_file *f) {
    tokens_ab(f);
    gg_arr_str(f, "tokenizer.ggml.merges", AB, 0);
    gg_u32(f, "tokenizer.chat_template", 1);
}
static void nan_score(gg_file *f) {
    tokens_ab(f);
    gg_arr_str(f, "tokenizer.ggml.merges", AB, 0);
    float v[2] = {0, NAN};
    gg_arr(f, "tokenizer.ggml.scores", GG_F32V, v, 2, 4);
}

static void test_hostile_files(void) {
    check_bad_file(__LINE__, no_tokens, "tokenizer.ggml.tokens");
    check_bad_file(__LINE__, int_tokens, "tokenizer.ggml.tokens");
    check_bad_file(__LINE__, empty_tokens, "has 0 tokens");
    check_bad_file(__LINE__, string_scores, "holds string, not f32 or i32");
    check_bad_file(__LINE__, few_scores, "1 scores for 2 tokens");
    check_bad_file(__LINE__, u8_types, "tokenizer.ggml.token_type");
    check_bad_file(__LINE__, few_types, "1 token types for 2 tokens");
    check_bad_file(__LINE__, int_merges, "tokenizer.ggml.merges");
    check_bad_file(__LINE__, no_merges, "needs its merges");
    check_bad_file(__LINE__, string_bos, "tokenizer.ggml.bos_token_id");
    check_bad_file(__LINE__, int_add_bos, "tokenizer.ggml.add_bos_token");
    check_bad_file(__LINE__, int_template, "tokenizer.chat_template");
    check_bad_file(__LINE__, nan_score, "token 1's score is not a number");
    /* and a truncated file: the reader's message */
    char err[SP_ERR_LEN];
    bb_bytes file = {0};
    toy_gguf(&file, "gpt2", "gpt-2");
    for (size_t cut = 0; cut < file.len; cut += 97) {
        sp_tokenizer *t = sp_tokenizer_load(file.data, cut, 0, err);
        CHECK(t == NULL);
        sp_tokenizer_free(t);
    }
    bb_free(&file);
}

int main(int argc, char **argv) {
    const char *root = argc > 1 ? argv[1] : ".";
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/../shared/fixtures/llama2c", root);
    test_unicode_classes();
    test_utf8_as_llama_cpp();
    test_pretok_gpt2();
    test_pretok_llama3();
    test_pretok_qwen2_smollm();
    test_bpe_merges_by_rank();
    test_bpe_specials();
    test_spm_llama2(dir);
    test_gguf_file();
    test_chat_templates();
    test_errors();
    test_session();
    test_hostile_files();
    CHECK_DONE();
}
