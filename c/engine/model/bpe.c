/*
 * bpe.c — llama2.c's tokenizer.bin (the Llama 2 sentencepiece vocabulary)
 * and run.c's encode() / decode() over it.
 *
 * File layout (little-endian): int32 max_token_length, then per piece
 * float32 score, int32 byte length, the bytes (no NUL).
 *
 * Encoding is run.c's: BOS, a dummy-prefix " " for non-empty text, one
 * piece per UTF-8 character (or its bytes' "<0xXX>" pieces), then the
 * adjacent pair whose concatenation is the best-scoring piece is merged,
 * again and again (first pair on ties), then EOS.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "gguf_vocab.h"

/* ---- load ---------------------------------------------------------------- */

static int32_t read_i32(const uint8_t *p) {
    int32_t v;
    memcpy(&v, p, 4);
    return v;
}

static float read_f32(const uint8_t *p) {
    float v;
    memcpy(&v, p, 4);
    return v;
}

static int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* The byte of a piece spelled "<0xXX>" (uppercase hex), or -1. */
static int byte_piece_value(const char *s, int len) {
    if (len != 6 || memcmp(s, "<0x", 3) != 0 || s[5] != '>') return -1;
    int hi = hex_digit(s[3]), lo = hex_digit(s[4]);
    return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

/* Walks the pieces without storing them: checks every length and score and
 * counts the pieces (until the data ends when vocab <= 0) and their bytes. */
static int scan_pieces(const uint8_t *data, size_t size, int vocab,
                       int max_len, int *n_pieces, size_t *n_bytes,
                       char *err) {
    size_t at = 4, bytes = 0;
    int n = 0;
    while (vocab > 0 ? n < vocab : at < size) {
        if (size - at < 8)
            return sp_fail(err, SP_ERR_FORMAT, "tokenizer: truncated at piece "
                           "%d (byte %zu of %zu): no room for its score and "
                           "length", n, at, size);
        float score = read_f32(data + at);
        int32_t len = read_i32(data + at + 4);
        at += 8;
        if (!(score - score == 0.0f))
            return sp_fail(err, SP_ERR_FORMAT, "tokenizer: piece %d has a "
                           "score that is not finite", n);
        if (len < 1 || len > max_len)
            return sp_fail(err, SP_ERR_FORMAT, "tokenizer: piece %d has "
                           "length %d (must be in 1..%d, the file's "
                           "max_token_length)", n, (int)len, max_len);
        if ((size_t)len > size - at)
            return sp_fail(err, SP_ERR_FORMAT, "tokenizer: truncated in piece "
                           "%d: %d bytes declared, %zu left", n, (int)len,
                           size - at);
        if (memchr(data + at, 0, (size_t)len))
            return sp_fail(err, SP_ERR_FORMAT, "tokenizer: piece %d contains "
                           "a NUL byte", n);
        at += (size_t)len;
        bytes += (size_t)len;
        if (n == 1000000)
            return sp_fail(err, SP_ERR_FORMAT, "tokenizer: more than 1000000 "
                           "pieces");
        n++;
    }
    if (at != size)
        return sp_fail(err, SP_ERR_FORMAT, "tokenizer: %zu bytes of trailing "
                       "data after the %d pieces", size - at, n);
    if (n == 0)
        return sp_fail(err, SP_ERR_FORMAT, "tokenizer: the file has no "
                       "pieces");
    *n_pieces = n;
    *n_bytes = bytes;
    return SP_OK;
}

/* The number of pieces when the whole file reads as a llama2.c
 * tokenizer.bin, else -1: a tokenizer chosen where a model goes is then
 * named as what it is (model.c). */
int sp_bpe_file_pieces(const uint8_t *data, size_t size) {
    if (size < 4) return -1;
    int32_t max_len = read_i32(data);
    if (max_len < 1 || max_len > 65536) return -1;
    int n = 0;
    size_t n_bytes = 0;
    return scan_pieces(data, size, 0, max_len, &n, &n_bytes, NULL) == SP_OK
               ? n : -1;
}

sp_tokenizer *sp_tokenizer_load(const uint8_t *data, size_t size, int vocab,
                                char *err) {
    if (size >= 4 && memcmp(data, "GGUF", 4) == 0) /* a GGUF file's */
        return sp_tokenizer_load_gguf(data, size, vocab, err);
    if (size < 4) {
        sp_fail(err, SP_ERR_FORMAT, "tokenizer: file has %zu bytes, shorter "
                "than its 4-byte header", size);
        return NULL;
    }
    int32_t max_len = read_i32(data);
    if (max_len < 1 || max_len > 65536) {
        sp_fail(err, SP_ERR_FORMAT, "tokenizer: max_token_length must be in "
                "1..65536 (got %d)", (int)max_len);
        return NULL;
    }
    int n = 0;
    size_t n_bytes = 0;
    if (scan_pieces(data, size, vocab, max_len, &n, &n_bytes, err) != SP_OK) {
        /* a well-formed file of another vocabulary: say so */
        int all = 0;
        size_t all_bytes;
        if (err && vocab > 0 && scan_pieces(data, size, 0, max_len, &all,
                                     &all_bytes, NULL) == SP_OK) {
            size_t used = strlen(err);
            if (used + 2 < SP_ERR_LEN) /* the last byte holds the code */
                snprintf(err + used, SP_ERR_LEN - 1 - used, " (the file has %d "
                         "pieces, the model %d logits: not its tokenizer)",
                         all, vocab);
        }
        return NULL;
    }

    sp_tokenizer *t = calloc(1, sizeof *t);
    if (!t) goto nomem;
    t->kind = SP_TOK_BPE;
    t->vocab = n;
    t->max_token_length = max_len;
    t->bos = n > 1 ? 1 : -1;
    t->eos = n > 2 ? 2 : -1;
    t->storage = malloc(n_bytes + (size_t)n);
    t->pieces = malloc(sizeof(char *) * (size_t)n);
    t->piece_len = malloc(sizeof(int) * (size_t)n);
    t->scores = malloc(sizeof(float) * (size_t)n);
    if (!t->storage || !t->pieces || !t->piece_len || !t->scores) goto nomem;
    size_t at = 4;
    char *out = t->storage;
    for (int i = 0; i < n; i++) {
        int len = (int)read_i32(data + at + 4);
        t->scores[i] = read_f32(data + at);
        at += 8;
        memcpy(out, data + at, (size_t)len);
        out[len] = '\0';
        t->pieces[i] = out;
        t->piece_len[i] = len;
        out += len + 1;
        at += (size_t)len;
    }
    if (sp_tokenizer_index(t, err) != SP_OK) {
        sp_tokenizer_free(t);
        return NULL;
    }
    /* after indexing (which clears it): the first "<0xXX>" of each byte */
    for (int i = n - 1; i >= 0; i--) {
        int b = byte_piece_value(t->pieces[i], t->piece_len[i]);
        if (b >= 0) t->byte_fallback[b] = i;
    }
    return t;
nomem:
    sp_tokenizer_free(t);
    sp_fail(err, SP_ERR_NOMEM, "tokenizer: out of memory");
    return NULL;
}

/* ---- encode -------------------------------------------------------------- */

/* The longest prompt encode takes, in bytes (a few times that in scratch). */
#define MAX_TEXT_BYTES (1 << 24)

/* The character c[0..len) as an error message shows it: as is when it is a
 * printable, well-formed UTF-8 character, else escaped ('\n', '\xff'), so
 * that the message stays one line of valid text.  out: 32 bytes. */
static const char *char_for_message(const char *c, int len, char *out) {
    const unsigned char *u = (const unsigned char *)c;
    int need = u[0] < 0x80 ? 1 : u[0] >= 0xc2 && u[0] <= 0xdf ? 2
             : u[0] >= 0xe0 && u[0] <= 0xef ? 3
             : u[0] >= 0xf0 && u[0] <= 0xf4 ? 4 : 0;
    int ok = need == len && u[0] >= 0x20 && u[0] != 0x7f;
    for (int i = 1; ok && i < len; i++) ok = (u[i] & 0xc0) == 0x80;
    if (ok && ((u[0] == 0xe0 && u[1] < 0xa0) || (u[0] == 0xed && u[1] > 0x9f) ||
               (u[0] == 0xf0 && u[1] < 0x90) || (u[0] == 0xf4 && u[1] > 0x8f) ||
               (u[0] == 0xc2 && u[1] < 0xa0) || /* C1 controls */
               (u[0] == 0xe2 && u[1] == 0x80 && (u[2] == 0xa8 || u[2] == 0xa9))))
        ok = 0;
    if (ok) {
        memcpy(out, c, (size_t)len);
        out[len] = '\0';
        return out;
    }
    size_t at = 0;
    for (int i = 0; i < len && i < 4; i++) {
        if (u[i] == '\n' || u[i] == '\t' || u[i] == '\r') {
            out[at++] = '\\';
            out[at++] = u[i] == '\n' ? 'n' : u[i] == '\t' ? 't' : 'r';
        } else {
            snprintf(out + at, 5, "\\x%02x", u[i]);
            at += 4;
        }
    }
    out[at] = '\0';
    return out;
}

/* Appends the id of the character c[0..len) or, when it is not a piece, of
 * its bytes' "<0xXX>" pieces.  Returns -1 (with err) when neither exists. */
static int push_char(const sp_tokenizer *t, const char *c, int len,
                     const char *text, int *tokens, int *n, char *err) {
    int id = sp_tokenizer_lookup(t, c, len);
    if (id >= 0) {
        tokens[(*n)++] = id;
        return 0;
    }
    for (int i = 0; i < len; i++) {
        int b = t->byte_fallback[(unsigned char)c[i]];
        if (b < 0) {
            char shown[32];
            sp_fail(err, SP_ERR_PROMPT, "prompt: the character '%s' (byte "
                    "offset %d) is not in the model's vocabulary",
                    char_for_message(c, len, shown), (int)(c - text));
            return -1;
        }
        tokens[(*n)++] = b;
    }
    return 0;
}

/* The merge of tokens a and b: the id of their concatenation, or -1. */
static int pair_id(const sp_tokenizer *t, int a, int b, char *buf) {
    int la = t->piece_len[a], lb = t->piece_len[b];
    memcpy(buf, t->pieces[a], (size_t)la);
    memcpy(buf + la, t->pieces[b], (size_t)lb);
    return sp_tokenizer_lookup(t, buf, la + lb);
}

/* run.c merges only pairs scoring strictly above this */
#define MERGE_FLOOR -1e10f

/* A candidate merge: the pair starting at token slot `at`, whose
 * concatenation is piece `id`.  The heap holds the best first: the highest
 * score, then the leftmost slot (slots keep their order as tokens merge, so
 * the lowest slot is the leftmost pair, as run.c's scan picks on ties). */
typedef struct {
    int at, id;
} merge_item;

static int merge_before(const sp_tokenizer *t, merge_item a, merge_item b) {
    float sa = t->scores[a.id], sb = t->scores[b.id];
    return sa > sb || (sa == sb && a.at < b.at);
}

static void merge_sift_down(const sp_tokenizer *t, merge_item *h, int n,
                            int i) {
    for (;;) {
        int l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && merge_before(t, h[l], h[m])) m = l;
        if (r < n && merge_before(t, h[r], h[m])) m = r;
        if (m == i) return;
        merge_item x = h[i];
        h[i] = h[m];
        h[m] = x;
        i = m;
    }
}

