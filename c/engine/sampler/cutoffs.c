/*
 * cutoffs.c — the newer truncation stages: top-nσ, epsilon, eta, top-a,
 * XTC, and mirostat (v1 and v2).  Each looks at the tokens still alive at
 * its place in the chain; the probabilities it sees are their softmax
 * (after the temperature, if the temperature came earlier).  Epsilon, eta
 * and top-a never cut a token tied with the most likely one.
 *
 * Definitions: llama.cpp's src/llama-sampling.cpp (top-nσ, XTC, mirostat)
 * and Hugging Face's logits processors (epsilon, eta); top-a from its
 * author's description (keep p >= a * p_max^2).  No stage sorts the
 * vocabulary: thresholds are found in one pass over the candidates.
 */
#include <float.h>
#include <string.h>

#include "candidates.h"

#define LN2 0.69314718055994530942

/* Cuts every candidate whose probability p_j = ce[j] / z is below
 * threshold, unless its logit ties the largest (ce[j] == 1). */
static void cut_below(sp_candidates *c, double z, double threshold,
                      sp_cut stage) {
    const float *ce = c->s->cand_exp;
    int cut = 0;
    for (int j = 0; j < c->n; j++) {
        if (ce[j] == 1.0f) continue; /* exp(0): the most likely, and ties */
        if ((double)ce[j] / z < threshold) {
            sp_cands_cut(c, c->ids[j], stage);
            cut = 1;
        }
    }
    if (cut) sp_cands_compact(c);
}

/* The smallest float >= d (d not NaN): for a float x, (double)x >= d is
 * x >= float_at_least(d). */
static float float_at_least(double d) {
    float f = (float)d;
    if ((double)f >= d) return f;
    /* f < d: the next float up (f is finite here, or -inf when d is below
     * every float; -FLT_MAX then, since d is) */
    if (f == -INFINITY) return -FLT_MAX;
    uint32_t b;
    memcpy(&b, &f, 4);
    if (f == 0.0f) b = 1; /* the least positive subnormal */
    else b = f > 0.0f ? b + 1 : b - 1;
    memcpy(&f, &b, 4);
    return f;
}

/* Top-nσ (Tang et al. 2024): keep the logits within n population standard
 * deviations of the largest, among the alive ones.
 *
 * The mean and the variance are sums in double over the alive tokens in
 * ascending order, one by one: a chain of dependent additions each (3-4
 * cycles a term).  On the dense logits (no list yet: the usual place,
 * right after the temperature) the list is not built to be walked: the
 * sums run over the finite logits in index order (the list's order), the
 * mean's without the chain when it is exact (sp_sum_finite), and the cut
 * builds the list of the survivors (sp_cands_keep_at_least: sixteen tokens
 * a time), where building it, cutting through it and compacting it took
 * three passes more. */
void sp_stage_top_n_sigma(sp_candidates *c, const sp_params *p) {
    if (p->top_n_sigma <= 0.0f) return;
    const float *x = c->logits;
    if (c->listed || c->s->reference) {
        sp_cands_list(c);
        if (c->n <= 1) return;
        double max = -INFINITY, sum = 0.0;
        for (int j = 0; j < c->n; j++) {
            double v = x[c->ids[j]];
            if (v > max) max = v;
            sum += v;
        }
        double mean = sum / c->n, acc = 0.0;
        for (int j = 0; j < c->n; j++) {
            double d = x[c->ids[j]] - mean;
            acc += d * d;
        }
        double sigma = sqrt(acc / c->n);
        double floor_ = max - (double)p->top_n_sigma * sigma;
        int cut = 0;
        for (int j = 0; j < c->n; j++)
            if ((double)x[c->ids[j]] < floor_) {
                sp_cands_cut(c, c->ids[j], SP_CUT_TOP_N_SIGMA);
                cut = 1;
            }
        if (cut) sp_cands_compact(c);
        return;
    }
    int v = c->vocab, n;
    float max;
    double sum = sp_sum_finite(x, v, &n, &max);
    if (n <= 1) { /* as the list's way leaves it */
        sp_cands_list(c);
        return;
    }
    double mean = sum / n, acc = 0.0;
    for (int i = 0; i < v; i++) {
        if (x[i] == -INFINITY) continue;
        double d = x[i] - mean;
        acc += d * d;
    }
    double sigma = sqrt(acc / n);
    double floor_ = max - (double)p->top_n_sigma * sigma;
    sp_cands_keep_at_least(c, float_at_least(floor_), SP_CUT_TOP_N_SIGMA);
}

