/*
 * fuzz_tokenizer.c — tokenizer.bin loading, then encoding and decoding of
 * arbitrary text with it.  The encoder (a heap of candidate merges) must
 * give exactly what run.c's quadratic scan gives; decoding every id must
 * stay within the pieces.
 *
 * Input: [flags][n][text length, 2 bytes LE][text][tokenizer.bin image]
 *   flags bit 0: BOS, bit 1: EOS, bit 2: a tight max_ids, bit 3: load with
 *   a vocab of n (else the whole file)
 */
#include "fuzz_common.h"
#include "../c/bpe_reference.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);


int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 4) return 0;
    int flags = data[0], vocab = data[1];
    size_t text_len = (size_t)data[2] | (size_t)data[3] << 8;
    if (text_len > size - 4) text_len = size - 4;
    const uint8_t *image = data + 4 + text_len;
    size_t image_size = size - 4 - text_len;
    char err[SP_ERR_LEN];
    err[0] = '\0';
    sp_tokenizer *t = sp_tokenizer_load(image, image_size,
                                        flags & 8 ? vocab : 0, err);
    if (!t) {
        fz_check_error(err);
        return 0;
    }
    FZ_ASSERT(t->vocab >= 1);
    if (flags & 8 && vocab > 0) FZ_ASSERT(t->vocab == vocab);

    char *text = malloc(text_len + 1);
    int *ids = malloc(sizeof(int) * (text_len + 3));
    int *ref = malloc(sizeof(int) * (text_len + 3));
    if (!text || !ids || !ref) goto done;
    memcpy(text, data + 4, text_len);
    text[text_len] = '\0'; /* a NUL inside ends the text, as in C */
    int bos = flags & 1, eos = (flags >> 1) & 1;
    int max_ids = flags & 4 ? (int)(text_len / 2) : (int)text_len + 3;
    int n = sp_encode(t, text, bos, eos, ids, max_ids, err);
    if (n < 0) {
        fz_check_error(err);
    } else {
        FZ_ASSERT(n <= max_ids);
        for (int i = 0; i < n; i++) FZ_ASSERT(ids[i] >= 0 && ids[i] < t->vocab);
        /* the reference is quadratic, and run.c's (a GGUF image is read
         * as a GGUF tokenizer: fuzz_gguf_tokenizer checks those) */
        if (strlen(text) <= 512 && t->kind == SP_TOK_BPE) {
            int m = reference_encode(t, text, bos, eos, ref);
            if (m != -2) {
                FZ_ASSERT(m == n);
                FZ_ASSERT(memcmp(ids, ref, sizeof(int) * (size_t)n) == 0);
            }
        }
        /* decoding: every piece after every previous token */
        for (int i = 0; i < n; i++) {
            int len = -1;
            const char *piece = sp_decode(t, i ? ids[i - 1] : -1, ids[i], &len);
            FZ_ASSERT(piece && len >= 0 && len <= t->max_token_length);
            volatile char sink = 0;
            for (int k = 0; k < len; k++) sink ^= piece[k];
            (void)sink;
        }
    }
    /* out-of-range ids decode to nothing */
    int len = -1;
    sp_decode(t, 0, t->vocab, &len);
    FZ_ASSERT(len == 0);
    sp_decode(t, 0, -1, &len);
    FZ_ASSERT(len == 0);
    /* the lookup finds each piece (or an equal one with a lower id) */
    for (int i = 0; i < t->vocab && i < 256; i++) {
        int id = sp_tokenizer_lookup(t, t->pieces[i], t->piece_len[i]);
        FZ_ASSERT(id >= 0 && id <= i && strcmp(t->pieces[id], t->pieces[i]) == 0);
    }
done:
    free(text);
    free(ids);
    free(ref);
    sp_tokenizer_free(t);
    return 0;
}
