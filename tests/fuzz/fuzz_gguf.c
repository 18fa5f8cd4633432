/*
 * fuzz_gguf.c — the GGUF reader (model/gguf.c) and the model loader on it
 * (model/gguf_model.c) on arbitrary bytes:
 *   - the reader alone: a file it accepts has every key, array and tensor
 *     inside the file (a tensor's bytes inside the data section), each key
 *     and tensor found again by its name, and the typed getters answer
 *     with a value or one clean line;
 *   - the model, copied and read in place: both load or both refuse with
 *     the same message; a model that loads gives the same logits, bit for
 *     bit, over a few positions (the kernels of whatever types the file
 *     holds), refuses tokens and positions out of range, and runs a short
 *     generation with the file's own tokenizer.
 * Seeds (make_corpus.c): small models of every weight type the engine reads
 * (the K types in a 256-wide FFN), a qwen2 with biases, broken files.
 */
#include "fuzz_common.h"
#include "model/gguf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int inside(const sp_gguf *g, const uint8_t *p, size_t n) {
    return p >= g->file && n <= g->size && (size_t)(p - g->file) <= g->size - n;
}

static void check_reader(const uint8_t *data, size_t size) {
    char err[SP_ERR_LEN];
    int code = SP_OK;
    err[0] = '\0';
    sp_gguf *g = sp_gguf_open(data, size, &code, err);
    if (!g) {
        fz_check_error(err);
        FZ_ASSERT(code == SP_ERR_FORMAT || code == SP_ERR_NOMEM);
        return;
    }
    FZ_ASSERT(g->version == 2 || g->version == 3);
    FZ_ASSERT(g->data_offset <= size);
    for (uint64_t i = 0; i < g->n_kv; i++) {
        const sp_gguf_kv *kv = &g->kv[i];
        FZ_ASSERT(inside(g, (const uint8_t *)kv->key.ptr, kv->key.len));
        if (kv->type == SP_GGUF_ARRAY)
            FZ_ASSERT(inside(g, kv->array.data, kv->array.bytes));
        /* a key found by its name is one with that name (the first of
         * equal keys, if the reader keeps duplicates) */
        char key[256];
        if (kv->key.len < sizeof key && !memchr(kv->key.ptr, '\0', kv->key.len)) {
            memcpy(key, kv->key.ptr, kv->key.len);
            key[kv->key.len] = '\0';
            const sp_gguf_kv *found = sp_gguf_find(g, key);
            FZ_ASSERT(found && found->key.len == kv->key.len &&
                      !memcmp(found->key.ptr, kv->key.ptr, kv->key.len));
        }
    }
    for (uint64_t i = 0; i < g->n_tensors; i++) {
        const sp_gguf_tensor *t = &g->tensors[i];
        FZ_ASSERT(t->n_dims <= SP_GGUF_MAX_DIMS);
        FZ_ASSERT(t->data >= g->file + g->data_offset);
        FZ_ASSERT(inside(g, t->data, t->nbytes));
        char name[SP_GGUF_MAX_NAME + 1];
        if (t->name.len <= SP_GGUF_MAX_NAME && !memchr(t->name.ptr, '\0', t->name.len)) {
            memcpy(name, t->name.ptr, t->name.len);
            name[t->name.len] = '\0';
            const sp_gguf_tensor *found = sp_gguf_tensor_find(g, name);
            FZ_ASSERT(found && found->name.len == t->name.len &&
                      !memcmp(found->name.ptr, t->name.ptr, t->name.len));
        }
    }
    /* the getters the model loader uses, on whatever the keys hold */
    int64_t iv;
    double fv;
    int bv;
    sp_gguf_str sv;
    sp_gguf_array av;
    int rc = sp_gguf_get_int(g, "general.alignment", 1, 1 << 30, &iv, err);
    if (rc != SP_OK) fz_check_error(err);
    rc = sp_gguf_get_float(g, "llama.rope.freq_base", &fv, err);
    if (rc != SP_OK) fz_check_error(err);
    rc = sp_gguf_get_bool(g, "tokenizer.ggml.add_bos_token", &bv, err);
    if (rc != SP_OK) fz_check_error(err);
    rc = sp_gguf_get_str(g, "general.architecture", &sv, err);
    if (rc == SP_OK) FZ_ASSERT(inside(g, (const uint8_t *)sv.ptr, sv.len));
    else fz_check_error(err);
    rc = sp_gguf_get_array(g, "tokenizer.ggml.tokens", SP_GGUF_STRING, &av, err);
    if (rc == SP_OK) {
        FZ_ASSERT(inside(g, av.data, av.bytes));
        const uint8_t *cursor = av.data;
        for (uint64_t i = 0; i < av.n && i < 64; i++) {
            sp_gguf_str s = sp_gguf_array_next_str(&cursor);
            FZ_ASSERT(inside(g, (const uint8_t *)s.ptr, s.len));
        }
    } else {
        fz_check_error(err);
    }
    sp_gguf_close(g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char err[SP_ERR_LEN], err2[SP_ERR_LEN];
    check_reader(data, size);

    sp_model *m, *m2;
    if (!fz_load_both(data, size, &m, &m2, err, err2)) return 0;
    int vocab = sp_model_vocab(m), seq_len = sp_model_seq_len(m);
    FZ_ASSERT(vocab >= 1 && vocab == sp_model_vocab(m2) && seq_len == sp_model_seq_len(m2));
    fz_same_logits(m, m2, data, size, 3);
    const sp_tokenizer *tok = sp_model_tokenizer(m);
    if (tok && vocab <= 4096) fz_generate(m, tok, "t5 t7", size, 4);
    sp_model_free(m);
    sp_model_free(m2);
    return 0;
}
