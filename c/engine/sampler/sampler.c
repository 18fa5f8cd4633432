/*
 * sampler.c — the sampler's lifecycle: its scratch memory for one
 * vocabulary size, and what a caller sets on it between warps (the
 * reporting, the reference path, the constraint's mask, the state a stage
 * draws on).  The chain itself: chain.c.
 */
#include <stdlib.h>

#include "candidates.h"

sp_sampler *sp_sampler_new(int vocab) {
    if (vocab <= 0) return NULL;
    sp_sampler *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    size_t v = (size_t)vocab;
    s->vocab = vocab;
    s->want_raw = 1;
    s->logits = malloc(v * sizeof(float));
    s->probs_raw = calloc(v, sizeof(float));
    s->probs_tempered = calloc(v, sizeof(float));
    s->work = malloc(v * sizeof(float));
    s->probs = calloc(v, sizeof(float));
    s->probs_ids = malloc(v * sizeof(int));
    s->cut = calloc(v, 1);
    s->ids = malloc(v * sizeof(int));
    s->cand_logit = malloc(v * sizeof(float));
    s->cand_exp = malloc(v * sizeof(float));
    s->heap = malloc(v * sizeof(float));
    s->listed_logits = malloc(v * sizeof(float));
    s->gmax = malloc((v / 16 + 1) * sizeof(float));
    s->gmax_stale = calloc(v / 16 + 1, 1);
    s->counts = calloc(v, sizeof(int));
    s->penalized = malloc(v * sizeof(int));
    s->pen_mark = calloc(v, 1);
    s->pen_count = calloc(v, sizeof(int));
    s->dry_len = calloc(v, sizeof(int));
    s->sel = malloc(v * sizeof(sp_sel_item));
    s->adaptive_in = calloc(v, sizeof(float));
    s->adaptive_ids = malloc(v * sizeof(int));
    s->wm_green = calloc(v, 1);
    s->wm_perm = malloc(v * sizeof(int));
    s->wm_exp = malloc(v * sizeof(float));
    s->state.xtc_u = 0.0;
    s->state.mirostat_mu = NAN;
    s->state.adaptive_sum = s->state.adaptive_weight = NAN;
    if (!s->logits || !s->probs_raw || !s->probs_tempered || !s->work ||
        !s->probs || !s->probs_ids || !s->cut || !s->ids || !s->cand_logit ||
        !s->cand_exp || !s->heap || !s->listed_logits || !s->gmax ||
        !s->gmax_stale || !s->counts ||
        !s->penalized || !s->pen_mark || !s->pen_count || !s->dry_len ||
        !s->sel || !s->adaptive_in ||
        !s->adaptive_ids || !s->wm_green || !s->wm_perm || !s->wm_exp) {
        sp_sampler_free(s);
        return NULL;
    }
    return s;
}

void sp_sampler_free(sp_sampler *s) {
    if (!s) return;
    free(s->logits);
    free(s->probs_raw);
    free(s->probs_tempered);
    free(s->work);
    free(s->probs);
    free(s->probs_ids);
    free(s->adaptive_in);
    free(s->adaptive_ids);
    free(s->wm_green);
    free(s->wm_perm);
    free(s->wm_exp);
    free(s->cfg_uncond_p);
    free(s->cfg_mix_p);
    free(s->cfg_scratch);
    free(s->cut);
    free(s->ids);
    free(s->cand_logit);
    free(s->cand_exp);
    free(s->heap);
    free(s->listed_logits);
    free(s->gmax);
    free(s->gmax_stale);
    free(s->counts);
    free(s->penalized);
    free(s->pen_mark);
    free(s->pen_count);
    free(s->dry_len);
    free(s->repeat);
    free(s->sel);
    free(s);
}

int sp_sampler_vocab(const sp_sampler *s) { return s->vocab; }

void sp_sampler_set_raw(sp_sampler *s, int on) { s->want_raw = on != 0; }

void sp_sampler_set_reference(sp_sampler *s, int on) { s->reference = on != 0; }

void sp_sampler_set_mask(sp_sampler *s, const uint8_t *allowed) {
    s->allowed = allowed;
}

void sp_sampler_set_state(sp_sampler *s, const sp_sampler_state *state) {
    s->state = *state;
}
