/*
 * tokenizer.c — text <-> token ids: the shared part (piece storage, lookup,
 * dispatch) and the character tokenizer of the bigram model.  The llama2.c
 * BPE tokenizer (tokenizer.bin) lives in bpe.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "gguf_vocab.h"

static int compare_index(const void *a, const void *b) {
    const sp_token_index *x = a, *y = b;
    int c = strcmp(x->str, y->str);
    return c ? c : (x->id > y->id) - (x->id < y->id); /* a total order */
}

int sp_tokenizer_index(sp_tokenizer *t, char *err) {
    t->sorted = malloc(sizeof(sp_token_index) * (size_t)t->vocab);
    if (!t->sorted) return sp_fail(err, SP_ERR_NOMEM, "tokenizer: out of memory");
    for (int i = 0; i < t->vocab; i++) {
        t->sorted[i].str = t->pieces[i];
        t->sorted[i].id = i;
    }
    qsort(t->sorted, (size_t)t->vocab, sizeof(sp_token_index), compare_index);
    for (int b = 0; b < 256; b++) t->byte_fallback[b] = -1;
    return SP_OK;
}

/* strcmp order between len bytes at key and a NUL-terminated piece */
static int compare_key(const char *key, int len, const char *piece) {
    for (int i = 0; i < len; i++) {
        unsigned char a = (unsigned char)key[i], b = (unsigned char)piece[i];
        if (b == 0) return 1; /* the piece is a proper prefix of the key */
        if (a != b) return a < b ? -1 : 1;
    }
    return piece[len] == 0 ? 0 : -1;
}

int sp_tokenizer_lookup(const sp_tokenizer *t, const char *str, int len) {
    if (t->gguf) return sp_vocab_token(t->gguf, str, len);
    /* binary search for the first piece equal to the key: the index is
     * sorted by (bytes, id), so with duplicate pieces the first one found
     * has the lowest id, as in a first-match scan */
    int lo = 0, hi = t->vocab;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (compare_key(str, len, t->sorted[mid].str) > 0) lo = mid + 1;
        else hi = mid;
    }
    if (lo < t->vocab && compare_key(str, len, t->sorted[lo].str) == 0)
        return t->sorted[lo].id;
    return -1;
}

/* A tokenizer of the given pieces (copied), indexed for encoding: a
 * character tokenizer (each piece 1 to 4 bytes, one character) or a label
 * one.  The two constructors below differ only in what they check. */
static sp_tokenizer *tokenizer_of_pieces(int kind, const char *const *pieces,
                                         int vocab, int boundary, char *err) {
    sp_tokenizer *t = calloc(1, sizeof *t);
    if (!t) goto nomem;
    t->kind = kind;
    t->vocab = vocab;
    t->bos = t->eos = boundary;
    size_t total = 0;
    for (int i = 0; i < vocab; i++) total += strlen(pieces[i]) + 1;
    t->storage = malloc(total ? total : 1);
    t->pieces = malloc(sizeof(char *) * (size_t)vocab);
    t->piece_len = malloc(sizeof(int) * (size_t)vocab);
    if (!t->storage || !t->pieces || !t->piece_len) goto nomem;
    char *at = t->storage;
    for (int i = 0; i < vocab; i++) {
        size_t n = strlen(pieces[i]);
        if (kind == SP_TOK_CHAR && (n == 0 || n > 4)) {
            sp_tokenizer_free(t);
            sp_fail(err, SP_ERR_FORMAT, "tokenizer: piece %d has %zu bytes "
                    "(a character piece has 1 to 4)", i, n);
            return NULL;
        }
        memcpy(at, pieces[i], n + 1);
        t->pieces[i] = at;
        t->piece_len[i] = (int)n;
        if ((int)n > t->max_token_length) t->max_token_length = (int)n;
        at += n + 1;
    }
    if (sp_tokenizer_index(t, err) != SP_OK) {
        sp_tokenizer_free(t);
        return NULL;
    }
    return t;
nomem:
    sp_tokenizer_free(t);
    sp_fail(err, SP_ERR_NOMEM, "tokenizer: out of memory");
    return NULL;
}