/* Epsilon sampling (Hewitt et al. 2022): keep p >= epsilon. */
void sp_stage_epsilon(sp_candidates *c, const sp_params *p) {
    if (p->epsilon_cutoff <= 0.0f) return;
    sp_cands_list(c);
    if (c->n <= 1) return;
    double z;
    sp_cands_exp(c, &z);
    cut_below(c, z, (double)p->epsilon_cutoff, SP_CUT_EPSILON);
}

/* Eta sampling (Hewitt et al. 2022): keep p >= min(eta, sqrt(eta) e^-H),
 * H the alive distribution's entropy in nats. */
void sp_stage_eta(sp_candidates *c, const sp_params *p) {
    if (p->eta_cutoff <= 0.0f) return;
    sp_cands_list(c);
    if (c->n <= 1) return;
    double z;
    float m = sp_cands_exp(c, &z);
    const float *cl = c->s->cand_x, *ce = c->s->cand_exp;
    double log_z = sp_log(z);
    double h = sp_entropy_nats(ce, cl, c->n, z, m, log_z);
    double eta = p->eta_cutoff;
    double adaptive = sqrt(eta) * sp_exp(-h);
    cut_below(c, z, eta < adaptive ? eta : adaptive, SP_CUT_ETA);
}

/* Top-a: keep p >= a * p_max^2. */
void sp_stage_top_a(sp_candidates *c, const sp_params *p) {
    if (p->top_a <= 0.0f) return;
    sp_cands_list(c);
    if (c->n <= 1) return;
    double z;
    sp_cands_exp(c, &z);
    double p_max = 1.0 / z; /* the largest has exp(0) = 1 */
    cut_below(c, z, (double)p->top_a * p_max * p_max, SP_CUT_TOP_A);
}

/* (p desc, id asc): the rank order of the nucleus */
static int ranks_before_mass(const float *ce, const int *ids, int a, int b) {
    return ce[a] > ce[b] || (ce[a] == ce[b] && ids[a] < ids[b]);
}

/* XTC, "exclude top choices" (llama.cpp's): with probability
 * xtc_probability (the step's own draw), when at least two tokens have
 * p >= threshold, remove all of them but the least likely. */
void sp_stage_xtc(sp_candidates *c, const sp_params *p) {
    if (p->xtc_probability <= 0.0f || p->xtc_threshold > 0.5f) return;
    if (!(c->s->state.xtc_u < (double)p->xtc_probability)) return;
    sp_cands_list(c);
    if (c->n < 2) return;
    double z;
    sp_cands_exp(c, &z);
    const float *ce = c->s->cand_exp;
    /* the tokens at or above the threshold, and the least likely of them */
    int above = 0, last = -1;
    for (int j = 0; j < c->n; j++) {
        if ((double)ce[j] / z < (double)p->xtc_threshold) continue;
        above++;
        if (last < 0 || ranks_before_mass(ce, c->ids, last, j)) last = j;
    }
    if (above < 2) return;
    for (int j = 0; j < c->n; j++)
        if (j != last && (double)ce[j] / z >= (double)p->xtc_threshold)
            sp_cands_cut(c, c->ids[j], SP_CUT_XTC);
    sp_cands_compact(c);
}

/* The m (at most MIROSTAT_M) most likely candidates' masses, best first
 * (rank: mass desc, id asc): mirostat v1's estimate of the Zipf exponent.
 * Its scratch is its own: probs_ids holds the last warp's kept tokens,
 * which the final softmax clears from probs (borrowing it left a cut
 * token's old probability in the step record). */
#define MIROSTAT_M 100
static int top_masses(sp_candidates *c, int m, double *out) {
    int h[MIROSTAT_M];
    if (m > MIROSTAT_M) m = MIROSTAT_M;
    const float *ce = c->s->cand_exp;
    int hn = sp_top_ranked(ce, c->ids, c->n, m, h);
    for (int i = 0; i < hn; i++) out[i] = ce[h[i]];
    return hn;
}

