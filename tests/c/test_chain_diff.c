/* test_chain_diff.c — the sampler chain against the definitions of its
 * stages, in any order.
 *
 * Random logits (ties, masked -inf tokens, vocabularies from 2 to 3 000),
 * random histories (some repeating themselves, for DRY and the n-grams),
 * random subsets of the stages with random settings, in random orders (not
 * the presets only), a constraint mask now and then, mirostat at the end
 * now and then.  Each case runs three ways:
 *
 *   fast       the sampler as it ships (its shortcuts on, the reporting
 *              on or off at random),
 *   reference  the same sampler with no shortcut (sp_sampler_set_reference),
 *   naive      below: each stage as its definition says, in double, on the
 *              alive tokens, sorting where a definition sorts; the
 *              temperature divides x / T as llama.cpp does.
 *
 * fast and reference must agree to the bit (final probabilities, kept
 * list, cut marks).  naive and reference must keep the same tokens, cut by
 * the same stages, with final probabilities within 1e-6 of each other
 * (relative to the larger, 1e-9 absolute below).  Where a token of the
 * naive chain sits within rounding of a stage's line (a mass that reaches
 * top-p's target to 1e-6, a ratio at min-p's bar, a logit tied with top-k's
 * k-th up to rounding...), float and double may fairly decide it either
 * way: such a case is counted as "on a line" and held to the fast =
 * reference rule only.  Fixed seeds; the counts are printed. */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "internal.h"
#include "sampler.h"

enum { MAXV = 3000, MAXH = 96 };

static sp_rng rng;
static uint32_t below(uint32_t n) { return sp_rng_u32(&rng) % n; }
static double uniform(double lo, double hi) {
    return lo + (hi - lo) * sp_rng_uniform(&rng);
}

/* ------------------------------------------------ the naive chain */

/* The naive chain's state: every token's logit (double, -inf when cut)
 * and the code of the stage that cut it. */
typedef struct {
    int v;
    double x[MAXV];
    uint8_t cut[MAXV];
    int on_line; /* a decision within rounding of its line */
    /* a reshaping stage that bends the logits (quadratic sampling,
     * adaptive-p) multiplies the rounding its input carries: each token's
     * final probability may move by slack[i] (relative) more */
    double slack[MAXV];
} naive;

/* Where a decision is this close to its line (relatively), float and
 * double may take it either way. */
#define LINE 1e-5

static int near(double a, double b) {
    double scale = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
    return fabs(a - b) <= LINE * (scale > 1e-30 ? scale : 1e-30);
}

static int alive(const naive *n, int i) { return n->x[i] != -INFINITY; }

/* a penalty keeps a logit a finite float (as the engine's do) */
static double finite_float(double x) {
    return x > FLT_MAX ? FLT_MAX : x < -FLT_MAX ? -FLT_MAX : (float)x;
}

static void cut(naive *n, int i, sp_cut stage) {
    n->x[i] = -INFINITY;
    n->cut[i] = (uint8_t)stage;
}

static int n_alive(const naive *n) {
    int k = 0;
    for (int i = 0; i < n->v; i++) k += alive(n, i);
    return k;
}

/* the softmax of the alive tokens; returns the largest logit */
static double softmax(const naive *n, double *p) {
    double m = -INFINITY, z = 0;
    for (int i = 0; i < n->v; i++) m = n->x[i] > m ? n->x[i] : m;
    for (int i = 0; i < n->v; i++) z += p[i] = alive(n, i) ? exp(n->x[i] - m) : 0;
    for (int i = 0; i < n->v; i++) p[i] /= z;
    return m;
}

/* A bending stage left token i's logit e[i] off (its input's rounding times
 * the stage's slope): p_i moves by e_i and by the mean of the e's it is
 * normalized with. */
static void add_slack(naive *n, const double *e) {
    static double pr[MAXV];
    softmax(n, pr);
    double mean = 0;
    for (int i = 0; i < n->v; i++) mean += alive(n, i) ? pr[i] * e[i] : 0;
    for (int i = 0; i < n->v; i++) n->slack[i] += alive(n, i) ? e[i] + mean : 0;
}

static double entropy(const naive *n, const double *p) {
    double h = 0;
    for (int i = 0; i < n->v; i++)
        if (alive(n, i) && p[i] > 0) h -= p[i] * log(p[i]);
    return h;
}

