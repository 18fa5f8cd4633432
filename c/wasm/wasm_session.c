/*
 * wasm_session.c — a standalone sampler (the warp command, tests),
 * sessions, and their constraints, metrics and counters.
 * (the WASM exports: see wasm_api.c)
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "wasm_api.h"

/* ---- a standalone sampler (the warp command, tests) ------------------ */

typedef struct {
    sp_sampler *sampler;
    sp_step step;
} api_sampler;

API("api_sampler_new") api_sampler *api_sampler_new(int vocab) {
    api_sampler *a = calloc(1, sizeof *a);
    if (!a) return NULL;
    a->sampler = sp_sampler_new(vocab);
    if (!a->sampler) {
        free(a);
        return NULL;
    }
    return a;
}
API("api_sampler_free") void api_sampler_free(api_sampler *a) {
    if (!a) return;
    sp_sampler_free(a->sampler);
    free(a);
}
API("api_sampler_warp")
int api_sampler_warp(api_sampler *a, const float *logits, const int *history,
                     int n_history, const sp_params *p) {
    return sp_sampler_warp(a->sampler, logits, history, n_history, p,
                           &a->step, last_error);
}
/* Classifier-free guidance's unconditional logits for the next warps
 * ([vocab] floats, borrowed: the caller keeps them; 0: none). */
API("api_sampler_set_uncond")
void api_sampler_set_uncond(api_sampler *a, const float *uncond) {
    sp_sampler_state st = {0.0, NAN, 0, NULL, 0, NAN, NAN, uncond};
    sp_sampler_set_state(a->sampler, &st);
}
API("api_sampler_draw") int api_sampler_draw(api_sampler *a, double u) {
    return sp_sampler_draw(&a->step, u);
}
API("api_sampler_step") const sp_step *api_sampler_step(api_sampler *a) {
    return &a->step;
}

/* ---- sessions ------------------------------------------------------- */

API("api_session_new")
sp_session *api_session_new(const sp_model *m, const sp_tokenizer *t) {
    last_error[0] = '\0';
    return sp_session_new(m, t, last_error);
}
API("api_session_free") void api_session_free(sp_session *s) {
    sp_session_free(s);
}
API("api_session_set_raw") void api_session_set_raw(sp_session *s, int on) {
    sp_sampler_set_raw(sp_session_sampler(s), on);
}
API("api_session_start")
int api_session_start(sp_session *s, const char *prompt, double seed_lo,
                      double seed_hi) {
    uint64_t seed = (uint64_t)(uint32_t)seed_hi << 32 | (uint32_t)seed_lo;
    return sp_session_start(s, prompt, seed, last_error);
}
API("api_session_step")
int api_session_step(sp_session *s, const sp_params *p, int force) {
    return sp_session_step(s, p, force, last_error);
}
API("api_session_preview")
int api_session_preview(sp_session *s, const sp_params *p) {
    return sp_session_preview(s, p, last_error);
}
API("api_session_peek")
int api_session_peek(sp_session *s, int n, const sp_params *p) {
    return sp_session_peek(s, n, p, last_error);
}
API("api_session_set_inspect")
int api_session_set_inspect(sp_session *s, int what, int lens_top) {
    return sp_session_set_inspect(s, what, lens_top, last_error);
}
API("api_session_rewind") int api_session_rewind(sp_session *s, int n) {
    return sp_session_rewind(s, n, last_error);
}
/* Classifier-free guidance's negative prompt ("": none). */
API("api_session_set_negative_prompt")
int api_session_set_negative_prompt(sp_session *s, const char *text) {
    return sp_session_set_negative_prompt(s, text, last_error);
}
API("api_session_step_record")
const sp_step *api_session_step_record(const sp_session *s) {
    return sp_session_last_step(s);
}
API("api_session_tokens") const int *api_session_tokens(const sp_session *s) {
    return sp_session_tokens(s);
}
API("api_session_n_tokens") int api_session_n_tokens(const sp_session *s) {
    return sp_session_n_tokens(s);
}
API("api_session_n_prompt") int api_session_n_prompt(const sp_session *s) {
    return sp_session_n_prompt(s);
}
API("api_session_is_end") int api_session_is_end(const sp_session *s, int t) {
    return sp_session_is_end(s, t);
}
API("api_session_finished") int api_session_finished(const sp_session *s) {
    return sp_session_finished(s);
}

/* ---- constraints, metrics, counters -------------------------------- */

API("api_constraint_regex")
sp_constraint *api_constraint_regex(const char *pattern) {
    last_error[0] = '\0';
    return sp_constraint_regex(pattern, last_error);
}
API("api_constraint_json") sp_constraint *api_constraint_json(void) {
    return sp_constraint_json(last_error);
}
API("api_constraint_json_object")
sp_constraint *api_constraint_json_object(void) {
    return sp_constraint_json_object(last_error);
}
API("api_constraint_free") void api_constraint_free(sp_constraint *c) {
    sp_constraint_free(c);
}
API("api_session_constrain")
int api_session_constrain(sp_session *s, const sp_constraint *c, int budget) {
    return sp_session_constrain(s, c, budget, last_error);
}

/* metrics into out[12]: tokens, bytes, distinct1..3, type-token ratio,
 * longest repeat, its offset, mean entropy, mean raw entropy, mean nucleus,
 * perplexity */
API("api_session_metrics")
int api_session_metrics(const sp_session *s, double *out) {
    sp_metrics m;
    int rc = sp_session_metrics(s, &m);
    if (rc != SP_OK) return sp_fail(last_error, rc, "metrics: out of memory");
    double v[12] = {m.tokens, m.bytes, m.distinct1, m.distinct2, m.distinct3,
                    m.type_token_ratio, m.longest_repeat, m.longest_repeat_at,
                    m.mean_entropy_bits, m.mean_entropy_raw_bits,
                    m.mean_nucleus, m.perplexity};
    memcpy(out, v, sizeof v);
    return SP_OK;
}
/* per generated token, 5 doubles: p, ln p_raw, entropy, raw entropy, kept */
API("api_session_stats")
int api_session_stats(const sp_session *s, double *out, int max_tokens) {
    int n = sp_session_n_generated(s);
    if (n > max_tokens) n = max_tokens;
    const sp_token_stat *st = sp_session_stats(s);
    for (int i = 0; i < n; i++) {
        out[5 * i] = st[i].p;
        out[5 * i + 1] = st[i].logp_raw;
        out[5 * i + 2] = st[i].entropy_bits;
        out[5 * i + 3] = st[i].entropy_raw_bits;
        out[5 * i + 4] = st[i].n_kept;
    }
    return n;
}
/* counters into out[6]: flops, flops without cache, tokens, kv reused,
 * kv written, forward passes (a batched pass counts once) */
API("api_session_counters")
void api_session_counters(const sp_session *s, double *out) {
    sp_counters c;
    sp_session_counters(s, &c);
    out[0] = c.flops;
    out[1] = c.flops_no_cache;
    out[2] = (double)c.tokens;
    out[3] = (double)c.kv_reused;
    out[4] = (double)c.kv_written;
    out[5] = (double)c.passes;
}
