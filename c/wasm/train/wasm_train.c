/*
 * wasm_train.c — the trainer's exports (sampler_train.h), in the training
 * engine only (build/engine-train-*.wasm: the whole engine, these and the
 * page engine's exports, the files of c/wasm).  web/src/engine/trainer.js wraps
 * them; nothing else should call them.
 *
 * As the other exports: plain numbers and pointers; a call that can fail
 * returns an error class (or NULL) with its message in api_last_error()
 * and its code in api_error_code().  A 64-bit seed comes as two 32-bit
 * halves (JavaScript numbers hold 53 bits).
 */
#include <stdlib.h>
#include <string.h>

#include "../wasm_api.h"

/* ---- the settings' table and the presets (the JS wrapper reads them) --- */

API("api_train_setting_count") int api_train_setting_count(void) {
    return sp_train_setting_count();
}
API("api_train_setting_name") const char *api_train_setting_name(int i) {
    const sp_train_setting *s = sp_train_setting_at(i);
    return s ? s->name : "";
}
API("api_train_setting_doc") const char *api_train_setting_doc(int i) {
    const sp_train_setting *s = sp_train_setting_at(i);
    return s ? s->doc : "";
}
/* out[4]: is_int, default, min, max; 0, or -1 out of range */
API("api_train_setting_info") int api_train_setting_info(int i, double *out) {
    const sp_train_setting *s = sp_train_setting_at(i);
    if (!s) return -1;
    out[0] = s->is_int;
    out[1] = s->def;
    out[2] = s->min;
    out[3] = s->max;
    return 0;
}
API("api_train_preset_name") const char *api_train_preset_name(int i) {
    const char *name = sp_train_preset_name(i);
    return name ? name : "";
}
API("api_train_preset_doc") const char *api_train_preset_doc(int i) {
    const char *doc = sp_train_preset_doc(i);
    return doc ? doc : "";
}

/* ---- settings ------------------------------------------------------- */

/* Every setting at its default; free with api_train_config_free. */
API("api_train_config_new") sp_train_config *api_train_config_new(void) {
    sp_train_config *c = malloc(sizeof *c);
    if (c) sp_train_config_default(c);
    return c;
}
API("api_train_config_free") void api_train_config_free(sp_train_config *c) {
    free(c);
}
API("api_train_config_set")
int api_train_config_set(sp_train_config *c, const char *name, double v) {
    last_error[0] = '\0';
    return sp_train_config_set(c, name, v, last_error);
}
API("api_train_config_get")
double api_train_config_get(const sp_train_config *c, int i) {
    return sp_train_config_get(c, i);
}
API("api_train_config_preset")
int api_train_config_preset(sp_train_config *c, const char *name) {
    last_error[0] = '\0';
    return sp_train_preset(c, name, last_error);
}

/* ---- the plan --------------------------------------------------------- */

#define PLAN_FIELDS 9
static void put_plan(const sp_train_plan *p, double *out) {
    double v[PLAN_FIELDS] = {p->vocab, p->documents, p->heldout_documents,
                             p->train_tokens, p->heldout_tokens, p->params,
                             p->bytes, p->tokens_per_step, p->flops_per_step};
    memcpy(out, v, sizeof v);
}

/* What text (len bytes) and the settings make, before any memory is
 * taken: out[9] = vocab, documents, held-out documents, training tokens,
 * held-out tokens, weights, bytes, tokens per step, flops per step.
 * tokenizer NULL: the character vocabulary. */
API("api_train_plan")
int api_train_plan(const uint8_t *text, double len, const uint8_t *tok,
                   double tok_len, const sp_train_config *c, double *out) {
    sp_train_plan p;
    last_error[0] = '\0';
    int rc = sp_train_plan_text(text, (size_t)len, tok, (size_t)tok_len, c,
                                &p, last_error);
    if (rc == SP_OK) put_plan(&p, out);
    return rc;
}

/* ---- the trainer ------------------------------------------------------ */

API("api_train_new")
sp_train *api_train_new(const uint8_t *text, double len, const uint8_t *tok,
                        double tok_len, const sp_train_config *c,
                        double seed_lo, double seed_hi) {
    last_error[0] = '\0';
    uint64_t seed = (uint64_t)(uint32_t)seed_hi << 32 | (uint32_t)seed_lo;
    return sp_train_new(text, (size_t)len, tok, (size_t)tok_len, c, seed,
                        last_error);
}
API("api_train_free") void api_train_free(sp_train *t) { sp_train_free(t); }
API("api_train_get_plan") void api_train_get_plan(const sp_train *t,
                                                  double *out) {
    put_plan(sp_train_get_plan(t), out);
}
/* A setting of the trainer's (by index, as api_train_config_get). */
API("api_train_get_setting") double api_train_get_setting(const sp_train *t,
                                                          int i) {
    return sp_train_config_get(sp_train_get_config(t), i);
}

/* Up to max_steps steps, or fewer after max_windows windows (0: no
 * limit): SP_OK (the steps done in api_last_len), or the error that
 * stopped training. */
API("api_train_run")
int api_train_run(sp_train *t, int max_steps, int max_windows) {
    int done = 0;
    last_error[0] = '\0';
    int rc = sp_train_run(t, max_steps, max_windows, &done, last_error);
    last_len = done;
    return rc;
}
API("api_train_steps_done") int api_train_steps_done(const sp_train *t) {
    return sp_train_steps_done(t);
}
API("api_train_windows_done") int api_train_windows_done(const sp_train *t) {
    return sp_train_windows_done(t);
}
/* Each step's loss and gradient norm: [steps done] floats. */
API("api_train_losses") const float *api_train_losses(const sp_train *t) {
    return sp_train_losses(t);
}
API("api_train_grad_norms") const float *api_train_grad_norms(const sp_train *t) {
    return sp_train_grad_norms(t);
}
API("api_train_lr_at") double api_train_lr_at(const sp_train *t, int step) {
    return sp_train_lr_at(t, step);
}

/* The held-out loss of at most max_windows windows (0: all): out[0] the
 * model's, out[1] the bigram's on the same predictions. */
API("api_train_eval")
int api_train_eval(sp_train *t, int max_windows, double *out) {
    last_error[0] = '\0';
    return sp_train_eval(t, max_windows, &out[0], &out[1], last_error);
}

/* The current weights as a file: kind 0 the llama2.c checkpoint, 1 its
 * tokenizer.bin, 2 a GGUF file.  malloc'd (the caller frees it), its size
 * in api_last_len(); NULL and a message on failure. */
API("api_train_export") uint8_t *api_train_export(const sp_train *t, int kind) {
    size_t size = 0;
    uint8_t *out = NULL;
    last_error[0] = '\0';
    last_len = 0;
    if (kind == 0) out = sp_train_checkpoint(t, &size, last_error);
    else if (kind == 1) out = sp_train_tokenizer_file(t, &size, last_error);
    else if (kind == 2) out = sp_train_gguf(t, &size, last_error);
    else sp_fail(last_error, SP_ERR_ARG, "train: no export of kind %d", kind);
    if (out) last_len = (int)size;
    return out;
}

/* The current weights as a model and its tokenizer (the engine's loaders):
 * handles like api_model_load's and api_tokenizer_load's. */
API("api_train_model") sp_model *api_train_model(const sp_train *t) {
    last_error[0] = '\0';
    return sp_train_model(t, last_error);
}
API("api_train_tokenizer") sp_tokenizer *api_train_tokenizer(const sp_train *t) {
    last_error[0] = '\0';
    return sp_train_tokenizer(t, last_error);
}
