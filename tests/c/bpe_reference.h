/*
 * bpe_reference.h — run.c's encode() as written, for the tests and the
 * fuzzer to hold the engine's encoder (a heap of candidate merges) to: every
 * pair scanned at every merge.  Returns the count, -1 when a character has
 * no piece and no byte fallback, -2 out of memory.
 */
#ifndef SP_BPE_REFERENCE_H
#define SP_BPE_REFERENCE_H

#include <stdlib.h>
#include <string.h>

#include "internal.h"

static inline int reference_encode(const sp_tokenizer *t, const char *text, int bos,
                            int eos, int *tokens) {
    int n = 0;
    char *buf = malloc(2 * (size_t)t->max_token_length + 1);
    if (!buf) return -2;
    if (bos) tokens[n++] = t->bos;
    const char *c = text;
    int ok = 1;
    if (text[0]) {
        int id = sp_tokenizer_lookup(t, " ", 1);
        if (id < 0) id = t->byte_fallback[' '];
        if (id < 0) ok = 0;
        else tokens[n++] = id;
    }
    while (ok && *c) {
        int len = 1;
        while (len < 4 && ((unsigned char)c[len] & 0xc0) == 0x80) len++;
        int id = sp_tokenizer_lookup(t, c, len);
        if (id >= 0) {
            tokens[n++] = id;
        } else {
            for (int i = 0; ok && i < len; i++) {
                int b = t->byte_fallback[(unsigned char)c[i]];
                if (b < 0) ok = 0;
                else tokens[n++] = b;
            }
        }
        c += len;
    }
    while (ok) {
        float best_score = -1e10f;
        int best = -1, best_id = -1;
        for (int i = 0; i + 1 < n; i++) {
            int la = t->piece_len[tokens[i]], lb = t->piece_len[tokens[i + 1]];
            memcpy(buf, t->pieces[tokens[i]], (size_t)la);
            memcpy(buf + la, t->pieces[tokens[i + 1]], (size_t)lb);
            int id = sp_tokenizer_lookup(t, buf, la + lb);
            if (id >= 0 && t->scores[id] > best_score) {
                best_score = t->scores[id];
                best = i;
                best_id = id;
            }
        }
        if (best < 0) break;
        tokens[best] = best_id;
        memmove(tokens + best + 1, tokens + best + 2,
                sizeof(int) * (size_t)(n - best - 2));
        n--;
    }
    free(buf);
    if (!ok) return -1;
    if (eos) tokens[n++] = t->eos;
    return n;
}

#endif
