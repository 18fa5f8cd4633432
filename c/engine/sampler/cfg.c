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
 * vocabulary.  The sums run in double in token order: every build adds the
 * same numbers in the same order.
 */
#include <stdlib.h>

#include "candidates.h"

/* log sum exp over x[ids[j]] (ids NULL: x[0 .. n)), -inf skipped. */
static double log_sum_exp(const float *x, const int *ids, int n) {
    float m = -INFINITY;
    for (int j = 0; j < n; j++) {
        float v = x[ids ? ids[j] : j];
        if (v > m) m = v;
    }
    if (m == -INFINITY) return -INFINITY;
    double z = 0.0;
    for (int j = 0; j < n; j++) {
        float v = x[ids ? ids[j] : j];
        if (v != -INFINITY) z += sp_exp((double)v - (double)m);
    }
    return (double)m + sp_log(z);
}

void sp_stage_cfg(sp_candidates *c, const sp_params *p) {
    sp_sampler *s = c->s;
    const float *u = s->state.cfg_uncond;
    if (p->cfg_scale == 1.0f || !u) return;
    int v = c->vocab, n = c->listed ? c->n : v;
    const int *ids = c->listed ? c->ids : NULL;
    float *x = c->logits;
    double scale = (double)p->cfg_scale;
    double lx = log_sum_exp(x, ids, n);
    double lu = log_sum_exp(u, NULL, v);
    /* the unconditional distribution, for the step record (every token) */
    for (int i = 0; i < v; i++)
        s->cfg_uncond_p[i] = u[i] == -INFINITY
                                 ? 0.0f
                                 : (float)sp_exp((double)u[i] - lu);
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
    double lo = log_sum_exp(x, ids, n);
    for (int i = 0; i < v; i++) s->cfg_mix_p[i] = 0.0f;
    for (int j = 0; j < n; j++) {
        int i = ids ? ids[j] : j;
        if (x[i] != -INFINITY)
            s->cfg_mix_p[i] = (float)sp_exp((double)x[i] - lo);
    }
    s->cfg_on = 1;
}
