/* chain_naive_stages.h — the stages as their definitions say, in double,
 * on the alive tokens, sorting where a definition sorts (test_chain_diff.c
 * runs them against the engine): the logit bias, the penalties, DRY,
 * no-repeat-ngram, the temperature, the truncating stages (top-nσ, top-k,
 * top-p, min-p, typical-p, epsilon, eta, top-a, XTC), mirostat and
 * adaptive-p.  The field's newer samplers: chain_naive_newer.h. */
#ifndef SP_CHAIN_NAIVE_STAGES_H
#define SP_CHAIN_NAIVE_STAGES_H

#include "chain_naive.h"

static void naive_bias(naive *n, const sp_params *p) {
    for (int b = 0; b < p->n_bias; b++) {
        int id = p->bias[b].token;
        if (!alive(n, id)) continue;
        if (p->bias[b].value == -INFINITY) cut(n, id, SP_CUT_BIAS);
        else n->x[id] += p->bias[b].value;
    }
}

static void naive_penalties(naive *n, const sp_params *p, const int *h, int nh) {
    int w = p->penalty_last_n > 0 && p->penalty_last_n < nh ? p->penalty_last_n : nh;
    const int *win = h + (nh - w);
    static int count[MAXV];
    memset(count, 0, sizeof(int) * (size_t)n->v);
    for (int i = 0; i < w; i++) count[win[i]]++;
    for (int id = 0; id < n->v; id++) {
        if (!count[id] || !alive(n, id)) continue;
        double x = n->x[id], r = p->repetition_penalty;
        /* the logit's own value is rounded to float between the two */
        x = finite_float(x > 0 ? x / r : x * r);
        n->x[id] = finite_float(x - (count[id] * (double)p->frequency_penalty + p->presence_penalty));
    }
}

/* DRY as kobold.cpp and llama.cpp define it, by brute force: token h[j]
 * followed the run ending at j - 1; its length is how far that run matches
 * the window's end (stopping at the nearest one-token breaker). */
static void naive_dry(naive *n, const sp_params *p, const int *h, int nh) {
    int w = p->dry_penalty_last_n > 0 && p->dry_penalty_last_n < nh ? p->dry_penalty_last_n : nh;
    const int *win = h + (nh - w);
    int allowed = p->dry_allowed_length;
    if (w <= allowed) return;
    int limit = w; /* the tokens after the nearest breaker from the end */
    for (int i = 0; i < w && limit == w; i++)
        for (int b = 0; b < p->n_dry_breakers; b++)
            if (win[w - 1 - i] == p->dry_breakers[b][0]) limit = i;
    if (limit < allowed) return;
    static int longest[MAXV];
    memset(longest, 0, sizeof(int) * (size_t)n->v);
    for (int j = 1; j < w; j++) {
        int len = 0;
        while (len < j && win[j - 1 - len] == win[w - 1 - len]) len++;
        if (len > limit) len = limit;
        if (len >= allowed && len > longest[win[j]]) longest[win[j]] = len;
    }
    for (int id = 0; id < n->v; id++) {
        if (!longest[id] || !alive(n, id)) continue;
        int breaker = 0;
        for (int b = 0; b < p->n_dry_breakers; b++) breaker |= p->dry_breakers[b][0] == id;
        if (breaker) continue;
        /* the exponent capped so that base^e stays a float */
        int e = longest[id] - allowed;
        int cap = p->dry_base > 1.000001f ? (int)(88.7228391 / log(p->dry_base)) : 0;
        if (cap > 0 && e > cap) e = cap;
        n->x[id] = finite_float(n->x[id] - p->dry_multiplier * pow(p->dry_base, e));
    }
}

static void naive_no_repeat_ngram(naive *n, const sp_params *p, const int *h, int nh) {
    int size = p->no_repeat_ngram_size;
    if (nh + 1 < size) return;
    for (int i = 0; i + size <= nh; i++) {
        int same = 1;
        for (int k = 0; k < size - 1; k++) same &= h[i + k] == h[nh - (size - 1) + k];
        if (same && alive(n, h[i + size - 1])) cut(n, h[i + size - 1], SP_CUT_NO_REPEAT_NGRAM);
    }
}

