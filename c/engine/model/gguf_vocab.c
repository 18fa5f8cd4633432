/*
 * gguf_vocab.c — a GGUF file's tokenizer built from its metadata's arrays,
 * following llama.cpp's llama_vocab::impl::load: the type and pre-tokenizer
 * by name, the token attributes from tokenizer.ggml.token_type, the special
 * token ids (defaults per type, out-of-range ones disabled), the
 * end-of-generation tokens found by their text, the special tokens matched
 * whole in a text (control, user-defined and unknown ones, longest first),
 * and what each token decodes to (llama.cpp's token_to_piece with
 * special = true).  Lookups go through two hash tables: bytes -> string id
 * (the tokens, then the strings merge rules name that are not tokens) and
 * (left, right) -> merge rank.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gguf_vocab.h"
#include "unicode.h"

/* More than any real vocabulary (Qwen2's 151 936, Gemma's 262 144). */
#define MAX_TOKENS (1 << 22)
#define MAX_MERGES (1 << 22)

void sp_gguf_vocab_spec_init(sp_gguf_vocab_spec *spec) {
    memset(spec, 0, sizeof *spec);
    for (int i = 0; i < SP_SPECIAL_COUNT; i++) spec->special[i] = -1;
    spec->add_bos = spec->add_eos = spec->add_space_prefix = -1;
}

/* ---- messages ---------------------------------------------------------------- */

/* s[0..len) as a message shows it: at most 40 characters of valid text, a
 * control byte or a byte of no character escaped ("\\n", "\\xff"). */
const char *sp_vocab_quote(const char *s, size_t len, char *out) {
    size_t n = 0, at = 0;
    for (int shown = 0; at < len && shown < 40; shown++) {
        size_t from = at;
        uint32_t cp = sp_utf8_next(s, len, &at);
        unsigned char c = (unsigned char)s[from];
        int bad = (at - from == 1 && c >= 0x80) || cp > 0x10ffff ||
                  (cp >= 0xd800 && cp <= 0xdfff) || cp < 0x20 || cp == 0x7f;
        if (!bad) {
            memcpy(out + n, s + from, at - from);
            n += at - from;
        } else if (c == '\n' || c == '\t' || c == '\r') {
            out[n++] = '\\';
            out[n++] = c == '\n' ? 'n' : c == '\t' ? 't' : 'r';
            at = from + 1;
        } else {
            n += (size_t)snprintf(out + n, 5, "\\x%02x", c);
            at = from + 1;
        }
    }
    if (at < len) {
        memcpy(out + n, "...", 3);
        n += 3;
    }
    out[n] = '\0';
    return out;
}

/* ---- the string table ---------------------------------------------------- */

