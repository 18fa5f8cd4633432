/*
 * bench_model.c — the benchmark's model workloads (see bench.h): the forward
 * pass with and without the KV cache, a session's generation, GGUF models'
 * forward passes and the quantized kernels' bandwidth.  Inputs come from
 * the engine's own PRNG, as in bench_core.c, and the checksums must agree
 * between builds.
 */
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "bench_shared.h"
#include "internal.h"
#include "kernels/quant.h"
#include "model/gguf.h"

/* ==================================================== the forward pass */

static sp_model *g_model;
static sp_state *g_state;
static sp_counters g_recompute; /* summed over the fresh states */
static float *g_last;            /* logits of the last recomputed step */

uint8_t *bench_model_bytes(int vocab, size_t *size) {
    const int dim = BENCH_DIM, hidden = BENCH_HIDDEN, L = BENCH_LAYERS;
    const int kv = dim / BENCH_HEADS * BENCH_KV_HEADS, V = vocab;
    const int hs = dim / BENCH_HEADS, seq = BENCH_SEQ_LEN;
    /* tensors in file order: count and uniform range (0 = all ones) */
    struct {
        size_t n;
        float a;
    } t[] = {
        {(size_t)V * dim, 1.0f},             /* token embedding */
        {(size_t)L * dim, 0.0f},             /* rms_att */
        {(size_t)L * dim * dim, 0.0f},       /* wq */
        {(size_t)L * kv * dim, 0.0f},        /* wk */
        {(size_t)L * kv * dim, 0.0f},        /* wv */
        {(size_t)L * dim * dim, 0.0f},       /* wo */
        {(size_t)L * dim, 0.0f},             /* rms_ffn */
        {(size_t)L * hidden * dim, 0.0f},    /* w1 */
        {(size_t)L * dim * hidden, 0.0f},    /* w2 */
        {(size_t)L * hidden * dim, 0.0f},    /* w3 */
        {(size_t)dim, 0.0f},                 /* rms_final */
        {(size_t)seq * hs, -1.0f},           /* freq_cis (unused): zeros */
    };
    /* weights uniform in +-1/sqrt(fan_in): activations keep their scale */
    float a_dim = 1.0f / sqrtf((float)dim), a_hidden = 1.0f / sqrtf((float)hidden);
    t[2].a = t[3].a = t[4].a = t[5].a = t[7].a = t[9].a = a_dim;
    t[8].a = a_hidden;
    size_t n = 0;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) n += t[i].n;
    *size = 28 + 4 * n;
    uint8_t *data = malloc(*size);
    if (!data) return NULL;
    int32_t header[7] = {dim, hidden, L, BENCH_HEADS, BENCH_KV_HEADS, V, seq};
    memcpy(data, header, 28);
    sp_rng r;
    sp_rng_seed(&r, 288768);
    float *w = malloc(4 * n);
    if (!w) {
        free(data);
        return NULL;
    }
    size_t at = 0;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        for (size_t j = 0; j < t[i].n; j++)
            w[at++] = t[i].a > 0.0f ? t[i].a * (2.0f * rand01(&r) - 1.0f)
                                    : t[i].a == 0.0f ? 1.0f : 0.0f;
    memcpy(data + 28, w, 4 * n);
    free(w);
    return data;
}

int bench_model_load(uint8_t *data, double size) {
    char err[SP_ERR_LEN];
    sp_state_free(g_state);
    sp_model_free(g_model);
    g_model = sp_model_load(data, (size_t)size, 1, err);
    if (!g_model) return 1;
    g_state = sp_state_new(g_model);
    return g_state ? 0 : 1;
}

static int token_at(int pos) { return (pos * 37 + 11) % BENCH_VOCAB; }

static sp_tokenizer *g_tokenizer;
static sp_session *g_session;

