/*
 * stages.c — the classic stages: the constraint's mask, logit bias, the
 * penalties (repetition, frequency, presence), the temperature (and
 * dynamic temperature), quadratic sampling, top-p, min-p and typical-p.  Top-k: topk.c; DRY
 * and no-repeat-ngram: repeats.c; the newer cutoffs and mirostat:
 * cutoffs.c; the chain that runs them in their order: chain.c.
 */
#include <float.h>

#include "candidates.h"

void sp_cands_constrain(sp_candidates *c, const sp_params *p) {
    (void)p;
    if (!c->allowed) return;
    for (int i = 0; i < c->vocab; i++)
        if (!c->allowed[i] && c->cut[i] == SP_CUT_NONE)
            sp_cands_cut(c, i, SP_CUT_CONSTRAINT);
}

void sp_stage_bias(sp_candidates *c, const sp_params *p) {
    int banned = 0;
    for (int i = 0; i < p->n_bias; i++) {
        int id = p->bias[i].token;
        if (c->cut[id] != SP_CUT_NONE) continue;
        if (p->bias[i].value == -INFINITY) {
            sp_cands_cut(c, id, SP_CUT_BIAS);
            banned = 1;
        } else {
            c->logits[id] = sp_clamp_finite(c->logits[id] + p->bias[i].value);
        }
    }
    /* a chain may put the bias after a cutoff stage: keep its list exact */
    if (banned && c->listed) sp_cands_compact(c);
}

static void warp_repetition_penalty(sp_candidates *c, const sp_params *p) {
    /* CTRL (Keskar et al. 2019): each distinct token of the window once */
    float r = p->repetition_penalty;
    if (r == 1.0f) return;
    int *seen = c->s->counts;
    for (int i = 0; i < c->n_history; i++) {
        int id = c->history[i];
        if (seen[id]++) continue;
        float x = c->logits[id];
        if (x != -INFINITY) {
            c->logits[id] = sp_clamp_finite(x > 0.0f ? x / r : x * r);
            sp_gmax_moved(c->s, id, x, c->logits[id]);
        }
        sp_cands_penalized(c, id);
    }
    for (int i = 0; i < c->n_history; i++) seen[c->history[i]] = 0;
}

static void warp_frequency_presence(sp_candidates *c, const sp_params *p) {
    /* OpenAI's: logit -= count * frequency + (count > 0) * presence */
    float f = p->frequency_penalty, pres = p->presence_penalty;
    if (f == 0.0f && pres == 0.0f) return;
    int *count = c->s->counts;
    for (int i = 0; i < c->n_history; i++) count[c->history[i]]++;
    for (int i = 0; i < c->n_history; i++) {
        int id = c->history[i];
        if (!count[id]) continue; /* already done */
        float x = c->logits[id];
        if (x != -INFINITY) {
            c->logits[id] = sp_clamp_finite(x - ((float)count[id] * f + pres));
            sp_gmax_moved(c->s, id, x, c->logits[id]);
        }
        count[id] = 0;
        sp_cands_penalized(c, id);
    }
}

/* The penalties stage: the repetition penalty, then frequency and
 * presence, over the penalty window. */
void sp_stage_penalties(sp_candidates *c, const sp_params *p) {
    warp_repetition_penalty(c, p);
    warp_frequency_presence(c, p);
    if (p->repetition_penalty == 1.0f && p->frequency_penalty == 0.0f &&
        p->presence_penalty == 0.0f)
        return;
    /* for the step record: each window token's count (every one of them
     * is in the penalized list, which clears them at the next warp) */
    sp_sampler *s = c->s;
    s->penalties_n = 0;
    for (int i = 0; i < c->n_history; i++)
        if (!s->pen_count[c->history[i]]++) s->penalties_n++;
}

