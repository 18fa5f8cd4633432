/*
 * spm.c — SentencePiece by scores (tokenizer.ggml.model "llama"), one
 * stretch of text at a time, as llama.cpp's llm_tokenizer_spm_session does
 * it: the text (its spaces already U+2581) cut into characters -- by the
 * length its lead byte announces, nothing checked -- then, again and again,
 * the adjacent pair whose concatenation is the best-scoring token merges
 * (the leftmost on ties; any token, however it scores), until no pair
 * makes a token.  A symbol that is no token becomes its bytes' tokens
 * ("<0xXX>", else the byte itself).
 *
 * llama2.c's encode() (bpe.c) is the same walk over the same pieces with
 * spaces for U+2581, less llama.cpp's handling of special tokens and its
 * space after each one: a test holds them to the same ids.
 */
#include <stdlib.h>
#include <string.h>

#include "gguf_vocab.h"
#include "merge_heap.h"

typedef struct {
    size_t at;
    int n, prev, next;
} symbol;

static void try_merge(const sp_tokenizer *t, const char *text,
                      const symbol *sym, int left, int right,
                      sp_merge_candidate *h, int *n) {
    if (left < 0 || right < 0) return;
    int size = sym[left].n + sym[right].n;
    if (size > t->gguf->max_len) return;
    int id = sp_vocab_token(t->gguf, text + sym[left].at, size);
    /* the best score first: its negation is the key */
    if (id >= 0)
        sp_merge_push(h, n, (sp_merge_candidate){-t->scores[id], left, right,
                                                 size, id});
}

/* llama.cpp's unicode_len_utf8: the length a lead byte announces */
static int lead_len(unsigned char c) {
    return c < 0xc0 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
}

int sp_spm_encode(const sp_tokenizer *t, const char *text, size_t len,
                  sp_idlist *out, char *err) {
    const struct sp_gguf_vocab *v = t->gguf;
    symbol *sym = malloc(sizeof(symbol) * (len ? len : 1));
    sp_merge_candidate *heap = malloc(sizeof(sp_merge_candidate) * (3 * len + 1));
    int rc = SP_OK, n = 0, hn = 0;
    if (!sym || !heap) goto nomem;
    for (size_t at = 0; at < len; n++) {
        size_t k = (size_t)lead_len((unsigned char)text[at]);
        if (k > len - at) k = len - at;
        sym[n] = (symbol){at, (int)k, n - 1, at + k < len ? n + 1 : -1};
        at += k;
        if (n > 0) try_merge(t, text, sym, n - 1, n, heap, &hn);
    }
    while (hn > 0) {
        sp_merge_candidate c = sp_merge_pop(heap, &hn);
        symbol *l = &sym[c.left], *r = &sym[c.right];
        if (l->n == 0 || r->n == 0 || l->n + r->n != c.size) continue;
        l->n += r->n;
        r->n = 0;
        l->next = r->next;
        if (r->next >= 0) sym[r->next].prev = c.left;
        try_merge(t, text, sym, l->prev, c.left, heap, &hn);
        try_merge(t, text, sym, c.left, l->next, heap, &hn);
    }
    for (int i = n > 0 ? 0 : -1; i >= 0; i = sym[i].next) {
        int id = sp_vocab_token(v, text + sym[i].at, sym[i].n);
        if (id >= 0) {
            if (sp_idlist_push(out, id) < 0) goto nomem;
            continue;
        }
        for (int j = 0; j < sym[i].n; j++) {
            unsigned char b = (unsigned char)text[sym[i].at + (size_t)j];
            if (v->byte_token[b] < 0) {
                rc = sp_fail(err, SP_ERR_PROMPT, "prompt: the vocabulary has no "
                             "token for the byte 0x%02X (no <0x%02X> piece) "
                             "that the text needs", b, b);
                goto done;
            }
            if (sp_idlist_push(out, v->byte_token[b]) < 0) goto nomem;
        }
    }
    goto done;
nomem:
    rc = sp_fail(err, SP_ERR_NOMEM, "prompt: out of memory");
done:
    free(sym);
    free(heap);
    return rc;
}
