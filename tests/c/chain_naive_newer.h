/* chain_naive_newer.h — the field's newer samplers (issue 25) as their
 * definitions say, for test_chain_diff.c: top-H, p-less, tail-free
 * sampling, quadratic sampling, the length stages, sequence biases, bad
 * words and the watermark. */
#ifndef SP_CHAIN_NAIVE_NEWER_H
#define SP_CHAIN_NAIVE_NEWER_H

#include "chain_naive_stages.h"


/* Top-H (Hugging Face's TopHLogitsWarper): the 100 most likely alive tokens
 * (logit desc, id asc), their softmax q among themselves; keep them in
 * rank order while the running sum of -q ln q is <= top_h * H, H that sum
 * over all 100; the first always stays, every token past the window goes. */
static void naive_top_h(naive *n, const sp_params *p) {
    static int ids[MAXV];
    static double key[MAXV];
    if (n_alive(n) <= 1) return;
    for (int i = 0; i < n->v; i++) key[i] = -n->x[i];
    int k = sorted_alive(n, key, ids), w = k < 100 ? k : 100;
    double m = n->x[ids[0]], z = 0, h = 0, cum[100];
    for (int j = 0; j < w; j++) z += exp(n->x[ids[j]] - m);
    for (int j = 0; j < w; j++) {
        double q = exp(n->x[ids[j]] - m) / z;
        if (q > 0) h -= q * log(q);
        cum[j] = h;
    }
    double tau = p->top_h * h;
    int keep = 1;
    while (keep < w && cum[keep] <= tau) keep++;
    for (int j = 1; j < w; j++)
        if (near(cum[j], tau)) n->on_line = 1;
    /* distinct logits a rounding apart across an edge (the window's, the
     * kept prefix's) may tie or swap in float */
    if (edge_near(n, ids, k, w) || edge_near(n, ids, k, keep)) n->on_line = 1;
    for (int j = keep; j < k; j++) cut(n, ids[j], SP_CUT_TOP_H);
}

/* P-less: keep p >= sum p^2 (the top token, and any tied with it, stays) */
static void naive_p_less(naive *n) {
    static double pr[MAXV];
    if (n_alive(n) <= 1) return;
    softmax(n, pr);
    double sq = 0;
    for (int i = 0; i < n->v; i++) sq += pr[i] * pr[i];
    cut_below(n, pr, sq, SP_CUT_P_LESS);
}

/* Tail-free (llama.cpp's): rank the alive tokens, second differences of
 * their probabilities as shares of their sum (equal shares below 1e-6),
 * keep the first i, i the first index >= 1 where the running share passes z */
static void naive_tfs(naive *n, const sp_params *p) {
    static int ids[MAXV];
    static double key[MAXV], pr[MAXV], d2[MAXV];
    if (n_alive(n) <= 2) return;
    softmax(n, pr);
    for (int i = 0; i < n->v; i++) key[i] = -n->x[i];
    int k = sorted_alive(n, key, ids), m = k - 2, keep = k;
    double sum = 0, cum = 0;
    for (int i = 0; i < m; i++) {
        d2[i] = fabs((pr[ids[i]] - pr[ids[i + 1]]) - (pr[ids[i + 1]] - pr[ids[i + 2]]));
        sum += d2[i];
    }
    if (near(sum, 1e-6)) n->on_line = 1;
    for (int i = 0; i < m; i++) {
        cum += sum > 1e-6 ? d2[i] / sum : 1.0 / m;
        /* a share is a difference of probabilities: its rounding is theirs */
        if (fabs(cum - p->tfs) <= LINE) n->on_line = 1;
        if (cum > p->tfs && i >= 1) {
            keep = i;
            break;
        }
    }
    if (edge_near(n, ids, k, keep)) n->on_line = 1;
    for (int j = keep; j < k; j++) cut(n, ids[j], SP_CUT_TFS);
}

