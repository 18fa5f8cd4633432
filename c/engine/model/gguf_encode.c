/*
 * gguf_encode.c — text <-> ids for a GGUF tokenizer, as llama.cpp's
 * llama_vocab::impl::tokenize (with parse_special) and token_to_piece do it.
 *
 * Encoding: the special tokens are found first, whole, in the raw text --
 * each one in turn, longest first, at every place it occurs in the text not
 * yet taken -- and the stretches of plain text between them go through the
 * model's algorithm: SentencePiece (spm.c) with spaces as U+2581 and, when
 * the file asks for it (add_space_prefix), a space before each stretch
 * that begins the text or follows a special token; byte-level BPE (pretok.c
 * then bytebpe.c) word by word.  BOS first and EOS last when the file adds
 * them (add_bos_token, add_eos_token) and the caller asks for them.
 */
#include <stdlib.h>
#include <string.h>

#include "gguf_vocab.h"
#include "unicode.h"

int sp_idlist_push(sp_idlist *l, int id) {
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 64;
        int *ids = realloc(l->ids, sizeof(int) * (size_t)cap);
        if (!ids) return -1;
        l->ids = ids;
        l->cap = cap;
    }
    l->ids[l->n++] = id;
    return 0;
}

/* ---- special tokens ------------------------------------------------------- */

/* A piece of the text: plain bytes [at, at + len), or a special token. */
typedef struct {
    size_t at, len;
    int token; /* -1: plain text */
} fragment;

/* The first place at or after `from` where s[0..n) lies wholly inside
 * text[from..end), or end. */
static size_t find(const char *text, size_t from, size_t end, const char *s,
                   size_t n) {
    while (from + n <= end) {
        const char *p = memchr(text + from, s[0], end - from - n + 1);
        if (!p) return end;
        size_t at = (size_t)(p - text);
        if (memcmp(p, s, n) == 0) return at;
        from = at + 1;
    }
    return end;
}

/* The text cut at every special token (llama.cpp's tokenizer_st_partition,
 * with parse_special: control, user-defined and unknown tokens alike):
 * *out (malloc'd) and its count, or -1 out of memory. */
static int partition(const sp_tokenizer *t, const char *text, size_t len,
                     fragment **out) {
    const struct sp_gguf_vocab *v = t->gguf;
    /* each special match adds at most two fragments; a match takes a byte */
    size_t cap = 2 * len + 2;
    fragment *cur = malloc(sizeof(fragment) * cap);
    fragment *next = malloc(sizeof(fragment) * cap);
    if (!cur || !next) {
        free(cur);
        free(next);
        return -1;
    }
    int n = 0;
    if (len) cur[n++] = (fragment){0, len, -1};
    for (int k = 0; k < v->n_specials && n > 0; k++) {
        int id = v->specials[k];
        const char *s = t->pieces[id];
        size_t sn = (size_t)t->piece_len[id];
        int m = 0;
        for (int f = 0; f < n; f++) {
            if (cur[f].token >= 0) {
                next[m++] = cur[f];
                continue;
            }
            size_t at = cur[f].at, end = at + cur[f].len;
            for (;;) {
                size_t hit = find(text, at, end, s, sn);
                if (hit == end) break;
                if (hit > at) next[m++] = (fragment){at, hit - at, -1};
                next[m++] = (fragment){hit, sn, id};
                at = hit + sn;
            }
            if (at < end) next[m++] = (fragment){at, end - at, -1};
        }
        fragment *swap = cur;
        cur = next;
        next = swap;
        n = m;
    }
    free(next);
    *out = cur;
    return n;
}

/* ---- encoding ------------------------------------------------------------------ */

/* SentencePiece: one stretch, spaces escaped, maybe a space before it */
static int encode_spm_text(const sp_tokenizer *t, const char *text,
                           size_t len, int prefix, sp_idlist *out,
                           char *err) {
    char *esc = malloc(3 * (len + 1));
    if (!esc) return sp_fail(err, SP_ERR_NOMEM, "prompt: out of memory");
    size_t n = 0;
    for (size_t i = 0; i < len + (size_t)prefix; i++) {
        char c = i < (size_t)prefix ? ' ' : text[i - (size_t)prefix];
        if (c == ' ') {
            memcpy(esc + n, "\xe2\x96\x81", 3);
            n += 3;
        } else {
            esc[n++] = c;
        }
    }
    int rc = sp_spm_encode(t, esc, n, out, err);
    free(esc);
    return rc;
}

