/*
 * wasm_api.c — the functions the engine's WASM build (engine-*.wasm, the
 * one the page loads) exports to JavaScript (web/src/engine/engine.js wraps
 * them; nothing else should call them).
 *
 * Plain integers, doubles and pointers only.  Every call that can fail
 * returns an sp error class (or NULL) and leaves its message in
 * api_last_error() and which error it is in api_error_code(); the JS wrapper
 * turns the class SP_ERR_ARG into a RangeError and the rest into
 * EngineErrors, each with the error's code and name (api_error_name).
 */
#include <stdlib.h>
#include <string.h>

#include "sampler.h"

#define API(name) __attribute__((export_name(name)))

static char last_error[SP_ERR_LEN];
static int last_len;

API("api_last_error") const char *api_last_error(void) { return last_error; }
API("api_last_len") int api_last_len(void) { return last_len; }

/* Which error the last message is after a call returned the class rc (-1:
 * a call that returned NULL); an error's name and class, the name "" past
 * the last code (sampler.h SP_ERRORS: the JS reads the list from these). */
API("api_error_code") int api_error_code(int rc) {
    return sp_error_code(rc, last_error);
}
API("api_error_name") const char *api_error_name(int code) {
    const char *name = sp_error_name(code);
    return name ? name : "";
}
API("api_error_class") int api_error_class(int code) {
    return sp_error_class(code);
}
API("api_vec4_backend") const char *api_vec4_backend(void) {
    return sp_backend();
}

/* ---- models and tokenizers ------------------------------------------ */

/* Takes ownership of data (malloc'd by the caller), even on failure. */
API("api_model_load") sp_model *api_model_load(uint8_t *data, double size) {
    last_error[0] = '\0';
    return sp_model_load(data, (size_t)size, 1, last_error);
}
/* Before the bytes are fetched: 1 when a file of size bytes can be loaded,
 * else 0 and the reason (its size, the memory's) in api_last_error.  A
 * front-end then mallocs size bytes, writes the file into them (in chunks:
 * no whole copy on the JavaScript side) and hands them to api_model_load,
 * which reads a GGUF's or a checkpoint's weights in place. */
API("api_model_check_size") int api_model_check_size(double size) {
    last_error[0] = '\0';
    return sp_model_check_size(size, last_error) == SP_OK;
}
API("api_memory_limit") double api_memory_limit(void) {
    return sp_memory_limit();
}
API("api_model_free") void api_model_free(sp_model *m) { sp_model_free(m); }
API("api_model_kind") int api_model_kind(const sp_model *m) {
    return (int)sp_model_kind_of(m);
}
API("api_model_vocab") int api_model_vocab(const sp_model *m) {
    return sp_model_vocab(m);
}
API("api_model_seq_len") int api_model_seq_len(const sp_model *m) {
    return sp_model_seq_len(m);
}
API("api_model_tokenizer")
const sp_tokenizer *api_model_tokenizer(const sp_model *m) {
    return sp_model_tokenizer(m);
}

/* A hand-made model from its spec ("logits:2,1,0"; sampler.h). */
API("api_model_handmade") sp_model *api_model_handmade(const char *spec) {
    last_error[0] = '\0';
    return sp_model_handmade(spec, last_error);
}
API("api_model_copy") sp_model *api_model_copy(const sp_model *m) {
    last_error[0] = '\0';
    return sp_model_copy(m, last_error);
}
API("api_model_set_prob")
int api_model_set_prob(sp_model *m, int row, int token, double p) {
    return sp_model_set_prob(m, row, token, p, last_error);
}
/* The logits of a row ([vocab] floats), or NULL. */
API("api_model_row") const float *api_model_row(const sp_model *m, int row) {
    return sp_model_row(m, row);
}
/* sp_counters after n tokens, into out[5] (as api_session_counters). */
API("api_model_cost") int api_model_cost(const sp_model *m, int n, double *out) {
    sp_counters c;
    int rc = sp_model_cost(m, n, &c, last_error);
    out[0] = c.flops;
    out[1] = c.flops_no_cache;
    out[2] = (double)c.tokens;
    out[3] = (double)c.kv_reused;
    out[4] = (double)c.kv_written;
    return rc;
}

/* ---- the bigram trainer ---------------------------------------------- */

API("api_trainer_new") sp_trainer *api_trainer_new(void) {
    last_error[0] = '\0';
    return sp_trainer_new(last_error);
}
API("api_trainer_feed")
int api_trainer_feed(sp_trainer *t, const uint8_t *bytes, double n) {
    return sp_trainer_feed(t, bytes, (size_t)n, last_error);
}
/* The bigram file (malloc'd; the caller frees it), its size in
 * api_last_len(); NULL and a message on failure. */
