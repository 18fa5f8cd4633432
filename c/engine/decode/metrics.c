/*
 * metrics.c — what a lesson measures about a generated text: diversity
 * (distinct-n, type-token ratio), repetition (the longest repeated
 * substring), and how sure the model was (mean entropy, perplexity).
 *
 * Definitions, over the generated tokens only (not the prompt):
 *   distinct-n       distinct n-grams of token ids / n-grams (Li et al. 2016)
 *   type-token ratio distinct words / words, words = runs of non-space bytes
 *   longest repeat   the longest byte string that occurs at least twice in
 *                    the text (occurrences may overlap), via a suffix array
 *                    (prefix doubling) and Kasai's LCP
 *   mean entropy     mean over steps of the final distribution's entropy
 *   perplexity       2^(mean over steps of -log2 p_model(token)), p_model the
 *                    raw model distribution: how surprised the model is by
 *                    the text the sampler chose
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define LN2 0.69314718055994530942

typedef struct {
    int a, b, c;
} trigram;

static int cmp_trigram(const void *x, const void *y) {
    const trigram *p = x, *q = y;
    if (p->a != q->a) return p->a < q->a ? -1 : 1;
    if (p->b != q->b) return p->b < q->b ? -1 : 1;
    return (p->c > q->c) - (p->c < q->c);
}

/* distinct n-grams / n-grams for n in 1..3 (0 when there are none) */
static double distinct_n(const int *t, int n_tokens, int n, trigram *scratch) {
    int count = n_tokens - n + 1;
    if (count <= 0) return 0.0;
    for (int i = 0; i < count; i++)
        scratch[i] = (trigram){t[i], n > 1 ? t[i + 1] : -1, n > 2 ? t[i + 2] : -1};
    qsort(scratch, (size_t)count, sizeof *scratch, cmp_trigram);
    int distinct = 1;
    for (int i = 1; i < count; i++)
        distinct += cmp_trigram(&scratch[i - 1], &scratch[i]) != 0;
    return (double)distinct / count;
}

typedef struct {
    const char *s;
    int len;
} word;

static int cmp_word(const void *x, const void *y) {
    const word *p = x, *q = y;
    int n = p->len < q->len ? p->len : q->len;
    int c = memcmp(p->s, q->s, (size_t)n);
    return c ? c : (p->len > q->len) - (p->len < q->len);
}

static int is_space(unsigned char c) {
    return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' ||
           c == '\v';
}

static double type_token_ratio(const char *text, int len, word *words) {
    int n = 0;
    for (int i = 0; i < len;) {
        while (i < len && is_space((unsigned char)text[i])) i++;
        int start = i;
        while (i < len && !is_space((unsigned char)text[i])) i++;
        if (i > start) words[n++] = (word){text + start, i - start};
    }
    if (n == 0) return 0.0;
    qsort(words, (size_t)n, sizeof *words, cmp_word);
    int distinct = 1;
    for (int i = 1; i < n; i++) distinct += cmp_word(&words[i - 1], &words[i]) != 0;
    return (double)distinct / n;
}

/* ---- longest repeated substring --------------------------------------- */

static const int *sort_rank;
static int sort_k, sort_n;

static int cmp_suffix(const void *x, const void *y) {
    int i = *(const int *)x, j = *(const int *)y;
    if (sort_rank[i] != sort_rank[j]) return sort_rank[i] < sort_rank[j] ? -1 : 1;
    int ri = i + sort_k < sort_n ? sort_rank[i + sort_k] : -1;
    int rj = j + sort_k < sort_n ? sort_rank[j + sort_k] : -1;
    return (ri > rj) - (ri < rj);
}

/* Length and position of the longest substring occurring twice; 0 if none. */
static int longest_repeat(const char *text, int n, int *at) {
    *at = 0;
    if (n < 2) return 0;
    int *sa = malloc(sizeof(int) * (size_t)n);
    int *rank = malloc(sizeof(int) * (size_t)n);
    int *tmp = malloc(sizeof(int) * (size_t)n);
    int best = 0;
    if (!sa || !rank || !tmp) goto done;
    for (int i = 0; i < n; i++) {
        sa[i] = i;
        rank[i] = (unsigned char)text[i];
    }
    /* prefix doubling: sort by (rank[i], rank[i + k]) until ranks differ */
    sort_rank = rank;
    sort_n = n;
    for (int k = 1;; k *= 2) {
        sort_k = k;
        qsort(sa, (size_t)n, sizeof(int), cmp_suffix);
        tmp[sa[0]] = 0;
        for (int i = 1; i < n; i++)
            tmp[sa[i]] = tmp[sa[i - 1]] + (cmp_suffix(&sa[i - 1], &sa[i]) < 0);
        memcpy(rank, tmp, sizeof(int) * (size_t)n);
        if (rank[sa[n - 1]] == n - 1 || k >= n) break;
    }
    /* Kasai: LCP of each suffix with the one before it in sorted order */
    int h = 0;
    for (int i = 0; i < n; i++) {
        if (rank[i] == 0) {
            h = 0;
            continue;
        }
        int j = sa[rank[i] - 1];
        while (i + h < n && j + h < n && text[i + h] == text[j + h]) h++;
        if (h > best || (h == best && h > 0 && (i < *at || j < *at))) {
            best = h;
            *at = i < j ? i : j;
        }
        if (h > 0) h--;
    }
done:
    free(sa);
    free(rank);
    free(tmp);
    return best;
}

int sp_text_metrics(const int *tokens, int n_tokens, const char *text,
                    int text_len, const sp_token_stat *stats,
                    sp_metrics *out) {
    memset(out, 0, sizeof *out);
    out->tokens = n_tokens;
    out->bytes = text_len;
    trigram *grams = malloc(sizeof(trigram) * (size_t)(n_tokens + 1));
    word *words = malloc(sizeof(word) * (size_t)(text_len + 1));
    if (!grams || !words) {
        free(grams);
        free(words);
        return SP_ERR_NOMEM;
    }
    out->distinct1 = distinct_n(tokens, n_tokens, 1, grams);
    out->distinct2 = distinct_n(tokens, n_tokens, 2, grams);
    out->distinct3 = distinct_n(tokens, n_tokens, 3, grams);
    out->type_token_ratio = type_token_ratio(text, text_len, words);
    free(grams);
    free(words);
    out->longest_repeat = longest_repeat(text, text_len, &out->longest_repeat_at);
    double h = 0, h_raw = 0, nll = 0, nucleus = 0;
    for (int i = 0; i < n_tokens; i++) {
        h += stats[i].entropy_bits;
        h_raw += stats[i].entropy_raw_bits;
        nll -= stats[i].logp_raw / LN2;
        nucleus += stats[i].n_kept;
    }
    if (n_tokens > 0) {
        out->mean_entropy_bits = h / n_tokens;
        out->mean_entropy_raw_bits = h_raw / n_tokens;
        out->mean_nucleus = nucleus / n_tokens;
        out->perplexity = sp_exp(nll / n_tokens * LN2); /* 2^(mean bits) */
    } else {
        out->mean_entropy_bits = out->mean_entropy_raw_bits = NAN;
        out->perplexity = out->mean_nucleus = NAN;
    }
    return SP_OK;
}
