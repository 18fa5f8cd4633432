/*
 * cfg.c — classifier-free guidance (Hugging Face's
 * UnbatchedClassifierFreeGuidanceLogitsProcessor; Sanchez et al. 2023,
 * "Stay on topic with Classifier-Free Guidance").
 *
 * Two runs of the model per step: the conditional one (the text as it is,
 * the logits the warp is given) and the unconditional one (the model run on
 * a negative prompt -- or, with none, on the prompt's last token alone --
 * continued with the same generated tokens, in a second state of its own:
 * the session's, decode/session_cfg.c).  The stage mixes their
 * log-probabilities:
 *
 *   out = scale (log_softmax(cond) - log_softmax(uncond)) + log_softmax(uncond)
 *
 * scale 1 is the conditional distribution (the stage is off: nothing is
 * computed, no second run), 0 the unconditional one, above 1 pushes the
 * text away from what the negative prompt alone would say.  HF applies it
 * before every other processor; so does the default order (its first
 * stage).  The conditional log-softmax is over the tokens still alive
 * (before the stage only a constraint can have removed any; without one it
 * is the whole vocabulary, as HF's), the unconditional one over the whole
 * vocabulary.  The exps and their sums are the kernels' (sp_exp_shift_sum:
 * the canonical order, the same bits in every build; three passes over the
 * vocabulary, vectorized), the mix itself in double token by token.
 */
#include <stdlib.h>

#include "candidates.h"

/* log sum exp of x[0 .. n) (-inf entries count for nothing), the exps
 * exp(x - max) into e[n]; *z their sum, *m the max. */
static double log_sum_exp(const float *x, int n, float *e, float *z,
                          float *m) {
    *m = sp_max(x, n);
    if (*m == -INFINITY) {
        *z = 0.0f;
        return -INFINITY;
    }
    *z = sp_exp_shift_sum(x, *m, e, n);
    return (double)*m + sp_log((double)*z);
}

void sp_stage_cfg(sp_candidates *c, const sp_params *p) {
    sp_sampler *s = c->s;
    const float *u = s->state.cfg_uncond;
    if (p->cfg_scale == 1.0f || !u) return;
    int v = c->vocab, n = c->listed ? c->n : v;
    const int *ids = c->listed ? c->ids : NULL;
    float *x = c->logits, *pu = s->cfg_uncond_p, *pm = s->cfg_mix_p;
    float *xs = s->cfg_scratch, z, m;
    double scale = (double)p->cfg_scale;
    /* the unconditional distribution, for the step record (every token),
     * and its log-normalizer */
    double lu = log_sum_exp(u, v, pu, &z, &m);
    if (z > 0.0f) sp_div_scalar(pu, z, v);
    /* the conditional log-normalizer over the tokens alive: the list side
     * by side, or the dense logits (a cut token's -inf adds nothing) */
    const float *xa = x;
    if (ids) {
        for (int j = 0; j < n; j++) xs[j] = x[ids[j]];
        xa = xs;
    }
    double lx = log_sum_exp(xa, n, pm, &z, &m); /* (pm: scratch here) */
    for (int j = 0; j < n; j++) {
        int i = ids ? ids[j] : j;
        if (x[i] == -INFINITY) continue;
        double cond = (double)x[i] - lx, uncond = (double)u[i] - lu;
        double out = scale * (cond - uncond) + uncond;
        /* an unconditional -inf (a hand-made model's masked token) stays
         * out below scale 1, as the formula says; far above, the token
         * is the cond's alone: both are kept finite for the chain */
        x[i] = out != out ? -INFINITY : sp_clamp_finite((float)out);
    }
    /* the mix as a distribution (the page draws it beside the two runs) */
    if (ids) {
        for (int j = 0; j < n; j++) xs[j] = x[ids[j]];
        log_sum_exp(xs, n, xs, &z, &m);
        for (int i = 0; i < v; i++) pm[i] = 0.0f;
        if (z > 0.0f)
            for (int j = 0; j < n; j++) pm[ids[j]] = xs[j] / z;
    } else {
        log_sum_exp(x, v, pm, &z, &m);
        if (z > 0.0f) sp_div_scalar(pm, z, v);
    }
    s->cfg_on = 1;
}
