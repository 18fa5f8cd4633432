/*
 * data.c — a text as training data: its documents, its vocabulary, the
 * two token streams (training and held out) and the tokenizer.bin image.
 *
 * The text is UTF-8.  A line ends at "\n", "\r\n" or a lone "\r"; each
 * line with a character other than spaces and tabs is one document,
 * encoded as llama2.c's run.c encodes a prompt with BOS: <s>, the
 * dummy-prefix space, then its characters (so a prompt typed later reads
 * as the text did, and the model learns to end a line with <s>, where the
 * engine stops).  Documents are concatenated into a stream; every
 * holdout-th one (index % holdout == holdout - 1) goes to the held-out
 * stream instead.
 *
 * The character vocabulary is the shipped transformer's
 * (models/MODELS.md): <unk>, <s>, </s>, newline, the printable ASCII
 * characters in byte order (every one, used or not: any ASCII prompt
 * encodes to real pieces), then each other character the text uses, in
 * code point order.  An ASCII text gets models/transformer_tokenizer.bin
 * byte for byte.  Scores are 0 and no two characters make a piece, so
 * run.c's merges never fire: encoding is one piece per character, which
 * is how the streams are made here (and sp_encode agrees: the tests).
 * Or a given tokenizer.bin encodes each line with sp_encode.
 */
#include <stdlib.h>
#include <string.h>

#include "train/train.h"

#define N_SPECIAL 3   /* <unk> <s> </s> */
#define ID_BOS 1
#define N_BASE 99     /* the specials, "\n", printable ASCII */
#define ID_SPACE 4
#define MAX_CODE 0x110000

/* ---- UTF-8 ---------------------------------------------------------------- */

/* The code point at s[0..n) and its length in *len, or -1 when the bytes
 * there are no well-formed character (a lone continuation, an overlong
 * form, a surrogate, past U+10FFFF, cut short). */
static int32_t utf8_next(const uint8_t *s, size_t n, int *len) {
    uint8_t b = s[0];
    int k = b < 0x80 ? 1 : b >= 0xc2 && b <= 0xdf ? 2
          : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
    if (!k || (size_t)k > n) return -1;
    for (int i = 1; i < k; i++)
        if ((s[i] & 0xc0) != 0x80) return -1;
    if (k > 1 && ((b == 0xe0 && s[1] < 0xa0) || (b == 0xed && s[1] > 0x9f) ||
                  (b == 0xf0 && s[1] < 0x90) || (b == 0xf4 && s[1] > 0x8f)))
        return -1;
    int32_t c = k == 1 ? b : b & (0x7f >> k);
    for (int i = 1; i < k; i++) c = c << 6 | (s[i] & 0x3f);
    *len = k;
    return c;
}

/* Every byte of the text checked: SP_OK, or why it is no text. */
static int check_text(const uint8_t *text, size_t len, char *err) {
    if (len > SP_TRAIN_MAX_TEXT)
        return sp_fail(err, SP_ERR_ARG, "train: the text has %zu bytes, more "
                       "than the trainer's %d MiB", len,
                       SP_TRAIN_MAX_TEXT >> 20);
    for (size_t at = 0; at < len;) {
        if (text[at] == 0)
            return sp_fail(err, SP_ERR_FORMAT, "train: a NUL byte at offset "
                           "%zu: this is a binary file, not text", at);
        int k;
        if (utf8_next(text + at, len - at, &k) < 0)
            return sp_fail(err, SP_ERR_FORMAT, "train: the text is not UTF-8 "
                           "(byte 0x%02x at offset %zu): a binary file? save "
                           "it as UTF-8 text", text[at], at);
        at += (size_t)k;
    }
    return SP_OK;
}

/* ---- lines ---------------------------------------------------------------- */

/* The next line at or after *at: its bytes [*start, *end), *at moved past
 * its end; 0 when the text is done.  Blank lines (spaces and tabs only)
 * are passed over. */
