/*
 * chain.c — the sampler chain: a warp runs every stage in its order (the
 * stages' functions: their rows in sampler.h), with the shortcuts it plans
 * (the temperature fused with the top-k after it or with the step record's
 * snapshot), then the final softmax and the step record's numbers.
 *
 * Cost: the vocabulary can hold 32 000-50 000 tokens and the chain runs
 * every step, so nothing sorts the vocabulary.  The stages before top-k work
 * in place on the dense logits; top-k finds its threshold from the maxima of
 * about 4k groups of tokens (topk.c) and builds the candidate list; later
 * stages work on that list, and top-p / typical-p select their prefix by
 * partitioning (candidates.c).
 */
#include <stdlib.h>
#include <string.h>

#include "candidates.h"

#define LN2 0.69314718055994530942

/* The stages' functions, by sp_stage: their rows' (sampler.h). */
#define ROW_FN(id, name, cut, label, doc, fn, active) fn,
static const sp_stage_fn STAGES[SP_STAGE_ALL] = {SP_STAGE_ALL_ROWS(ROW_FN)};
#undef ROW_FN

/* The first of the cutoff stages (top-nσ ... XTC) in sp_stage's order:
 * just before the chain's first cutoff the step record takes a snapshot of
 * the distribution the cutoffs see (the nucleus view draws its cumulative
 * curve from it). */
#define FIRST_CUTOFF SP_STAGE_TOP_N_SIGMA

/* The next stage after position i of the chain that does anything or is
 * a cutoff (before the first cutoff the snapshot is taken, whatever the
 * cutoff does), or -1: a stage that does nothing (quadratic sampling off,
 * after the temperature) does not move the snapshot. */
static int next_stage(const sp_params *p, int n_stages, int i) {
    for (int j = i + 1; j < n_stages; j++) {
        int stage = p->n_order ? p->order[j] : j;
        if (stage >= FIRST_CUTOFF || sp_stage_active(p, stage)) return stage;
    }
    return -1;
}

/* Whether a stage after position i of the chain reads the working logits
 * token by token: the temperature (its max, its division), the penalties,
 * DRY, quadratic sampling, the watermark and classifier-free guidance (a logit of -inf is one they
 * leave alone).  The others go by the
 * list and the cut marks. */
/* Whether a stage after position i of the chain reads a logit's sign: the
 * repetition penalty (x > 0 ? x / r : x * r), the exponential decay length
 * penalty (x + |x| (factor^n - 1)).  The temperature before it
 * must then leave x / T (sp_apply_temperature). */
static int sign_later(const sp_params *p, int n_stages, int i) {
    for (int j = i + 1; j < n_stages; j++) {
        int stage = p->n_order ? p->order[j] : j;
        if (stage == SP_STAGE_PENALTIES && p->repetition_penalty != 1.0f)
            return 1;
        if (stage == SP_STAGE_EXP_DECAY && sp_stage_active(p, stage))
            return 1; /* x + |x| (factor^n - 1) */
    }
    return 0;
}

static int read_later(const sp_params *p, int n_stages, int i) {
    for (int j = i + 1; j < n_stages; j++) {
        int stage = p->n_order ? p->order[j] : j;
        if ((stage == SP_STAGE_TEMPERATURE || stage == SP_STAGE_PENALTIES ||
             stage == SP_STAGE_DRY || stage == SP_STAGE_QUADRATIC ||
             stage == SP_STAGE_WATERMARK || stage == SP_STAGE_CFG) &&
            sp_stage_active(p, stage))
            return 1;
    }
    return 0;
}

/* Whether the working logits are the sp_intake's but for the penalties
 * (which keep the sp_intake's group maxima up) before position i: no
 * constraint, no other stage on before it. */
static int only_penalties_before(const sp_candidates *c, const sp_params *p,
                                 int i) {
    if (c->allowed) return 0;
    for (int j = 0; j < i; j++) {
        int stage = p->n_order ? p->order[j] : j;
        if (stage != SP_STAGE_PENALTIES && sp_stage_active(p, stage))
            return 0;
    }
    return 1;
}

/* Where the chain's stage at position i is the temperature and the next
 * stage that does anything is top-k: that stage's position, else -1. */
static int top_k_follows(const sp_params *p, int n_stages, int i) {
    for (int j = i + 1; j < n_stages; j++) {
        int stage = p->n_order ? p->order[j] : j;
        if (stage == SP_STAGE_TOP_K) return j;
        if (sp_stage_active(p, stage)) return -1;
    }
    return -1;
}

