/*
 * repeats.c — the stages that look at the text so far for repeats: DRY
 * ("don't repeat yourself") and no-repeat-ngram.  Both read the whole
 * history (the prompt and the generated tokens); DRY only its last
 * dry_penalty_last_n tokens when that is set.
 */
#include "candidates.h"

/* ------------------------------------------------------------------ DRY */

/* The i-th token from the end of the window (0 = the last). */
#define BACK(i) (win[n - 1 - (i)])

/*
 * DRY (the definitions of llama.cpp's llama_sampler_dry_apply, after
 * kobold.cpp): a token that would extend a repeat of the window's end
 * loses multiplier * base^(length - allowed_length) from its logit, where
 * length is the longest earlier run that the window's last tokens repeat
 * and that this token followed.  Sequence breakers (token sequences) end
 * a repeat: the repeat length is capped by the nearest breaker from the
 * end, and a token that is itself a one-token breaker is never penalized.
 * The exponent is capped so that base^exponent stays a float.
 */
void sp_stage_dry(sp_candidates *c, const sp_params *p) {
    if (p->dry_multiplier == 0.0f || p->dry_base < 1.0f) return;
    c->s->dry_n = 0; /* on (the step record's -1: off) */
    int n = c->n_all;
    if (p->dry_penalty_last_n > 0 && p->dry_penalty_last_n < n)
        n = p->dry_penalty_last_n;
    if (n <= p->dry_allowed_length) return;
    const int *win = c->all + (c->n_all - n);
    int allowed = p->dry_allowed_length;

    /* 1. the nearest sequence breaker from the end caps the repeats */
    int limit = n;
    for (int i = 0; i < n && limit == n; i++) {
        int longest = -1;
        for (int b = 0; b < p->n_dry_breakers; b++) {
            const int *seq = p->dry_breakers[b];
            int tail = p->dry_breaker_len[b] - 1; /* tokens after the head */
            if (seq[0] != BACK(i) || tail <= longest || tail > i) continue;
            int match = 1;
            for (int k = 0; k < tail && match; k++)
                match = seq[1 + k] == BACK(i - k - 1);
            if (match) longest = tail;
        }
        if (longest >= 0) limit = i - longest;
    }
    if (limit < allowed) return;

    /* 2. repeat[k]: how many of the window's last tokens the tokens
     * ending k from the end repeat (a reverse Z-algorithm: linear) */
    int *repeat = c->s->repeat; /* [n]: the warp made room */
    repeat[0] = 0;
    int lt = 0, rt = 0;
    for (int k = 1; k < n; k++) {
        int len;
        if (k > rt) {
            len = 0;
            while (len + k < n && BACK(len) == BACK(len + k)) len++;
            if (len > 0) {
                lt = k;
                rt = k + len - 1;
            }
        } else {
            int pair = repeat[k - lt], right = rt - k + 1;
            if (pair < right) {
                len = pair;
            } else {
                int j = rt + 1;
                while (j < n && BACK(j) == BACK(j - k)) j++;
                len = j - k;
                lt = k;
                rt = j - 1;
            }
        }
        repeat[k] = len; /* uncapped: the Z-box needs the true lengths */
    }

    /* 3. each token that followed a long enough repeat: its longest */
    int *longest = c->s->counts; /* zero between uses */
    for (int k = 1; k < n; k++) {
        int len = repeat[k] < limit ? repeat[k] : limit;
        if (len < allowed) continue;
        int next = BACK(k - 1); /* the token that followed that occurrence */
        if (len > longest[next]) longest[next] = len;
    }

    /* 4. the penalties, the exponent capped so base^e stays finite */
    int max_exp = 0;
    if (p->dry_base > 1.000001f)
        max_exp = (int)(88.7228391 / sp_log((double)p->dry_base));
    for (int k = 1; k < n; k++) {
        int id = BACK(k - 1);
        int len = longest[id];
        if (!len) continue;
        longest[id] = 0; /* once per token, and the array zero again */
        int single_breaker = 0;
        for (int b = 0; b < p->n_dry_breakers; b++)
            if (p->dry_breaker_len[b] == 1 && p->dry_breakers[b][0] == id)
                single_breaker = 1;
        if (single_breaker || c->logits[id] == -INFINITY) continue;
        int e = len - allowed;
        if (max_exp > 0 && e > max_exp) e = max_exp;
        double penalty = (double)p->dry_multiplier *
                         sp_pow((double)p->dry_base, (double)e);
        c->logits[id] = sp_clamp_finite((float)(c->logits[id] - penalty));
        sp_cands_penalized(c, id);
        /* for the step record (cleared through the penalized list) */
        c->s->dry_len[id] = len;
        c->s->dry_n++;
        if (len > c->s->dry_longest) c->s->dry_longest = len;
    }
}

#undef BACK

/* ------------------------------------------------------- no-repeat-ngram */

/*
 * No-repeat-ngram (Hugging Face's NoRepeatNGramLogitsProcessor): a token
 * that would complete an n-gram already in the text is removed.  The text's
 * last n - 1 tokens are the n-gram's start; every token that followed that
 * start earlier is cut.
 */
void sp_stage_no_repeat_ngram(sp_candidates *c, const sp_params *p) {
    int size = p->no_repeat_ngram_size;
    if (size <= 0) return;
    int n = c->n_all;
    const int *t = c->all;
    if (n + 1 < size) return; /* no n-gram can be complete yet */
    int start = n - (size - 1); /* the current n-gram's first token */
    int cut = 0;
    for (int i = 0; i + size <= n; i++) {
        int same = 1;
        for (int k = 0; k < size - 1 && same; k++) same = t[i + k] == t[start + k];
        if (!same) continue;
        int id = t[i + size - 1];
        if (c->cut[id] == SP_CUT_NONE) {
            sp_cands_cut(c, id, SP_CUT_NO_REPEAT_NGRAM);
            cut = 1;
        }
    }
    if (cut && c->listed) sp_cands_compact(c);
}