API("api_trainer_finish") uint8_t *api_trainer_finish(sp_trainer *t, double alpha) {
    uint8_t *out;
    size_t size;
    last_len = 0;
    if (sp_trainer_finish(t, alpha, &out, &size, last_error) != SP_OK)
        return NULL;
    last_len = (int)size;
    return out;
}
API("api_trainer_chars") int api_trainer_chars(const sp_trainer *t) {
    return sp_trainer_chars(t);
}
API("api_trainer_free") void api_trainer_free(sp_trainer *t) {
    sp_trainer_free(t);
}

API("api_tokenizer_load")
sp_tokenizer *api_tokenizer_load(const uint8_t *data, double size, int vocab) {
    last_error[0] = '\0';
    return sp_tokenizer_load(data, (size_t)size, vocab, last_error);
}
API("api_tokenizer_ids") sp_tokenizer *api_tokenizer_ids(int vocab) {
    last_error[0] = '\0';
    return sp_tokenizer_ids(vocab, last_error);
}
API("api_tokenizer_free") void api_tokenizer_free(sp_tokenizer *t) {
    sp_tokenizer_free(t);
}
API("api_tokenizer_vocab") int api_tokenizer_vocab(const sp_tokenizer *t) {
    return sp_tokenizer_vocab(t);
}
API("api_tokenizer_kind") int api_tokenizer_kind(const sp_tokenizer *t) {
    return (int)sp_tokenizer_kind(t);
}
API("api_tokenizer_bos") int api_tokenizer_bos(const sp_tokenizer *t) {
    return sp_tokenizer_bos(t);
}
API("api_tokenizer_eos") int api_tokenizer_eos(const sp_tokenizer *t) {
    return sp_tokenizer_eos(t);
}
/* The bytes of token after prev; their count in api_last_len(). */
API("api_decode")
const char *api_decode(const sp_tokenizer *t, int prev, int token) {
    return sp_decode(t, prev, token, &last_len);
}
/* Encodes into ids[max_ids]; returns the count or -1 (message). */
API("api_encode")
int api_encode(const sp_tokenizer *t, const char *text, int bos, int eos,
               int *ids, int max_ids) {
    last_error[0] = '\0';
    return sp_encode(t, text, bos, eos, ids, max_ids, last_error);
}
/* The max_ids that never falls short for len bytes of text. */
API("api_encode_bound")
int api_encode_bound(const sp_tokenizer *t, double len) {
    return sp_encode_bound(t, (size_t)len);
}
/* Whether token ends a generated text (EOS, a GGUF's <|im_end|>, ...). */
API("api_tokenizer_is_eog")
int api_tokenizer_is_eog(const sp_tokenizer *t, int token) {
    return sp_tokenizer_is_eog(t, token);
}
/* The chat template a GGUF's tokenizer carries (sp_chat_kind). */
API("api_tokenizer_chat") int api_tokenizer_chat(const sp_tokenizer *t) {
    return (int)sp_tokenizer_chat(t);
}
/* The prompt as one user message in the tokenizer's chat template: the
 * text (valid until the next call), or NULL with the message saying why
 * the prompt is to be used as it is. */
API("api_chat_wrap")
const char *api_chat_wrap(const sp_tokenizer *t, const char *prompt) {
    static char *wrapped;
    free(wrapped);
    last_error[0] = '\0';
    wrapped = sp_chat_wrap(t, prompt, last_error);
    return wrapped;
}

/* ---- parameters ----------------------------------------------------- */

API("api_params_new") sp_params *api_params_new(void) {
    sp_params *p = malloc(sizeof *p);
    if (p) sp_params_default(p);
    return p;
}
API("api_params_free") void api_params_free(sp_params *p) { free(p); }
API("api_params_reset") void api_params_reset(sp_params *p) {
    sp_params_default(p);
}

/* The registry (sampler/params.c): JavaScript reads every parameter's
 * declaration from here, and sets a parameter by its index. */
API("api_param_count") int api_param_count(void) { return sp_param_count(); }
API("api_param_find") int api_param_find(const char *name) {
    return sp_param_find(name);
}
/* Its texts: 0 name, 1 flag, 2 code, 3 label, 4 doc, 5 stage name. */
API("api_param_text") const char *api_param_text(int i, int which) {
    const sp_param_info *in = sp_param_at(i);
    if (!in) return "";
    switch (which) {
    case 0: return in->name;
    case 1: return in->flag;
    case 2: return in->code;
    case 3: return in->label;
    case 4: return in->doc;
    case 5: return sp_stage_name(in->stage);
    default: return "";
    }
}
/* Its numbers into out[10]: type, flags, min, max, neutral, ui_min,
 * ui_max, ui_step, stage, ui_on. */
