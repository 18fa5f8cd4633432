/*
 * pretok.c — the pre-tokenizers of byte-level BPE: a text cut into words
 * before any merge, as llama.cpp's unicode_regex_split cuts it for the
 * supported tokenizer.ggml.pre values.  No regex library: each expression
 * is walked by hand over code points and their classes (unicode.c).
 *
 *   gpt-2      's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+
 *              |\s+(?!\S)|\s+
 *   llama-bpe  (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+
 *              |\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
 *   qwen2      the same with \p{N} (one digit a word)
 *   smollm     \p{N} first (each digit a word, the text between them a
 *              word), then gpt-2 inside each
 *
 * llama.cpp walks gpt-2 and llama-bpe by hand too (unicode.cpp's
 * unicode_regex_split_custom_*); qwen2's and smollm's digit pass go through
 * std::regex over the text with each code point "collapsed" to one byte of
 * its class.  That gives these same words: in the collapsed text \s, \p{L}
 * and \p{N} mean exactly the classes used here (ASCII whitespace is
 * 9-13 and 32 there and in White_Space), every position matches one of the
 * alternatives (so no text falls between matches), and ECMAScript's
 * first-alternative-that-matches order is the order tried below.
 *
 * Classes are those of unicode_table.c (Unicode 17.0); llama.cpp's come
 * from the Unicode data of the Python that generated its tables, so a code
 * point assigned in a later version may be classed differently.
 */
#include <stdlib.h>
#include <string.h>

#include "gguf_vocab.h"
#include "unicode.h"

/* A text as code points and their classes, and the words cut so far (each
 * word's end, in code points). */
typedef struct {
    uint32_t *cp;
    uint8_t *cls;
    size_t n;
    size_t *cuts;
    size_t n_cuts;
} split;

#define END 0xffffffffu /* past the part being split: no code point */

static uint32_t cp_at(const split *s, size_t i, size_t end) {
    return i < end ? s->cp[i] : END;
}

/* classes at i within [.., end): 0 past it */
static int cls_at(const split *s, size_t i, size_t end) {
    return i < end ? s->cls[i] : 0;
}

static void cut(split *s, size_t at) {
    if (s->n_cuts == 0 || s->cuts[s->n_cuts - 1] < at) s->cuts[s->n_cuts++] = at;
}

#define L(c) ((c) & SP_UC_LETTER)
#define N(c) ((c) & SP_UC_NUMBER)
#define S(c) ((c) & SP_UC_SPACE)
/* [^\s\p{L}\p{N}]: any code point of the part but those (0 past it) */
#define OTHER(s, i, end) ((i) < (end) && !((s)->cls[i] & 7))

static uint32_t lower_ascii(uint32_t c) {
    return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

/* 's 't 'm 'd 're 've 'll at i: the length (2 or 3), or 0.  GPT-2's are
 * lowercase only; the others' any case (unicode.c's generator checked that
 * no code point but ASCII lowercases to these letters). */
static size_t contraction(const split *s, size_t i, size_t end, int any_case) {
    if (s->cp[i] != '\'' || i + 1 >= end) return 0;
    uint32_t a = s->cp[i + 1], b = cp_at(s, i + 2, end);
    if (any_case) {
        a = lower_ascii(a);
        b = lower_ascii(b);
    }
    if (a == 's' || a == 't' || a == 'm' || a == 'd') return 2;
    if (i + 2 < end && ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') ||
                        (a == 'l' && b == 'l')))
        return 3;
    return 0;
}

/* whitespace run at i: its length */
static size_t space_run(const split *s, size_t i, size_t end) {
    size_t k = 0;
    while (S(cls_at(s, i + k, end))) k++;
    return k;
}

/* gpt-2 over [from, end) */
static void split_gpt2(split *s, size_t from, size_t end) {
    for (size_t i = from; i < end;) {
        size_t k = contraction(s, i, end, 0);
        if (k) {
            cut(s, i += k);
            continue;
        }
        /* ' ?' then a run of one kind: letters, numbers, or others */
        size_t j = i + (s->cp[i] == ' ');
        int c = cls_at(s, j, end);
        if (L(c) || N(c) || OTHER(s, j, end)) {
            int kind = L(c) ? 1 : N(c) ? 2 : 3;
            while (j < end && (kind == 1 ? L(s->cls[j]) != 0
                               : kind == 2 ? N(s->cls[j]) != 0
                                           : OTHER(s, j, end)))
                j++;
            cut(s, i = j);
            continue;
        }
        size_t ws = space_run(s, i, end);
        if (ws > 1 && i + ws < end) cut(s, i += ws - 1); /* \s+(?!\S) */
        else if (ws > 0) cut(s, i += ws);                /* \s+ */
        else cut(s, ++i);
    }
}

