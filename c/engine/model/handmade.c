/*
 * handmade.c — the hand-made model: a list of tokens (labels) with logits,
 * the same distribution at every step.  A lesson's worked example ("logits
 * 2, 1, 0 at T = 0.5") is one of these; the penalties still see the history,
 * so a repetition penalty still bends it step by step.
 *
 * It is made from a spec, the one syntax the CLI (--model), the page's link
 * (model=) and the element's attribute (model="...") share:
 *
 *   logits:2,1,0            three tokens labelled a, b, c
 *   logits:yes=2,no=1,maybe=0
 *   probs:0.5,0.2,0.15,0.08,0.05,0.02   probabilities: logit = ln p
 *                                       (0 masks; they need not sum to 1,
 *                                       the softmax normalizes them)
 *
 * Values are numbers as strtod reads them, or -inf (a masked token).  Labels
 * are 1..SP_HANDMADE_MAX_LABEL bytes of UTF-8 without ',' '=' or control
 * characters, distinct; without labels the tokens are a, b, c, ... (t0, t1,
 * ... past 26).  The labels are the vocabulary: a prompt is read by longest
 * match (sp_tokenizer_new_labels), and there is no begin or end token, so a
 * generation may start from nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct sp_handmade {
    int vocab;
    float *logits; /* [vocab] */
};

static int is_space(char c) { return c == ' ' || c == '\t'; }

/* Reads one value: a finite number or -inf; 0 when it is neither. */
static int read_value(const char *s, size_t len, double *out) {
    char buf[64];
    while (len && is_space(*s)) s++, len--;
    while (len && is_space(s[len - 1])) len--;
    if (len == 0 || len >= sizeof buf) return 0;
    memcpy(buf, s, len);
    buf[len] = '\0';
    if (!strcmp(buf, "-inf") || !strcmp(buf, "-Infinity")) {
        *out = -INFINITY;
        return 1;
    }
    char *end;
    double v = strtod(buf, &end);
    if (*end || !(v - v == 0.0)) return 0; /* junk, nan, inf */
    *out = v;
    return 1;
}

/* Whether s[0..len) is a label: UTF-8 without separators or controls. */
static int label_ok(const char *s, size_t len) {
    if (len == 0 || len > SP_HANDMADE_MAX_LABEL) return 0;
    for (size_t i = 0; i < len;) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c == 0x7f || c == ',' || c == '=') return 0;
        size_t n = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2
                 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
        if (n == 0 || i + n > len) return 0;
        for (size_t k = 1; k < n; k++)
            if (((unsigned char)s[i + k] & 0xc0) != 0x80) return 0;
        i += n;
    }
    return 1;
}