/* sorting the alive tokens by a key, ties by id */
static const double *sort_key;
static int by_key(const void *a, const void *b) {
    int i = *(const int *)a, j = *(const int *)b;
    if (sort_key[i] != sort_key[j]) return sort_key[i] < sort_key[j] ? -1 : 1;
    return i - j;
}

static int sorted_alive(const naive *n, const double *key, int *ids) {
    int k = 0;
    for (int i = 0; i < n->v; i++)
        if (alive(n, i)) ids[k++] = i;
    sort_key = key;
    qsort(ids, (size_t)k, sizeof *ids, by_key);
    return k;
}

/* Keeps the fewest tokens, in key order, whose mass reaches target (at
 * least one); a prefix whose mass is within rounding of the target, or a
 * token left out whose key is within key_tol of the last one kept, is on
 * a line. */
static void keep_mass_prefix(naive *n, const double *key, const double *p,
                             double target, double key_tol, sp_cut stage) {
    static int ids[MAXV];
    int k = sorted_alive(n, key, ids), m = k;
    double acc = 0;
    for (int j = 0; j < k; j++) {
        acc += p[ids[j]];
        if (near(acc, target)) n->on_line = 1;
        if (acc >= target) {
            m = j + 1;
            break;
        }
    }
    /* a token left out whose key is a rounding from the last one kept
     * may come before it in float */
    for (int j = m; j < k && key[ids[j]] - key[ids[m - 1]] <= key_tol; j++)
        if (key[ids[j]] != key[ids[m - 1]]) n->on_line = 1;
    for (int j = m; j < k; j++) cut(n, ids[j], stage);
}

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

/* ---- the field's newer samplers (issue 25) ---- */

/* Whether a token on one side of rank `at` of ids[0..k) (sorted by logit
 * desc) has a logit a rounding from, but not equal to, the one across. */
static int edge_near(const naive *n, const int *ids, int k, int at) {
    if (at <= 0 || at >= k) return 0;
    double last = n->x[ids[at - 1]], first = n->x[ids[at]];
    for (int j = at; j < k && near(n->x[ids[j]], last); j++)
        if (n->x[ids[j]] != last) return 1;
    for (int j = at - 1; j >= 0 && near(n->x[ids[j]], first); j--)
        if (n->x[ids[j]] != first) return 1;
    return 0;
}

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

/* Classifier-free guidance (HF's UnbatchedClassifierFreeGuidance
 * LogitsProcessor): x = s (log_softmax(x) - log_softmax(u)) + log_softmax(u),
 * the first over the tokens alive, the second over the whole vocabulary. */
static const float *naive_uncond;
static void naive_cfg(naive *n, const sp_params *p) {
    double zx = 0, zu = 0, s = p->cfg_scale;
    for (int i = 0; i < n->v; i++) {
        if (alive(n, i)) zx += exp((double)n->x[i]);
        zu += exp((double)naive_uncond[i]);
    }
    double lx = log(zx), lu = log(zu);
    for (int i = 0; i < n->v; i++)
        if (alive(n, i)) {
            double u = (double)naive_uncond[i] - lu;
            double out = s * ((double)n->x[i] - lx - u) + u;
            /* a logit near the float's end (a length penalty's clamp):
             * the engine's float and this double part ways there */
            if (fabs(n->x[i]) > 1e30 || fabs(out) > 1e30) n->on_line = 1;
            n->x[i] = finite_float(out);
        }
}