/* byte-level BPE: one stretch, word by word */
static int encode_bpe_text(const sp_tokenizer *t, const char *text,
                           size_t len, size_t offset, sp_idlist *out,
                           char *err) {
    char *words;
    size_t *starts, bad;
    int n = sp_pretokenize(t->gguf->pre, text, len, &words, &starts, &bad);
    if (n == -2)
        return sp_fail(err, SP_ERR_PROMPT, "prompt: invalid UTF-8 at byte offset "
                       "%zu (a code point past U+10FFFF)", offset + bad);
    if (n < 0) return sp_fail(err, SP_ERR_NOMEM, "prompt: out of memory");
    int rc = SP_OK;
    for (int i = 0; i < n && rc == SP_OK; i++)
        rc = sp_bytebpe_encode_word(t, words + starts[i],
                                    starts[i + 1] - starts[i], out, err);
    free(words);
    free(starts);
    return rc;
}

/* The longest prompt, in bytes (the scratch is a few times that). */
#define MAX_TEXT_BYTES (1 << 24)

int sp_gguf_encode(const sp_tokenizer *t, const char *text, int bos,
                   int eos, int *ids, int max_ids, char *err) {
    const struct sp_gguf_vocab *v = t->gguf;
    if (!text) return sp_fail(err, SP_ERR_PROMPT, "prompt: no text"), -1;
    size_t len = strlen(text);
    if (len > MAX_TEXT_BYTES) {
        sp_fail(err, SP_ERR_PROMPT_LONG, "prompt: %zu bytes is too long (at most %d)",
                len, MAX_TEXT_BYTES);
        return -1;
    }
    fragment *frag;
    int n_frag = partition(t, text, len, &frag);
    if (n_frag < 0) {
        sp_fail(err, SP_ERR_NOMEM, "prompt: out of memory");
        return -1;
    }
    sp_idlist out = {NULL, 0, 0};
    int rc = SP_OK, after_special = 1; /* the text's start counts as one */
    if (bos && v->add_bos && sp_idlist_push(&out, t->bos) < 0) goto nomem;
    for (int f = 0; f < n_frag && rc == SP_OK; f++) {
        if (frag[f].token >= 0) {
            if (sp_idlist_push(&out, frag[f].token) < 0) goto nomem;
            after_special = 1;
        } else if (t->kind == SP_TOK_SPM) {
            rc = encode_spm_text(t, text + frag[f].at, frag[f].len,
                                 v->add_space_prefix && after_special, &out,
                                 err);
            after_special = 0;
        } else {
            rc = encode_bpe_text(t, text + frag[f].at, frag[f].len,
                                 frag[f].at, &out, err);
        }
    }
    if (rc == SP_OK && eos && v->add_eos && sp_idlist_push(&out, t->eos) < 0)
        goto nomem;
    if (rc == SP_OK && out.n > max_ids)
        rc = sp_fail(err, SP_ERR_PROMPT_LONG, "prompt: more than %d tokens", max_ids);
    if (rc == SP_OK && out.n) memcpy(ids, out.ids, sizeof(int) * (size_t)out.n);
    free(frag);
    free(out.ids);
    return rc == SP_OK ? out.n : -1;
nomem:
    free(frag);
    free(out.ids);
    sp_fail(err, SP_ERR_NOMEM, "prompt: out of memory");
    return -1;
}

const char *sp_gguf_decode(const sp_tokenizer *t, int prev, int token,
                           int *len) {
    const struct sp_gguf_vocab *v = t->gguf;
    const char *s = v->decoded + v->dec_off[token];
    int n = v->dec_len[token];
    /* the space SentencePiece puts before a text is not the text's: drop
     * it from the first token after BOS (as llama2.c's decode does) */
    if (t->kind == SP_TOK_SPM && v->add_space_prefix && prev >= 0 &&
        prev == t->bos && n > 0 && s[0] == ' ' &&
        (v->attr[token] & SP_ATTR_NORMAL) &&
        !(v->attr[token] & (SP_ATTR_CONTROL | SP_ATTR_USER_DEFINED |
                            SP_ATTR_UNKNOWN))) {
        s++;
        n--;
    }
    *len = n;
    return s;
}