static void merge_push(const sp_tokenizer *t, merge_item *h, int *n,
                       merge_item x) {
    int i = (*n)++;
    h[i] = x;
    while (i > 0) {
        int parent = (i - 1) / 2;
        if (!merge_before(t, h[i], h[parent])) break;
        merge_item y = h[i];
        h[i] = h[parent];
        h[parent] = y;
        i = parent;
    }
}

int sp_bpe_encode(const sp_tokenizer *t, const char *text, int bos, int eos,
                  int *ids, int max_ids, char *err) {
    if (!text) {
        sp_fail(err, SP_ERR_PROMPT, "prompt: no text");
        return -1;
    }
    if ((bos && t->bos < 0) || (eos && t->eos < 0)) {
        sp_fail(err, SP_ERR_PROMPT, "prompt: the tokenizer has no %s token",
                bos && t->bos < 0 ? "BOS" : "EOS");
        return -1;
    }
    size_t text_len = strlen(text);
    if (text_len > MAX_TEXT_BYTES) {
        sp_fail(err, SP_ERR_PROMPT_LONG, "prompt: %zu bytes is too long (at most %d)",
                text_len, MAX_TEXT_BYTES);
        return -1;
    }
    /* at most one token per byte, plus BOS, the dummy prefix and EOS */
    size_t cap = text_len + 3;
    /* one block per call: tokens[cap] (a slot per initial token; merged-away
     * slots are unlinked), next[cap] and prev[cap] (the linked slots, -1 at
     * the ends), pair[cap] (the merged id of the slot and its successor, or
     * -1), the heap of candidate merges (each merge adds at most two), and
     * the concatenation buffer */
    size_t heap_cap = 3 * cap;
    size_t bytes = 4 * cap * sizeof(int) + heap_cap * sizeof(merge_item) +
                   2 * (size_t)t->max_token_length;
    int *tokens = malloc(bytes);
    if (!tokens) {
        sp_fail(err, SP_ERR_NOMEM, "prompt: out of memory");
        return -1;
    }
    int *next = tokens + cap, *prev = next + cap, *pair = prev + cap;
    merge_item *heap = (merge_item *)(void *)(pair + cap);
    char *buf = (char *)(heap + heap_cap);
    int n = 0, result = -1;

    if (bos) tokens[n++] = t->bos;
    if (text[0] != '\0' && push_char(t, " ", 1, text, tokens, &n, err) < 0)
        goto done;
    /* run.c's grouping: a character is a non-continuation byte and up to
     * three continuation bytes after it */
    for (const char *c = text; *c;) {
        int len = 1;
        while (len < 4 && ((unsigned char)c[len] & 0xc0) == 0x80) len++;
        if (push_char(t, c, len, text, tokens, &n, err) < 0) goto done;
        c += len;
    }

    /* merges: each step takes the pair with the highest score (strictly
     * above run.c's -1e10 floor; the leftmost one on ties) -- what run.c's
     * scan of every pair picks, in O(n log n) instead of O(n^2) */
    int hn = 0;
    for (int i = 0; i < n; i++) { /* BOS included, as in run.c */
        prev[i] = i - 1;
        next[i] = i + 1 < n ? i + 1 : -1;
        pair[i] = next[i] >= 0 ? pair_id(t, tokens[i], tokens[i + 1], buf) : -1;
        if (pair[i] >= 0 && t->scores[pair[i]] > MERGE_FLOOR)
            heap[hn++] = (merge_item){i, pair[i]};
    }
    for (int i = hn / 2 - 1; i >= 0; i--) merge_sift_down(t, heap, hn, i);
    while (hn > 0) {
        merge_item top = heap[0];
        heap[0] = heap[--hn];
        merge_sift_down(t, heap, hn, 0);
        int i = top.at;
        /* stale: slot i was merged away (pair -1) or its pair changed */
        if (pair[i] != top.id) continue;
        int j = next[i]; /* merged into i */
        tokens[i] = top.id;
        next[i] = next[j];
        if (next[j] >= 0) prev[next[j]] = i;
        pair[j] = -1;
        pair[i] = next[i] >= 0 ? pair_id(t, tokens[i], tokens[next[i]], buf)
                               : -1;
        if (pair[i] >= 0 && t->scores[pair[i]] > MERGE_FLOOR)
            merge_push(t, heap, &hn, (merge_item){i, pair[i]});
        int p = prev[i];
        if (p >= 0) {
            pair[p] = pair_id(t, tokens[p], tokens[i], buf);
            if (pair[p] >= 0 && t->scores[pair[p]] > MERGE_FLOOR)
                merge_push(t, heap, &hn, (merge_item){p, pair[p]});
        }
    }
    /* the surviving slots, in order (slot 0 is never merged away) */
    int m = 0;
    for (int i = n > 0 ? 0 : -1; i >= 0; i = next[i]) tokens[m++] = tokens[i];
    n = m;
    if (eos) tokens[n++] = t->eos;

    if (n > max_ids) {
        sp_fail(err, SP_ERR_PROMPT_LONG, "prompt: more than %d tokens", max_ids);
        goto done;
    }
    memcpy(ids, tokens, sizeof(int) * (size_t)n);
    result = n;
done:
    free(tokens);
    return result;
}

/* ---- decode -------------------------------------------------------------- */

/* byte b at [2 * b], NUL after it: what an "<0xXX>" piece decodes to */
#define B1(b) (unsigned char)(b), 0
#define B4(b) B1(b), B1((b) + 1), B1((b) + 2), B1((b) + 3)
#define B16(b) B4(b), B4((b) + 4), B4((b) + 8), B4((b) + 12)
#define B64(b) B16(b), B16((b) + 16), B16((b) + 32), B16((b) + 48)
static const unsigned char byte_pieces[512] = {B64(0), B64(64), B64(128),
                                               B64(192)};
#undef B1
#undef B4
#undef B16
#undef B64

const char *sp_bpe_decode(const sp_tokenizer *t, int prev, int token,
                          int *len) {
    const char *piece = t->pieces[token];
    int n = t->piece_len[token];
    int b = byte_piece_value(piece, n);
    if (b >= 0) {
        *len = 1;
        return (const char *)byte_pieces + 2 * b;
    }
    if (prev >= 0 && prev == t->bos && piece[0] == ' ') {
        piece++;
        n--;
    }
    *len = n;
    return piece;
}