sp_tokenizer *sp_tokenizer_new_chars(const char *const *pieces, int vocab,
                                     int boundary, char *err) {
    return tokenizer_of_pieces(SP_TOK_CHAR, pieces, vocab, boundary, err);
}

/* A label tokenizer (the hand-made model): pieces of 1..SP_HANDMADE_MAX_LABEL
 * bytes, distinct; no begin or end token; prompts read by longest match. */
sp_tokenizer *sp_tokenizer_new_labels(const char *const *pieces, int vocab,
                                      char *err) {
    sp_tokenizer *t = tokenizer_of_pieces(SP_TOK_LABEL, pieces, vocab, -1, err);
    if (!t) return NULL;
    for (int i = 1; i < vocab; i++) {
        const sp_token_index *x = &t->sorted[i - 1], *y = &t->sorted[i];
        if (strcmp(x->str, y->str) == 0) {
            sp_fail(err, SP_ERR_ARG, "hand-made model: tokens %d and %d have "
                    "the same label \"%s\"", x->id + 1, y->id + 1, x->str);
            sp_tokenizer_free(t);
            return NULL;
        }
    }
    return t;
}

sp_tokenizer *sp_tokenizer_ids(int vocab, char *err) {
    if (vocab < 1 || vocab > 1000000) {
        sp_fail(err, SP_ERR_ARG, "tokenizer: a vocabulary of ids must have "
                "1..1000000 tokens (got %d)", vocab);
        return NULL;
    }
    char *labels = malloc((size_t)vocab * 16);
    const char **pieces = malloc(sizeof(char *) * (size_t)vocab);
    sp_tokenizer *t = NULL;
    if (labels && pieces) {
        for (int i = 0; i < vocab; i++) {
            snprintf(labels + (size_t)i * 16, 16, "<%d>", i);
            pieces[i] = labels + (size_t)i * 16;
        }
        t = sp_tokenizer_new_labels(pieces, vocab, err);
    } else {
        sp_fail(err, SP_ERR_NOMEM, "tokenizer: out of memory");
    }
    free(labels);
    free(pieces);
    if (t) {
        t->bos = vocab > 1 ? 1 : -1;
        t->eos = vocab > 2 ? 2 : -1;
    }
    return t;
}

/* A copy of a character or label tokenizer (a copied model's). */
sp_tokenizer *sp_tokenizer_copy(const sp_tokenizer *t, char *err) {
    if (t->kind == SP_TOK_LABEL)
        return sp_tokenizer_new_labels((const char *const *)t->pieces,
                                       t->vocab, err);
    return sp_tokenizer_new_chars((const char *const *)t->pieces, t->vocab,
                                  t->bos, err);
}

void sp_tokenizer_free(sp_tokenizer *t) {
    if (!t) return;
    sp_gguf_vocab_free(t->gguf);
    free(t->pieces);
    free(t->piece_len);
    free(t->scores);
    free(t->sorted);
    free(t->storage);
    free(t);
}

/* Whether two GGUF tokenizers' rules are the same (pieces apart). */
static int gguf_rules_equal(const struct sp_gguf_vocab *a,
                            const struct sp_gguf_vocab *b, int vocab) {
    if (!a || !b) return a == b;
    return a->pre == b->pre && a->add_bos == b->add_bos &&
           a->add_eos == b->add_eos &&
           a->add_space_prefix == b->add_space_prefix &&
           a->n_merges == b->n_merges && a->merge_mask == b->merge_mask &&
           memcmp(a->attr, b->attr, (size_t)vocab) == 0 &&
           (!a->merge_slots ||
            memcmp(a->merge_slots, b->merge_slots,
                   sizeof(sp_merge_slot) * (a->merge_mask + 1)) == 0);
}