/* ---- decoding ---------------------------------------------------------------- */

typedef struct {
    char *p;
    size_t n, cap;
} growbuf;

static int put(growbuf *b, const char *s, size_t n) {
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (b->n + n > cap) cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p) return -1;
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    return 0;
}

static int hex_value(char c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* What token id decodes to, appended to b (llama.cpp's token_to_piece with
 * special = true): special tokens as spelled; a normal one with U+2581 read
 * as a space (SentencePiece) or each character read back as the byte it
 * stands for (byte-level BPE; one that stands for none is shown as
 * llama.cpp shows it, "[UNK_BYTE_0x..]"); a byte token as its byte
 * ("<0xXX>"); anything else (unused, undefined) as nothing. */
static int decode_piece(const sp_tokenizer *t, int id, growbuf *b) {
    const struct sp_gguf_vocab *v = t->gguf;
    const char *s = t->pieces[id];
    size_t n = (size_t)t->piece_len[id];
    int a = v->attr[id];
    if (a & (SP_ATTR_UNKNOWN | SP_ATTR_CONTROL | SP_ATTR_USER_DEFINED))
        return put(b, s, n);
    if (a & SP_ATTR_NORMAL) {
        if (t->kind == SP_TOK_SPM) {
            for (size_t i = 0; i < n; i++) {
                int space = i + 2 < n && memcmp(s + i, "\xe2\x96\x81", 3) == 0;
                if (put(b, space ? " " : s + i, 1) < 0) return -1;
                if (space) i += 2;
            }
            return 0;
        }
        for (size_t at = 0; at < n;) {
            size_t from = at;
            uint32_t cp = sp_utf8_next(s, n, &at);
            int byte = sp_bytebpe_byte(cp);
            if (byte >= 0) {
                char c = (char)byte;
                if (put(b, &c, 1) < 0) return -1;
                continue;
            }
            char utf8[4], hex[16];
            int k = sp_utf8_put(cp, utf8);
            if (!k) { /* llama.cpp cannot write it: the bytes as they were */
                k = (int)(at - from);
                memcpy(utf8, s + from, (size_t)k);
            }
            if (put(b, "[UNK_BYTE_0x", 12) < 0) return -1;
            for (int i = 0; i < k; i++) {
                static const char digits[] = "0123456789abcdef";
                hex[2 * i] = digits[(unsigned char)utf8[i] >> 4];
                hex[2 * i + 1] = digits[(unsigned char)utf8[i] & 15];
            }
            if (put(b, hex, (size_t)(2 * k)) < 0 || put(b, s, n) < 0 ||
                put(b, "]", 1) < 0)
                return -1;
        }
        return 0;
    }
    if (a & SP_ATTR_BYTE) {
        /* llama.cpp: strtol of the two characters after "<0x" */
        int byte = 0;
        for (size_t i = 3; i < 5 && i < n && hex_value(s[i]) >= 0; i++)
            byte = byte * 16 + hex_value(s[i]);
        char c = (char)byte;
        return put(b, &c, 1);
    }
    return 0;
}

int sp_gguf_build_decoded(sp_tokenizer *t, char *err) {
    struct sp_gguf_vocab *v = t->gguf;
    growbuf b = {NULL, 0, 0};
    v->dec_off = malloc(sizeof(int) * (size_t)t->vocab);
    v->dec_len = malloc(sizeof(int) * (size_t)t->vocab);
    if (!v->dec_off || !v->dec_len) goto nomem;
    for (int i = 0; i < t->vocab; i++) {
        size_t from = b.n;
        if (decode_piece(t, i, &b) < 0 || b.n > (size_t)1 << 30) goto nomem;
        v->dec_off[i] = (int)from;
        v->dec_len[i] = (int)(b.n - from);
    }
    if (put(&b, "", 1) < 0) goto nomem; /* never an empty block */
    v->decoded = b.p;
    return SP_OK;
nomem:
    free(b.p);
    return sp_fail(err, SP_ERR_NOMEM, "tokenizer: out of memory");
}