static void naive_chain(naive *n, const float *logits, const uint8_t *mask,
                        const int *h, int nh, const sp_params *p, double xtc_u,
                        double *probs) {
    for (int i = 0; i < n->v; i++) {
        n->x[i] = logits[i];
        n->cut[i] = logits[i] == -INFINITY ? SP_CUT_MASK : SP_CUT_NONE;
        if (mask && !mask[i] && alive(n, i)) cut(n, i, SP_CUT_CONSTRAINT);
    }
    n->on_line = 0;
    memset(n->slack, 0, sizeof n->slack);
    int stages = p->n_order ? p->n_order : SP_STAGE_COUNT;
    for (int j = 0; j < stages; j++) {
        switch (p->n_order ? p->order[j] : j) {
        case SP_STAGE_BIAS: naive_bias(n, p); break;
        case SP_STAGE_PENALTIES: naive_penalties(n, p, h, nh); break;
        case SP_STAGE_DRY: if (p->dry_multiplier > 0) naive_dry(n, p, h, nh); break;
        case SP_STAGE_NO_REPEAT_NGRAM: if (p->no_repeat_ngram_size > 0) naive_no_repeat_ngram(n, p, h, nh); break;
        case SP_STAGE_TEMPERATURE: naive_temperature(n, p); break;
        case SP_STAGE_TOP_N_SIGMA: if (p->top_n_sigma > 0) naive_top_n_sigma(n, p); break;
        case SP_STAGE_TOP_K: naive_top_k(n, p); break;
        case SP_STAGE_TOP_P: if (p->top_p < 1) naive_top_p(n, p); break;
        case SP_STAGE_MIN_P: if (p->min_p > 0) naive_min_p(n, p); break;
        case SP_STAGE_TYPICAL_P: if (p->typical_p < 1) naive_typical_p(n, p); break;
        case SP_STAGE_EPSILON: if (p->epsilon_cutoff > 0) naive_epsilon(n, p); break;
        case SP_STAGE_ETA: if (p->eta_cutoff > 0) naive_eta(n, p); break;
        case SP_STAGE_TOP_A: if (p->top_a > 0) naive_top_a(n, p); break;
        case SP_STAGE_XTC: if (p->xtc_probability > 0 && p->xtc_threshold <= 0.5f) naive_xtc(n, p, xtc_u); break;
        case SP_STAGE_TOP_H: if (p->top_h > 0) naive_top_h(n, p); break;
        case SP_STAGE_P_LESS: if (p->p_less) naive_p_less(n); break;
        case SP_STAGE_TFS: if (p->tfs < 1) naive_tfs(n, p); break;
        case SP_STAGE_QUADRATIC: if (p->smoothing_factor > 0) naive_quadratic(n, p); break;
        case SP_STAGE_MIN_NEW_TOKENS: if (p->min_new_tokens > 0) naive_min_new_tokens(n, p); break;
        case SP_STAGE_EXP_DECAY: if (p->exp_decay_factor != 1.0f) naive_exp_decay(n, p); break;
        case SP_STAGE_SEQUENCE_BIAS: naive_sequence_bias(n, p, h, nh); break;
        case SP_STAGE_BAD_WORDS: naive_bad_words(n, p, h, nh); break;
        case SP_STAGE_WATERMARK: if (p->watermark_delta != 0) naive_watermark(n, p, h, nh); break;
        case SP_STAGE_CFG: if (p->cfg_scale != 1) naive_cfg(n, p); break;
        }
    }
    if (p->mirostat) naive_mirostat(n, p);
    if (p->adaptive_target >= 0) naive_adaptive_p(n, p);
    softmax(n, probs);
}

/* ------------------------------------------------- the random cases */

/* The logits' families, by name (a failure names its case's). */
static const char *const FAMILIES[] = {"spread", "ties", "masked", "peaked", "flat-ish"};

static void fill_logits(float *x, int v, int family) {
    for (int i = 0; i < v; i++) {
        switch (family) {
        case 0: x[i] = (float)uniform(-10, 10); break;
        case 1: x[i] = (float)below(5) - 2.0f; break;
        case 2: x[i] = below(3) ? (float)uniform(-4, 4) : -INFINITY; break;
        case 3: x[i] = (float)(-1.5 * log(i + 1.0) + uniform(-0.3, 0.3)); break;
        default: x[i] = (float)uniform(-0.5, 0.5); break;
        }
    }
    if (x[below((uint32_t)v)] == -INFINITY || family == 2) x[below((uint32_t)v)] = 1.0f;
}

/* A random subset of the stages in a random order, each stage's settings
 * away from neutral. */
/* a random word of 1..4 tokens; half of them end as the history does, so
 * that their last token is the one they change */
static void random_word(int *ids, int *n, int v, const int *h, int nh) {
    *n = 1 + (int)below(4);
    int follow = below(2) && *n - 1 <= nh;
    for (int k = 0; k < *n - 1; k++)
        ids[k] = follow ? h[nh - (*n - 1) + k] : (int)below((uint32_t)v);
    ids[*n - 1] = (int)below((uint32_t)v);
}