double bench_generate_run(int n, int raw) {
    char err[SP_ERR_LEN];
    if (!g_tokenizer) { /* one character per token: the text is not read */
        static char pieces[BENCH_VOCAB][4];
        const char *ptr[BENCH_VOCAB];
        for (int i = 0; i < BENCH_VOCAB; i++) {
            pieces[i][0] = (char)('!' + i % 90);
            pieces[i][1] = (char)('!' + i / 90);
            ptr[i] = pieces[i];
        }
        g_tokenizer = sp_tokenizer_new_chars(ptr, BENCH_VOCAB, 0, err);
        if (!g_tokenizer) return -1.0;
    }
    if (!g_session) g_session = sp_session_new(g_model, g_tokenizer, err);
    if (!g_session) return -1.0;
    sp_sampler_set_raw(sp_session_sampler(g_session), raw);
    sp_params p;
    bench_base_params(&p);
    /* the end-of-text token (0) banned: every run is n tokens long */
    if (sp_params_add_bias(&p, 0, -INFINITY, err) != SP_OK ||
        sp_session_start(g_session, "", 42, err) != SP_OK)
        return -1.0;
    for (int i = 0; i < n; i++)
        if (sp_session_step(g_session, &p, -1, err) != SP_OK) return -1.0;
    uint64_t h = HASH_SEED;
    const int *tokens = sp_session_tokens(g_session);
    for (int i = 0; i < sp_session_n_tokens(g_session); i++)
        h = hash_u32(h, (uint32_t)tokens[i]);
    return hash_out(h);
}

static uint64_t hash_logits(uint64_t h, const float *logits) {
    for (int i = 0; i < BENCH_VOCAB; i++) h = hash_f32(h, logits[i]);
    return h;
}

double bench_forward_run(int n) {
    float *logits = NULL;
    sp_state_reset_counters(g_state);
    for (int pos = 0; pos < n; pos++) {
        logits = sp_forward(g_model, g_state, token_at(pos), pos);
        if (!logits) return -1.0;
    }
    return logits ? hash_out(hash_logits(HASH_SEED, logits)) : 0.0;
}

static sp_model *g_gguf[BENCH_GGUF_SLOTS];
static sp_state *g_gguf_state[BENCH_GGUF_SLOTS];

int bench_gguf_load(int slot, uint8_t *data, double size) {
    char err[SP_ERR_LEN];
    if (slot < 0 || slot >= BENCH_GGUF_SLOTS) {
        free(data);
        return 1;
    }
    sp_state_free(g_gguf_state[slot]);
    sp_model_free(g_gguf[slot]);
    g_gguf_state[slot] = NULL;
    g_gguf[slot] = sp_model_load(data, (size_t)size, 1, err);
    if (!g_gguf[slot]) return 1;
    g_gguf_state[slot] = sp_state_new(g_gguf[slot]);
    return g_gguf_state[slot] ? 0 : 1;
}

double bench_gguf_forward(int slot, int n) {
    if (slot < 0 || slot >= BENCH_GGUF_SLOTS || !g_gguf_state[slot]) return -1.0;
    float *logits = NULL;
    for (int pos = 0; pos < n; pos++) {
        logits = sp_forward(g_gguf[slot], g_gguf_state[slot], token_at(pos), pos);
        if (!logits) return -1.0;
    }
    return logits ? hash_out(hash_logits(HASH_SEED, logits)) : 0.0;
}

double bench_recompute(int t0, int t1) {
    float *last = NULL;
    for (int t = t0; t < t1; t++) {
        sp_state *st = sp_state_new(g_model);
        if (!st) return -1.0;
        float *logits = NULL;
        for (int pos = 0; pos <= t; pos++) {
            logits = sp_forward(g_model, st, token_at(pos), pos);
            if (!logits) {
                sp_state_free(st);
                return -1.0;
            }
        }
        sp_counters c;
        sp_state_counters(st, &c);
        g_recompute.flops += c.flops;
        g_recompute.flops_no_cache += c.flops_no_cache;
        g_recompute.tokens += c.tokens;
        g_recompute.kv_reused += c.kv_reused;
        g_recompute.kv_written += c.kv_written;
        if (t == t1 - 1) { /* the last step's logits, for the checksum */
            if (!g_last) g_last = malloc(sizeof(float) * BENCH_VOCAB);
            if (!g_last) return -1.0;
            memcpy(g_last, logits, sizeof(float) * BENCH_VOCAB);
            last = g_last;
        }
        sp_state_free(st);
    }
    /* the same hash as bench_forward_run(t1): recomputing changes nothing */
    return last ? hash_out(hash_logits(HASH_SEED, last)) : 0.0;
}

void bench_counters(double *out) {
    sp_counters c;
    sp_state_counters(g_state, &c);
    const sp_counters *cs[2] = {&c, &g_recompute};
    for (int i = 0; i < 2; i++) {
        out[5 * i + 0] = cs[i]->flops;
        out[5 * i + 1] = cs[i]->flops_no_cache;
        out[5 * i + 2] = (double)cs[i]->tokens;
        out[5 * i + 3] = (double)cs[i]->kv_reused;
        out[5 * i + 4] = (double)cs[i]->kv_written;
    }
}