/* Quadratic sampling: x -> max - k f d^2 + s f d^3, d = x - max */
static void naive_quadratic(naive *n, const sp_params *p) {
    double m = -INFINITY, f = p->smoothing_factor, c = p->smoothing_curve;
    static double e[MAXV];
    double k = (3 - c) / 2, s = (c - 1) / 2;
    for (int i = 0; i < n->v; i++) m = n->x[i] > m ? n->x[i] : m;
    for (int i = 0; i < n->v; i++) {
        if (!alive(n, i)) continue;
        double d = n->x[i] - m;
        /* d's rounding (its logit's and the max's) through the slope */
        e[i] = fabs(-2 * k * f * d + 3 * s * f * d * d) * 4 * FLT_EPSILON * (fabs(n->x[i]) + fabs(m));
        n->x[i] = finite_float(-(k * f * d * d) + s * f * d * d * d + m);
    }
    add_slack(n, e);
}

/* The length stages, at step `at` with one end-of-text token `end`:
 * min-new-tokens cuts it before step N; the decay penalty adds
 * |x| (factor^(at - start) - 1) to its logit past start. */
static int len_at, len_end;
static void naive_min_new_tokens(naive *n, const sp_params *p) {
    if (len_at < p->min_new_tokens && alive(n, len_end)) cut(n, len_end, SP_CUT_MIN_NEW_TOKENS);
}
static void naive_exp_decay(naive *n, const sp_params *p) {
    int over = len_at - p->exp_decay_start;
    if (over <= 0 || !alive(n, len_end)) return;
    double x = n->x[len_end];
    n->x[len_end] = finite_float(x + fabs(x) * (pow(p->exp_decay_factor, over) - 1));
}

/* words, not ids: a word whose first tokens end the history */
static int naive_completes(const sp_word *w, const int *h, int nh) {
    if (w->n - 1 > nh) return 0;
    for (int k = 0; k < w->n - 1; k++)
        if (h[nh - (w->n - 1) + k] != w->tokens[k]) return 0;
    return 1;
}
static void naive_sequence_bias(naive *n, const sp_params *p, const int *h, int nh) {
    for (int i = 0; i < p->n_seq_bias; i++) {
        const sp_word *w = &p->seq_bias[i];
        int id = w->tokens[w->n - 1];
        if (alive(n, id) && naive_completes(w, h, nh))
            n->x[id] = finite_float(n->x[id] + w->value);
    }
}
static void naive_bad_words(naive *n, const sp_params *p, const int *h, int nh) {
    for (int i = 0; i < p->n_bad_words; i++) {
        const sp_word *w = &p->bad_words[i];
        int id = w->tokens[w->n - 1];
        if (alive(n, id) && naive_completes(w, h, nh)) cut(n, id, SP_CUT_BAD_WORDS);
    }
}
/* The watermark (Kirchenbauer et al. 2023): the green list after the last
 * token h[nh - 1] is the first floor(v gamma) ids of the vocabulary
 * shuffled by Fisher-Yates from the front, PCG32 seeded with
 * (key << 32) | prev, each swap's partner j + r, r uniform in [0, v - j)
 * as the high word of u32 x (v - j), redrawn while the low word is below
 * 2^32 mod (v - j); delta is added to the green tokens alive. */
static void naive_watermark(naive *n, const sp_params *p, const int *h, int nh) {
    static int perm[MAXV];
    if (nh < 1) return;
    sp_rng r;
    sp_rng_seed(&r, (uint64_t)(uint32_t)p->watermark_key << 32 | (uint32_t)h[nh - 1]);
    for (int i = 0; i < n->v; i++) perm[i] = i;
    int green = (int)floor((double)n->v * (double)p->watermark_gamma);
    for (int j = 0; j < green; j++) {
        uint64_t range = (uint64_t)(n->v - j), m;
        do m = (uint64_t)sp_rng_u32(&r) * range;
        while ((uint32_t)m < (uint32_t)((1ull << 32) % range));
        int k = j + (int)(m >> 32), t = perm[k];
        perm[k] = perm[j];
        perm[j] = t;
    }
    for (int j = 0; j < green; j++)
        if (alive(n, perm[j])) n->x[perm[j]] = finite_float(n->x[perm[j]] + p->watermark_delta);
}

#endif
