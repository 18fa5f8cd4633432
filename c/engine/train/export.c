/*
 * export.c — the trained weights as files: llama2.c's legacy checkpoint
 * (what the engine's loader, llama2.c's run.c and llama.cpp's
 * convert-llama2c-to-ggml read) and a GGUF file (llama architecture, every
 * tensor F32, the vocabulary as SentencePiece pieces), which the engine
 * and llama.cpp load as they load any.
 *
 * Checkpoint layout (models/MODELS.md, model/llama2c.c): 7 int32 (dim,
 * hidden_dim, n_layers, n_heads, n_kv_heads, vocab_size -- negative when
 * the classifier is its own --, seq_len), the weights up to the final norm
 * in the order train.h's tweights lists them, freq_cis_real and
 * freq_cis_imag ([seq_len][head_size / 2] each: cos and sin of the RoPE
 * angles, unused by run.c and written as llama2.c's export writes them),
 * then the classifier when it is its own.
 *
 * GGUF (version 3): the header, the metadata (general.*, llama.* and
 * tokenizer.ggml.*), the tensor index with llama.cpp's names, then the
 * data, every part aligned to 32 bytes.  No Q/K permutation: llama2.c's
 * RoPE already rotates the pairs (2i, 2i + 1), llama.cpp's "norm" RoPE of
 * the llama architecture.  The pieces' spaces become U+2581, as
 * SentencePiece writes them (llama2.c's tokenizer.bin holds plain
 * spaces); "<0xXX>" pieces are byte tokens, 0 unknown, 1 and 2 control.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "train/train.h"

/* ---- the llama2.c checkpoint --------------------------------------------- */

uint8_t *sp_tr_checkpoint_of(const sp_train *t, const float *w,
                             size_t *size) {
    size_t half = (size_t)t->hs / 2, T = (size_t)t->T;
    size_t cls = t->c.tied ? 0 : (size_t)t->V * (size_t)t->dim;
    size_t front = t->n_params - cls; /* up to the final norm */
    size_t bytes = 28 + 4 * (t->n_params + 2 * T * half);
    uint8_t *out = malloc(bytes);
    if (!out) return NULL;
    int32_t header[7] = {t->dim, t->hidden, t->L, t->H, t->KV,
                         t->c.tied ? t->V : -t->V, t->T};
    memcpy(out, header, 28);
    uint8_t *p = out + 28;
    memcpy(p, w, 4 * front);
    p += 4 * front;
    memcpy(p, t->rope_cos, 4 * T * half);
    p += 4 * T * half;
    memcpy(p, t->rope_sin, 4 * T * half);
    p += 4 * T * half;
    memcpy(p, w + front, 4 * cls);
    *size = bytes;
    return out;
}

uint8_t *sp_train_checkpoint(const sp_train *t, size_t *size, char *err) {
    uint8_t *out = sp_tr_checkpoint_of(t, t->w, size);
    if (!out) sp_fail(err, SP_ERR_NOMEM, "train: out of memory");
    return out;
}

uint8_t *sp_train_tokenizer_file(const sp_train *t, size_t *size,
                                 char *err) {
    uint8_t *out = malloc(t->tok_size);
    if (!out) {
        sp_fail(err, SP_ERR_NOMEM, "train: out of memory");
        return NULL;
    }
    memcpy(out, t->tok_file, t->tok_size);
    *size = t->tok_size;
    return out;
}

/* ---- GGUF ------------------------------------------------------------------ */

enum { G_UINT32 = 4, G_INT32 = 5, G_FLOAT32 = 6, G_BOOL = 7, G_STRING = 8,
       G_ARRAY = 9 };
#define ALIGN 32

/* A growing byte buffer; failed when memory ran out. */
typedef struct {
    uint8_t *data;
    size_t len, cap;
    int failed;
} gbuf;