static int next_line(const uint8_t *text, size_t len, size_t *at,
                     size_t *start, size_t *end) {
    while (*at < len) {
        size_t s = *at, e = s;
        int blank = 1;
        while (e < len && text[e] != '\n' && text[e] != '\r') {
            if (text[e] != ' ' && text[e] != '\t') blank = 0;
            e++;
        }
        *at = e;
        if (*at < len && text[*at] == '\r') (*at)++;   /* "\r", "\r\n" */
        if (*at < len && text[*at] == '\n' && (*at == e || text[e] == '\r'))
            (*at)++;                                     /* "\n", "\r\n" */
        if (!blank) {
            *start = s;
            *end = e;
            return 1;
        }
    }
    return 0;
}

static int held_out(const sp_train_config *c, int doc) {
    return c->holdout > 0 && doc % c->holdout == c->holdout - 1;
}

/* ---- the character vocabulary ------------------------------------------- */

typedef struct {
    int32_t *extra;  /* the characters past the base set, ascending */
    int n_extra;
} chars;

/* The vocabulary's characters: the base set and the text's others.
 * *vocab gets the vocabulary's size. */
static int collect_chars(const uint8_t *text, size_t len, chars *ch,
                         int *vocab, char *err) {
    uint8_t *seen = calloc(MAX_CODE / 8, 1);
    if (!seen) return sp_fail(err, SP_ERR_NOMEM, "train: out of memory");
    size_t at = 0, s, e;
    while (next_line(text, len, &at, &s, &e)) {
        for (size_t i = s; i < e;) {
            int k;
            int32_t c = utf8_next(text + i, e - i, &k);
            seen[c >> 3] |= (uint8_t)(1u << (c & 7));
            i += (size_t)k;
        }
    }
    int n = 0;
    for (int32_t c = 0; c < MAX_CODE; c++)
        if ((seen[c >> 3] >> (c & 7) & 1) && c != '\n' && (c < 32 || c > 126))
            n++;
    if (N_BASE + n > SP_TRAIN_MAX_VOCAB) {
        free(seen);
        return sp_fail(err, SP_ERR_ARG, "train: the text uses %d different "
                       "characters; a character vocabulary holds at most %d "
                       "(give a tokenizer, or a text with fewer characters)",
                       n + N_BASE - 4, SP_TRAIN_MAX_VOCAB - 4);
    }
    ch->extra = malloc(sizeof(int32_t) * (size_t)(n ? n : 1));
    if (!ch->extra) {
        free(seen);
        return sp_fail(err, SP_ERR_NOMEM, "train: out of memory");
    }
    ch->n_extra = 0;
    for (int32_t c = 0; c < MAX_CODE; c++)
        if ((seen[c >> 3] >> (c & 7) & 1) && c != '\n' && (c < 32 || c > 126))
            ch->extra[ch->n_extra++] = c;
    free(seen);
    *vocab = N_BASE + n;
    return SP_OK;
}

/* A character's id in the vocabulary. */
static int char_id(const chars *ch, int32_t c) {
    if (c == '\n') return N_SPECIAL;
    if (c >= 32 && c <= 126) return c - 28; /* " " is 4 ... "~" is 98 */
    int lo = 0, hi = ch->n_extra - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (ch->extra[mid] == c) return N_BASE + mid;
        if (ch->extra[mid] < c) lo = mid + 1;
        else hi = mid - 1;
    }
    return 0; /* not reached: every character was collected */
}

/* The UTF-8 bytes of code point c into out (4 bytes): their count. */
static int utf8_put(int32_t c, uint8_t *out) {
    if (c < 0x80) { out[0] = (uint8_t)c; return 1; }
    if (c < 0x800) {
        out[0] = (uint8_t)(0xc0 | c >> 6);
        out[1] = (uint8_t)(0x80 | (c & 0x3f));
        return 2;
    }
    if (c < 0x10000) {
        out[0] = (uint8_t)(0xe0 | c >> 12);
        out[1] = (uint8_t)(0x80 | (c >> 6 & 0x3f));
        out[2] = (uint8_t)(0x80 | (c & 0x3f));
        return 3;
    }
    out[0] = (uint8_t)(0xf0 | c >> 18);
    out[1] = (uint8_t)(0x80 | (c >> 12 & 0x3f));
    out[2] = (uint8_t)(0x80 | (c >> 6 & 0x3f));
    out[3] = (uint8_t)(0x80 | (c & 0x3f));
    return 4;
}

/* The character vocabulary as a llama2.c tokenizer.bin: int32
 * max_token_length, then each piece's float score (0), int32 length and
 * bytes. */