/*
 * Mirostat (Basu et al. 2021) as llama.cpp has it, the chain's last stage
 * when on.  mu, the surprise target the session keeps from step to step,
 * starts at 2 tau and learns from each token drawn (sp_mirostat_update).
 *   v2: keep the tokens whose surprise -log2 p is at most mu (the most
 *       likely if none).
 *   v1: estimate the Zipf exponent s from the 100 most likely tokens, and
 *       keep the k = ((s-1) 2^mu / (1 - V^(1-s)))^(1/s) most likely (top-k).
 */
void sp_stage_mirostat(sp_candidates *c, const sp_params *p) {
    if (!p->mirostat) return;
    sp_cands_list(c);
    if (c->n <= 1) return;
    double mu = c->s->state.mirostat_mu;
    if (mu != mu) mu = 2.0 * p->mirostat_tau;
    double z;
    sp_cands_exp(c, &z);
    const float *ce = c->s->cand_exp;
    if (p->mirostat == 2) {
        /* -log2(p) <= mu  <=>  p >= 2^-mu */
        double floor_ = sp_exp(-mu * LN2);
        int kept = 0;
        for (int j = 0; j < c->n; j++)
            if ((double)ce[j] / z >= floor_) kept++;
        if (kept == 0) { /* keep the most likely (ties: the lowest id) */
            int best = 0;
            for (int j = 1; j < c->n; j++)
                if (ranks_before_mass(ce, c->ids, j, best)) best = j;
            for (int j = 0; j < c->n; j++)
                if (j != best) sp_cands_cut(c, c->ids[j], SP_CUT_MIROSTAT);
        } else {
            for (int j = 0; j < c->n; j++)
                if ((double)ce[j] / z < floor_)
                    sp_cands_cut(c, c->ids[j], SP_CUT_MIROSTAT);
        }
        sp_cands_compact(c);
        return;
    }
    /* v1 */
    double top[MIROSTAT_M];
    int m = top_masses(c, MIROSTAT_M, top);
    double sum_tb = 0.0, sum_tt = 0.0;
    for (int i = 0; i + 1 < m; i++) {
        double t = sp_log((double)(i + 2) / (double)(i + 1));
        double b = sp_log(top[i] / top[i + 1]);
        sum_tb += t * b;
        sum_tt += t * t;
    }
    double s = sum_tt > 0.0 ? sum_tb / sum_tt : 0.0;
    double eps = s - 1.0;
    /* eps / (1 - V^-eps) is positive for every s >= 0 (both signs flip
     * together below s = 1), and 1 / ln V at s = 1, its limit: the formula
     * holds for a flat head (s < 1) as for a Zipf one, as llama.cpp
     * computes it; a flat head gives a small k */
    double ratio = eps != 0.0 ? eps / (1.0 - sp_pow((double)c->vocab, -eps))
                              : 1.0 / sp_log((double)c->vocab);
    double base = ratio * sp_exp(mu * LN2);
    /* k = base^(1/s), as its log (no overflow for a tiny s); s = 0 (the
     * head all equal): base^inf, every token or one */
    double log_k = s > 0.0 ? sp_log(base) / s
                 : base > 1.0 ? INFINITY : base < 1.0 ? -INFINITY : 0.0;
    int keep = log_k >= sp_log((double)c->n) ? c->n
             : log_k < 0.0 ? 1 : (int)sp_exp(log_k);
    if (keep < 1) keep = 1;
    if (keep >= c->n) return;
    /* top-k on the masses: keep those >= the keep-th largest (and ties) */
    double kth = sp_heap_kth(c->s->heap, c->s->cand_exp, c->n, keep);
    for (int j = 0; j < c->n; j++)
        if ((double)ce[j] < kth) sp_cands_cut(c, c->ids[j], SP_CUT_MIROSTAT);
    sp_cands_compact(c);
}

float sp_mirostat_update(const sp_params *p, float mu, float p_token) {
    if (!p->mirostat) return mu;
    double m = mu != mu ? 2.0 * p->mirostat_tau : mu;
    double surprise = p_token > 0.0f ? -sp_log((double)p_token) / LN2 : 0.0;
    return (float)(m - (double)p->mirostat_eta * (surprise - p->mirostat_tau));
}
