/*
 * wasm_decode.c — beam search and speculative sampling.
 * (the WASM exports: see wasm_api.c)
 */
#include <stdlib.h>
#include <string.h>

#include "wasm_api.h"

/* ---- beam search ----------------------------------------------------- */

API("api_beam_new")
sp_beam_search *api_beam_new(const sp_model *m, const sp_tokenizer *t,
                             int width, double length_penalty,
                             int max_tokens) {
    last_error[0] = '\0';
    return sp_beam_new(m, t, width, (float)length_penalty, max_tokens,
                       last_error);
}
API("api_beam_free") void api_beam_free(sp_beam_search *b) { sp_beam_free(b); }
API("api_beam_set_groups")
int api_beam_set_groups(sp_beam_search *b, int groups, double diversity) {
    return sp_beam_set_groups(b, groups, (float)diversity, last_error);
}
API("api_beam_group") int api_beam_group(const sp_beam_search *b, int i) {
    return sp_beam_group(b, i);
}
API("api_beam_penalty") double api_beam_penalty(const sp_beam_search *b, int i) {
    return sp_beam_penalty(b, i);
}
API("api_beam_start") int api_beam_start(sp_beam_search *b, const char *prompt) {
    return sp_beam_start(b, prompt, last_error);
}
API("api_beam_constrain")
int api_beam_constrain(sp_beam_search *b, const sp_constraint *c, int budget) {
    return sp_beam_constrain(b, c, budget, last_error);
}
API("api_beam_step")
int api_beam_step(sp_beam_search *b, const sp_params *p) {
    return sp_beam_step(b, p, last_error);
}
API("api_beam_count") int api_beam_count(const sp_beam_search *b) {
    return sp_beam_count(b);
}
API("api_beam_live") int api_beam_live(const sp_beam_search *b) {
    return sp_beam_live(b);
}
API("api_beam_n_prompt") int api_beam_n_prompt(const sp_beam_search *b) {
    return sp_beam_n_prompt(b);
}
/* the i-th hypothesis's tokens; their count in api_last_len() */
API("api_beam_tokens")
const int *api_beam_tokens(const sp_beam_search *b, int i) {
    return sp_beam_tokens(b, i, &last_len);
}
API("api_beam_logprob") double api_beam_logprob(const sp_beam_search *b, int i) {
    return sp_beam_logprob(b, i);
}
API("api_beam_score") double api_beam_score(const sp_beam_search *b, int i) {
    return sp_beam_score(b, i);
}
API("api_beam_finished") int api_beam_finished(const sp_beam_search *b, int i) {
    return sp_beam_finished(b, i);
}
API("api_beam_text_end") int api_beam_text_end(const sp_beam_search *b, int i) {
    return sp_beam_text_end(b, i);
}

/* ---- speculative sampling ------------------------------------------- */

API("api_spec_new")
sp_speculator *api_spec_new(sp_session *target, const sp_model *draft,
                            const sp_tokenizer *draft_tok, int n_draft) {
    last_error[0] = '\0';
    return sp_spec_new(target, draft, draft_tok, n_draft, last_error);
}
API("api_spec_new_lookup")
sp_speculator *api_spec_new_lookup(sp_session *target, int n_draft, int ngram) {
    last_error[0] = '\0';
    return sp_spec_new_lookup(target, n_draft, ngram, last_error);
}
/* where the last round's draft was copied from (prompt lookup): the index
 * of its first token in the text (-1: none) and the n-gram matched */
API("api_spec_round_match")
void api_spec_round_match(const sp_speculator *sp, double *out) {
    int ngram = 0;
    out[0] = sp_spec_round_match(sp, &ngram);
    out[1] = ngram;
}
API("api_spec_free") void api_spec_free(sp_speculator *sp) { sp_spec_free(sp); }
API("api_spec_start")
int api_spec_start(sp_speculator *sp, const char *prompt, double seed_lo,
                   double seed_hi) {
    uint64_t seed = (uint64_t)(uint32_t)seed_hi << 32 | (uint32_t)seed_lo;
    return sp_spec_start(sp, prompt, seed, last_error);
}
API("api_spec_round")
int api_spec_round(sp_speculator *sp, const sp_params *p) {
    return sp_spec_round(sp, p, last_error);
}
/* the last round's appended tokens (count in api_last_len()) */
API("api_spec_round_tokens")
const int *api_spec_round_tokens(const sp_speculator *sp) {
    const int *tokens, *status;
    last_len = sp_spec_round_tokens(sp, &tokens, &status);
    return tokens;
}
API("api_spec_round_status")
const int *api_spec_round_status(const sp_speculator *sp) {
    const int *tokens, *status;
    last_len = sp_spec_round_tokens(sp, &tokens, &status);
    return status;
}
API("api_spec_round_drafted")
const int *api_spec_round_drafted(const sp_speculator *sp) {
    const int *drafted;
    last_len = sp_spec_round_drafted(sp, &drafted);
    return drafted;
}
/* totals into out[4]: drafted, accepted, rounds, target positions */
API("api_spec_totals") void api_spec_totals(const sp_speculator *sp, double *out) {
    long long d, a, r, t;
    sp_spec_totals(sp, &d, &a, &r, &t);
    out[0] = (double)d;
    out[1] = (double)a;
    out[2] = (double)r;
    out[3] = (double)t;
}

/* work into out[4]: the target's batched passes and the positions they
 * fed (all rounds), the positions the last round's pass fed, and 1 when
 * the draft speaks the target's tokenizer */
API("api_spec_work") void api_spec_work(const sp_speculator *sp, double *out) {
    long long passes, fed;
    sp_spec_work(sp, &passes, &fed);
    out[0] = (double)passes;
    out[1] = (double)fed;
    out[2] = sp_spec_round_fed(sp);
    out[3] = sp_spec_matched(sp);
}
/* the last round's rejection: its index (-1: none) and the drafted target
 * id in out[0..2), and the target's p, the draft's q and the residual
 * max(0, p - q) at that position into the three arrays [target vocab] */
API("api_spec_rejection")
void api_spec_rejection(const sp_speculator *sp, double *out, float *p,
                        float *q, float *residual, int vocab) {
    int drafted = -1;
    const float *pp, *qq, *rr;
    int at = sp_spec_round_rejection(sp, &drafted, &pp, &qq, &rr);
    out[0] = at;
    out[1] = drafted;
    if (at < 0) return;
    memcpy(p, pp, sizeof(float) * (size_t)vocab);
    memcpy(q, qq, sizeof(float) * (size_t)vocab);
    memcpy(residual, rr, sizeof(float) * (size_t)vocab);
}