static uint32_t hash_bytes(const char *s, int len) {
    uint32_t h = 2166136261u; /* FNV-1a, then a finalizer that spreads it */
    for (int i = 0; i < len; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    return h;
}

int sp_vocab_find(const struct sp_gguf_vocab *v, const char *s, int len) {
    uint32_t h = hash_bytes(s, len);
    for (uint32_t i = h & v->slot_mask;; i = (i + 1) & v->slot_mask) {
        uint64_t e = v->slots[i];
        if (!e) return -1;
        int id = (int)(uint32_t)e - 1;
        /* the hash first: most other strings differ there, unread */
        if ((uint32_t)(e >> 32) == h && v->str_len[id] == len &&
            memcmp(v->str[id], s, (size_t)len) == 0)
            return id;
    }
}

int sp_vocab_token(const struct sp_gguf_vocab *v, const char *s, int len) {
    int id = sp_vocab_find(v, s, len);
    return id < v->n_tokens ? id : -1;
}

/* Puts string id into the table (absent: the caller checked). */
static void slot_put(struct sp_gguf_vocab *v, int id) {
    uint32_t h = hash_bytes(v->str[id], v->str_len[id]);
    uint32_t i = h & v->slot_mask;
    while (v->slots[i]) i = (i + 1) & v->slot_mask;
    v->slots[i] = (uint64_t)h << 32 | (uint32_t)(id + 1);
}

/* The id of s (added past the tokens when new), or -1 out of memory.  The
 * caller keeps s alive until the table's strings are copied (intern_done). */
static int intern(struct sp_gguf_vocab *v, const char *s, int len, int *cap) {
    int id = sp_vocab_find(v, s, len);
    if (id >= 0) return id;
    if (v->n_strings == *cap) {
        int more = *cap * 2;
        const char **str = realloc(v->str, sizeof(char *) * (size_t)more);
        if (str) v->str = str;
        int *lens = realloc(v->str_len, sizeof(int) * (size_t)more);
        if (lens) v->str_len = lens;
        if (!str || !lens) return -1;
        *cap = more;
    }
    /* keep the table at most half full */
    if ((uint32_t)(v->n_strings + 1) * 2 > v->slot_mask + 1) {
        uint32_t size = (v->slot_mask + 1) * 2;
        uint64_t *slots = calloc(size, sizeof(uint64_t));
        if (!slots) return -1;
        free(v->slots);
        v->slots = slots;
        v->slot_mask = size - 1;
        for (int i = 0; i < v->n_strings; i++) slot_put(v, i);
    }
    id = v->n_strings++;
    v->str[id] = s;
    v->str_len[id] = len;
    slot_put(v, id);
    return id;
}

/* ---- the merge table ------------------------------------------------------ */

static uint32_t hash_pair(int32_t a, int32_t b) {
    uint64_t k = (uint64_t)(uint32_t)a << 32 | (uint32_t)b;
    k *= 0x9e3779b97f4a7c15ull;
    return (uint32_t)(k >> 32);
}

int sp_vocab_merge(const struct sp_gguf_vocab *v, int left, int right,
                  int *result) {
    if (!v->merge_slots || left < 0 || right < 0) return -1;
    for (uint32_t i = hash_pair(left, right) & v->merge_mask;;
         i = (i + 1) & v->merge_mask) {
        const sp_merge_slot *e = &v->merge_slots[i];
        if (e->rank < 0) return -1;
        if (e->left == left && e->right == right) {
            *result = e->result;
            return e->rank;
        }
    }
}

/* Merge rules "left right" (split at the first space after the first byte,
 * as llama.cpp does; a rule without one can never apply), the first rank of
 * a pair kept.  The strings are interned as they come; their bytes are
 * copied once all are known (extra). */
static int load_merges(sp_tokenizer *t, const sp_gguf_vocab_spec *spec,
                       char *err) {
    struct sp_gguf_vocab *v = t->gguf;
    int n = spec->n_merges, cap = v->n_strings > 16 ? v->n_strings : 16;
    uint32_t size = 2;
    while (size < (uint32_t)n * 2) size *= 2;
    v->merge_slots = malloc(sizeof(sp_merge_slot) * size);
    /* the concatenations, written as the rules are read (a rule's left and
     * right stay in the caller's strings until copied below) */
    size_t total = 0;
    for (int i = 0; i < n; i++)
        total += spec->merge_len ? spec->merge_len[i] : strlen(spec->merges[i]);
    char *joined = malloc(total ? total : 1);
    if (!v->merge_slots || !joined) goto nomem;
    for (uint32_t i = 0; i < size; i++) v->merge_slots[i].rank = -1;
    v->merge_mask = size - 1;
    char *at = joined;
    for (int i = 0; i < n; i++) {
        const char *m = spec->merges[i];
        int len = spec->merge_len ? (int)spec->merge_len[i] : (int)strlen(m);
        const char *space = len > 1 ? memchr(m + 1, ' ', (size_t)len - 1) : NULL;
        if (!space) continue;
        int ll = (int)(space - m), rl = len - ll - 1;
        memcpy(at, m, (size_t)ll);
        memcpy(at + ll, space + 1, (size_t)rl);
        int a = intern(v, m, ll, &cap), b = intern(v, space + 1, rl, &cap);
        int r = a < 0 || b < 0 ? -1 : intern(v, at, ll + rl, &cap);
        if (r < 0) goto nomem;
        at += ll + rl;
        uint32_t s = hash_pair(a, b) & v->merge_mask;
        while (v->merge_slots[s].rank >= 0 &&
               !(v->merge_slots[s].left == a && v->merge_slots[s].right == b))
            s = (s + 1) & v->merge_mask;
        if (v->merge_slots[s].rank >= 0) continue; /* the first rank wins */
        v->merge_slots[s] = (sp_merge_slot){a, b, i, r};
        v->n_merges++;
    }
    /* copy the strings past the tokens into storage of our own */
    size_t extra = 0;
    for (int i = t->vocab; i < v->n_strings; i++) extra += (size_t)v->str_len[i];
    v->extra = malloc(extra ? extra : 1);
    if (!v->extra) goto nomem;
    at = v->extra;
    for (int i = t->vocab; i < v->n_strings; i++) {
        memcpy(at, v->str[i], (size_t)v->str_len[i]);
        v->str[i] = at;
        at += v->str_len[i];
    }
    free(joined);
    return SP_OK;
nomem:
    free(joined);
    /* the strings past the tokens point into the spec: drop them */
    v->n_strings = t->vocab;
    return sp_fail(err, SP_ERR_NOMEM, "tokenizer: out of memory");
}

/* ---- building ---------------------------------------------------------------- */

static const struct {
    const char *name;
    sp_pre_kind pre;
} PRE_NAMES[] = {
    {"gpt-2", SP_PRE_GPT2},        {"llama-bpe", SP_PRE_LLAMA3},
    {"llama3", SP_PRE_LLAMA3},     {"llama-v3", SP_PRE_LLAMA3},
    {"qwen2", SP_PRE_QWEN2},       {"deepseek-r1-qwen", SP_PRE_QWEN2},
    {"smollm", SP_PRE_SMOLLM},     {NULL, SP_PRE_NONE},
};

/* The type and pre-tokenizer by name, and their defaults (llama.cpp's). */
static int choose_kind(sp_tokenizer *t, const sp_gguf_vocab_spec *spec,
                       char *err) {
    struct sp_gguf_vocab *v = t->gguf;
    int *id = v->special_id;
    for (int i = 0; i < SP_SPECIAL_COUNT; i++) id[i] = -1;
    const char *model = spec->model ? spec->model : "";
    if (strcmp(model, "llama") == 0) {
        t->kind = SP_TOK_SPM;
        id[SP_SPECIAL_BOS] = 1;
        id[SP_SPECIAL_EOS] = 2;
        id[SP_SPECIAL_UNK] = 0;
        v->add_space_prefix = 1;
        v->add_bos = 1;
        return SP_OK;
    }
    char shown[SP_VOCAB_QUOTE];
    if (strcmp(model, "gpt2") != 0)
        return sp_fail(err, SP_ERR_FORMAT, "tokenizer: the tokenizer '%s' "
                       "(tokenizer.ggml.model) is not supported: only "
                       "'llama' (SentencePiece) and 'gpt2' (byte-level BPE)",
                       sp_vocab_quote(model, strlen(model), shown));
    t->kind = SP_TOK_BYTE_BPE;
    if (!spec->pre || !spec->pre[0])
        return sp_fail(err, SP_ERR_FORMAT, "tokenizer: the file names no "
                       "pre-tokenizer (tokenizer.ggml.pre); supported: "
                       "llama-bpe, qwen2, smollm, gpt-2");
    for (int i = 0; PRE_NAMES[i].name; i++)
        if (strcmp(spec->pre, PRE_NAMES[i].name) == 0) v->pre = PRE_NAMES[i].pre;
    if (v->pre == SP_PRE_NONE)
        return sp_fail(err, SP_ERR_FORMAT, "tokenizer: pre-tokenizer %s is "
                       "not supported (supported: llama-bpe, qwen2, smollm, "
                       "gpt-2)", sp_vocab_quote(spec->pre, strlen(spec->pre),
                                                shown));
    if (!spec->merges && spec->n_merges == 0)
        return sp_fail(err, SP_ERR_FORMAT, "tokenizer: a byte-level BPE "
                       "tokenizer needs its merges (tokenizer.ggml.merges)");
    id[SP_SPECIAL_BOS] = id[SP_SPECIAL_EOS] = 11; /* llama.cpp's defaults */
    v->ignore_merges = v->add_bos = v->pre == SP_PRE_LLAMA3;
    return SP_OK;
}

/* The tokens' bytes (an empty one renamed as llama.cpp does), their ids in
 * the string table (a repeated token refused), their attributes. */
static int load_tokens(sp_tokenizer *t, const sp_gguf_vocab_spec *spec,
                       char *err) {
    struct sp_gguf_vocab *v = t->gguf;
    int n = t->vocab;
    size_t total = 0;
    for (int i = 0; i < n; i++)
        total += (spec->token_len ? spec->token_len[i] : strlen(spec->tokens[i]))
                 + 24;
    t->storage = malloc(total);
    t->pieces = malloc(sizeof(char *) * (size_t)n);
    t->piece_len = malloc(sizeof(int) * (size_t)n);
    t->scores = malloc(sizeof(float) * (size_t)n);
    v->attr = malloc((size_t)n);
    v->str = malloc(sizeof(char *) * (size_t)n);
    v->str_len = malloc(sizeof(int) * (size_t)n);
    uint32_t size = 16;
    while (size < (uint32_t)n * 2) size *= 2;
    v->slots = calloc(size, sizeof(uint64_t));
    if (!t->storage || !t->pieces || !t->piece_len || !t->scores ||
        !v->attr || !v->str || !v->str_len || !v->slots)
        return sp_fail(err, SP_ERR_NOMEM, "tokenizer: out of memory");
    v->slot_mask = size - 1;
    char *at = t->storage;
    for (int i = 0; i < n; i++) {
        size_t len = spec->token_len ? spec->token_len[i]
                                     : strlen(spec->tokens[i]);
        if (len == 0) len = (size_t)snprintf(at, 24, "[EMPTY_%d]", i);
        else memcpy(at, spec->tokens[i], len);
        if (len > (1u << 20))
            return sp_fail(err, SP_ERR_FORMAT, "tokenizer: token %d is %zu "
                           "bytes long", i, len);
        at[len] = '\0';
        t->pieces[i] = at;
        t->piece_len[i] = (int)len;
        if ((int)len > t->max_token_length) t->max_token_length = (int)len;
        at += len + 1;
        int seen = sp_vocab_find(v, t->pieces[i], (int)len);
        char shown[SP_VOCAB_QUOTE];
        if (seen >= 0)
            return sp_fail(err, SP_ERR_FORMAT, "tokenizer: duplicate token "
                           "in the vocabulary: '%s' has ids %d and %d",
                           sp_vocab_quote(t->pieces[i], len, shown), seen, i);
        v->str[i] = t->pieces[i];
        v->str_len[i] = (int)len;
        v->n_strings = i + 1;
        slot_put(v, i);
        float score = spec->scores ? spec->scores[i] : 0.0f;
        if (score != score)
            return sp_fail(err, SP_ERR_FORMAT, "tokenizer: token %d's score "
                           "is not a number", i);
        t->scores[i] = score;
        static const uint8_t of_type[7] = {
            0, SP_ATTR_NORMAL, SP_ATTR_UNKNOWN, SP_ATTR_CONTROL,
            SP_ATTR_USER_DEFINED, SP_ATTR_UNUSED, SP_ATTR_BYTE};
        int32_t type = spec->types ? spec->types[i] : SP_TT_NORMAL;
        v->attr[i] = type >= 0 && type <= 6 ? of_type[type] : 0;
    }
    v->max_len = t->max_token_length;
    return SP_OK;
}

/* Special token ids: the file's when in range (else the default stays, as
 * in llama.cpp), defaults out of range disabled; then whether texts begin
 * and end with BOS and EOS. */
static int choose_specials(sp_tokenizer *t, const sp_gguf_vocab_spec *spec,
                           char *err) {
    struct sp_gguf_vocab *v = t->gguf;
    for (int i = 0; i < SP_SPECIAL_COUNT; i++) {
        if (v->special_id[i] >= t->vocab) v->special_id[i] = -1;
        if (spec->special[i] >= 0 && spec->special[i] < t->vocab)
            v->special_id[i] = (int)spec->special[i];
    }
    if (spec->add_space_prefix >= 0) v->add_space_prefix = spec->add_space_prefix;
    if (spec->add_bos >= 0) v->add_bos = spec->add_bos;
    if (spec->add_eos >= 0) v->add_eos = spec->add_eos;
    t->bos = v->special_id[SP_SPECIAL_BOS];
    t->eos = v->special_id[SP_SPECIAL_EOS];
    if (v->add_bos && t->bos < 0)
        return sp_fail(err, SP_ERR_FORMAT, "tokenizer: "
                       "tokenizer.ggml.add_bos_token is true, but "
                       "tokenizer.ggml.bos_token_id is not set");
    if (v->add_eos && t->eos < 0)
        return sp_fail(err, SP_ERR_FORMAT, "tokenizer: "
                       "tokenizer.ggml.add_eos_token is true, but "
                       "tokenizer.ggml.eos_token_id is not set");
    return SP_OK;
}

/* Each byte's token: SentencePiece "<0xXX>" (else the byte itself, as
 * llama.cpp's byte_to_token tries next); byte-level BPE the string id of
 * GPT-2's character for it. */
static void find_byte_tokens(sp_tokenizer *t) {
    struct sp_gguf_vocab *v = t->gguf;
    for (int b = 0; b < 256; b++) {
        char s[8];
        int id;
        if (t->kind == SP_TOK_SPM) {
            static const char hex[] = "0123456789ABCDEF";
            char name[6] = {'<', '0', 'x', hex[b >> 4], hex[b & 15], '>'};
            id = sp_vocab_token(v, name, 6);
            if (id < 0) {
                s[0] = (char)b;
                id = sp_vocab_token(v, s, 1);
            }
        } else {
            id = sp_vocab_find(v, s, sp_bytebpe_char(b, s));
        }
        v->byte_token[b] = id;
        t->byte_fallback[b] = id < t->vocab ? id : -1;
    }
}

sp_tokenizer *sp_tokenizer_new_gguf(const sp_gguf_vocab_spec *spec,
                                    char *err) {
    if (spec->n_tokens < 1 || spec->n_tokens > MAX_TOKENS || !spec->tokens) {
        sp_fail(err, SP_ERR_FORMAT, "tokenizer: %d tokens (must be 1 to %d)",
                spec->n_tokens, MAX_TOKENS);
        return NULL;
    }
    if (spec->n_merges < 0 || spec->n_merges > MAX_MERGES ||
        (spec->n_merges > 0 && !spec->merges)) {
        sp_fail(err, SP_ERR_FORMAT, "tokenizer: %d merges (at most %d)",
                spec->n_merges, MAX_MERGES);
        return NULL;
    }
    sp_tokenizer *t = calloc(1, sizeof *t);
    struct sp_gguf_vocab *v = calloc(1, sizeof *v);
    if (!t || !v) {
        free(t);
        free(v);
        sp_fail(err, SP_ERR_NOMEM, "tokenizer: out of memory");
        return NULL;
    }
    t->gguf = v;
    t->vocab = v->n_tokens = spec->n_tokens;
    if (choose_kind(t, spec, err) != SP_OK ||
        load_tokens(t, spec, err) != SP_OK ||
        choose_specials(t, spec, err) != SP_OK)
        goto fail;
    sp_gguf_find_specials(v);
    if (sp_gguf_collect_specials(t, err) != SP_OK) goto fail;
    if (t->kind == SP_TOK_BYTE_BPE && load_merges(t, spec, err) != SP_OK)
        goto fail;
    find_byte_tokens(t);
    if (sp_gguf_build_decoded(t, err) != SP_OK) goto fail;
    if (spec->chat_template) {
        size_t n = spec->chat_template_len ? spec->chat_template_len
                                           : strlen(spec->chat_template);
        v->chat_template = malloc(n + 1);
        if (!v->chat_template) {
            sp_fail(err, SP_ERR_NOMEM, "tokenizer: out of memory");
            goto fail;
        }
        memcpy(v->chat_template, spec->chat_template, n);
        v->chat_template[n] = '\0';
        v->chat = sp_chat_detect(v->chat_template);
    }
    return t;
fail:
    sp_tokenizer_free(t);
    return NULL;
}

void sp_gguf_vocab_free(struct sp_gguf_vocab *v) {
    if (!v) return;
    free(v->attr);
    free(v->str);
    free(v->str_len);
    free(v->extra);
    free(v->slots);
    free(v->merge_slots);
    free(v->specials);
    free(v->decoded);
    free(v->dec_off);
    free(v->dec_len);
    free(v->chat_template);
    free(v);
}
