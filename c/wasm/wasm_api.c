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
 *
 * The exports by job: this file (errors, models, tokenizers, the bigram
 * trainer, the PRNG, heap usage), wasm_params.c (parameters and stages),
 * wasm_session.c (a standalone sampler, sessions, constraints, metrics),
 * wasm_step.c (the step record), wasm_decode.c (beam search, speculative
 * sampling).
 */
#include <stdlib.h>
#include <string.h>

#include "wasm_api.h"

char last_error[SP_ERR_LEN];
int last_len;

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