static void put(gbuf *b, const void *bytes, size_t n) {
    if (b->failed) return;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n) cap *= 2;
        uint8_t *more = realloc(b->data, cap);
        if (!more) {
            b->failed = 1;
            return;
        }
        b->data = more;
        b->cap = cap;
    }
    memcpy(b->data + b->len, bytes, n);
    b->len += n;
}
static void put_u32(gbuf *b, uint32_t v) { put(b, &v, 4); }
static void put_u64(gbuf *b, uint64_t v) { put(b, &v, 8); }
static void put_str(gbuf *b, const char *s, size_t n) {
    put_u64(b, n);
    put(b, s, n);
}
static void put_key(gbuf *b, const char *key, uint32_t type) {
    put_str(b, key, strlen(key));
    put_u32(b, type);
}
static void kv_u32(gbuf *b, const char *key, uint32_t v) {
    put_key(b, key, G_UINT32);
    put_u32(b, v);
}
static void kv_f32(gbuf *b, const char *key, float v) {
    put_key(b, key, G_FLOAT32);
    put(b, &v, 4);
}
static void kv_str(gbuf *b, const char *key, const char *v) {
    put_key(b, key, G_STRING);
    put_str(b, v, strlen(v));
}
static void pad(gbuf *b) {
    static const uint8_t zeros[ALIGN] = {0};
    put(b, zeros, (ALIGN - b->len % ALIGN) % ALIGN);
}

/* A piece as SentencePiece spells it: each space as U+2581. */
static void put_piece(gbuf *b, const char *piece, int len) {
    size_t spaces = 0;
    for (int i = 0; i < len; i++) spaces += piece[i] == ' ';
    put_u64(b, (uint64_t)len + 2 * spaces);
    for (int i = 0; i < len; i++) {
        if (piece[i] == ' ') put(b, "\xe2\x96\x81", 3);
        else put(b, piece + i, 1);
    }
}

static int is_byte_piece(const char *p, int len) {
    return len == 6 && p[0] == '<' && p[1] == '0' && p[2] == 'x' &&
           p[5] == '>';
}

/* The tokenizer.ggml.* keys from the tokenizer (tok: loaded from t's
 * tokenizer.bin).  SP_ERR_FORMAT when two pieces would be the same (a
 * text holding U+2581 itself). */
static int put_vocab(gbuf *b, const sp_tokenizer *tok, char *err) {
    int V = tok->vocab;
    for (int i = 0; i < V; i++) {
        const char *p = tok->pieces[i];
        for (int k = 0; k + 2 < tok->piece_len[i]; k++)
            if (!memcmp(p + k, "\xe2\x96\x81", 3))
                return sp_fail(err, SP_ERR_FORMAT, "train: the vocabulary "
                               "holds U+2581, which GGUF's SentencePiece "
                               "pieces use for the space: this model "
                               "cannot be a GGUF file (its .bin can)");
    }
    kv_str(b, "tokenizer.ggml.model", "llama");
    put_key(b, "tokenizer.ggml.tokens", G_ARRAY);
    put_u32(b, G_STRING);
    put_u64(b, (uint64_t)V);
    for (int i = 0; i < V; i++) put_piece(b, tok->pieces[i], tok->piece_len[i]);
    put_key(b, "tokenizer.ggml.scores", G_ARRAY);
    put_u32(b, G_FLOAT32);
    put_u64(b, (uint64_t)V);
    for (int i = 0; i < V; i++) put(b, &tok->scores[i], 4);
    put_key(b, "tokenizer.ggml.token_type", G_ARRAY);
    put_u32(b, G_INT32);
    put_u64(b, (uint64_t)V);
    for (int i = 0; i < V; i++) {
        /* llama.cpp's: 1 normal, 2 unknown, 3 control, 6 byte */
        int32_t type = i == 0 ? 2 : i <= 2 ? 3
                     : is_byte_piece(tok->pieces[i], tok->piece_len[i]) ? 6 : 1;
        put(b, &type, 4);
    }
    kv_u32(b, "tokenizer.ggml.bos_token_id", 1);
    kv_u32(b, "tokenizer.ggml.eos_token_id", 2);
    kv_u32(b, "tokenizer.ggml.unknown_token_id", 0);
    return SP_OK;
}

typedef struct {
    char name[40];
    uint64_t ne0, ne1; /* ne1 0: a vector */
    const float *data;
} gtensor;