int sp_tokenizers_equal(const sp_tokenizer *a, const sp_tokenizer *b) {
    if (a == b) return 1;
    if (a->kind != b->kind || a->vocab != b->vocab || a->bos != b->bos ||
        a->eos != b->eos || !gguf_rules_equal(a->gguf, b->gguf, a->vocab))
        return 0;
    for (int i = 0; i < a->vocab; i++)
        if (a->piece_len[i] != b->piece_len[i] ||
            memcmp(a->pieces[i], b->pieces[i], (size_t)a->piece_len[i]) != 0 ||
            (a->scores && b->scores && a->scores[i] != b->scores[i]))
            return 0;
    return 1;
}

int sp_tokenizer_vocab(const sp_tokenizer *t) { return t->vocab; }
sp_tok_kind sp_tokenizer_kind(const sp_tokenizer *t) { return t->kind; }
int sp_tokenizer_bos(const sp_tokenizer *t) { return t->bos; }
int sp_tokenizer_eos(const sp_tokenizer *t) { return t->eos; }

/* Byte length of the well-formed UTF-8 character at c (no overlong forms,
 * no surrogates, nothing above U+10FFFF), or 0 when the bytes there are not
 * one (a NUL ends the text, so a cut-short sequence is 0 too). */
static int utf8_char_len(const unsigned char *c) {
    int len = c[0] < 0x80 ? 1 : c[0] >= 0xc2 && c[0] <= 0xdf ? 2
            : c[0] >= 0xe0 && c[0] <= 0xef ? 3
            : c[0] >= 0xf0 && c[0] <= 0xf4 ? 4 : 0;
    for (int i = 1; i < len; i++)
        if ((c[i] & 0xc0) != 0x80) return 0;
    if ((c[0] == 0xe0 && c[1] < 0xa0) || (c[0] == 0xed && c[1] > 0x9f) ||
        (c[0] == 0xf0 && c[1] < 0x90) || (c[0] == 0xf4 && c[1] > 0x8f))
        return 0;
    return len;
}

/* The character c[0..len) as an error message shows it: as is when it is a
 * printable UTF-8 character, else escaped ('\n', '\x80'), so that the
 * message stays one line of valid text.  out holds at least 32 bytes. */
static const char *char_for_message(const char *c, int len, char *out) {
    const unsigned char *u = (const unsigned char *)c;
    int printable = len > 0 && len <= 4 && utf8_char_len(u) == len &&
                    u[0] >= 0x20 && u[0] != 0x7f &&
                    !(u[0] == 0xc2 && u[1] < 0xa0) &&  /* C1 controls */
                    !(u[0] == 0xe2 && u[1] == 0x80 &&  /* U+2028, U+2029 */
                      (u[2] == 0xa8 || u[2] == 0xa9));
    if (printable) {
        memcpy(out, c, (size_t)len);
        out[len] = '\0';
        return out;
    }
    size_t at = 0;
    for (int i = 0; i < len && i < 4; i++) {
        const char *esc = u[i] == '\n' ? "\\n" : u[i] == '\t' ? "\\t"
                        : u[i] == '\r' ? "\\r" : NULL;
        if (esc) {
            memcpy(out + at, esc, 3);
            at += 2;
        } else {
            snprintf(out + at, 5, "\\x%02x", u[i]);
            at += 4;
        }
    }
    out[at] = '\0';
    return out;
}

static int encode_chars(const sp_tokenizer *t, const char *text, int bos,
                        int eos, int *ids, int max_ids, char *err) {
    int n = 0;
    if (bos) {
        if (n >= max_ids) goto full;
        ids[n++] = t->bos;
    }
    for (const char *c = text; *c;) {
        int len = utf8_char_len((const unsigned char *)c);
        if (len == 0) {
            sp_fail(err, SP_ERR_PROMPT, "prompt: invalid UTF-8 at byte offset "
                    "%d (byte 0x%02x)", (int)(c - text), (unsigned char)*c);
            return -1;
        }
        int id = sp_tokenizer_lookup(t, c, len);
        if (id < 0) {
            char shown[32];
            sp_fail(err, SP_ERR_PROMPT, "prompt: the character '%s' (byte "
                    "offset %d) is not in the model's vocabulary",
                    char_for_message(c, len, shown), (int)(c - text));
            return -1;
        }
        if (n >= max_ids) goto full;
        ids[n++] = id;
        c += len;
    }
    if (eos) {
        if (n >= max_ids) goto full;
        ids[n++] = t->eos;
    }
    return n;
full:
    sp_fail(err, SP_ERR_PROMPT_LONG, "prompt: more than %d tokens", max_ids);
    return -1;
}