static uint8_t *char_tokenizer_file(const chars *ch, size_t *size) {
    static const char *const base_special[N_SPECIAL] = {"<unk>", "<s>", "</s>"};
    int vocab = N_BASE + ch->n_extra;
    size_t bytes = 4 + 8 * (size_t)vocab + 12 + (size_t)(N_BASE - 3) +
                   4 * (size_t)ch->n_extra;
    uint8_t *out = malloc(bytes), *p = out + 4;
    if (!out) return NULL;
    int32_t max_len = 5; /* "<unk>" */
    memcpy(out, &max_len, 4);
    for (int id = 0; id < vocab; id++) {
        uint8_t piece[8];
        int n;
        if (id < N_SPECIAL) {
            n = (int)strlen(base_special[id]);
            memcpy(piece, base_special[id], (size_t)n);
        } else if (id == N_SPECIAL) {
            piece[0] = '\n';
            n = 1;
        } else if (id < N_BASE) {
            piece[0] = (uint8_t)(id + 28);
            n = 1;
        } else {
            n = utf8_put(ch->extra[id - N_BASE], piece);
        }
        float score = 0.0f;
        int32_t len = n;
        memcpy(p, &score, 4);
        memcpy(p + 4, &len, 4);
        memcpy(p + 8, piece, (size_t)n);
        p += 8 + n;
    }
    *size = (size_t)(p - out);
    return out;
}

/* ---- the streams -------------------------------------------------------- */

/* The ids of the line text[s..e) into ids (at most e - s + 2 of them):
 * BOS, the dummy prefix, one per character.  Their count. */
static size_t encode_chars(const chars *ch, const uint8_t *text, size_t s,
                           size_t e, uint16_t *ids) {
    size_t n = 0;
    ids[n++] = ID_BOS;
    ids[n++] = ID_SPACE;
    for (size_t i = s; i < e;) {
        int k;
        int32_t c = utf8_next(text + i, e - i, &k);
        ids[n++] = (uint16_t)char_id(ch, c);
        i += (size_t)k;
    }
    return n;
}

/* A line encoded by a given tokenizer (sp_encode, with BOS) into *ids
 * (grown as needed, with *str beside it): its count, or -1 and a message
 * naming the line. */
static int encode_given(const sp_tokenizer *tok, const uint8_t *text,
                        size_t s, size_t e, int line, int **ids, char **str,
                        size_t *cap, char *err) {
    size_t need = (e - s) + 8; /* a token per byte at most, BOS, prefix */
    if (need > *cap) {
        free(*ids);
        free(*str);
        *ids = malloc(sizeof(int) * need);
        *str = malloc(need);
        *cap = *ids && *str ? need : 0;
        if (!*cap) {
            sp_fail(err, SP_ERR_NOMEM, "train: out of memory");
            return -1;
        }
    }
    memcpy(*str, text + s, e - s);
    (*str)[e - s] = '\0';
    char why[SP_ERR_LEN];
    int n = sp_encode(tok, *str, 1, 0, *ids, (int)*cap, why);
    if (n < 0) sp_fail(err, SP_ERR_ARG, "train: line %d: %s", line, why);
    return n;
}

/* What the streams hold, counted (out) and, when t is given, written. */
typedef struct {
    const uint8_t *text;
    size_t len;
    const sp_train_config *c;
    const chars *ch;          /* the character vocabulary, or */
    const sp_tokenizer *tok;  /* the given tokenizer */
} source;

