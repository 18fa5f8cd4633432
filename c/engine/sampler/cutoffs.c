/*
 * cutoffs.c — the newer truncation stages: top-nσ, top-H, p-less,
 * epsilon, eta, tail-free, top-a, XTC, and mirostat (v1 and v2).  Each looks at the tokens still alive at
 * its place in the chain; the probabilities it sees are their softmax
 * (after the temperature, if the temperature came earlier).  Epsilon, eta
 * and top-a never cut a token tied with the most likely one.
 *
 * Definitions: llama.cpp's src/llama-sampling.cpp (top-nσ, XTC, mirostat)
 * and Hugging Face's logits processors (epsilon, eta, top-H); top-a from its
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

/* Top-H ("Top-H decoding", arXiv 2509.02510; Hugging Face's
 * TopHLogitsWarper, transformers PR #40837): among the TOP_H_WINDOW most
 * likely alive tokens, q their softmax among themselves and H = -sum q ln q its entropy, keep the most
 * likely ones, in rank order, while the running sum of -q ln q stays
 * within top_h * H; the most likely always stays.  The terms are >= 0, so
 * the kept tokens are a prefix of the ranking; a token past the window is
 * cut whatever top_h (at top_h = 1 the whole window stays, no more).
 *
 * The ranking (logit desc, id asc) takes a TOP_H_WINDOW-element heap over
 * the candidates: nothing is sorted but those.  H is the window's running
 * sum itself, so top_h = 1 keeps the whole window to the bit. */
#define TOP_H_WINDOW 100

void sp_stage_top_h(sp_candidates *c, const sp_params *p) {
    if (p->top_h <= 0.0f) return;
    sp_cands_list(c);
    if (c->n <= 1) return;
    double z;
    float m = sp_cands_exp(c, &z);
    const float *cl = c->s->cand_x, *ce = c->s->cand_exp;
    int rank[TOP_H_WINDOW]; /* (probs_ids is the last warp's: not scratch) */
    int n = sp_top_ranked(cl, c->ids, c->n, TOP_H_WINDOW, rank);
    double zw = 0.0; /* the window's mass, in rank order */
    for (int i = 0; i < n; i++) zw += ce[rank[i]];
    double log_zw = sp_log(zw), cum[TOP_H_WINDOW];
    double h = 0.0;
    for (int i = 0; i < n; i++) {
        double q = (double)ce[rank[i]] / zw;
        /* ln q = (x - max) - ln zw; an exp that underflowed adds nothing */
        if (q > 0.0) h -= q * (((double)cl[rank[i]] - m) - log_zw);
        cum[i] = h;
    }
    double tau = (double)p->top_h * h;
    int keep = 1;
    while (keep < n && cum[keep] <= tau) keep++;
    if (keep == c->n) return;
    /* the last kept token by rank: a candidate is kept when it ranks
     * before it or is it (logit desc, id asc) */
    float last_x = cl[rank[keep - 1]];
    int last_id = c->ids[rank[keep - 1]];
    for (int j = 0; j < c->n; j++)
        if (cl[j] < last_x || (cl[j] == last_x && c->ids[j] > last_id))
            sp_cands_cut(c, c->ids[j], SP_CUT_TOP_H);
    sp_cands_compact(c);
}

/* P-less (arXiv 2509.23234; llama.cpp PR #26035, vLLM PR #45288): keep the
 * tokens whose probability is at least sum_j p_j^2 -- the chance that two
 * independent draws agree.  No parameter but on and off.  The most likely
 * token always stays (p_max >= sum p^2), and so does any tied with it: a
 * flat distribution, where every p is that sum, keeps them all whatever
 * the rounding (the pull requests subtract 1e-5 from the bar for that). */
void sp_stage_p_less(sp_candidates *c, const sp_params *p) {
    if (!p->p_less) return;
    sp_cands_list(c);
    if (c->n <= 1) return;
    double z;
    sp_cands_exp(c, &z);
    const float *ce = c->s->cand_exp;
    double sq = 0.0; /* in list order */
    for (int j = 0; j < c->n; j++) sq += (double)ce[j] * (double)ce[j];
    cut_below(c, z, sq / (z * z), SP_CUT_P_LESS);
}

/* Tail-free sampling (Bricken 2019; llama.cpp's llama_sample_tail_free
 * until 2024, koboldcpp's): rank the alive tokens (logit desc, id asc),
 * take the second differences of their probabilities, |p_i - 2 p_(i+1) +
 * p_(i+2)|, as shares of their sum (all equal when the sum is below 1e-6,
 * as llama.cpp has it), and keep the first i tokens, i the first index >= 1
 * at which the running share passes z (all of them when none does).  The
 * tail starts where the curve of the sorted probabilities flattens out.
 * text-generation-webui keeps one token more (its mask is shifted by one)
 * and Bricken's first code two: llama.cpp's count is the one here.
 *
 * The one stage that ranks every candidate: its sum runs over the whole
 * sorted curve (sp_top_ranked over all of them, a heap sort; after top-k
 * they are few). */
