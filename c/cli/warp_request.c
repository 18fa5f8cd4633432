/*
 * warp_request.c — reads the one JSON document the CLI accepts: the `warp`
 * command's request,
 *
 *   {"logits": [2, 1, 0, "-inf"], "history": [0, 2]}
 *
 * "logits" (required) holds numbers; a masked token may be written "-inf"
 * (JSON has no infinities) or null.  "history" (optional) holds token ids,
 * and "dry_breakers" (optional) token ids that end a repeat for DRY (one
 * token each: a request has no tokenizer to make longer ones).  Words, not
 * ids, as ids (a request has no tokenizer): "bad_words_ids" (Hugging
 * Face's name) a list of token sequences, [[5, 9], [3]], and
 * "sequence_bias" a list of [sequence, value] pairs, [[[5, 9], -2.5]] (HF's
 * list form).
 * Anything else is an error with its byte offset: the request is small and
 * strictness catches typos ("histroy") that leniency would hide.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sampler.h"

#include "warp_request.h"

#define JSON_MAX_ITEMS 1000000 /* the largest vocabulary the engine takes */

typedef struct {
    const char *text;
    size_t len, at;
    char *err;
} reader;

static int fail_at(reader *r, const char *what) {
    return sp_fail(r->err, SP_ERR_FORMAT, "request: %s at byte %zu", what,
                   r->at);
}

static void skip_ws(reader *r) {
    while (r->at < r->len && (r->text[r->at] == ' ' || r->text[r->at] == '\n' ||
                              r->text[r->at] == '\r' || r->text[r->at] == '\t'))
        r->at++;
}

static int peek(reader *r) {
    skip_ws(r);
    return r->at < r->len ? (unsigned char)r->text[r->at] : -1;
}

static int expect(reader *r, char c) {
    if (peek(r) != (unsigned char)c) {
        char what[32];
        snprintf(what, sizeof what, "expected '%c'", c);
        return fail_at(r, what);
    }
    r->at++;
    return SP_OK;
}

/* A string without escapes (keys and "-inf" need none); copied into out. */
static int read_string(reader *r, char *out, size_t cap) {
    if (expect(r, '"') != SP_OK) return SP_ERR_FORMAT;
    size_t n = 0;
    while (r->at < r->len && r->text[r->at] != '"') {
        if (r->text[r->at] == '\\' || n + 1 >= cap)
            return fail_at(r, "unexpected string");
        out[n++] = r->text[r->at++];
    }
    if (r->at >= r->len) return fail_at(r, "unterminated string");
    r->at++;
    out[n] = '\0';
    return SP_OK;
}

static int read_number(reader *r, double *out) {
    skip_ws(r);
    /* JSON's number grammar: -?int frac? exp? */
    size_t start = r->at, i = r->at;
    if (i < r->len && r->text[i] == '-') i++;
    size_t digits = i;
    while (i < r->len && r->text[i] >= '0' && r->text[i] <= '9') i++;
    if (i == digits) return fail_at(r, "expected a number");
    if (i < r->len && r->text[i] == '.') {
        size_t frac = ++i;
        while (i < r->len && r->text[i] >= '0' && r->text[i] <= '9') i++;
        if (i == frac) return fail_at(r, "bad number");
    }
    if (i < r->len && (r->text[i] == 'e' || r->text[i] == 'E')) {
        i++;
        if (i < r->len && (r->text[i] == '+' || r->text[i] == '-')) i++;
        size_t exp = i;
        while (i < r->len && r->text[i] >= '0' && r->text[i] <= '9') i++;
        if (i == exp) return fail_at(r, "bad number");
    }
    char buf[64];
    if (i - start >= sizeof buf) return fail_at(r, "number too long");
    memcpy(buf, r->text + start, i - start);
    buf[i - start] = '\0';
    *out = strtod(buf, NULL);
    r->at = i;
    return SP_OK;
}

static int literal(reader *r, const char *word) {
    size_t n = strlen(word);
    if (r->len - r->at >= n && memcmp(r->text + r->at, word, n) == 0) {
        r->at += n;
        return 1;
    }
    return 0;
}

