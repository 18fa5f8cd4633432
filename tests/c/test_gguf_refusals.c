/*
 * test_gguf_refusals.c — what a GGUF model (c/engine/model/gguf_model.c)
 * refuses through sp_model_load, each with its message word for word:
 * the tiny llama and qwen2 models' files rewritten (keys dropped or
 * retyped, another architecture, experts, YaRN, tensors dropped,
 * transposed, retyped or not finite), an empty and a truncated file; and
 * the native build's size check.  The models that load: test_gguf_model.c.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fuzz/build_gguf.h"
#include "check.h"
#include "internal.h"
#include "kernels/quant.h"
#include "model/gguf.h"
#include "testutil.h"

static char err[SP_ERR_LEN];

/* ---- refusals -------------------------------------------------------------- */

static void check_one_line(const char *msg) {
    CHECK(msg[0] != '\0');
    CHECK(strchr(msg, '\n') == NULL);
    CHECK(strlen(msg) < SP_ERR_LEN);
}

/* Loads b owning it and not; both fail with needle in the message. */
static void model_fails(const bb_bytes *b, const char *needle) {
    for (int own = 0; own < 2; own++) {
        uint8_t *copy = bb_copy(b);
        strcpy(err, "(untouched)");
        sp_model *m = sp_model_load(copy, b->len, own, err);
        CHECK(m == NULL);
        CHECK_STR_CONTAINS(err, needle);
        check_one_line(err);
        sp_model_free(m);
        if (!own) free(copy);
    }
}

/* The tiny model's file rewritten: keys renamed or given other values,
 * tensors dropped, renamed, reshaped or retyped.  edit_key(key, f) may
 * write a replacement (return 1) or nothing (return 0: the key stays);
 * edit_tensor(name, t, f) likewise. */
typedef int (*key_edit)(const char *key, const sp_gguf_kv *kv, gg_file *f);
typedef int (*tensor_edit)(const char *name, const sp_gguf_tensor *t,
                           gg_file *f);

static void rewrite(const gg_model *gm, key_edit ek, tensor_edit et,
                    bb_bytes *out) {
    bb_bytes b = {0};
    gg_model_write(gm, &b);
    sp_gguf *g = sp_gguf_open(b.data, b.len, NULL, err);
    gg_file f;
    gg_init(&f);
    for (uint64_t k = 0; k < g->n_kv; k++) {
        const sp_gguf_kv *kv = &g->kv[k];
        char key[128];
        snprintf(key, sizeof key, "%.*s", (int)kv->key.len, kv->key.ptr);
        if (ek && ek(key, kv, &f)) continue;
        static const int size[] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};
        const uint8_t *end = kv->value + (kv->type < 13 ? size[kv->type] : 0);
        if (kv->type == SP_GGUF_ARRAY) end = kv->array.data + kv->array.bytes;
        if (kv->type == SP_GGUF_STRING) {
            const uint8_t *cur = kv->value;
            sp_gguf_str str = sp_gguf_array_next_str(&cur);
            end = (const uint8_t *)str.ptr + str.len;
        }
        gg_raw_kv(&f, key, kv->type, kv->value, (size_t)(end - kv->value));
    }
    for (uint64_t i = 0; i < g->n_tensors; i++) {
        const sp_gguf_tensor *t = &g->tensors[i];
        char name[80];
        snprintf(name, sizeof name, "%.*s", (int)t->name.len, t->name.ptr);
        if (et && et(name, t, &f)) continue;
        gg_tensor(&f, name, t->type, t->ne, t->n_dims, t->data, t->nbytes);
    }
    sp_gguf_close(g);
    gg_finish(&f, 3, out);
    gg_free(&f);
    bb_free(&b);
}