static void naive_temperature(naive *n, const sp_params *p) {
    static double pr[MAXV];
    double t = p->temperature;
    if (p->dynatemp_range > 0) {
        int k = n_alive(n);
        if (k <= 1) return;
        softmax(n, pr);
        double share = entropy(n, pr) / log((double)k);
        double lo = fmax(0.0, (double)p->temperature - p->dynatemp_range);
        double hi = (double)p->temperature + p->dynatemp_range;
        t = lo + (hi - lo) * (share > 0 ? pow(share, p->dynatemp_exp) : 0);
        t = (float)t;
    }
    if (t == 1.0 || n_alive(n) == 0) return;
    if (t <= 0) { /* greedy: the first token at the max */
        int best = -1;
        for (int i = 0; i < n->v; i++)
            if (alive(n, i) && (best < 0 || n->x[i] > n->x[best])) best = i;
        for (int i = 0; i < n->v; i++)
            if (i != best && alive(n, i)) cut(n, i, SP_CUT_TEMPERATURE);
        return;
    }
    for (int i = 0; i < n->v; i++)
        if (alive(n, i)) n->x[i] /= t;
}

static void naive_top_n_sigma(naive *n, const sp_params *p) {
    int k = n_alive(n);
    if (k <= 1) return;
    double max = -INFINITY, mean = 0, var = 0;
    for (int i = 0; i < n->v; i++)
        if (alive(n, i)) {
            max = n->x[i] > max ? n->x[i] : max;
            mean += n->x[i];
        }
    mean /= k;
    for (int i = 0; i < n->v; i++)
        if (alive(n, i)) var += (n->x[i] - mean) * (n->x[i] - mean);
    double floor_ = max - p->top_n_sigma * sqrt(var / k);
    for (int i = 0; i < n->v; i++) {
        if (!alive(n, i)) continue;
        if (near(n->x[i] - max, floor_ - max)) n->on_line = 1;
        /* a logit within a float's rounding of the floor (logits nearly
         * tied, whose spread float rounds away: sigma 0 there) */
        if (fabs(n->x[i] - floor_) <= LINE * fabs(max)) n->on_line = 1;
        if (n->x[i] < floor_) cut(n, i, SP_CUT_TOP_N_SIGMA);
    }
}

static void naive_top_k(naive *n, const sp_params *p) {
    static int ids[MAXV];
    static double neg[MAXV];
    int k = p->top_k;
    for (int i = 0; i < n->v; i++) neg[i] = -n->x[i];
    int m = sorted_alive(n, neg, ids);
    if (k <= 0 || k >= n->v || m <= k) return;
    double kth = n->x[ids[k - 1]];
    for (int j = k; j < m; j++) {
        /* distinct logits a rounding apart may tie in float */
        if (n->x[ids[j]] != kth && near(n->x[ids[j]], kth)) n->on_line = 1;
        if (n->x[ids[j]] < kth) cut(n, ids[j], SP_CUT_TOP_K);
    }
}

static void naive_top_p(naive *n, const sp_params *p) {
    static double pr[MAXV], key[MAXV];
    if (n_alive(n) <= 1) return;
    softmax(n, pr);
    double top = 0;
    for (int i = 0; i < n->v; i++) {
        key[i] = -pr[i];
        top = pr[i] > top ? pr[i] : top;
    }
    keep_mass_prefix(n, key, pr, p->top_p, LINE * top, SP_CUT_TOP_P);
}

static void naive_min_p(naive *n, const sp_params *p) {
    static double pr[MAXV];
    if (n_alive(n) <= 1) return;
    softmax(n, pr);
    double pmax = 0;
    for (int i = 0; i < n->v; i++) pmax = pr[i] > pmax ? pr[i] : pmax;
    for (int i = 0; i < n->v; i++) {
        if (!alive(n, i)) continue;
        if (near(pr[i] / pmax, p->min_p)) n->on_line = 1;
        if (pr[i] / pmax < p->min_p) cut(n, i, SP_CUT_MIN_P);
    }
}