sp_model *sp_model_handmade(const char *spec, char *err) {
    int probs;
    if (!strncmp(spec, "logits:", 7)) probs = 0;
    else if (!strncmp(spec, "probs:", 6)) probs = 1;
    else {
        sp_fail(err, SP_ERR_ARG, "hand-made model: the spec starts with "
                "\"logits:\" or \"probs:\" (e.g. logits:2,1,0)");
        return NULL;
    }
    const char *list = spec + (probs ? 6 : 7);
    /* count the entries first */
    int n = 1;
    for (const char *c = list; *c; c++) n += *c == ',';
    if (n < 2 || n > SP_HANDMADE_MAX) {
        sp_fail(err, SP_ERR_ARG, "hand-made model: %d token%s; give 2 to %d",
                n, n == 1 ? "" : "s", SP_HANDMADE_MAX);
        return NULL;
    }
    sp_model *m = calloc(1, sizeof *m);
    sp_handmade *h = calloc(1, sizeof *h);
    float *logits = malloc(sizeof(float) * (size_t)n);
    char *labels = calloc((size_t)n, SP_HANDMADE_MAX_LABEL + 1);
    const char **pieces = malloc(sizeof(char *) * (size_t)n);
    int rc = SP_OK, labelled = -1, finite = 0;
    if (!m || !h || !logits || !labels || !pieces) {
        rc = sp_fail(err, SP_ERR_NOMEM, "hand-made model: out of memory");
        goto done;
    }
    const char *at = list;
    for (int i = 0; i < n; i++) {
        const char *end = strchr(at, ',');
        size_t len = end ? (size_t)(end - at) : strlen(at);
        const char *eq = memchr(at, '=', len);
        char *label = labels + (size_t)i * (SP_HANDMADE_MAX_LABEL + 1);
        if (labelled >= 0 && labelled != (eq != NULL)) {
            rc = sp_fail(err, SP_ERR_ARG, "hand-made model: entry %d %s a "
                         "label and entry 1 %s; label all of them or none",
                         i + 1, eq ? "has" : "has no", eq ? "has none" : "has");
            goto done;
        }
        labelled = eq != NULL;
        const char *value = at;
        size_t value_len = len;
        if (eq) {
            const char *l = at;
            size_t llen = (size_t)(eq - at);
            while (llen && is_space(*l)) l++, llen--;
            while (llen && is_space(l[llen - 1])) llen--;
            if (!label_ok(l, llen)) {
                rc = sp_fail(err, SP_ERR_ARG, "hand-made model: the label of "
                             "entry %d is not 1 to %d bytes of text without "
                             "',' '=' or control characters", i + 1,
                             SP_HANDMADE_MAX_LABEL);
                goto done;
            }
            memcpy(label, l, llen);
            value = eq + 1;
            value_len = len - (size_t)(eq - at) - 1;
        } else if (n <= 26) {
            label[0] = (char)('a' + i);
        } else {
            snprintf(label, SP_HANDMADE_MAX_LABEL + 1, "t%d", i);
        }
        pieces[i] = label;
        double v;
        if (!read_value(value, value_len, &v)) {
            rc = sp_fail(err, SP_ERR_ARG, "hand-made model: entry %d (\"%.*s\")"
                         " is not a number", i + 1,
                         (int)(value_len > 40 ? 40 : value_len), value);
            goto done;
        }
        if (probs) {
            if (!(v >= 0 && v <= 1)) {
                rc = sp_fail(err, SP_ERR_ARG, "hand-made model: probability "
                             "%d is %g; a probability is in [0, 1]", i + 1, v);
                goto done;
            }
            v = v > 0 ? sp_log(v) : -INFINITY;
        } else if (v > 1e4 || (v < -1e4 && v > -INFINITY)) {
            rc = sp_fail(err, SP_ERR_ARG, "hand-made model: logit %d is %g; "
                         "give logits in [-10000, 10000] (or -inf)", i + 1, v);
            goto done;
        }
        logits[i] = (float)v;
        finite += v > -INFINITY;
        at = end ? end + 1 : at + len;
    }
    if (!finite) {
        rc = sp_fail(err, SP_ERR_ARG, "hand-made model: every token is masked "
                     "(-inf or probability 0); keep at least one");
        goto done;
    }
    m->tokenizer = sp_tokenizer_new_labels(pieces, n, err);
    if (!m->tokenizer) {
        rc = SP_ERR_ARG;
        goto done;
    }
done:
    free(labels);
    free(pieces);
    if (rc != SP_OK) {
        if (m) sp_tokenizer_free(m->tokenizer);
        free(m);
        free(h);
        free(logits);
        return NULL;
    }
    h->vocab = n;
    h->logits = logits;
    m->kind = SP_MODEL_HANDMADE;
    m->vocab = n;
    m->seq_len = 0;
    m->handmade = h;
    return m;
}

void sp_handmade_free(sp_handmade *h) {
    if (!h) return;
    free(h->logits);
    free(h);
}

float *sp_handmade_forward(const sp_handmade *h, float *out) {
    memcpy(out, h->logits, (size_t)h->vocab * sizeof(float));
    return out;
}

float *sp_handmade_logits(sp_handmade *h) { return h->logits; }

sp_handmade *sp_handmade_copy(const sp_handmade *h) {
    sp_handmade *c = calloc(1, sizeof *c);
    float *logits = malloc(sizeof(float) * (size_t)h->vocab);
    if (!c || !logits) {
        free(c);
        free(logits);
        return NULL;
    }
    memcpy(logits, h->logits, sizeof(float) * (size_t)h->vocab);
    c->vocab = h->vocab;
    c->logits = logits;
    return c;
}
