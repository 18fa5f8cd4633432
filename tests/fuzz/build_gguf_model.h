/*
 * build_gguf_model.h — whole llama and qwen2 models in GGUF for the tests,
 * with deterministic weights, and llama2.c checkpoints converted to GGUF.
 * Part of build_gguf.h, which includes it: include build_gguf.h.
 */
#ifndef SP_BUILD_GGUF_MODEL_H
#define SP_BUILD_GGUF_MODEL_H
#ifndef SP_BUILD_GGUF_H
#error "include build_gguf.h, not build_gguf_model.h"
#endif

/* ---- models ------------------------------------------------------------- */

/* A llama or qwen2 model with deterministic weights (bb_weight), its
 * matrices of type `type` (token_embd of emb_type), as llama.cpp names and
 * shapes them; a vocabulary of pieces "t0", "t1", ... so that the file is
 * a whole one. */
typedef struct {
    const char *arch; /* "llama" or "qwen2" */
    int dim, hidden, layers, heads, kv_heads, vocab, ctx;
    float eps;
    double rope_base;
    uint32_t type, emb_type;
    int tied;          /* no output.weight: the classifier is token_embd */
    int biases;        /* attn_q/k/v.bias (qwen2 always has them) */
    int rope_factors;  /* rope_freqs.weight (Llama 3's scaled RoPE) */
    uint32_t seed;
    float scale;       /* the weights are bb_weight(...) * scale */
    float linear_rope; /* > 0: rope.scaling.type linear with this factor */
} gg_model;

static inline gg_model gg_tiny_model(const char *arch, uint32_t type) {
    gg_model m = {arch, 256, 512, 2, 4, 2, 300, 64, 1e-5f, 10000.0, type,
                  type, 0, 0, 0, 7, 0.25f, 0};
    return m;
}

/* rows x cols weights from stream `seed` (offset by `salt`), as `type` */
static inline void gg_random_tensor(gg_file *f, const char *name, uint32_t type,
                                    int rows, int cols, uint32_t seed,
                                    uint32_t salt, float scale, float offset) {
    float *w = (float *)malloc(sizeof(float) * (size_t)rows * (size_t)cols);
    if (!w) abort();
    for (size_t i = 0; i < (size_t)rows * (size_t)cols; i++)
        w[i] = offset + scale * bb_weight(seed + salt * 7919u, i);
    size_t rb = gg_type_bytes(type, (uint64_t)cols);
    uint8_t *q = (uint8_t *)malloc(rb * (size_t)rows + 1);
    if (!q) abort();
    for (int r = 0; r < rows; r++)
        gg_quantize_row(type, w + (size_t)r * cols, cols, q + rb * (size_t)r);
    uint64_t ne[2] = {(uint64_t)cols, (uint64_t)rows};
    gg_tensor(f, name, type, ne, rows > 1 ? 2 : 1, q, rb * (size_t)rows);
    free(q);
    free(w);
}

static inline void gg_key_arch(gg_file *f, const char *arch, const char *name,
                               uint32_t v) {
    char key[96];
    snprintf(key, sizeof key, "%s.%s", arch, name);
    gg_u32(f, key, v);
}

