/*
 * bytebpe.c — byte-level BPE (tokenizer.ggml.model "gpt2"), one word at a
 * time, as llama.cpp's llm_tokenizer_bpe_session does it.
 *
 * GPT-2 spells each byte as a printable character: the bytes '!'..'~',
 * 0xA1..0xAC and 0xAE..0xFF as the code points of the same value, the 68
 * others (controls, space, 0x7F..0xA0, the soft hyphen 0xAD) as U+0100 on,
 * in byte order -- so a space is 'Ġ' (U+0120) and a newline 'Ċ' (U+010A).
 * A word's symbols start as its bytes' characters; then, again and again,
 * the adjacent pair whose merge rule ranks first (lowest rank; the leftmost
 * on ties) becomes one symbol, until no pair has a rule.  Each symbol is
 * then its token -- or, when it is none, the tokens of its single bytes
 * that exist (a vocabulary whose merges make what it lacks).  With
 * ignore_merges (Llama 3), a word that is a token is that token at once.
 */
#include <stdlib.h>
#include <string.h>

#include "gguf_vocab.h"
#include "merge_heap.h"
#include "unicode.h"

/* bytes GPT-2 keeps as themselves */
static int kept(int b) {
    return (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || b >= 0xae;
}

/* the code point of byte b's character */
static uint32_t byte_cp(int b) {
    if (kept(b)) return (uint32_t)b;
    if (b <= 0x20) return 0x100u + (uint32_t)b;         /* 33 of them */
    if (b <= 0xa0) return 0x100u + 33 + (uint32_t)(b - 0x7f); /* 34 */
    return 0x100u + 33 + 34;                            /* 0xAD */
}

int sp_bytebpe_char(int b, char *out) { return sp_utf8_put(byte_cp(b), out); }

int sp_bytebpe_byte(uint32_t cp) {
    if (cp < 0x100) return kept((int)cp) ? (int)cp : -1;
    if (cp < 0x100 + 33) return (int)(cp - 0x100);
    if (cp < 0x100 + 33 + 34) return (int)(cp - 0x100 - 33 + 0x7f);
    if (cp == 0x100 + 33 + 34) return 0xad;
    return -1;
}

/* A symbol: bytes [at, at + n) of the word (n = 0 once merged away), its
 * string id (-1: a string no rule or token names), its neighbours. */
typedef struct {
    int at, n, id, prev, next;
} symbol;

static void try_merge(const struct sp_gguf_vocab *v, const symbol *sym,
                      int left, int right, sp_merge_candidate *heap, int *n) {
    if (left < 0 || right < 0) return;
    int result, rank = sp_vocab_merge(v, sym[left].id, sym[right].id, &result);
    if (rank >= 0) /* the lowest rank first */
        sp_merge_push(heap, n, (sp_merge_candidate){(float)rank, left, right,
                                                    sym[left].n + sym[right].n,
                                                    result});
}

/* The word's bytes spelled in GPT-2's characters. */
static int spell(const char *word, int len, char *out) {
    int n = 0;
    for (int i = 0; i < len; i++) n += sp_bytebpe_char((unsigned char)word[i], out + n);
    return n;
}

int sp_bytebpe_encode_word(const sp_tokenizer *t, const char *word,
                           size_t len, sp_idlist *out, char *err) {
    const struct sp_gguf_vocab *v = t->gguf;
    int n = (int)len, rc = SP_OK;
    /* each byte is 1 or 2 bytes spelled; a merge adds at most 2 candidates */
    char *spelled = malloc(2 * len + 1);
    symbol *sym = malloc(sizeof(symbol) * (len ? len : 1));
    sp_merge_candidate *heap = malloc(sizeof(sp_merge_candidate) * (3 * len + 1));
    if (!spelled || !sym || !heap) {
        rc = sp_fail(err, SP_ERR_NOMEM, "prompt: out of memory");
        goto done;
    }
    int k = v->ignore_merges ? spell(word, n, spelled) : 0;
    if (k > 0 && k <= v->max_len) {
        int id = sp_vocab_token(v, spelled, k);
        if (id >= 0) {
            if (sp_idlist_push(out, id) < 0) goto nomem;
            goto done;
        }
    }
    int hn = 0;
    for (int i = 0; i < n; i++) {
        sym[i] = (symbol){i, 1, v->byte_token[(unsigned char)word[i]], i - 1,
                          i + 1 < n ? i + 1 : -1};
        if (i > 0) try_merge(v, sym, i - 1, i, heap, &hn);
    }
    while (hn > 0) {
        sp_merge_candidate c = sp_merge_pop(heap, &hn);
        symbol *l = &sym[c.left], *r = &sym[c.right];
        /* stale: either side merged away or grown since */
        if (l->n == 0 || r->n == 0 || l->n + r->n != c.size) continue;
        l->n += r->n;
        l->id = c.result;
        r->n = 0;
        l->next = r->next;
        if (r->next >= 0) sym[r->next].prev = c.left;
        try_merge(v, sym, l->prev, c.left, heap, &hn);
        try_merge(v, sym, c.left, l->next, heap, &hn);
    }
    for (int i = n > 0 ? 0 : -1; i >= 0; i = sym[i].next) {
        if (sym[i].id >= 0 && sym[i].id < t->vocab) {
            if (sp_idlist_push(out, sym[i].id) < 0) goto nomem;
            continue;
        }
        /* no such token: the single bytes of its spelling that are tokens */
        k = spell(word + sym[i].at, sym[i].n, spelled);
        for (int j = 0; j < k; j++) {
            int id = sp_vocab_token(v, spelled + j, 1);
            if (id >= 0 && sp_idlist_push(out, id) < 0) goto nomem;
        }
    }
    goto done;
nomem:
    rc = sp_fail(err, SP_ERR_NOMEM, "prompt: out of memory");
done:
    free(spelled);
    free(sym);
    free(heap);
    return rc;
}