/* Greedy: the largest candidate logit alone (ties -> the lowest id). */
static void keep_argmax(sp_candidates *c, float m) {
    int best = sp_scan_ge(c->logits, m, 0, c->vocab);
    for (int i = 0; i < c->vocab; i++)
        if (i != best && c->cut[i] == SP_CUT_NONE)
            sp_cands_cut(c, i, SP_CUT_TEMPERATURE);
    c->ids[0] = best;
    c->n = 1;
    c->listed = 1;
}

/* Dynamic temperature (entropy-based, as llama.cpp's temp_ext): the
 * temperature moves within [T - range, T + range] with the alive tokens'
 * normalized entropy raised to exp.  Returns the temperature to use. */
static float dynamic_temperature(sp_candidates *c, const sp_params *p) {
    sp_cands_list(c);
    if (c->n <= 1) return 1.0f; /* one token or none: nothing to scale */
    double z;
    float m = sp_cands_exp(c, &z);
    const float *cl = c->s->cand_x, *ce = c->s->cand_exp;
    double log_z = sp_log(z); /* the entropy in nats: */
    double h = sp_entropy_nats(ce, cl, c->n, z, m, log_z);
    double h_max = sp_log((double)c->n);
    double lo = p->temperature - p->dynatemp_range;
    double hi = (double)p->temperature + p->dynatemp_range;
    if (lo < 0.0) lo = 0.0;
    double share = h > 0.0 ? h / h_max : 0.0;
    return (float)(lo + (hi - lo) * (share > 0.0 ? sp_pow(share, p->dynatemp_exp) : 0.0));
}

/* The temperature the stage uses: T, or dynamic temperature's.  Returns 0
 * when the stage has nothing to do (one token or none left, as llama.cpp
 * returns too). */
int sp_temperature_value(sp_candidates *c, const sp_params *p, float *t) {
    *t = p->temperature;
    if (p->dynatemp_range > 0.0f) {
        if (!c->listed) sp_cands_list(c);
        if (c->n <= 1) return 0;
        *t = dynamic_temperature(c, p);
    }
    return 1;
}

/* The temperature stage's work at temperature t.  With `snap` (the step
 * record's probs_tempered, when the chain takes its snapshot right after
 * this stage), a temperature that divides takes the snapshot in the same
 * pass: after the division the largest working logit is (max - max) / T
 * = 0 (every other one is <= 0), so the snapshot's exp(x - 0) is exp(x) (a
 * -0 gives exp(+-0) = 1 either way), the same bits as the snapshot's own
 * pass computes after a pass for that max.  Returns 1 when it took the
 * snapshot. */
int sp_apply_temperature(sp_candidates *c, float t, float *snap) {
    if (t == 1.0f) return 0;
    float m = sp_max(c->logits, c->vocab);
    if (m == -INFINITY) return 0; /* nothing left */
    if (t <= 0.0f) { /* greedy: the argmax alone */
        keep_argmax(c, m);
        return 0;
    }
    if (c->sign_later) {
        /* a later stage reads the sign (the repetition penalty): x / T as
         * llama.cpp divides, each logit keeping its sign; a tiny T cannot
         * make +inf (clamped), -inf stays -inf */
        float *x = c->logits;
        for (int i = 0; i < c->vocab; i++)
            if (x[i] != -INFINITY) x[i] = sp_clamp_finite(x[i] / t);
        return 0;
    }
    /* (x - max) / T: the same distribution as x / T, but a tiny T cannot
     * overflow to +inf (every value is <= 0); -inf stays -inf */
    if (!snap) {
        sp_sub_div(c->logits, m, t, c->vocab);
        return 0;
    }
    c->s->snap_z = sp_sub_div_exp_sum(c->logits, m, t, snap, c->vocab);
    c->s->snap_waits = 1; /* the division: raw_softmax or the warp's end */
    return 1;
}

void sp_stage_temperature(sp_candidates *c, const sp_params *p) {
    float t;
    if (sp_temperature_value(c, p, &t)) sp_apply_temperature(c, t, NULL);
}