/* Reads an array of numbers; masked (1: accept "-inf" and null as -inf). */
static int read_array(reader *r, const char *name, int masked, float **out,
                      int *count) {
    if (expect(r, '[') != SP_OK) return SP_ERR_FORMAT;
    int n = 0, cap = 64;
    float *items = malloc(sizeof(float) * (size_t)cap);
    if (!items) return sp_fail(r->err, SP_ERR_NOMEM, "request: out of memory");
    if (peek(r) == ']') {
        r->at++;
    } else {
        for (;;) {
            float value;
            int c = peek(r);
            if (masked && c == '"') {
                char word[16];
                if (read_string(r, word, sizeof word) != SP_OK) goto fail;
                if (strcmp(word, "-inf") && strcmp(word, "-Infinity")) {
                    fail_at(r, "the only string allowed here is \"-inf\"");
                    goto fail;
                }
                value = -INFINITY;
            } else if (masked && c == 'n' && literal(r, "null")) {
                value = -INFINITY;
            } else {
                double d = 0.0;
                if (read_number(r, &d) != SP_OK) goto fail;
                value = (float)d;
                if (!(value - value == 0.0f)) {
                    char what[96];
                    snprintf(what, sizeof what, "%s[%d] is out of float "
                             "range", name, n);
                    fail_at(r, what);
                    goto fail;
                }
            }
            if (n == JSON_MAX_ITEMS) {
                fail_at(r, "more than 1000000 items");
                goto fail;
            }
            if (n == cap) {
                cap *= 2;
                float *more = realloc(items, sizeof(float) * (size_t)cap);
                if (!more) {
                    sp_fail(r->err, SP_ERR_NOMEM, "request: out of memory");
                    goto fail;
                }
                items = more;
            }
            items[n++] = value;
            c = peek(r);
            if (c == ',') {
                r->at++;
            } else if (c == ']') {
                r->at++;
                break;
            } else {
                fail_at(r, "expected ',' or ']'");
                goto fail;
            }
        }
    }
    *out = items;
    *count = n;
    return SP_OK;
fail:
    free(items);
    return SP_ERR_FORMAT;
}

/* [ids...] as one word: bad (value -inf) or a sequence bias of value. */
static int read_word(reader *r, const char *name, int i, int bad,
                     float value, sp_params *params) {
    float *items = NULL;
    int n = 0;
    if (read_array(r, name, 0, &items, &n) != SP_OK) return SP_ERR_FORMAT;
    int ids[SP_MAX_WORD_LEN], rc = SP_OK;
    if (n < 1 || n > SP_MAX_WORD_LEN) {
        char what[96];
        snprintf(what, sizeof what, "%s[%d] has %d tokens (1..%d)", name, i,
                 n, SP_MAX_WORD_LEN);
        rc = fail_at(r, what);
    }
    for (int k = 0; rc == SP_OK && k < n; k++) {
        ids[k] = (int)items[k];
        if (!(items[k] >= 0.0f && items[k] < 2147483648.0f) ||
            items[k] != (float)ids[k]) {
            char what[96];
            snprintf(what, sizeof what, "%s[%d][%d] = %.9g is not a token id",
                     name, i, k, (double)items[k]);
            rc = fail_at(r, what);
        }
    }
    free(items);
    if (rc != SP_OK) return rc;
    return bad ? sp_params_add_bad_word(params, ids, n, r->err)
               : sp_params_add_sequence_bias(params, ids, n, value, r->err);
}

/* "bad_words_ids": [[ids], ...] or "sequence_bias": [[[ids], value], ...] */
static int read_words(reader *r, int bad, sp_params *params) {
    const char *name = bad ? "bad_words_ids" : "sequence_bias";
    if (expect(r, '[') != SP_OK) return SP_ERR_FORMAT;
    if (peek(r) == ']') {
        r->at++;
        return SP_OK;
    }
    for (int i = 0;; i++) {
        int rc;
        if (bad) {
            rc = read_word(r, name, i, 1, 0.0f, params);
        } else {
            /* [ids..., value] read as [[ids], value]: the value first */
            if (expect(r, '[') != SP_OK) return SP_ERR_FORMAT;
            size_t at = r->at;
            /* skip the sequence to read the value, then come back */
            float *skip = NULL;
            int n_skip = 0;
            rc = read_array(r, name, 0, &skip, &n_skip);
            free(skip);
            double value = 0.0;
            if (rc == SP_OK) rc = expect(r, ',');
            if (rc == SP_OK) rc = read_number(r, &value);
            if (rc == SP_OK && !((float)value - (float)value == 0.0f))
                rc = fail_at(r, "a sequence bias's value out of float range");
            if (rc == SP_OK) rc = expect(r, ']');
            size_t end = r->at;
            if (rc == SP_OK) {
                r->at = at;
                rc = read_word(r, name, i, 0, (float)value, params);
                r->at = end;
            }
        }
        if (rc != SP_OK) return rc;
        int c = peek(r);
        if (c == ',') {
            r->at++;
        } else if (c == ']') {
            r->at++;
            return SP_OK;
        } else {
            return fail_at(r, "expected ',' or ']'");
        }
    }
}

int sp_parse_warp_request(const char *text, size_t len, float **logits,
                          int *n_logits, int **history, int *n_history,
                          sp_params *params, char *err) {
    return sp_parse_warp_request_cfg(text, len, logits, n_logits, history,
                                     n_history, NULL, params, err);
}