static void naive_typical_p(naive *n, const sp_params *p) {
    static double pr[MAXV], key[MAXV];
    if (n_alive(n) <= 1) return;
    softmax(n, pr);
    double h = entropy(n, pr);
    double scale = h;
    for (int i = 0; i < n->v; i++) {
        key[i] = alive(n, i) ? fabs(-log(pr[i]) - h) : 0;
        if (alive(n, i) && -log(pr[i]) > scale) scale = -log(pr[i]);
    }
    /* a key is a difference of surprisals: its rounding is theirs */
    keep_mass_prefix(n, key, pr, p->typical_p, LINE * (1 + scale), SP_CUT_TYPICAL_P);
}

/* epsilon, eta, top-a: p below the bar goes, unless tied with the top */
static void cut_below(naive *n, const double *pr, double bar, sp_cut stage) {
    double top = 0;
    for (int i = 0; i < n->v; i++) top = pr[i] > top ? pr[i] : top;
    for (int i = 0; i < n->v; i++) {
        if (!alive(n, i) || pr[i] == top) continue;
        /* one a rounding below the top is tied with it in float (kept) */
        if (near(pr[i], top) && pr[i] < bar) n->on_line = 1;
        if (near(pr[i], bar)) n->on_line = 1;
        if (pr[i] < bar) cut(n, i, stage);
    }
}

static void naive_epsilon(naive *n, const sp_params *p) {
    static double pr[MAXV];
    if (n_alive(n) <= 1) return;
    softmax(n, pr);
    cut_below(n, pr, p->epsilon_cutoff, SP_CUT_EPSILON);
}

static void naive_eta(naive *n, const sp_params *p) {
    static double pr[MAXV];
    if (n_alive(n) <= 1) return;
    softmax(n, pr);
    double eta = p->eta_cutoff;
    cut_below(n, pr, fmin(eta, sqrt(eta) * exp(-entropy(n, pr))), SP_CUT_ETA);
}

static void naive_top_a(naive *n, const sp_params *p) {
    static double pr[MAXV];
    if (n_alive(n) <= 1) return;
    softmax(n, pr);
    double top = 0;
    for (int i = 0; i < n->v; i++) top = pr[i] > top ? pr[i] : top;
    cut_below(n, pr, p->top_a * top * top, SP_CUT_TOP_A);
}

/* XTC: when the draw says so and two tokens or more reach the threshold,
 * all of them go but the least likely (of equals, the highest id) */
static void naive_xtc(naive *n, const sp_params *p, double u) {
    static double pr[MAXV];
    if (!(u < p->xtc_probability) || n_alive(n) < 2) return;
    softmax(n, pr);
    int above = 0, last = -1;
    for (int i = 0; i < n->v; i++) {
        if (!alive(n, i)) continue;
        if (near(pr[i], p->xtc_threshold)) n->on_line = 1;
        if (pr[i] < p->xtc_threshold) continue;
        above++;
        if (last < 0 || pr[i] <= pr[last]) last = i;
    }
    if (above < 2) return;
    /* the least likely of two a rounding apart may be the other in float */
    for (int i = 0; i < n->v; i++)
        if (alive(n, i) && pr[i] >= p->xtc_threshold && pr[i] != pr[last] &&
            near(pr[i], pr[last]))
            n->on_line = 1;
    for (int i = 0; i < n->v; i++)
        if (i != last && alive(n, i) && pr[i] >= p->xtc_threshold) cut(n, i, SP_CUT_XTC);
}

/* Mirostat at its start (mu = 2 tau). v2: keep -log2 p <= mu (the most
 * likely if none); v1: the Zipf exponent from the 100 most likely, then
 * top-k with k = ((s - 1) 2^mu / (1 - V^(1 - s)))^(1/s), whatever s. */