static const char *target; /* the key or tensor an edit acts on */
static int drop_key(const char *key, const sp_gguf_kv *kv, gg_file *f) {
    (void)kv;
    (void)f;
    return !strcmp(key, target);
}
static int arch_gemma(const char *key, const sp_gguf_kv *kv, gg_file *f) {
    (void)kv;
    if (strcmp(key, "general.architecture")) return 0;
    gg_str(f, key, "gemma2");
    return 1;
}
static int key_as_string(const char *key, const sp_gguf_kv *kv, gg_file *f) {
    (void)kv;
    if (strcmp(key, target)) return 0;
    gg_str(f, key, "512");
    return 1;
}
static uint32_t new_u32;
static int key_u32(const char *key, const sp_gguf_kv *kv, gg_file *f) {
    (void)kv;
    if (strcmp(key, target)) return 0;
    gg_u32(f, key, new_u32);
    return 1;
}
static int add_experts(const char *key, const sp_gguf_kv *kv, gg_file *f) {
    (void)kv;
    if (strcmp(key, "general.name")) return 0;
    gg_str(f, key, "moe");
    gg_u32(f, "llama.expert_count", 8);
    return 1;
}
static int add_yarn(const char *key, const sp_gguf_kv *kv, gg_file *f) {
    (void)kv;
    if (strcmp(key, "general.name")) return 0;
    gg_str(f, key, "yarn");
    gg_str(f, "llama.rope.scaling.type", "yarn");
    return 1;
}
static int drop_tensor(const char *name, const sp_gguf_tensor *t, gg_file *f) {
    (void)t;
    (void)f;
    return !strcmp(name, target);
}
static int transpose_tensor(const char *name, const sp_gguf_tensor *t,
                            gg_file *f) {
    if (strcmp(name, target)) return 0;
    uint64_t ne[2] = {t->ne[1], t->ne[0]};
    gg_tensor(f, name, t->type, ne, 2, t->data, t->nbytes);
    return 1;
}
static int retype_q5k(const char *name, const sp_gguf_tensor *t, gg_file *f) {
    if (strcmp(name, target)) return 0;
    /* q5_K: 176 bytes a block of 256 */
    size_t n = (size_t)(t->n_elements / 256 * 176);
    uint8_t *zeros = calloc(n, 1);
    gg_tensor(f, name, 13, t->ne, t->n_dims, zeros, n);
    free(zeros);
    return 1;
}
static int nan_weight(const char *name, const sp_gguf_tensor *t, gg_file *f) {
    if (strcmp(name, target)) return 0;
    uint8_t *copy = malloc(t->nbytes);
    memcpy(copy, t->data, t->nbytes);
    uint16_t inf = 0x7c00; /* q8_0 row 3's first scale */
    memcpy(copy + 3 * (t->ne[0] / 32 * 34), &inf, 2);
    gg_tensor(f, name, t->type, t->ne, t->n_dims, copy, t->nbytes);
    free(copy);
    return 1;
}

/* One refusal: the tiny model (qwen2 when `qwen`, else llama) rewritten by
 * `key` or `tensor` acting on `target` (`u32` the value key_u32 writes),
 * and what the loader must say. */
typedef struct {
    int qwen;
    key_edit key;
    tensor_edit tensor;
    const char *target;
    uint32_t u32;
    const char *message;
} refusal;