/* The temperature stage at position i of the chain, with its shortcuts:
 * with top-k when top-k is the next stage that does anything and no
 * snapshot is to come (sp_temperature_top_k), or with the snapshot when the
 * chain takes it right after (sp_apply_temperature).  Returns the position of
 * the last stage it ran: i, or top-k's. */
static int run_temperature(sp_candidates *c, const sp_params *p, int n_stages,
                           int i, int *snapped) {
    float t;
    if (!sp_temperature_value(c, p, &t)) return i;
    c->sign_later = sign_later(p, n_stages, i);
    if (*snapped && !c->sign_later) { /* no snapshot to come: top-k may
                                       * run with it */
        int at = top_k_follows(p, n_stages, i);
        c->read_later = at >= 0 && read_later(p, n_stages, at);
        if (at >= 0 && sp_temperature_top_k(c, p->top_k, t,
                                         only_penalties_before(c, p, i)))
            return at;
    }
    int next = next_stage(p, n_stages, i);
    int snap_next = !*snapped && (next < 0 || next >= FIRST_CUTOFF);
    if (sp_apply_temperature(c, t, snap_next ? c->s->probs_tempered : NULL))
        *snapped = 1;
    return i;
}

static double entropy_bits(float z, double weighted) {
    /* H = log Z - sum p (x - m), in bits; never below 0 from rounding */
    double h = (sp_log((double)z) - weighted) / LN2;
    return h > 0.0 ? h : 0.0;
}

/* The raw softmax of the logits (s->logits, their max m): probs_raw, its
 * log z and entropy; the snapshot's waiting division in the same pass as
 * the exps (the divider is idle under them). */
static void raw_softmax(sp_sampler *s, int v, float m) {
    float z;
    if (s->snap_waits) {
        z = sp_exp_sum_div(s->logits, m, s->probs_raw, s->probs_tempered,
                           s->snap_z, v);
        s->snap_waits = 0;
    } else {
        z = sp_exp_shift_sum(s->logits, m, s->probs_raw, v);
    }
    s->raw_log_z = sp_log((double)z);
    s->entropy_raw_bits = entropy_bits(
        z, sp_div_dot_shift_pos(s->probs_raw, z, s->logits, m, v));
    s->raw_valid = 1;
}

/* probs_tempered: the softmax of the working logits as they stand (every
 * cut left -inf in them, so the dense softmax is it); its division waits
 * (snap_waits).  m: the logits' max (raw_softmax's).  Returns 1. */
static int snapshot(sp_sampler *s, int v, float m) {
    /* Nothing has changed the logits (no bias, no penalty, T = 1): this is
     * the raw softmax, which is computed from the same numbers by the same
     * kernels (the max, the exps, their sum, one division each), so its
     * bits are these.  Comparing costs a read, the softmax a pass of exps
     * and one of divisions. */
    if (!s->reference &&
        memcmp(s->work, s->logits, sizeof(float) * (size_t)v) == 0) {
        if (!s->raw_valid) raw_softmax(s, v, m);
        sp_copy(s->probs_tempered, s->probs_raw, v);
        return 1;
    }
    float tm = sp_max(s->work, v);
    if (tm != -INFINITY) {
        s->snap_z = sp_exp_shift_sum(s->work, tm, s->probs_tempered, v);
        s->snap_waits = 1;
    }
    return 1;
}