/* Quadratic sampling (text-generation-webui's QuadraticSamplingLogitsWarper,
 * "smoothing"): every alive logit x, d = x - max <= 0, becomes
 *   max - k f d^2 + s f d^3,  k = (3 - curve) / 2, s = (curve - 1) / 2,
 * f the smoothing factor.  The top stays; a token close below it (|d| < 1/f)
 * comes closer (flatter near the top), one far below falls faster (a
 * steeper tail); curve 1 is the pure parabola.  It reshapes, cuts nothing.
 * In double, the result clamped into the finite floats. */
void sp_stage_quadratic(sp_candidates *c, const sp_params *p) {
    if (!(p->smoothing_factor > 0.0f)) return;
    double f = p->smoothing_factor, curve = p->smoothing_curve;
    double k = (3.0 - curve) / 2.0, s = (curve - 1.0) / 2.0;
    float *x = c->logits;
    if (c->listed) { /* a cutoff came first: its list */
        float m = -INFINITY;
        for (int j = 0; j < c->n; j++)
            if (x[c->ids[j]] > m) m = x[c->ids[j]];
        for (int j = 0; j < c->n; j++) {
            double d = (double)x[c->ids[j]] - m;
            x[c->ids[j]] = sp_clamp_finite(
                (float)(-(k * f * d * d) + s * f * d * d * d + m));
        }
        return;
    }
    float m = sp_max(x, c->vocab);
    if (m == -INFINITY) return;
    for (int i = 0; i < c->vocab; i++) {
        if (x[i] == -INFINITY) continue;
        double d = (double)x[i] - m;
        x[i] = sp_clamp_finite((float)(-(k * f * d * d) + s * f * d * d * d + m));
    }
}

void sp_stage_top_p(sp_candidates *c, const sp_params *p) {
    if (p->top_p >= 1.0f) return;
    sp_cands_list(c);
    if (c->n <= 1) return;
    double z;
    sp_cands_exp(c, &z);
    sp_sel_item *sel = c->s->sel;
    for (int j = 0; j < c->n; j++) {
        sel[j].mass = c->s->cand_exp[j];
        sel[j].key = -c->s->cand_exp[j]; /* most probable first */
        sel[j].id = c->ids[j];
    }
    int m = sp_select_mass_prefix(sel, c->n, (double)p->top_p * z);
    sp_cands_keep_selected(c, m, SP_CUT_TOP_P);
}

void sp_stage_min_p(sp_candidates *c, const sp_params *p) {
    if (p->min_p <= 0.0f) return;
    sp_cands_list(c);
    if (c->n <= 1) return;
    double z;
    sp_cands_exp(c, &z);
    /* p_i / p_max = exp(x_i - max) = cand_exp[j]; the max itself is 1 */
    for (int j = 0; j < c->n; j++)
        if (c->s->cand_exp[j] < p->min_p)
            sp_cands_cut(c, c->ids[j], SP_CUT_MIN_P);
    sp_cands_compact(c);
}

void sp_stage_typical_p(sp_candidates *c, const sp_params *p) {
    /* Meister et al. 2022, "Locally typical sampling": keep the tokens whose
     * surprisal -log p is closest to the entropy H, fewest first, until
     * their mass reaches typical_p */
    if (p->typical_p >= 1.0f) return;
    sp_cands_list(c);
    if (c->n <= 1) return;
    double z;
    float m = sp_cands_exp(c, &z);
    double log_z = sp_log(z);
    const float *cl = c->s->cand_x, *ce = c->s->cand_exp;
    /* H = -sum p log p, with log p_j = (x_j - m) - log z */
    double h = sp_entropy_nats(ce, cl, c->n, z, m, log_z);
    sp_sel_item *sel = c->s->sel;
    for (int j = 0; j < c->n; j++) {
        double surprisal = log_z - ((double)cl[j] - m);
        sel[j].mass = ce[j];
        sel[j].key = (float)fabs(surprisal - h);
        sel[j].id = c->ids[j];
    }
    int kept = sp_select_mass_prefix(sel, c->n, (double)p->typical_p * z);
    sp_cands_keep_selected(c, kept, SP_CUT_TYPICAL_P);
}
