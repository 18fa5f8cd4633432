/*
 * length.c — the stages that look at how long the text is: min-new-tokens
 * and the exponential decay length penalty (Hugging Face's
 * MinNewTokensLengthLogitsProcessor and ExponentialDecayLengthPenalty).
 * Both act on the tokens that end the text, at the step the sampler's
 * state says (sp_sampler_state: n_generated, ends): a session gives its
 * model's end-of-text tokens; a bare sampler knows none, and they do
 * nothing there.
 */
#include "candidates.h"

/* Min-new-tokens (HF's MinNewTokensLengthLogitsProcessor, vLLM's
 * min_tokens): every end-of-text token is cut while fewer than
 * min_new_tokens tokens have been generated. */
void sp_stage_min_new_tokens(sp_candidates *c, const sp_params *p) {
    const sp_sampler_state *st = &c->s->state;
    if (p->min_new_tokens <= 0 || st->n_generated >= p->min_new_tokens)
        return;
    int cut = 0;
    for (int i = 0; i < st->n_ends; i++) {
        int id = st->ends[i];
        if (id < 0 || id >= c->vocab || c->cut[id] != SP_CUT_NONE) continue;
        sp_cands_cut(c, id, SP_CUT_MIN_NEW_TOKENS);
        cut = 1;
    }
    if (cut && c->listed) sp_cands_compact(c);
}

/* The exponential decay length penalty (HF's ExponentialDecayLengthPenalty,
 * exponential_decay_length_penalty = (start, factor)): once n tokens have
 * been generated, n > start, each end-of-text token's logit x gains
 * |x| (factor^(n - start) - 1) -- the absolute value so that a negative
 * logit rises too.  A factor above 1 makes the text end sooner and sooner
 * past start; below 1, later. */
void sp_stage_exp_decay(sp_candidates *c, const sp_params *p) {
    const sp_sampler_state *st = &c->s->state;
    int over = st->n_generated - p->exp_decay_start;
    if (p->exp_decay_factor == 1.0f || over <= 0 || st->n_ends == 0) return;
    double grow = sp_pow((double)p->exp_decay_factor, (double)over) - 1.0;
    for (int i = 0; i < st->n_ends; i++) {
        int id = st->ends[i];
        if (id < 0 || id >= c->vocab) continue;
        float x = c->logits[id];
        if (x == -INFINITY) continue;
        c->logits[id] = sp_clamp_finite((float)((double)x + fabs((double)x) * grow));
        sp_cands_penalized(c, id);
    }
}