/* The tensors with llama.cpp's names, in the file's order. */
static int gguf_tensors(const sp_train *t, gtensor *out) {
    const tweights *W = &t->W;
    const uint64_t dim = (uint64_t)t->dim, kv = (uint64_t)t->kv_dim;
    const uint64_t hid = (uint64_t)t->hidden, V = (uint64_t)t->V;
    int n = 0;
#define TENSOR(nm, a, b, p)                                                   \
    do {                                                                      \
        snprintf(out[n].name, sizeof out[n].name, "%s", nm);                  \
        out[n].ne0 = (a);                                                     \
        out[n].ne1 = (b);                                                     \
        out[n].data = (p);                                                    \
        n++;                                                                  \
    } while (0)
    TENSOR("token_embd.weight", dim, V, W->emb);
    TENSOR("output_norm.weight", dim, 0, W->rms_final);
    if (!t->c.tied) TENSOR("output.weight", dim, V, W->cls);
    for (int l = 0; l < t->L; l++) {
        char nm[40];
        size_t ul = (size_t)l;
#define LAYER(suffix, a, b, p)                                                \
    do {                                                                      \
        snprintf(nm, sizeof nm, "blk.%d.%s", l, suffix);                      \
        TENSOR(nm, a, b, p);                                                  \
    } while (0)
        LAYER("attn_norm.weight", dim, 0, W->rms_att + ul * dim);
        LAYER("attn_q.weight", dim, dim, W->wq + ul * dim * dim);
        LAYER("attn_k.weight", dim, kv, W->wk + ul * kv * dim);
        LAYER("attn_v.weight", dim, kv, W->wv + ul * kv * dim);
        LAYER("attn_output.weight", dim, dim, W->wo + ul * dim * dim);
        LAYER("ffn_norm.weight", dim, 0, W->rms_ffn + ul * dim);
        LAYER("ffn_gate.weight", dim, hid, W->w1 + ul * hid * dim);
        LAYER("ffn_down.weight", hid, dim, W->w2 + ul * dim * hid);
        LAYER("ffn_up.weight", dim, hid, W->w3 + ul * hid * dim);
#undef LAYER
    }
#undef TENSOR
    return n;
}

static void put_metadata(gbuf *b, const sp_train *t) {
    kv_str(b, "general.architecture", "llama");
    kv_str(b, "general.name", "sampler-playground trained model");
    kv_u32(b, "general.file_type", 0); /* all F32 */
    kv_u32(b, "llama.context_length", (uint32_t)t->T);
    kv_u32(b, "llama.embedding_length", (uint32_t)t->dim);
    kv_u32(b, "llama.block_count", (uint32_t)t->L);
    kv_u32(b, "llama.feed_forward_length", (uint32_t)t->hidden);
    kv_u32(b, "llama.attention.head_count", (uint32_t)t->H);
    kv_u32(b, "llama.attention.head_count_kv", (uint32_t)t->KV);
    kv_f32(b, "llama.attention.layer_norm_rms_epsilon", 1e-5f);
    kv_f32(b, "llama.rope.freq_base", 10000.0f);
    kv_u32(b, "llama.rope.dimension_count", (uint32_t)t->hs);
    kv_u32(b, "llama.vocab_size", (uint32_t)t->V);
}

#define N_META 13 /* put_metadata's keys */
#define N_VOCAB_KEYS 7

uint8_t *sp_train_gguf(const sp_train *t, size_t *size, char *err) {
    sp_tokenizer *tok = sp_train_tokenizer(t, err);
    gtensor *ts = malloc(sizeof(gtensor) * (size_t)(3 + 9 * t->L));
    gbuf b = {NULL, 0, 0, 0};
    if (!tok || !ts) {
        if (tok) sp_fail(err, SP_ERR_NOMEM, "train: out of memory");
        goto fail;
    }
    int n = gguf_tensors(t, ts);
    put(&b, "GGUF", 4);
    put_u32(&b, 3);
    put_u64(&b, (uint64_t)n);
    put_u64(&b, N_META + N_VOCAB_KEYS);
    put_metadata(&b, t);
    if (put_vocab(&b, tok, err) != SP_OK) goto fail;
    uint64_t offset = 0;
    for (int i = 0; i < n; i++) {
        put_str(&b, ts[i].name, strlen(ts[i].name));
        put_u32(&b, ts[i].ne1 ? 2 : 1);
        put_u64(&b, ts[i].ne0);
        if (ts[i].ne1) put_u64(&b, ts[i].ne1);
        put_u32(&b, 0); /* F32 */
        put_u64(&b, offset);
        uint64_t bytes = 4 * ts[i].ne0 * (ts[i].ne1 ? ts[i].ne1 : 1);
        offset += (bytes + ALIGN - 1) / ALIGN * ALIGN;
    }
    pad(&b);
    for (int i = 0; i < n; i++) {
        put(&b, ts[i].data, 4 * ts[i].ne0 * (ts[i].ne1 ? ts[i].ne1 : 1));
        pad(&b);
    }
    if (b.failed) {
        sp_fail(err, SP_ERR_NOMEM, "train: out of memory");
        goto fail;
    }
    sp_tokenizer_free(tok);
    free(ts);
    *size = b.len;
    return b.data;
fail:
    sp_tokenizer_free(tok);
    free(ts);
    free(b.data);
    return NULL;
}