/* the metadata of m, without tensors */
static inline void gg_model_metadata(gg_file *f, const gg_model *m) {
    char key[96];
    gg_str(f, "general.architecture", m->arch);
    gg_str(f, "general.name", "test model");
    gg_key_arch(f, m->arch, "context_length", (uint32_t)m->ctx);
    gg_key_arch(f, m->arch, "embedding_length", (uint32_t)m->dim);
    gg_key_arch(f, m->arch, "block_count", (uint32_t)m->layers);
    gg_key_arch(f, m->arch, "feed_forward_length", (uint32_t)m->hidden);
    gg_key_arch(f, m->arch, "attention.head_count", (uint32_t)m->heads);
    gg_key_arch(f, m->arch, "attention.head_count_kv", (uint32_t)m->kv_heads);
    gg_key_arch(f, m->arch, "rope.dimension_count", (uint32_t)(m->dim / m->heads));
    snprintf(key, sizeof key, "%s.attention.layer_norm_rms_epsilon", m->arch);
    gg_f32(f, key, m->eps);
    snprintf(key, sizeof key, "%s.rope.freq_base", m->arch);
    gg_f32(f, key, (float)m->rope_base);
    if (m->linear_rope > 0) {
        snprintf(key, sizeof key, "%s.rope.scaling.type", m->arch);
        gg_str(f, key, "linear");
        snprintf(key, sizeof key, "%s.rope.scaling.factor", m->arch);
        gg_f32(f, key, m->linear_rope);
    }
    gg_u32(f, "general.file_type", 0);
    gg_str(f, "tokenizer.ggml.model", "llama");
    char **pieces = (char **)malloc(sizeof(char *) * (size_t)m->vocab);
    float *scores = (float *)malloc(sizeof(float) * (size_t)m->vocab);
    int32_t *types = (int32_t *)malloc(sizeof(int32_t) * (size_t)m->vocab);
    for (int i = 0; i < m->vocab; i++) {
        pieces[i] = (char *)malloc(16);
        snprintf(pieces[i], 16, i == 0 ? "<unk>" : i == 1 ? "<s>" : i == 2 ? "</s>" : "t%d", i);
        scores[i] = (float)-i;
        types[i] = i < 3 ? 3 : 1;
    }
    gg_arr_str(f, "tokenizer.ggml.tokens", (const char *const *)pieces, (uint64_t)m->vocab);
    gg_arr(f, "tokenizer.ggml.scores", GG_F32V, scores, (uint64_t)m->vocab, 4);
    gg_arr(f, "tokenizer.ggml.token_type", GG_I32, types, (uint64_t)m->vocab, 4);
    gg_u32(f, "tokenizer.ggml.bos_token_id", 1);
    gg_u32(f, "tokenizer.ggml.eos_token_id", 2);
    for (int i = 0; i < m->vocab; i++) free(pieces[i]);
    free(pieces);
    free(scores);
    free(types);
}

static inline void gg_model_write(const gg_model *m, bb_bytes *out) {
    gg_file f;
    gg_init(&f);
    gg_model_metadata(&f, m);
    int kv = m->dim / m->heads * m->kv_heads;
    uint32_t s = m->seed;
    char name[64];
    gg_random_tensor(&f, "token_embd.weight", m->emb_type, m->vocab, m->dim, s, 1, m->scale * 4, 0);
    gg_random_tensor(&f, "output_norm.weight", GG_F32, 1, m->dim, s, 2, 0.2f, 1);
    if (!m->tied)
        gg_random_tensor(&f, "output.weight", m->type, m->vocab, m->dim, s, 3, m->scale, 0);
    if (m->rope_factors) {
        int half = m->dim / m->heads / 2;
        float *fac = (float *)malloc(sizeof(float) * (size_t)half);
        for (int i = 0; i < half; i++) fac[i] = i < half / 2 ? 1.0f : 1.0f + (float)i; /* Llama 3-like */
        uint64_t ne[1] = {(uint64_t)half};
        gg_tensor(&f, "rope_freqs.weight", GG_F32, ne, 1, fac, sizeof(float) * (size_t)half);
        free(fac);
    }
    for (int l = 0; l < m->layers; l++) {
        uint32_t salt = 100u * (uint32_t)(l + 1);
#define GG_LAYER(part, type, rows, cols, k, sc, off)                         \
        snprintf(name, sizeof name, "blk.%d.%s", l, part);                 \
        gg_random_tensor(&f, name, type, rows, cols, s, salt + k, sc, off)
        GG_LAYER("attn_norm.weight", GG_F32, 1, m->dim, 1, 0.2f, 1);
        GG_LAYER("attn_q.weight", m->type, m->dim, m->dim, 2, m->scale, 0);
        GG_LAYER("attn_k.weight", m->type, kv, m->dim, 3, m->scale, 0);
        GG_LAYER("attn_v.weight", m->type, kv, m->dim, 4, m->scale, 0);
        GG_LAYER("attn_output.weight", m->type, m->dim, m->dim, 5, m->scale, 0);
        GG_LAYER("ffn_norm.weight", GG_F32, 1, m->dim, 6, 0.2f, 1);
        GG_LAYER("ffn_gate.weight", m->type, m->hidden, m->dim, 7, m->scale, 0);
        GG_LAYER("ffn_up.weight", m->type, m->hidden, m->dim, 8, m->scale, 0);
        GG_LAYER("ffn_down.weight", m->type, m->dim, m->hidden, 9, m->scale, 0);
        if (m->biases || !strcmp(m->arch, "qwen2")) {
            GG_LAYER("attn_q.bias", GG_F32, 1, m->dim, 10, 0.5f, 0);
            GG_LAYER("attn_k.bias", GG_F32, 1, kv, 11, 0.5f, 0);
            GG_LAYER("attn_v.bias", GG_F32, 1, kv, 12, 0.5f, 0);
        }
#undef GG_LAYER
    }
    gg_finish(&f, 3, out);
    gg_free(&f);
}

