/*
 * fuzz_checkpoint.c — the llama2.c checkpoint loader on arbitrary bytes,
 * copying and in place: both must agree (the same logits, bit for bit); a
 * model that loads runs the forward pass over a few positions and, with a
 * tokenizer made for its vocabulary, a short generation.
 */
#include <stdio.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A tokenizer.bin for vocab pieces: the specials, then "t<i>" */
static sp_tokenizer *tokenizer_for(int vocab) {
    size_t cap = 4 + (size_t)vocab * 20, at = 0;
    uint8_t *img = malloc(cap);
    if (!img) return NULL;
    int32_t max_len = 16;
    memcpy(img, &max_len, 4);
    at = 4;
    for (int i = 0; i < vocab; i++) {
        char piece[16];
        int len = i == 0 ? snprintf(piece, sizeof piece, "<unk>")
                : i == 1 ? snprintf(piece, sizeof piece, "<s>")
                : i == 2 ? snprintf(piece, sizeof piece, "</s>")
                : i == 3 ? snprintf(piece, sizeof piece, " ")
                : snprintf(piece, sizeof piece, "%c%d", 'a' + i % 26, i);
        float score = (float)(i % 7);
        int32_t l = len;
        memcpy(img + at, &score, 4);
        memcpy(img + at + 4, &l, 4);
        memcpy(img + at + 8, piece, (size_t)len);
        at += 8 + (size_t)len;
    }
    char err[SP_ERR_LEN];
    sp_tokenizer *t = sp_tokenizer_load(img, at, vocab, err);
    free(img);
    return t;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char err[SP_ERR_LEN], err2[SP_ERR_LEN];
    sp_model *m, *m2;
    if (!fz_load_both(data, size, &m, &m2, err, err2)) return 0;
    int vocab = sp_model_vocab(m), seq_len = sp_model_seq_len(m);
    FZ_ASSERT(vocab == sp_model_vocab(m2) && seq_len == sp_model_seq_len(m2));
    fz_same_logits(m, m2, data, size, 4);
    if (sp_model_kind_of(m) == SP_MODEL_TRANSFORMER && vocab <= 4096) {
        sp_tokenizer *t = tokenizer_for(vocab);
        if (t) {
            fz_generate(m, t, "a4 b5", size, 6);
            sp_tokenizer_free(t);
        }
    }
    sp_model_free(m);
    sp_model_free(m2);
    return 0;
}
