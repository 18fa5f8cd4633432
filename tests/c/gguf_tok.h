/*
 * gguf_tok.h — what the GGUF tokenizer tests (test_gguf_tokenizer.c,
 * test_gguf_tokenizer_file.c) share: toy byte-level BPE vocabularies, the
 * ids, words and decodings they check.
 */
#ifndef SP_GGUF_TOK_H
#define SP_GGUF_TOK_H

#include "check.h"
#include "testutil.h"
#include "bpe_reference.h"
#include "model/gguf_vocab.h"
#include "model/unicode.h"
#include "../fuzz/build_gguf.h"

/* ---- helpers ------------------------------------------------------------ */

/* raw bytes spelled as GPT-2's byte-level characters */
static inline char *spell(const char *raw, size_t len) {
    char *out = malloc(2 * len + 1);
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += (size_t)sp_bytebpe_char((unsigned char)raw[i], out + n);
    out[n] = '\0';
    return out;
}

/* a merge rule "a b" of raw bytes, spelled (malloc'd) */
static inline char *spell_merge(const char *raw) {
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
static inline sp_tokenizer *bpe_toy(const char *pre, const char *const *raw, int n,
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

static inline void check_ids(int line, const sp_tokenizer *t, const char *text,
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
static inline void check_words(int line, sp_pre_kind pre, const char *text,
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

static inline void check_decoded(const sp_tokenizer *t, int prev, int id,
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

/* the toy vocabulary and its merges, by rank */
static const char *const TOY[] = {
    "h", "e", "l", "o", " ", "w", "r", "d",           /* 0..7 */
    "he", "ll", "llo", "hello", " w", "or", " wor",   /* 8..14 */
    " worl", " world", "ord",                         /* 15..17 */
};
static const char *const TOY_MERGES[] = {
    "r d", "h e", "l l", "ll o", "he llo", "  w", "o r", " w or", " wor l",
    " worl d", "o rd",
};

#endif /* SP_GGUF_TOK_H */
