/*
 * bench_spec.c — the batched forward pass and speculative decoding (see
 * bench.h): the cost of one pass over n positions against n, the prompt's
 * prefill batched or token by token, and whole generations of the shipped
 * transformer, plain or speculative with one of its drafts.  Like
 * bench_core.c, every function runs a whole batch of work and returns a
 * checksum of what it computed.
 */
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "bench_shared.h"
#include "internal.h"

/* ---- the batched pass on any model ------------------------------------ */

/* slots: 0 the bench model, 1 the shipped transformer, 2 the stories15M-
 * shaped model with its 32 000-token vocabulary, 3 on the transformer's
 * drafts (bench/spec.mjs loads them in models/manifest.json's order) */
#define B_SLOTS 8
#define B_FIRST_DRAFT 3
static sp_model *b_models[B_SLOTS];
static sp_state *b_states[B_SLOTS];
static sp_tokenizer *b_tok;

int bench_spec_model_load(int slot, uint8_t *data, double size) {
    char err[SP_ERR_LEN];
    if (slot < 0 || slot >= B_SLOTS) return 1;
    sp_state_free(b_states[slot]);
    sp_model_free(b_models[slot]);
    b_states[slot] = NULL;
    b_models[slot] = sp_model_load(data, (size_t)size, 1, err);
    if (!b_models[slot]) return 1;
    b_states[slot] = sp_state_new(b_models[slot]);
    return b_states[slot] ? 0 : 1;
}

int bench_spec_tokenizer_load(uint8_t *data, double size) {
    char err[SP_ERR_LEN];
    sp_tokenizer_free(b_tok);
    b_tok = b_models[1] ? sp_tokenizer_load(data, (size_t)size,
                                            sp_model_vocab(b_models[1]), err)
                        : NULL;
    free(data);
    return b_tok ? 0 : 1;
}

double bench_batch_run(int slot, int batch, int n_positions) {
    if (slot < 0 || slot >= B_SLOTS) return -1;
    const sp_model *m = b_models[slot];
    sp_state *st = b_states[slot];
    if (!m || batch < 1 || batch > SP_BATCH_MAX) return -1;
    int vocab = sp_model_vocab(m), seq = sp_model_seq_len(m);
    if (n_positions > seq) n_positions = seq;
    int tokens[SP_BATCH_MAX];
    const float *last = NULL;
    int pos = 0;
    for (; pos + batch <= n_positions; pos += batch) {
        for (int b = 0; b < batch; b++) tokens[b] = (pos + b) * 7 % vocab;
        last = sp_forward_batch(m, st, tokens, batch, pos, 0);
        if (!last) return -1;
    }
    return last ? hash_floats(last + (size_t)(batch - 1) * (size_t)vocab,
                              vocab)
                : -1;
}

double bench_prefill(int slot, int n, int batched) {
    const sp_model *m = b_models[slot];
    sp_state *st = b_states[slot];
    if (!m) return -1;
    int vocab = sp_model_vocab(m);
    if (n > sp_model_seq_len(m)) n = sp_model_seq_len(m);
    int tokens[SP_BATCH_MAX];
    const float *last = NULL;
    if (batched) {
        for (int at = 0; at < n; at += SP_BATCH_MAX) {
            int chunk = n - at < SP_BATCH_MAX ? n - at : SP_BATCH_MAX;
            for (int b = 0; b < chunk; b++) tokens[b] = (at + b) * 7 % vocab;
            if (!sp_forward_batch(m, st, tokens, chunk, at, 1)) return -1;
            last = sp_state_logits(m, st);
        }
    } else {
        for (int p = 0; p < n; p++)
            if (!(last = sp_forward(m, st, p * 7 % vocab, p))) return -1;
    }
    return last ? hash_floats(last, vocab) : -1;
}

/* ---- generations -------------------------------------------------------- */

double bench_generate(int draft, int k, double temperature, double seed,
                      int max_tokens, double *out) {
    char err[SP_ERR_LEN];
    const sp_model *target = b_models[1];
    if (draft < 0 || draft > B_SLOTS - B_FIRST_DRAFT) return -1;
    if (!target || !b_tok || (draft && !b_models[B_FIRST_DRAFT - 1 + draft]))
        return -1;
    sp_params p;
    sp_params_default(&p);
    p.temperature = (float)temperature;
    sp_session *s = sp_session_new(target, b_tok, err);
    sp_speculator *sp = NULL;
    double result = -1;
    if (!s) return -1;
    sp_sampler_set_raw(sp_session_sampler(s), 0);
    const char *prompt = "And God said";
    int rc;
    if (draft) {
        sp = sp_spec_new(s, b_models[B_FIRST_DRAFT - 1 + draft], b_tok, k, err);
        if (!sp) goto done;
        rc = sp_spec_start(sp, prompt, (uint64_t)seed, err);
        while (rc == SP_OK && sp_session_n_generated(s) < max_tokens &&
               !sp_session_finished(s))
            rc = sp_spec_round(sp, &p, err);
    } else {
        rc = sp_session_start(s, prompt, (uint64_t)seed, err);
        while (rc == SP_OK && sp_session_n_generated(s) < max_tokens &&
               !sp_session_finished(s))
            rc = sp_session_step(s, &p, -1, err);
    }
    if (rc != SP_OK && rc != SP_ERR_STATE) goto done;
    int n = sp_session_n_generated(s);
    if (n > max_tokens) n = max_tokens; /* a last round may overshoot */
    const int *t = sp_session_tokens(s) + sp_session_n_prompt(s);
    uint64_t h = HASH_SEED;
    for (int i = 0; i < n; i++) h = hash_u32(h, (uint32_t)t[i]);
    result = hash_out(h);
    sp_counters c;
    sp_session_counters(s, &c);
    long long drafted = 0, accepted = 0, rounds = 0, positions = 0;
    long long passes = (long long)c.passes, fed = (long long)c.tokens;
    if (sp) sp_spec_totals(sp, &drafted, &accepted, &rounds, &positions);
    out[0] = n;
    out[1] = (double)drafted;
    out[2] = (double)accepted;
    out[3] = (double)rounds;
    out[4] = (double)passes;
    out[5] = (double)fed;
    out[6] = sp_session_n_prompt(s);
done:
    sp_spec_free(sp);
    sp_session_free(s);
    return result;
}