API("api_param_numbers") void api_param_numbers(int i, double *out) {
    const sp_param_info *in = sp_param_at(i);
    if (!in) return;
    double v[10] = {in->type,   in->flags,  in->min,     in->max,   in->neutral,
                    in->ui_min, in->ui_max, in->ui_step, in->stage, in->ui_on};
    for (int k = 0; k < 10; k++) out[k] = v[k];
}
/* The chain's stages (those an order holds; "" past them, the terminal
 * ones included: they are asked for as stages -1, -2, ...). */
API("api_stage_name") const char *api_stage_name(int stage) {
    return stage >= 0 && stage < SP_STAGE_COUNT ? sp_stage_name(stage) : "";
}
API("api_stage_cut") int api_stage_cut(int stage) { return sp_stage_cut(stage); }
/* The terminal stages by name: stage -1 "mirostat", -2 "adaptive_p"; ""
 * past them. */
API("api_terminal_name") const char *api_terminal_name(int i) {
    return i >= 1 && i <= SP_STAGE_N_TERMINAL
               ? sp_stage_name(SP_STAGE_COUNT + i - 1) : "";
}
/* Whether p's settings turn a stage on: the engine's own test
 * (sp_stage_active), so the page's switches say what the chain does.
 * Stage -1 is mirostat, -2 adaptive-p, after the chain (as
 * sp_sampler_warp reads them). */
API("api_stage_active") int api_stage_active(const sp_params *p, int stage) {
    return sp_stage_active(p, stage < 0 ? SP_STAGE_COUNT - 1 - stage : stage);
}

/* Stores parameter i (the engine checks its range in api_params_check). */
API("api_params_set") int api_params_set(sp_params *p, int i, double v) {
    return sp_params_set(p, i, v, last_error);
}

/* The chain's order: stage names, or default, hf, llama.cpp. */
API("api_params_set_order")
int api_params_set_order(sp_params *p, const char *list) {
    return sp_params_set_order(p, list, last_error);
}
API("api_params_order") const char *api_params_order(const sp_params *p) {
    static char text[512];
    sp_params_order_text(p, text, sizeof text);
    return text;
}

/* Adds a DRY sequence breaker of n token ids. */
API("api_params_add_dry_breaker")
int api_params_add_dry_breaker(sp_params *p, const int *tokens, int n) {
    return sp_params_add_dry_breaker(p, tokens, n, last_error);
}
/* A breaker given as text, made tokens by the tokenizer. */
API("api_params_add_dry_breaker_text")
int api_params_add_dry_breaker_text(sp_params *p, const sp_tokenizer *t,
                                    const char *text) {
    return sp_params_add_dry_breaker_text(p, t, text, last_error);
}

/* Appends a logit bias; the engine checks the rest (api_params_check). */
API("api_params_add_bias")
int api_params_add_bias(sp_params *p, double token, double value) {
    if (!(token >= 0 && token <= 2147483647.0 && token == (int)token))
        return sp_fail(last_error, SP_ERR_ARG, "logit-bias token %g is not a "
                       "token id", token);
    return sp_params_add_bias(p, (int)token, (float)value, last_error);
}

API("api_params_check") int api_params_check(const sp_params *p, int vocab) {
    return sp_params_check(p, vocab, last_error);
}

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
API("api_session_rewind") int api_session_rewind(sp_session *s, int n) {
    return sp_session_rewind(s, n, last_error);
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
    X(adaptive_aim, st->adaptive_aim)

#define STEP_NAME(name, value) #name ","
#define STEP_VALUE(name, value) out[i++] = (double)(value);

API("api_step_fields") const char *api_step_fields(void) {
    return STEP_FIELDS(STEP_NAME);
}
API("api_step_read") void api_step_read(const sp_step *st, double *out) {
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

/* ---- PRNG (tests) --------------------------------------------------- */

API("api_rng_new") sp_rng *api_rng_new(double seed_lo, double seed_hi) {
    sp_rng *r = malloc(sizeof *r);
    if (r)
        sp_rng_seed(r, (uint64_t)(uint32_t)seed_hi << 32 | (uint32_t)seed_lo);
    return r;
}
API("api_rng_u32") double api_rng_u32(sp_rng *r) { return sp_rng_u32(r); }

/* ---- heap usage (tests: the soak test watches for leaks) ------------- */

#include <malloc.h>

/* Bytes the engine's malloc has handed out and not taken back (dlmalloc's
 * mallinfo().uordblks); the WASM memory itself never shrinks. */
API("api_heap_used") double api_heap_used(void) {
    struct mallinfo mi = mallinfo();
    return (double)mi.uordblks;
}
/* Bytes dlmalloc holds from the system (sbrk'd arena), in use or free. */
API("api_heap_arena") double api_heap_arena(void) {
    struct mallinfo mi = mallinfo();
    return (double)mi.arena;
}
