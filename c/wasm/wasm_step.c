/*
 * wasm_step.c — the step record: its fields in one call, its ranks,
 * its draws, who cut what.
 * (the WASM exports: see wasm_api.c)
 */
#include <stdlib.h>
#include <string.h>

#include "wasm_api.h"

/* ---- the step record ------------------------------------------------ */

/* The record's numbers and arrays in one call: the fields below, in this
 * order, as doubles into out[] (an address fits a double exactly), so the
 * JS wrapper reads a record with one call and one view.  The names go to JS
 * as one string (api_step_fields): the order is written here only. */
#define STEP_FIELDS(X)                                                    \
    X(vocab, st->vocab)                                                   \
    X(token, st->token)                                                   \
    X(p, st->p_token)                                                     \
    X(u, st->u)                                                           \
    X(n_kept, st->n_kept)                                                 \
    X(kept_mass, st->kept_mass)                                           \
    X(entropy_bits, st->entropy_bits)                                     \
    X(entropy_raw_bits, st->entropy_raw_bits)                             \
    X(argmax_raw, st->argmax_raw)                                         \
    X(probs, (uintptr_t)st->probs)                                        \
    X(probs_raw, (uintptr_t)st->probs_raw)                                \
    X(probs_tempered, (uintptr_t)st->probs_tempered)                      \
    X(logits, (uintptr_t)st->logits)                                      \
    X(cut, (uintptr_t)st->cut)                                            \
    X(kept, (uintptr_t)st->kept)                                          \
    X(penalized, (uintptr_t)st->penalized)                                \
    X(n_penalized, st->n_penalized)                                      \
    X(mirostat_mu, st->mirostat_mu)                                      \
    X(adaptive_average, st->adaptive_average)                            \
    X(adaptive_aim, st->adaptive_aim)                                    \
    /* the goal each worked towards: tau (bits), adaptive-p's target */  \
    X(mirostat_goal, st->mirostat_goal)                                  \
    X(adaptive_goal, st->adaptive_goal)                                  \
    X(surprise_bits, sp_surprise_bits(st->p_token))                      \
    X(penalties_n, st->penalties_n)                                      \
    X(penalty_count_token, st->token >= 0 ? st->penalty_count[st->token] : 0) \
    X(dry_n, st->dry_n)                                                  \
    X(dry_longest, st->dry_longest)                                      \
    X(dry_length_token, st->token >= 0 ? st->dry_length[st->token] : 0) \
    /* the watermark: the drawn token green (1), red (0), neither (-1: off, \
     * a preview, no previous token); the green list's model mass, the     \
     * spike entropy (NaN: off), the list itself ([vocab] bytes, 0: off) */ \
    X(watermark_green, st->green && st->token >= 0 ? st->green[st->token] : -1) \
    X(watermark_green_mass, st->green_mass)                              \
    X(watermark_spike_entropy, st->spike_entropy)                        \
    X(green_list, (uintptr_t)st->green)                                 \
    /* classifier-free guidance: the unconditional run's distribution and \
     * the mix the chain went on with ([vocab] floats each, 0: off) */    \
    X(probs_uncond, (uintptr_t)st->probs_uncond)                         \
    X(probs_cfg, (uintptr_t)st->probs_cfg)                               \
    /* a look inside the model (sp_session_set_inspect; inspect_pos -1:  \
     * none): the query's position and token, the shape, the attention    \
     * weights ([layers][heads][keys] floats) and the lens (lens_top per  \
     * layer: ids, probabilities, and each layer's entropy; 0: none) */   \
    X(inspect_pos, st->inspect ? st->inspect->pos : -1)                  \
    X(inspect_token, st->inspect ? st->inspect->token : -1)              \
    X(inspect_layers, st->inspect ? st->inspect->n_layers : 0)           \
    X(inspect_heads, st->inspect ? st->inspect->n_heads : 0)             \
    X(inspect_kv_heads, st->inspect ? st->inspect->n_kv_heads : 0)       \
    X(inspect_keys, st->inspect ? st->inspect->n_keys : 0)               \
    X(attention, st->inspect ? (uintptr_t)st->inspect->attention : 0)    \
    X(lens_top, st->inspect ? st->inspect->lens_top : 0)                 \
    X(lens_ids, st->inspect ? (uintptr_t)st->inspect->lens_ids : 0)      \
    X(lens_p, st->inspect ? (uintptr_t)st->inspect->lens_p : 0)          \
    X(lens_entropy_bits,                                                 \
      st->inspect ? (uintptr_t)st->inspect->lens_entropy_bits : 0)

#define STEP_NAME(name, value) #name ","
#define STEP_VALUE(name, value) out[i++] = (double)(value);

API("api_step_fields") const char *api_step_fields(void) {
    return STEP_FIELDS(STEP_NAME);
}
API("api_step_read") void api_step_read(const sp_step *st, double *out) {
    int i = 0;
    STEP_FIELDS(STEP_VALUE)
}
/* The same fields of a re-warped past step (a peek: no draw) as if token,
 * the one the text has there, had been drawn: its final probability, and
 * the numbers about the drawn token (its surprise, its count in the
 * penalty window, its repeat, green or red) for it.  The page's strip of
 * a fast-forwarded text reads its marks so, a batch at a time. */
API("api_step_read_as")
void api_step_read_as(const sp_step *record, int token, double *out) {
    sp_step copy = *record;
    const sp_step *st = &copy;
    if (token >= 0 && token < copy.vocab) {
        copy.token = token;
        copy.p_token = copy.probs[token];
    }
    int i = 0;
    STEP_FIELDS(STEP_VALUE)
}
API("api_step_top")
int api_step_top(const sp_step *st, int n, int *ids, double *cum) {
    return sp_step_top(st, n, ids, cum);
}
API("api_step_sample_counts")
double api_step_sample_counts(const sp_step *st, double seed_lo,
                              double seed_hi, int n, int *counts) {
    return sp_step_sample_counts(
        st, (uint64_t)(uint32_t)seed_hi << 32 | (uint32_t)seed_lo, n, counts);
}
/* Who cut what, in the chain's order: cut names' codes, counts and the
 * model's mass cut (SP_STAGE_COUNT + 3 each at most); returns the entries. */
API("api_step_cuts")
int api_step_cuts(const sp_step *st, const sp_params *p, int *codes,
                  int *counts, double *masses) {
    const char *names[SP_STAGE_COUNT + 3];
    int n = sp_step_cuts(st, p, names, counts, masses);
    for (int i = 0; i < n; i++)
        for (int c = 0; c < SP_CUT_COUNT; c++)
            if (!strcmp(sp_cut_name(c), names[i])) codes[i] = c;
    return n;
}
API("api_cut_name") const char *api_cut_name(int cut) {
    return sp_cut_name(cut);
}

/* Watermark detection (sampler.h sp_watermark_detect): ids[first .. n)
 * scored, per_token[n] 1 green / 0 red / -1 context, running[n] the z so
 * far (both may be 0); out[4]: tokens, green, z, p-value. */
API("api_watermark_detect")
int api_watermark_detect(int vocab, double gamma, int key, const int *ids,
                         int n, int first, int8_t *per_token, double *running,
                         double *out) {
    sp_watermark_score sc;
    int rc = sp_watermark_detect(vocab, (float)gamma, key, ids, n, first,
                                 per_token, running, &sc, last_error);
    if (rc != SP_OK) return rc;
    out[0] = sc.tokens;
    out[1] = sc.green;
    out[2] = sc.z;
    out[3] = sc.p_value;
    return SP_OK;
}