static void naive_mirostat(naive *n, const sp_params *p) {
    static double pr[MAXV], key[MAXV];
    static int ids[MAXV];
    int k = n_alive(n);
    if (k <= 1) return;
    softmax(n, pr);
    double mu = 2.0 * p->mirostat_tau;
    for (int i = 0; i < n->v; i++) key[i] = -pr[i];
    int m = sorted_alive(n, key, ids);
    if (p->mirostat == 2) {
        double bar = pow(2.0, -mu);
        int keep = 0;
        for (int j = 0; j < m; j++) {
            if (near(pr[ids[j]], bar)) n->on_line = 1;
            keep += pr[ids[j]] >= bar;
        }
        /* the most likely alone: one a rounding from it may be it in float */
        if (!keep && m > 1 && pr[ids[1]] != pr[ids[0]] && near(pr[ids[1]], pr[ids[0]]))
            n->on_line = 1;
        if (!keep) keep = 1;
        for (int j = keep; j < m; j++) cut(n, ids[j], SP_CUT_MIROSTAT);
        return;
    }
    double tb = 0, tt = 0;
    for (int i = 0; i + 1 < m && i + 1 < 100; i++) {
        /* a mass that float's exp makes 0 or subnormal (a steep tail: a
         * quadratic's) gives the engine's estimate another value */
        if (pr[ids[i + 1]] < 1e-30 * pr[ids[0]]) n->on_line = 1;
        double t = log((i + 2.0) / (i + 1.0));
        tb += t * log(pr[ids[i]] / pr[ids[i + 1]]);
        tt += t * t;
    }
    /* k = (eps 2^mu / (1 - V^-eps))^(1/s) for every s >= 0, as llama.cpp
     * and the paper have it (a flat head, s < 1, gives a small k); at
     * s = 1 the ratio's limit 1 / ln V */
    double s = tt > 0 ? tb / tt : 0, eps = s - 1, kk;
    double ratio = eps != 0 ? eps / (1 - pow(n->v, -eps)) : 1 / log((double)n->v);
    double base = ratio * pow(2.0, mu);
    if (s > 0) {
        kk = pow(base, 1 / s);
        /* k is a floor of a computed value: a value near a whole number is on a line */
        if (fabs(kk - floor(kk + 0.5)) < 1e-6 * kk) n->on_line = 1;
        if (fabs(log(base) / s - log((double)m)) < 1e-6 * (1 + log((double)m))) n->on_line = 1;
    } else {
        kk = base > 1 ? m : 1;
    }
    if (fabs(eps) < 1e-6 || s < 1e-9 || fabs(base - 1) < 1e-9) n->on_line = 1;
    int keep = kk < 1 ? 1 : kk >= m ? m : (int)kk;
    if (keep >= m) return;
    double kth = pr[ids[keep - 1]];
    for (int j = keep; j < m; j++) {
        if (pr[ids[j]] != kth && near(pr[ids[j]], kth)) n->on_line = 1;
        if (pr[ids[j]] < kth) cut(n, ids[j], SP_CUT_MIROSTAT);
    }
}

/* Adaptive-p at its start (the average is the target, so the aim is the
 * target): each alive token's logit becomes 5 - 10 d^2 / (1 + d), d = |p -
 * aim| / 0.3, p its probability before the stage. */
static void naive_adaptive_p(naive *n, const sp_params *p) {
    static double pr[MAXV];
    if (n_alive(n) == 0) return;
    softmax(n, pr);
    static double e[MAXV];
    double aim = p->adaptive_target > 1 ? 1 : p->adaptive_target, top = -INFINITY;
    for (int i = 0; i < n->v; i++) top = n->x[i] > top ? n->x[i] : top;
    for (int i = 0; i < n->v; i++) {
        if (!alive(n, i)) continue;
        double d = fabs(pr[i] - aim) / 0.3;
        /* p_i's rounding (relative, its logit's and the top's), through the
         * slope 10 / 0.3 d (2 + d) / (1 + d)^2 <= 33.4 */
        e[i] = 10 / 0.3 * d * (2 + d) / ((1 + d) * (1 + d)) * pr[i] * 4 * FLT_EPSILON * (fabs(n->x[i]) + fabs(top) + 1);
        n->x[i] = 5 - 10 * d * d / (1 + d);
    }
    add_slack(n, e);
}

#endif
