/*
 * fuzz_bigram.c — the bigram loader (and, for inputs without its magic, the
 * checkpoint loader it falls back to) on arbitrary bytes; a model that
 * loads generates a few tokens from a prompt taken from the input's tail.
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char err[SP_ERR_LEN];
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy) return 0;
    if (size) memcpy(copy, data, size);
    err[0] = '\0';
    sp_model *m = sp_model_load(copy, size, 1, err); /* takes copy */
    if (!m) {
        fz_check_error(err);
        return 0;
    }
    FZ_ASSERT(sp_model_vocab(m) >= 1);
    if (sp_model_kind_of(m) == SP_MODEL_BIGRAM) {
        const sp_tokenizer *t = sp_model_tokenizer(m);
        if (!t) {
            /* version 2: the table alone, read through a llama2.c
             * tokenizer.bin given beside it (none here) */
            sp_model_free(m);
            return 0;
        }
        FZ_ASSERT(sp_tokenizer_vocab(t) == sp_model_vocab(m));
        /* the prompt: up to 12 bytes from the end of the input */
        char prompt[13];
        size_t n = size < 12 ? size : 12;
        memcpy(prompt, data + size - n, n);
        prompt[n] = '\0';
        fz_generate(m, NULL, prompt, size, 8);
        /* every piece encodes to itself */
        for (int i = 0; i < t->vocab && i < 64; i++) {
            int ids[4];
            FZ_ASSERT(sp_encode(t, t->pieces[i], 0, 0, ids, 4, err) == 1);
            FZ_ASSERT(ids[0] == i);
        }
    }
    sp_model_free(m);
    return 0;
}