int sp_parse_warp_request_cfg(const char *text, size_t len, float **logits,
                              int *n_logits, int **history, int *n_history,
                              float **uncond, sp_params *params, char *err) {
    reader r = {text, len, 0, err};
    float *lg = NULL, *hist = NULL, *breakers = NULL, *ul = NULL;
    int nl = 0, nh = 0, nb = 0, nu = 0, have_logits = 0, have_history = 0;
    int have_uncond = 0;
    int have_breakers = 0, have_bad = 0, have_seq = 0;
    int rc = expect(&r, '{');
    if (rc == SP_OK && peek(&r) == '}') {
        r.at++;
    } else {
        while (rc == SP_OK) {
            char key[32];
            rc = read_string(&r, key, sizeof key);
            if (rc == SP_OK) rc = expect(&r, ':');
            if (rc != SP_OK) break;
            if (strcmp(key, "logits") == 0 && !have_logits) {
                rc = read_array(&r, "logits", 1, &lg, &nl);
                have_logits = 1;
            } else if (strcmp(key, "uncond_logits") == 0 && uncond &&
                       !have_uncond) {
                rc = read_array(&r, "uncond_logits", 1, &ul, &nu);
                have_uncond = 1;
            } else if (strcmp(key, "history") == 0 && !have_history) {
                rc = read_array(&r, "history", 0, &hist, &nh);
                have_history = 1;
            } else if (strcmp(key, "dry_breakers") == 0 && !have_breakers) {
                rc = read_array(&r, "dry_breakers", 0, &breakers, &nb);
                have_breakers = 1;
            } else if (strcmp(key, "bad_words_ids") == 0 && !have_bad) {
                rc = read_words(&r, 1, params);
                have_bad = 1;
            } else if (strcmp(key, "sequence_bias") == 0 && !have_seq) {
                rc = read_words(&r, 0, params);
                have_seq = 1;
            } else {
                /* the key as printable ASCII (\xNN otherwise): one line */
                char shown[4 * sizeof key], what[180];
                size_t k = 0;
                for (const char *c = key; *c; c++) {
                    unsigned char u = (unsigned char)*c;
                    if (u >= 0x20 && u < 0x7f) shown[k++] = (char)u;
                    else k += (size_t)snprintf(shown + k, 5, "\\x%02x", u);
                }
                shown[k] = '\0';
                snprintf(what, sizeof what, "unknown or repeated key \"%s\"",
                         shown);
                rc = fail_at(&r, what);
            }
            if (rc != SP_OK) break;
            int c = peek(&r);
            if (c == ',') {
                r.at++;
            } else if (c == '}') {
                r.at++;
                break;
            } else {
                rc = fail_at(&r, "expected ',' or '}'");
            }
        }
    }
    if (rc == SP_OK && peek(&r) != -1)
        rc = fail_at(&r, "unexpected text after the object");
    if (rc == SP_OK && (!have_logits || nl == 0))
        rc = sp_fail(err, SP_ERR_FORMAT, "request: \"logits\" is missing or "
                     "empty");
    if (rc == SP_OK && have_uncond && nu != nl)
        rc = sp_fail(err, SP_ERR_FORMAT, "request: \"uncond_logits\" has %d "
                     "entries, \"logits\" %d: one per token of the same "
                     "vocabulary", nu, nl);
    int *ids = NULL;
    if (rc == SP_OK && nh > 0) {
        ids = malloc(sizeof(int) * (size_t)nh);
        if (!ids) rc = sp_fail(err, SP_ERR_NOMEM, "request: out of memory");
        for (int i = 0; rc == SP_OK && i < nh; i++) {
            if (!(hist[i] >= 0.0f && hist[i] < (float)nl) ||
                hist[i] != (float)(int)hist[i])
                rc = sp_fail(err, SP_ERR_FORMAT, "request: history[%d] = %.9g "
                             "is not a token id in 0..%d", i,
                             (double)hist[i], nl - 1);
            else
                ids[i] = (int)hist[i];
        }
    }
    free(hist);
    /* each breaker one token id; the engine checks it with the rest */
    for (int i = 0; rc == SP_OK && i < nb; i++) {
        int id = (int)breakers[i];
        if (breakers[i] != (float)id)
            rc = sp_fail(err, SP_ERR_FORMAT, "request: dry_breakers[%d] = "
                         "%.9g is not a token id", i, (double)breakers[i]);
        else
            rc = sp_params_add_dry_breaker(params, &id, 1, err);
    }
    free(breakers);
    if (rc != SP_OK) {
        free(lg);
        free(ids);
        free(ul);
        return rc;
    }
    if (uncond) *uncond = ul;
    *logits = lg;
    *n_logits = nl;
    *history = ids;
    *n_history = nh;
    return SP_OK;
}