static const refusal REFUSALS[] = {
    {0, arch_gemma, NULL, NULL, 0,
     "GGUF: architecture gemma2 is not supported (the engine runs llama and "
     "qwen2)"},
    /* metadata: a key missing, of the wrong type, out of range, or naming
     * what the engine does not run */
    {0, drop_key, NULL, "general.architecture", 0,
     "GGUF: key 'general.architecture' is missing"},
    {0, drop_key, NULL, "llama.block_count", 0,
     "GGUF: key 'llama.block_count' is missing"},
    {0, drop_key, NULL, "llama.attention.layer_norm_rms_epsilon", 0,
     "GGUF: key 'llama.attention.layer_norm_rms_epsilon' is missing"},
    {0, key_as_string, NULL, "llama.embedding_length", 0,
     "GGUF: key 'llama.embedding_length' is a string; an integer was "
     "expected"},
    {0, key_u32, NULL, "llama.attention.head_count_kv", 3,
     "GGUF: llama.attention.head_count_kv (3) does not divide head_count (4)"},
    {0, key_u32, NULL, "llama.attention.head_count", 5,
     "GGUF: llama.attention.head_count (5) does not divide embedding_length "
     "(256)"},
    {0, key_u32, NULL, "llama.context_length", 0,
     "GGUF: key 'llama.context_length' must be in 1..2147483647 (got 0)"},
    {0, key_u32, NULL, "llama.rope.dimension_count", 66,
     "GGUF: key 'llama.rope.dimension_count' must be in 2..64 (got 66)"},
    {0, key_u32, NULL, "llama.rope.dimension_count", 63,
     "GGUF: llama.rope.dimension_count (63) is odd; RoPE rotates pairs"},
    {0, add_experts, NULL, NULL, 0,
     "GGUF: this llama model is a mixture of 8 experts, which the engine "
     "does not run"},
    {0, add_yarn, NULL, NULL, 0,
     "GGUF: RoPE scaling 'yarn' is not supported (none, linear and Llama 3's "
     "factors are)"},
    /* tensors: missing, wrong shape, a type the kernels do not run, a
     * weight that is not finite, qwen2's biases required */
    {0, NULL, drop_tensor, "blk.1.ffn_down.weight", 0,
     "GGUF: this llama model has no tensor 'blk.1.ffn_down.weight'"},
    {0, NULL, drop_tensor, "token_embd.weight", 0,
     "GGUF: this llama model has no tensor 'token_embd.weight'"},
    {0, NULL, transpose_tensor, "blk.0.ffn_gate.weight", 0,
     "GGUF: tensor 'blk.0.ffn_gate.weight' has shape [512, 256]; this llama "
     "model's metadata needs [256, 512]"},
    {0, NULL, retype_q5k, "blk.0.attn_k.weight", 0,
     "GGUF: tensor 'blk.0.attn_k.weight' is of type q5_K, which the engine "
     "does not run (it runs f32, f16, bf16, q8_0, q4_0, q4_K and q6_K)"},
    {0, NULL, nan_weight, "blk.1.attn_v.weight", 0,
     "GGUF: tensor 'blk.1.attn_v.weight' holds a weight or scale that is not "
     "finite (row 3)"},
    {1, NULL, drop_tensor, "blk.0.attn_k.bias", 0,
     "GGUF: this qwen2 model has no tensor 'blk.0.attn_k.bias'"},
};

static void test_refusals(void) {
    gg_model llama = gg_tiny_model("llama", GG_Q8_0);
    gg_model qwen = gg_tiny_model("qwen2", GG_Q8_0);
    bb_bytes b = {0};

    for (size_t i = 0; i < sizeof REFUSALS / sizeof REFUSALS[0]; i++) {
        const refusal *r = &REFUSALS[i];
        target = r->target;
        new_u32 = r->u32;
        rewrite(r->qwen ? &qwen : &llama, r->key, r->tensor, &b);
        model_fails(&b, r->message);
        bb_free(&b);
    }
    /* an empty file and a truncated one: the reader's messages */
    bb_put(&b, "GGUF", 4);
    model_fails(&b, "GGUF: the file ends inside the header");
    bb_free(&b);
    gg_model_write(&llama, &b);
    b.len -= 100;
    model_fails(&b, "runs past the end of the data section");
    bb_free(&b);

    /* and a good file after all of them loads (nothing was left behind) */
    gg_model_write(&qwen, &b);
    err[0] = 0;
    sp_model *m = sp_model_load(bb_copy(&b), b.len, 1, err);
    if (!m) fprintf(stderr, "load: %s\n", err);
    CHECK(m != NULL);
    sp_model_free(m);
    bb_free(&b);
}

static void test_size_check(void) {
    /* natively there is no limit of ours; the WASM builds' is tested in
     * tests/js */
    CHECK(sp_memory_limit() == 0.0);
    CHECK_EQ_INT(sp_model_check_size(4e9, err), SP_OK);
    CHECK_EQ_INT(sp_model_check_size(-1, err), SP_ERR_ARG);
}

TEST_SUITE(gguf_refusals,
           TEST(test_refusals),
           TEST(test_size_check));