void sp_stage_tfs(sp_candidates *c, const sp_params *p) {
    if (p->tfs >= 1.0f) return;
    sp_cands_list(c);
    if (c->n <= 2) return;
    double z;
    sp_cands_exp(c, &z);
    const float *cl = c->s->cand_x, *ce = c->s->cand_exp;
    int *rank = c->s->counts; /* zero between uses: zeroed again below */
    int n = sp_top_ranked(cl, c->ids, c->n, c->n, rank);
    sp_sel_item *d2 = c->s->sel; /* scratch: the second differences */
    double sum = 0.0;
    for (int i = 0; i + 2 < n; i++) {
        double p0 = ce[rank[i]] / z, p1 = ce[rank[i + 1]] / z,
               p2 = ce[rank[i + 2]] / z;
        d2[i].mass = fabs((p0 - p1) - (p1 - p2));
        sum += d2[i].mass;
    }
    int m = n - 2, keep = n;
    double cum = 0.0;
    for (int i = 0; i < m; i++) {
        cum += sum > 1e-6 ? d2[i].mass / sum : 1.0 / m;
        if (cum > (double)p->tfs && i >= 1) {
            keep = i;
            break;
        }
    }
    float last_x = cl[rank[keep - 1]];
    int last_id = c->ids[rank[keep - 1]];
    memset(rank, 0, sizeof(int) * (size_t)n);
    if (keep >= n) return;
    for (int j = 0; j < c->n; j++)
        if (cl[j] < last_x || (cl[j] == last_x && c->ids[j] > last_id))
            sp_cands_cut(c, c->ids[j], SP_CUT_TFS);
    sp_cands_compact(c);
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
    double mu = c->s->state.mirostat_mu;
    if (mu != mu) mu = 2.0 * p->mirostat_tau;
    c->s->mirostat_mu = (float)mu; /* the step record's, one token left too */
    c->s->mirostat_goal = p->mirostat_tau;
    sp_cands_list(c);
    if (c->n <= 1) return;
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

/*
 * Adaptive-p (llama.cpp's llama_sampler_adaptive_p, PR #17927), the
 * chain's last stage when on.  It keeps a running average of the
 * probabilities the drawn tokens had before it (sp_adaptive_update), and
 * aims this step at aim = clamp(2 target - average, 0, 1): above the
 * target after unlikely picks, below it after likely ones.  Each token
 * alive, of probability p_i, gets the logit
 *     5 - 10 d^2 / (1 + d),   d = |p_i - aim| / 0.3
 * (quadratic near the aim, linear in the tails); the final softmax of
 * those is what the draw samples.  Float arithmetic in llama.cpp's order.
 */
#define ADAPTIVE_INV_WIDTH (1.0f / 0.3f)
#define ADAPTIVE_PEAK 5.0f
#define ADAPTIVE_SHARPNESS 10.0f

static void adaptive_start(const sp_params *p, float *sum, float *weight) {
    *sum = p->adaptive_target / (1.0f - p->adaptive_decay);
    *weight = 1.0f / (1.0f - p->adaptive_decay);
}

void sp_stage_adaptive_p(sp_candidates *c, const sp_params *p) {
    if (p->adaptive_target < 0.0f) return;
    sp_sampler *s = c->s;
    sp_cands_list(c);
    float sum = s->state.adaptive_sum, weight = s->state.adaptive_weight;
    if (!(weight > 0.0f)) adaptive_start(p, &sum, &weight);
    float target = p->adaptive_target > 1.0f ? 1.0f : p->adaptive_target;
    float aim = 2.0f * target - sum / weight;
    aim = aim < 0.0f ? 0.0f : aim > 1.0f ? 1.0f : aim;
    s->adaptive_average = sum / weight;
    s->adaptive_aim = aim;
    s->adaptive_goal = target;
    s->adaptive_on = 1;
    for (int j = 0; j < s->n_adaptive; j++) s->adaptive_in[s->adaptive_ids[j]] = 0.0f;
    s->n_adaptive = 0;
    if (c->n == 0) return;
    double z;
    sp_cands_exp(c, &z);
    const float *ce = s->cand_exp;
    for (int j = 0; j < c->n; j++) {
        float pj = (float)((double)ce[j] / z);
        s->adaptive_in[c->ids[j]] = pj;
        float d = fabsf((pj - aim) * ADAPTIVE_INV_WIDTH);
        c->logits[c->ids[j]] =
            ADAPTIVE_PEAK - ADAPTIVE_SHARPNESS * d * d / (1.0f + d);
    }
    memcpy(s->adaptive_ids, c->ids, sizeof(int) * (size_t)c->n);
    s->n_adaptive = c->n;
}

void sp_adaptive_update(const sp_params *p, float *sum, float *weight,
                        float p_in) {
    if (p->adaptive_target < 0.0f) return;
    if (!(*weight > 0.0f)) adaptive_start(p, sum, weight);
    *sum = p_in + p->adaptive_decay * *sum;
    *weight = 1.0f + p->adaptive_decay * *weight;
}

double sp_surprise_bits(float p_token) {
    return p_token > 0.0f ? -sp_log((double)p_token) / LN2 : 0.0;
}

float sp_mirostat_update(const sp_params *p, float mu, float p_token) {
    if (!p->mirostat) return mu;
    double m = mu != mu ? 2.0 * p->mirostat_tau : mu;
    double surprise = sp_surprise_bits(p_token);
    return (float)(m - (double)p->mirostat_eta * (surprise - p->mirostat_tau));
}