static int make_streams(const source *src, sp_train_plan *plan, sp_train *t,
                        char *err) {
    size_t at = 0, s, e, n_side[2] = {0, 0}, cap = 0;
    int docs[2] = {0, 0}, line = 0, *ids = NULL, rc = SP_OK;
    char *str = NULL;
    uint16_t *out[2] = {t ? t->train_ids : NULL, t ? t->held_ids : NULL};
    while (next_line(src->text, src->len, &at, &s, &e)) {
        int side = held_out(src->c, docs[0] + docs[1]);
        size_t n;
        line++;
        if (src->ch && out[side]) {
            n = encode_chars(src->ch, src->text, s, e, out[side] + n_side[side]);
        } else if (src->ch) { /* counted: BOS, the prefix, the characters */
            n = 2;
            for (size_t i = s; i < e; i++) n += (src->text[i] & 0xc0) != 0x80;
        } else {
            int k = encode_given(src->tok, src->text, s, e, line, &ids, &str,
                                 &cap, err);
            if (k < 0) {
                rc = SP_ERR_ARG;
                break;
            }
            n = (size_t)k;
            for (size_t i = 0; out[side] && i < n; i++)
                out[side][n_side[side] + i] = (uint16_t)ids[i];
        }
        n_side[side] += n;
        docs[side]++;
    }
    free(ids);
    free(str);
    if (rc != SP_OK) return rc;
    plan->documents = docs[0] + docs[1];
    plan->heldout_documents = docs[1];
    plan->train_tokens = (double)n_side[0];
    plan->heldout_tokens = (double)n_side[1];
    if (t) {
        t->n_train = n_side[0];
        t->n_held = n_side[1];
    }
    return SP_OK;
}

/* ---- the whole -------------------------------------------------------- */

static int given_tokenizer(const uint8_t *tok, size_t tok_len,
                           sp_tokenizer **out, char *err) {
    char why[SP_ERR_LEN];
    sp_tokenizer *t = sp_tokenizer_load(tok, tok_len, 0, why);
    if (!t)
        return sp_fail(err, SP_ERR_FORMAT, "train: the tokenizer: %s", why);
    if (sp_tokenizer_kind(t) != SP_TOK_BPE || sp_tokenizer_bos(t) != ID_BOS) {
        sp_tokenizer_free(t);
        return sp_fail(err, SP_ERR_FORMAT, "train: the tokenizer must be a "
                       "llama2.c tokenizer.bin (BOS 1)");
    }
    if (sp_tokenizer_vocab(t) > 65535) {
        int v = sp_tokenizer_vocab(t);
        sp_tokenizer_free(t);
        return sp_fail(err, SP_ERR_ARG, "train: the tokenizer has %d tokens; "
                       "the trainer takes at most 65535", v);
    }
    *out = t;
    return SP_OK;
}

int sp_tr_read_text(const uint8_t *text, size_t len, const uint8_t *tok,
                    size_t tok_len, const sp_train_config *c,
                    sp_train_plan *plan, sp_train *t, char *err) {
    int rc = check_text(text, len, err);
    if (rc != SP_OK) return rc;
    chars ch = {NULL, 0};
    sp_tokenizer *given = NULL;
    rc = tok ? given_tokenizer(tok, tok_len, &given, err)
             : collect_chars(text, len, &ch, &plan->vocab, err);
    if (rc != SP_OK) return rc;
    if (given) plan->vocab = sp_tokenizer_vocab(given);
    source src = {text, len, c, tok ? NULL : &ch, given};
    rc = make_streams(&src, plan, NULL, err);
    if (rc == SP_OK && plan->documents == 0)
        rc = sp_fail(err, SP_ERR_ARG, "train: the text is empty: no line with "
                     "a character to learn from");
    if (rc == SP_OK && plan->train_tokens < c->context + 1.0)
        rc = sp_fail(err, SP_ERR_ARG, "train: the text makes %.0f tokens to "
                     "train on (%d lines), and a window needs context + 1 = "
                     "%d: give a longer text or a shorter context",
                     plan->train_tokens,
                     plan->documents - plan->heldout_documents,
                     c->context + 1);
    if (rc == SP_OK && t) {
        t->train_ids = malloc(sizeof(uint16_t) * (size_t)plan->train_tokens);
        t->held_ids = malloc(sizeof(uint16_t) *
                             (size_t)(plan->heldout_tokens + 1));
        if (tok) {
            t->tok_file = malloc(tok_len);
            if (t->tok_file) memcpy(t->tok_file, tok, tok_len);
            t->tok_size = tok_len;
        } else {
            t->tok_file = char_tokenizer_file(&ch, &t->tok_size);
            t->char_vocab = 1;
        }
        if (!t->train_ids || !t->held_ids || !t->tok_file)
            rc = sp_fail(err, SP_ERR_NOMEM, "train: out of memory");
        else
            rc = make_streams(&src, plan, t, err);
    }
    free(ch.extra);
    sp_tokenizer_free(given);
    return rc;
}