int sp_sampler_warp(sp_sampler *s, const float *logits, const int *history,
                    int n_history, const sp_params *p, sp_step *step,
                    char *err) {
    int v = s->vocab;
    int rc = sp_params_check_ranges(p, v, err);
    if (rc != SP_OK) return rc;
    if (n_history < 0 || (n_history > 0 && !history))
        return sp_fail(err, SP_ERR_ARG, "history: bad length %d", n_history);
    /* the penalties' window: the last penalty_last_n tokens (0 = all); no
     * penalty, no window, so a long history costs nothing */
    int window = n_history;
    if (p->penalty_last_n > 0 && p->penalty_last_n < window)
        window = p->penalty_last_n;
    if (p->repetition_penalty == 1.0f && p->frequency_penalty == 0.0f &&
        p->presence_penalty == 0.0f)
        window = 0;
    const int *recent = window ? history + (n_history - window) : NULL;
    /* DRY and no-repeat-ngram read the whole history, the penalties their
     * window: every id they read must be in the vocabulary */
    int whole = p->dry_multiplier != 0.0f || p->no_repeat_ngram_size > 0;
    const int *read = whole ? history : recent;
    for (int i = 0, n = whole ? n_history : window; i < n; i++)
        if (read[i] < 0 || read[i] >= v)
            return sp_fail(err, SP_ERR_ARG, "history token %d is outside the "
                           "vocabulary (0..%d)", read[i], v - 1);
    /* the watermark's green list comes from the last token */
    if (p->watermark_delta != 0.0f && n_history > 0 &&
        (history[n_history - 1] < 0 || history[n_history - 1] >= v))
        return sp_fail(err, SP_ERR_ARG, "history token %d is outside the "
                       "vocabulary (0..%d)", history[n_history - 1], v - 1);
    /* classifier-free guidance needs the second run's logits, and room for
     * the distributions the step record shows */
    if (p->cfg_scale != 1.0f) {
        if (!s->state.cfg_uncond)
            return sp_fail(err, SP_ERR_ARG, "cfg-scale: classifier-free "
                           "guidance needs the unconditional logits (a "
                           "session's second run of the model)");
        if (!s->cfg_uncond_p)
            s->cfg_uncond_p = malloc(sizeof(float) * (size_t)v);
        if (!s->cfg_mix_p) s->cfg_mix_p = malloc(sizeof(float) * (size_t)v);
        if (!s->cfg_scratch) s->cfg_scratch = malloc(sizeof(float) * (size_t)v);
        if (!s->cfg_uncond_p || !s->cfg_mix_p || !s->cfg_scratch)
            return sp_fail(err, SP_ERR_NOMEM, "sampler: out of memory");
    }
    if (p->dry_multiplier != 0.0f && n_history > s->repeat_cap) {
        int *grown = realloc(s->repeat, sizeof(int) * (size_t)n_history);
        if (!grown) return sp_fail(err, SP_ERR_NOMEM, "sampler: out of memory");
        s->repeat = grown;
        s->repeat_cap = n_history;
    }
    /* The raw distribution depends on the logits alone: a warp of the
     * same logits (the step after its preview, a slider moved) finds it
     * where the last one left it; comparing costs a pass, its exps many. */
    int raw_cached = s->want_raw && s->raw_valid &&
                     memcmp(s->logits, logits, sizeof(float) * (size_t)v) == 0;
    float m = -INFINITY;
    sp_gmax_layout(s, v, p->top_k);
    int bad = sp_intake(s, logits, v, &m);
    if (bad >= 0 || m == -INFINITY) s->raw_valid = 0; /* s->logits written */
    if (bad >= 0)
        return sp_fail(err, SP_ERR_LOGITS, "logits: token %d is %s; the "
                       "model's output is not finite", bad,
                       logits[bad] != logits[bad] ? "NaN" : "+inf");
    if (m == -INFINITY)
        return sp_fail(err, SP_ERR_STATE, "logits: every token is masked "
                       "(-inf)");
    /* the argmax, the first token at the max: in the first group whose
     * maximum reaches it */
    int g0 = 0;
    while (g0 < s->gmax_groups - 1 && !(s->gmax[g0] >= m)) g0++;
    int argmax = sp_scan_ge(logits, m, g0 * s->gmax_size, v);
    for (int i = 0; i < s->n_penalized; i++) {
        int id = s->penalized[i];
        s->pen_mark[id] = 0;
        s->pen_count[id] = s->dry_len[id] = 0;
    }
    s->n_penalized = 0;
    s->penalties_n = s->dry_n = -1; /* -1: the stage did not run */
    s->dry_longest = 0;

    memset(step, 0, sizeof *step);
    s->mirostat_mu = s->adaptive_average = s->adaptive_aim = NAN;
    s->mirostat_goal = s->adaptive_goal = NAN;
    s->adaptive_on = 0;
    s->wm_on = 0;
    s->cfg_on = 0;
    s->wm_green_mass = s->wm_spike = NAN;
    step->vocab = v;
    step->argmax_raw = argmax;
    step->entropy_raw_bits = NAN;
    step->kept_mass = NAN;
    step->raw_max = m;
    step->raw_log_z = NAN;
    /* the raw softmax waits for the end of the chain (raw_softmax), where
     * the snapshot's division can run beside its exps */
    s->raw_valid = s->want_raw && raw_cached;
    s->snap_waits = 0;

    sp_candidates c = {v,      s->allowed, s->work,   s->cut, s->ids, 0, 0,
                       recent, window,     history,   n_history, s, 1, 0};
    sp_cands_constrain(&c, p);
    int n_stages = p->n_order ? p->n_order : SP_STAGE_COUNT;
    int snapped = !s->want_raw;
    for (int i = 0; i < n_stages; i++) {
        int stage = p->n_order ? p->order[i] : i;
        if (!snapped && stage >= FIRST_CUTOFF) snapped = snapshot(s, v, m);
        if (stage == SP_STAGE_TEMPERATURE && !s->reference) {
            i = run_temperature(&c, p, n_stages, i, &snapped);
            continue;
        }
        c.read_later = read_later(p, n_stages, i);
        c.sign_later = sign_later(p, n_stages, i);
        STAGES[stage](&c, p);
    }
    if (sp_stage_active(p, SP_STAGE_MIROSTAT)) { /* the last word, when on */
        if (!snapped) snapped = snapshot(s, v, m);
        STAGES[SP_STAGE_MIROSTAT](&c, p);
    }
    if (sp_stage_active(p, SP_STAGE_ADAPTIVE_P)) { /* or adaptive-p's */
        if (!snapped) snapped = snapshot(s, v, m);
        STAGES[SP_STAGE_ADAPTIVE_P](&c, p);
    }
    if (!snapped) snapshot(s, v, m);
    sp_cands_list(&c);
    if (c.n == 0)
        return sp_fail(err, SP_ERR_NO_TOKEN, "no token left: every token is "
                       "banned, masked or ruled out by the constraint");

    /* the final softmax, over the candidates only */
    float *cl = s->cand_logit, *ce = s->cand_exp;
    for (int j = 0; j < c.n; j++) cl[j] = s->work[c.ids[j]];
    float cm = sp_max(cl, c.n);
    float z = sp_exp_shift_sum(cl, cm, ce, c.n);
    /* probs is 0 but at the last warp's kept tokens: clearing those is the
     * memset of the whole vocabulary it used to be */
    for (int j = 0; j < s->n_probs; j++) s->probs[s->probs_ids[j]] = 0.0f;
    for (int j = 0; j < c.n; j++) {
        ce[j] = ce[j] / z;
        s->probs[c.ids[j]] = ce[j];
    }
    memcpy(s->probs_ids, c.ids, sizeof(int) * (size_t)c.n);
    s->n_probs = c.n;
    step->entropy_bits = entropy_bits(z, sp_dot_shift_pos(ce, cl, cm, c.n));
    if (s->want_raw) {
        if (!s->raw_valid) raw_softmax(s, v, m);
        if (s->snap_waits) sp_div_scalar(s->probs_tempered, s->snap_z, v);
        s->snap_waits = 0;
        step->raw_log_z = s->raw_log_z;
        step->entropy_raw_bits = s->entropy_raw_bits;
        double mass = 0.0;
        for (int j = 0; j < c.n; j++) mass += s->probs_raw[c.ids[j]];
        step->kept_mass = mass;
    }
    step->logits = s->logits;
    step->probs_raw = s->want_raw ? s->probs_raw : NULL;
    step->probs_tempered = s->want_raw ? s->probs_tempered : NULL;
    step->probs = s->probs;
    step->cut = s->cut;
    step->kept = s->ids;
    step->n_kept = c.n;
    step->penalized = s->penalized;
    step->n_penalized = s->n_penalized;
    step->mirostat_mu = s->mirostat_mu;
    step->adaptive_average = s->adaptive_average;
    step->adaptive_aim = s->adaptive_aim;
    step->mirostat_goal = s->mirostat_goal;
    step->adaptive_goal = s->adaptive_goal;
    step->penalties_n = s->penalties_n;
    step->penalty_count = s->pen_count;
    step->dry_n = s->dry_n;
    step->dry_longest = s->dry_longest;
    step->dry_length = s->dry_len;
    step->probs_adaptive_in = s->adaptive_on ? s->adaptive_in : NULL;
    step->green = s->wm_on ? s->wm_green : NULL;
    step->green_mass = s->wm_green_mass;
    step->spike_entropy = s->wm_spike;
    step->probs_uncond = s->cfg_on ? s->cfg_uncond_p : NULL;
    step->probs_cfg = s->cfg_on ? s->cfg_mix_p : NULL;
    step->token = -1;
    step->p_token = 0.0f;
    step->u = NAN;
    return SP_OK;
}