/* Longest match over the labels; BOS first when asked and the tokenizer
 * has one (a tokenizer of ids; the hand-made model's labels have none). */
static int encode_labels(const sp_tokenizer *t, const char *text, int bos,
                         int *ids, int max_ids, char *err) {
    int n = 0;
    if (bos && t->bos >= 0 && max_ids > 0) ids[n++] = t->bos;
    size_t left = strlen(text);
    for (const char *c = text; *c;) {
        int id = -1, len = t->max_token_length < (int)left
                               ? t->max_token_length : (int)left;
        while (len > 0 && (id = sp_tokenizer_lookup(t, c, len)) < 0) len--;
        if (id < 0) {
            char shown[32];
            int clen = utf8_char_len((const unsigned char *)c);
            sp_fail(err, SP_ERR_PROMPT, "prompt: no token's label matches the "
                    "text at byte offset %d ('%s')", (int)(c - text),
                    char_for_message(c, clen ? clen : 1, shown));
            return -1;
        }
        if (n >= max_ids) {
            sp_fail(err, SP_ERR_PROMPT_LONG, "prompt: more than %d tokens", max_ids);
            return -1;
        }
        ids[n++] = id;
        c += len;
        left -= (size_t)len;
    }
    return n;
}

int sp_encode(const sp_tokenizer *t, const char *text, int bos, int eos,
              int *ids, int max_ids, char *err) {
    if (t->gguf) return sp_gguf_encode(t, text, bos, eos, ids, max_ids, err);
    if (t->kind == SP_TOK_BPE)
        return sp_bpe_encode(t, text, bos, eos, ids, max_ids, err);
    if (t->kind == SP_TOK_LABEL) return encode_labels(t, text, bos, ids, max_ids, err);
    return encode_chars(t, text, bos, eos, ids, max_ids, err);
}

const char *sp_decode(const sp_tokenizer *t, int prev, int token, int *len) {
    if (token < 0 || token >= t->vocab) {
        *len = 0;
        return "";
    }
    if (t->kind == SP_TOK_BPE) return sp_bpe_decode(t, prev, token, len);
    if (t->gguf) return sp_gguf_decode(t, prev, token, len);
    *len = t->piece_len[token];
    return t->pieces[token];
}

int sp_encode_bound(const sp_tokenizer *t, size_t len) {
    /* a GGUF tokenizer: a byte of text may become 3 (a space U+2581, an
     * invalid byte U+FFFD), each of those two byte tokens, plus the
     * spaces SentencePiece puts before each stretch of text; else at most
     * one token per byte, plus BOS, a dummy prefix and EOS */
    size_t n = t->gguf ? 6 * len + 8 : len + 3;
    return n > 0x7fffffff ? 0x7fffffff : (int)n;
}

int sp_tokenizer_is_eog(const sp_tokenizer *t, int token) {
    if (token < 0 || token >= t->vocab) return 0;
    if (t->gguf) return (t->gguf->attr[token] & SP_ATTR_EOG) != 0;
    return t->kind == SP_TOK_BPE && (token == t->eos || token == t->bos);
}

int sp_tokenizer_is_text(const sp_tokenizer *t, int token) {
    if (token < 0 || token >= t->vocab) return 0;
    if (t->gguf) {
        int a = t->gguf->attr[token];
        return (a & (SP_ATTR_NORMAL | SP_ATTR_BYTE | SP_ATTR_USER_DEFINED)) &&
               !(a & (SP_ATTR_CONTROL | SP_ATTR_UNKNOWN | SP_ATTR_EOG));
    }
    if (t->kind == SP_TOK_BPE && token <= 2) return 0; /* <unk> <s> </s> */
    return token != t->bos && token != t->eos;
}