/* llama-bpe (max_digits 3) and qwen2 (1) over [from, end) */
static void split_llama3(split *s, size_t from, size_t end,
                         size_t max_digits) {
    for (size_t i = from; i < end;) {
        uint32_t c = s->cp[i];
        int f = s->cls[i];
        size_t k = contraction(s, i, end, 1);
        if (k) {
            cut(s, i += k);
            continue;
        }
        /* [^\r\n\p{L}\p{N}]?\p{L}+ */
        if (!(c == '\r' || c == '\n' || N(f)) &&
            (L(f) || L(cls_at(s, i + 1, end)))) {
            i++;
            while (L(cls_at(s, i, end))) i++;
            cut(s, i);
            continue;
        }
        /* \p{N}{1,max} */
        if (N(f)) {
            size_t start = i;
            while (i < end && N(s->cls[i]) && i - start < max_digits) i++;
            cut(s, i);
            continue;
        }
        /* ' ?[^\s\p{L}\p{N}]+[\r\n]*' */
        size_t j = i + (c == ' ' && OTHER(s, i + 1, end));
        if (OTHER(s, j, end)) {
            while (OTHER(s, j, end)) j++;
            while (j < end && (s->cp[j] == '\r' || s->cp[j] == '\n')) j++;
            cut(s, i = j);
            continue;
        }
        /* \s*[\r\n]+ up to the last line break of the run, then
         * \s+(?!\S), then \s+ */
        size_t ws = space_run(s, i, end), last_break = 0;
        for (size_t q = 0; q < ws; q++)
            if (s->cp[i + q] == '\r' || s->cp[i + q] == '\n') last_break = q + 1;
        if (last_break) cut(s, i += last_break);
        else if (ws > 1 && i + ws < end) cut(s, i += ws - 1);
        else if (ws > 0) cut(s, i += ws);
        else cut(s, ++i);
    }
}

/* smollm: each number a word of its own, gpt-2 between them */
static void split_smollm(split *s, size_t from, size_t end) {
    for (size_t i = from; i < end;) {
        if (N(s->cls[i])) {
            cut(s, ++i);
            continue;
        }
        size_t j = i;
        while (j < end && !N(s->cls[j])) j++;
        split_gpt2(s, i, j);
        i = j;
    }
}

int sp_pretokenize(sp_pre_kind pre, const char *text, size_t len,
                   char **text_out, size_t **starts, size_t *bad_at) {
    split s = {0};
    *text_out = NULL;
    *starts = NULL;
    *bad_at = (size_t)-1;
    /* at most one code point per byte */
    s.cp = malloc(sizeof(uint32_t) * (len ? len : 1));
    s.cls = malloc(len ? len : 1);
    s.cuts = malloc(sizeof(size_t) * (len + 1));
    size_t *byte_at = malloc(sizeof(size_t) * (len + 1));
    /* written back: U+FFFD (3 bytes) for a lone byte, else as long */
    char *out = malloc(3 * len + 1);
    int n_words = -1;
    if (!s.cp || !s.cls || !s.cuts || !byte_at || !out) goto done;
    for (size_t at = 0; at < len;) {
        size_t from = at;
        s.cp[s.n] = sp_utf8_next(text, len, &at);
        if (s.cp[s.n] > 0x10ffff && *bad_at == (size_t)-1) *bad_at = from;
        s.cls[s.n] = (uint8_t)sp_unicode_classes(s.cp[s.n]);
        s.n++;
    }
    if (*bad_at != (size_t)-1) {
        n_words = -2;
        goto done;
    }
    if (pre == SP_PRE_GPT2) split_gpt2(&s, 0, s.n);
    else if (pre == SP_PRE_LLAMA3) split_llama3(&s, 0, s.n, 3);
    else if (pre == SP_PRE_QWEN2) split_llama3(&s, 0, s.n, 1);
    else split_smollm(&s, 0, s.n);
    size_t b = 0;
    for (size_t i = 0; i < s.n; i++) {
        byte_at[i] = b;
        b += (size_t)sp_utf8_put(s.cp[i], out + b);
    }
    byte_at[s.n] = b;
    /* word i is [starts[i], starts[i + 1]) */
    size_t *st = malloc(sizeof(size_t) * (s.n_cuts + 1));
    if (!st) goto done;
    st[0] = 0;
    for (size_t i = 0; i < s.n_cuts; i++) st[i + 1] = byte_at[s.cuts[i]];
    *starts = st;
    *text_out = out;
    out = NULL;
    n_words = (int)s.n_cuts;
done:
    free(s.cp);
    free(s.cls);
    free(s.cuts);
    free(byte_at);
    free(out);
    return n_words;
}
