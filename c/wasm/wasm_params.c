/*
 * wasm_params.c — parameters: their settings, the registry of stages and
 * parameters, the chain's order.
 * (the WASM exports: see wasm_api.c)
 */
#include <stdlib.h>
#include <string.h>

#include "wasm_api.h"

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
/* Why the engine refuses a value of parameter i alone (SP_PARAM_*; 0:
 * taken), its message in api_last_error: what a link's value is asked. */
API("api_param_refusal") int api_param_refusal(int i, double v) {
    return sp_param_refusal(i, v, last_error);
}
/* Its range as people read it: "(0, 1]", "[0, ∞)". */
API("api_param_range") const char *api_param_range(int i) {
    static char text[96];
    sp_param_range_text(i, text, sizeof text);
    return text;
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

/* Words, not ids: a bad word or a sequence bias of n token ids, or given
 * as text, made tokens by the tokenizer (sampler/words.c). */
API("api_params_add_bad_word")
int api_params_add_bad_word(sp_params *p, const int *tokens, int n) {
    return sp_params_add_bad_word(p, tokens, n, last_error);
}
API("api_params_add_bad_word_text")
int api_params_add_bad_word_text(sp_params *p, const sp_tokenizer *t,
                                 const char *text) {
    return sp_params_add_bad_word_text(p, t, text, last_error);
}
API("api_params_add_sequence_bias")
int api_params_add_sequence_bias(sp_params *p, const int *tokens, int n,
                                 double value) {
    return sp_params_add_sequence_bias(p, tokens, n, (float)value,
                                       last_error);
}
API("api_params_add_sequence_bias_text")
int api_params_add_sequence_bias_text(sp_params *p, const sp_tokenizer *t,
                                      const char *text, double value) {
    return sp_params_add_sequence_bias_text(p, t, text, (float)value,
                                            last_error);
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