static void random_chain(sp_params *p, int v, const int *h, int nh) {
    sp_params_default(p);
    uint8_t all[SP_STAGE_COUNT];
    for (int i = 0; i < SP_STAGE_COUNT; i++) all[i] = (uint8_t)i;
    for (int i = SP_STAGE_COUNT - 1; i > 0; i--) { /* shuffle */
        int j = (int)below((uint32_t)i + 1);
        uint8_t t = all[i];
        all[i] = all[j];
        all[j] = t;
    }
    int n = 1 + (int)below(SP_STAGE_COUNT);
    if (below(4) == 0) n = 2 + (int)below(3); /* short chains: pairs, triples */
    p->n_order = n;
    memcpy(p->order, all, (size_t)n);
    char err[SP_ERR_LEN];
    for (int i = 0; i < n; i++) {
        switch (all[i]) {
        case SP_STAGE_BIAS:
            for (int b = 1 + (int)below(4); b > 0; b--)
                sp_params_add_bias(p, (int)below((uint32_t)v),
                                   below(4) ? (float)uniform(-3, 3) : -INFINITY, err);
            break;
        case SP_STAGE_PENALTIES:
            if (below(4)) p->repetition_penalty = (float)uniform(0.5, 2.5);
            if (below(2)) p->frequency_penalty = (float)uniform(-1, 1);
            if (below(2)) p->presence_penalty = (float)uniform(-1, 1);
            if (below(3) == 0) p->penalty_last_n = (int)below((uint32_t)nh + 2);
            break;
        case SP_STAGE_DRY:
            p->dry_multiplier = (float)uniform(0.1, 2);
            p->dry_base = (float)uniform(1, 3);
            p->dry_allowed_length = 1 + (int)below(4);
            if (below(3) == 0) p->dry_penalty_last_n = (int)below((uint32_t)nh + 2);
            if (below(3) == 0) {
                int t = (int)below((uint32_t)v);
                sp_params_add_dry_breaker(p, &t, 1, err);
            }
            break;
        case SP_STAGE_NO_REPEAT_NGRAM: p->no_repeat_ngram_size = 1 + (int)below(4); break;
        case SP_STAGE_TEMPERATURE:
            p->temperature = below(8) == 0 ? 0.0f : (float)uniform(0.1, 2.5);
            if (below(4) == 0) {
                p->dynatemp_range = (float)uniform(0.1, 1.5);
                p->dynatemp_exp = (float)uniform(0.5, 2);
            }
            break;
        case SP_STAGE_TOP_N_SIGMA: p->top_n_sigma = (float)uniform(0.2, 3); break;
        case SP_STAGE_TOP_K: p->top_k = 1 + (int)below(below(2) ? (uint32_t)v : 50); break;
        case SP_STAGE_TOP_P: p->top_p = (float)uniform(0.05, 0.99); break;
        case SP_STAGE_MIN_P: p->min_p = (float)uniform(0.001, 0.5); break;
        case SP_STAGE_TYPICAL_P: p->typical_p = (float)uniform(0.05, 0.99); break;
        case SP_STAGE_EPSILON: p->epsilon_cutoff = (float)uniform(0.0001, 0.05); break;
        case SP_STAGE_ETA: p->eta_cutoff = (float)uniform(0.0001, 0.05); break;
        case SP_STAGE_TOP_A: p->top_a = (float)uniform(0.01, 2); break;
        case SP_STAGE_XTC:
            p->xtc_probability = (float)uniform(0.2, 1);
            p->xtc_threshold = (float)uniform(0.01, 0.5);
            break;
        case SP_STAGE_TOP_H: p->top_h = (float)uniform(0.05, 1); break;
        case SP_STAGE_P_LESS: p->p_less = 1; break;
        case SP_STAGE_TFS: p->tfs = (float)uniform(0.3, 0.99); break;
        case SP_STAGE_MIN_NEW_TOKENS: p->min_new_tokens = 1 + (int)below(20); break;
        case SP_STAGE_EXP_DECAY:
            p->exp_decay_start = (int)below(10);
            p->exp_decay_factor = (float)uniform(0.5, 2);
            break;
        case SP_STAGE_SEQUENCE_BIAS:
        case SP_STAGE_BAD_WORDS:
            for (int w = 1 + (int)below(4); w > 0; w--) {
                int ids[4], len;
                random_word(ids, &len, v, h, nh);
                if (all[i] == SP_STAGE_BAD_WORDS) sp_params_add_bad_word(p, ids, len, err);
                else sp_params_add_sequence_bias(p, ids, len, (float)uniform(-4, 4), err);
            }
            break;
        case SP_STAGE_WATERMARK:
            p->watermark_gamma = (float)uniform(0.05, 0.95);
            p->watermark_delta = (float)uniform(0.1, 5);
            p->watermark_key = (int)below(1000000);
            break;
        case SP_STAGE_CFG: p->cfg_scale = (float)uniform(0, 4); break;
        case SP_STAGE_QUADRATIC:
            p->smoothing_factor = (float)uniform(0.05, 3);
            if (below(2)) p->smoothing_curve = (float)uniform(1, 4);
            break;
        }
    }
    if (below(8) == 0) {
        p->mirostat = 1 + (int)below(2);
        p->mirostat_tau = (float)uniform(0.5, 8);
    } else if (below(8) == 0) {
        p->adaptive_target = (float)uniform(0, 1);
        p->adaptive_decay = (float)uniform(0, 0.99);
    }
}