void bench_counters_reset_recompute(void) {
    memset(&g_recompute, 0, sizeof g_recompute);
}

/* =================================== the quantized kernels' bandwidth */

static sp_qmat g_qmat;
static uint8_t *g_qdata;
static float *g_qx, *g_qy;
static void *g_qscratch;

/* a random half in +-(lo .. 2 lo): a block scale */
static uint16_t rand_half(sp_rng *r, float lo) {
    float x = lo * (1.0f + rand01(r));
    return sp_f32_to_f16(sp_rng_u32(r) & 1 ? -x : x);
}

double bench_qmat_init(int type, int cols, double mbytes) {
    size_t row_bytes = sp_qtype_row_bytes((uint32_t)type, cols);
    if (type == SP_GGML_F32) row_bytes = sizeof(float) * (size_t)cols;
    if (!row_bytes || cols < 1 || mbytes <= 0.0) return -1.0;
    int rows = (int)(mbytes * 1e6 / (double)row_bytes);
    if (rows < 2) rows = 2;
    free(g_qdata);
    free(g_qx);
    free(g_qy);
    free(g_qscratch);
    size_t bytes = row_bytes * (size_t)rows;
    g_qdata = malloc(bytes);
    g_qx = malloc(sizeof(float) * (size_t)cols);
    g_qy = malloc(sizeof(float) * (size_t)rows);
    g_qscratch = aligned_alloc(16, (sp_qmatmul_scratch(cols, 1) + 15) / 16 * 16);
    if (!g_qdata || !g_qx || !g_qy || !g_qscratch) return -1.0;
    sp_rng r;
    sp_rng_seed(&r, 20261128u + (uint32_t)type);
    for (size_t i = 0; i < bytes; i += 4) {
        uint32_t u = sp_rng_u32(&r);
        memcpy(g_qdata + i, &u, bytes - i < 4 ? bytes - i : 4);
    }
    /* the block scales: finite halves of a sensible size; F32, F16 and
     * BF16 weights: uniform in +-1 */
    for (int row = 0; row < rows; row++) {
        uint8_t *p = g_qdata + (size_t)row * row_bytes;
        for (int j = 0; j < cols; j++) {
            float w = 2.0f * rand01(&r) - 1.0f;
            uint16_t h;
            switch (type) {
            case SP_GGML_F32: memcpy(p + 4 * (size_t)j, &w, 4); break;
            case SP_GGML_F16: h = sp_f32_to_f16(w); memcpy(p + 2 * (size_t)j, &h, 2); break;
            case SP_GGML_BF16: h = sp_f32_to_bf16(w); memcpy(p + 2 * (size_t)j, &h, 2); break;
            default: j = cols; break;
            }
        }
        for (int b = 0; b < cols / 32; b++) {
            uint16_t d = rand_half(&r, 1e-3f), dmin = rand_half(&r, 1e-3f);
            switch (type) {
            case SP_GGML_Q8_0: memcpy(p + 34 * (size_t)b, &d, 2); break;
            case SP_GGML_Q4_0: memcpy(p + 18 * (size_t)b, &d, 2); break;
            case SP_GGML_Q4_K:
                if (b % 8 == 0) {
                    memcpy(p + 144 * (size_t)(b / 8), &d, 2);
                    memcpy(p + 144 * (size_t)(b / 8) + 2, &dmin, 2);
                }
                break;
            case SP_GGML_Q6_K:
                if (b % 8 == 0) memcpy(p + 210 * (size_t)(b / 8) + 208, &d, 2);
                break;
            default: break;
            }
        }
    }
    for (int j = 0; j < cols; j++) g_qx[j] = 2.0f * rand01(&r) - 1.0f;
    g_qmat = (sp_qmat){g_qdata, (uint32_t)type, rows, cols, row_bytes};
    return (double)bytes;
}

double bench_qmat_run(int n) {
    if (!g_qdata) return -1.0;
    for (int i = 0; i < n; i++) sp_qmatmul(g_qy, g_qx, &g_qmat, 1, g_qscratch);
    uint64_t h = HASH_SEED;
    for (int i = 0; i < g_qmat.rows; i++) h = hash_f32(h, g_qy[i]);
    return hash_out(h);
}