/* A llama2.c checkpoint (shared or unshared classifier) as a GGUF file of
 * the llama architecture, its matrices of type `type` (the 1-D weights stay
 * F32): llama2.c's layout is already llama.cpp's (no permutation of Q and
 * K).  0 when the checkpoint's header is not a valid one. */
static inline int gg_from_llama2c(const uint8_t *ck, size_t size, uint32_t type,
                                  bb_bytes *out) {
    if (size < 28) return 0;
    int32_t h[7];
    memcpy(h, ck, 28);
    int dim = h[0], hidden = h[1], layers = h[2], heads = h[3], kvh = h[4];
    int vocab = h[5] < 0 ? -h[5] : h[5], seq = h[6], hs = dim / heads;
    int kv = hs * kvh;
    const float *w = (const float *)(const void *)(ck + 28);
    gg_file f;
    gg_init(&f);
    gg_model m = {"llama", dim, hidden, layers, heads, kvh, vocab, seq, 1e-5f,
                  10000.0, type, type, h[5] > 0, 0, 0, 0, 0, 0};
    gg_model_metadata(&f, &m);
    size_t D = (size_t)dim, H = (size_t)hidden, K = (size_t)kv, L = (size_t)layers;
    const float *emb = w, *rms_att = emb + (size_t)vocab * D;
    const float *wq = rms_att + L * D, *wk = wq + L * D * D, *wv = wk + L * K * D;
    const float *wo = wv + L * K * D, *rms_ffn = wo + L * D * D;
    const float *w1 = rms_ffn + L * D, *w2 = w1 + L * H * D, *w3 = w2 + L * D * H;
    const float *rms_final = w3 + L * H * D;
    const float *wcls = rms_final + D + (size_t)seq * (size_t)hs;
    char name[64];
    uint8_t *q = (uint8_t *)malloc(gg_type_bytes(GG_F32, (uint64_t)(H > D ? H : D) * (uint64_t)(vocab > dim ? vocab : dim)) + 64);
    if (!q) abort();
#define GG_PUT(nm, ty, src, rows, cols)                                        \
    do {                                                                       \
        size_t rb_ = gg_type_bytes(ty, (uint64_t)(cols));                      \
        for (int r_ = 0; r_ < (rows); r_++)                                    \
            gg_quantize_row(ty, (src) + (size_t)r_ * (size_t)(cols), (cols),   \
                            q + rb_ * (size_t)r_);                             \
        uint64_t ne_[2] = {(uint64_t)(cols), (uint64_t)(rows)};                \
        gg_tensor(&f, nm, ty, ne_, (rows) > 1 ? 2 : 1, q, rb_ * (size_t)(rows)); \
    } while (0)
    GG_PUT("token_embd.weight", type, emb, vocab, dim);
    GG_PUT("output_norm.weight", GG_F32, rms_final, 1, dim);
    if (h[5] < 0) GG_PUT("output.weight", type, wcls, vocab, dim);
    for (int l = 0; l < layers; l++) {
        size_t ul = (size_t)l;
        snprintf(name, sizeof name, "blk.%d.attn_norm.weight", l);
        GG_PUT(name, GG_F32, rms_att + ul * D, 1, dim);
        snprintf(name, sizeof name, "blk.%d.attn_q.weight", l);
        GG_PUT(name, type, wq + ul * D * D, dim, dim);
        snprintf(name, sizeof name, "blk.%d.attn_k.weight", l);
        GG_PUT(name, type, wk + ul * K * D, kv, dim);
        snprintf(name, sizeof name, "blk.%d.attn_v.weight", l);
        GG_PUT(name, type, wv + ul * K * D, kv, dim);
        snprintf(name, sizeof name, "blk.%d.attn_output.weight", l);
        GG_PUT(name, type, wo + ul * D * D, dim, dim);
        snprintf(name, sizeof name, "blk.%d.ffn_norm.weight", l);
        GG_PUT(name, GG_F32, rms_ffn + ul * D, 1, dim);
        snprintf(name, sizeof name, "blk.%d.ffn_gate.weight", l);
        GG_PUT(name, type, w1 + ul * H * D, hidden, dim);
        snprintf(name, sizeof name, "blk.%d.ffn_down.weight", l);
        GG_PUT(name, type, w2 + ul * D * H, dim, hidden);
        snprintf(name, sizeof name, "blk.%d.ffn_up.weight", l);
        GG_PUT(name, type, w3 + ul * H * D, hidden, dim);
    }
#undef GG_PUT
    free(q);
    gg_finish(&f, 3, out);
    gg_free(&f);
    return 1;
}

#endif /* SP_BUILD_GGUF_MODEL_H */