static void describe(const char *name, int index, int v, int family,
                     const sp_params *p, int nh) {
    char order[256];
    sp_params_order_text(p, order, sizeof order);
    printf("  %s case %d: V %d, %s logits, history %d, chain %s%s\n", name,
           index, v, FAMILIES[family], nh, order,
           p->mirostat ? (p->mirostat == 1 ? " + mirostat v1" : " + mirostat v2")
           : p->adaptive_target >= 0 ? " + adaptive-p" : "");
}

/* fast and reference, to the bit */
static int same_result(const sp_step *a, const sp_step *b, int v) {
    return a->n_kept == b->n_kept &&
           !memcmp(a->probs, b->probs, sizeof(float) * (size_t)v) &&
           !memcmp(a->cut, b->cut, (size_t)v) &&
           !memcmp(a->kept, b->kept, sizeof(int) * (size_t)a->n_kept);
}

/* The relative tolerance of token i's final probability: 1e-6, and the
 * engine's float rounding of its logit and the largest (a few ulps each:
 * a temperature of 0.1 makes logits of 100, whose ulp moves p by 1e-5). */
static double tolerance(const naive *n, int i, double top) {
    if (!alive(n, i)) return 0;
    return 1e-6 + 4 * FLT_EPSILON * (fabs(n->x[i]) + fabs(top)) + n->slack[i];
}

/* naive and reference: the same kept tokens, cut by the same stages,
 * probabilities within 1e-6 relative (1e-9 absolute) */
static int close_result(const naive *n, const double *want, const sp_step *st,
                        double *worst) {
    int ok = 1;
    double top = -INFINITY;
    for (int i = 0; i < n->v; i++) top = n->x[i] > top ? n->x[i] : top;
    for (int i = 0; i < n->v; i++) {
        if (n->cut[i] != st->cut[i]) ok = 0;
        double got = st->probs[i], d = fabs(got - want[i]);
        if (d > tolerance(n, i, top) * fmax(want[i], got) + 1e-9) ok = 0;
        double rel = want[i] > 1e-3 ? d / want[i] : 0;
        if (rel > *worst) *worst = rel;
    }
    return ok;
}

/* One family of cases: `count` random chains on vocabularies up to maxv.
 * Returns the cases that fell on a line. */
static int run_cases(const char *name, uint64_t seed, int count, int maxv,
                     int *checked) {
    static float x[MAXV];
    static uint8_t mask[MAXV];
    static int hist[MAXH];
    static naive nv;
    static double want[MAXV];
    static float ux[MAXV];
    char err[SP_ERR_LEN];
    sp_rng_seed(&rng, seed);
    int lines = 0, differ = 0, wrong = 0, failed = 0;
    double worst = 0;
    for (int c = 0; c < count; c++) {
        int v = 2 + (int)below((uint32_t)maxv - 1);
        int family = (int)below(5);
        fill_logits(x, v, family);
        int nh = (int)below(MAXH + 1);
        int alphabet = 1 + (int)below(v < 12 ? (uint32_t)v : 12u);
        for (int i = 0; i < nh; i++) hist[i] = (int)below((uint32_t)alphabet);
        if (nh > 8 && below(3) == 0) /* a text that repeats itself */
            for (int i = nh / 2; i < nh; i++) hist[i] = hist[i - nh / 2 + (int)below(2)];
        const uint8_t *m = NULL;
        if (below(8) == 0) {
            for (int i = 0; i < v; i++) mask[i] = below(4) != 0;
            m = mask;
        }
        sp_params p;
        random_chain(&p, v, hist, nh);
        double xtc_u = sp_rng_uniform(&rng);
        len_at = (int)below(20);
        len_end = (int)below((uint32_t)v);
        sp_sampler_state state = {xtc_u, NAN, len_at, &len_end, 1, NAN, NAN, NULL};
        if (p.cfg_scale != 1.0f) { /* the second run's logits */
            fill_logits(ux, v, (int)below(2) ? 0 : 3);
            state.cfg_uncond = naive_uncond = ux;
        }

        sp_sampler *fast = sp_sampler_new(v), *ref = sp_sampler_new(v);
        sp_sampler_set_raw(fast, (int)below(2));
        sp_sampler_set_reference(ref, 1);
        sp_sampler_set_state(fast, &state);
        sp_sampler_set_state(ref, &state);
        sp_sampler_set_mask(fast, m);
        sp_sampler_set_mask(ref, m);
        sp_step a, b;
        int ra = sp_sampler_warp(fast, x, hist, nh, &p, &a, err);
        int rb = sp_sampler_warp(ref, x, hist, nh, &p, &b, err);
        nv.v = v;
        naive_chain(&nv, x, m, hist, nh, &p, xtc_u, want);
        int none = n_alive(&nv) == 0;
        int ok = 1;
        /* on a line, a stage's float and the naive double may leave
         * different tokens alive: there only fast and reference agree */
        if (ra != rb || ((ra != SP_OK) != none && !nv.on_line)) {
            ok = 0;
            printf("  returns: fast %d, reference %d (%s), naive %s\n", ra, rb,
                   err, none ? "nothing left" : "ok");
        } else if (ra == SP_OK) {
            if (!same_result(&a, &b, v)) {
                ok = 0;
                differ++;
                printf("  fast and reference differ\n");
            }
            if (nv.on_line) {
                lines++;
            } else if (!close_result(&nv, want, &b, &worst)) {
                ok = 0;
                wrong++;
                for (int i = 0, shown = 0; i < v && shown < 6; i++)
                    if (nv.cut[i] != b.cut[i] || fabs(b.probs[i] - want[i]) > 1e-6 * want[i] + 1e-9) {
                        /* the first few that differ (within tolerance or not) */
                        printf("    token %d: engine %.9g (%s), naive %.9g (%s)\n", i,
                               (double)b.probs[i], sp_cut_name(b.cut[i]), want[i],
                               sp_cut_name(nv.cut[i]));
                        shown++;
                    }
            }
        }
        if (!ok) {
            failed++;
            describe(name, c, v, family, &p, nh);
        }
        CHECK(ok);
        sp_sampler_free(fast);
        sp_sampler_free(ref);
    }
    printf("chain differential, %s: %d cases, %d on a line (fast = reference "
           "only), %d fast != reference, %d != definitions, largest relative "
           "difference of a p > 0.001: %.2g\n", name, count, lines, differ, wrong, worst);
    *checked += count;
    return failed;
}

/* The defect that made this test: a stage after the temperature is
 * applied where the chain puts it.  A named case of its own. */
static void test_penalty_after_temperature_case(void) {
    static naive nv;
    double want[3];
    const float x[3] = {2, 1, 0};
    const int h[1] = {0};
    sp_params p;
    sp_params_default(&p);
    p.repetition_penalty = 2.0f;
    p.temperature = 0.5f;
    char err[SP_ERR_LEN];
    CHECK_EQ_INT(sp_params_set_order(&p, "temperature;penalties", err), SP_OK);
    nv.v = 3;
    naive_chain(&nv, x, NULL, h, 1, &p, 0, want);
    CHECK_NEAR(want[0], 0.468310535, 1e-8);
    CHECK_NEAR(want[2], 0.0633789375, 1e-8);
    sp_sampler *s = sp_sampler_new(3);
    sp_step st;
    CHECK_EQ_INT(sp_sampler_warp(s, x, h, 1, &p, &st, err), SP_OK);
    for (int i = 0; i < 3; i++) CHECK_NEAR(st.probs[i], want[i], 1e-6);
    sp_sampler_free(s);
}

int main(void) {
    int checked = 0;
    test_penalty_after_temperature_case();
    run_cases("small vocabularies", 24, 6000, 40, &checked);
    run_cases("medium vocabularies", 2024, 3000, 400, &checked);
    run_cases("large vocabularies", 11, 400, MAXV, &checked);
    printf("chain differential: %d cases checked\n", checked);
    CHECK_DONE();
}
