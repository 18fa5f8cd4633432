/*
 * constrain_util.h — what the constrained-decoding tests (test_constrain.c,
 * test_json_mode.c) share: matching a text with the engine, with POSIX and
 * as JSON; a random model over printable ASCII; a constrained generation.
 */
#ifndef SP_CONSTRAIN_UTIL_H
#define SP_CONSTRAIN_UTIL_H

#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "internal.h"
#include "testutil.h"

static char err[SP_ERR_LEN];

static inline int rx_matches(const sp_constraint *c, const char *text) {
    sp_cstate s;
    sp_cstate_start(c, &s);
    return sp_cstate_feed(c, &s, text, (int)strlen(text)) &&
           sp_cstate_accepting(c, &s);
}

static inline int posix_matches(const char *pattern, const char *text) {
    char anchored[1200];
    snprintf(anchored, sizeof anchored, "^(%s)$", pattern);
    regex_t re;
    if (regcomp(&re, anchored, REG_EXTENDED | REG_NOSUB)) return -1;
    int m = regexec(&re, text, 0, NULL, 0) == 0;
    regfree(&re);
    return m;
}

static inline int json_complete(const sp_constraint *c, const char *text) {
    sp_cstate s;
    sp_cstate_start(c, &s);
    return sp_cstate_feed(c, &s, text, (int)strlen(text)) &&
           sp_cstate_accepting(c, &s);
}

/* A character vocabulary of every printable ASCII byte and the newline (id
 * 0, a stand-in boundary, is no character): with it a constraint's "fewest
 * tokens" is its fewest bytes. */
static inline sp_tokenizer *ascii_tokenizer(void) {
    static char text[97][2];
    const char *pieces[97];
    pieces[0] = "\x01";
    for (int i = 1; i < 97; i++) {
        text[i][0] = (char)(i < 96 ? 31 + i : '\n');
        pieces[i] = text[i];
    }
    return sp_tokenizer_new_chars(pieces, 97, 0, err);
}

/* A random model over printable ASCII (so every JSON character is a
 * token), its tokenizer and a session on them; session NULL on failure. */
typedef struct {
    sp_model *model;
    sp_tokenizer *tok;
    sp_session *session;
} ascii_run;

static inline ascii_run ascii_run_new(void) {
    size_t size;
    uint8_t *data = random_checkpoint(8, 16, 1, 2, 1, 97, 128, 5, 1.0f, -0.5f,
                                      &size);
    ascii_run r = {sp_model_load(data, size, 1, err), ascii_tokenizer(), NULL};
    if (r.model && r.tok) r.session = sp_session_new(r.model, r.tok, err);
    return r;
}

static inline void ascii_run_free(ascii_run *r) {
    sp_session_free(r->session);
    sp_tokenizer_free(r->tok);
    sp_model_free(r->model);
}

static inline int need(const sp_constraint *c, const sp_cstate *s) {
    sp_tokenizer *t = ascii_tokenizer();
    sp_cvocab *v = sp_cvocab_new(c, t, err);
    int n = sp_cvocab_need(v, s);
    sp_cvocab_free(v);
    sp_tokenizer_free(t);
    return n;
}

static inline int json_viable(const sp_constraint *c, const char *text) {
    sp_cstate s;
    sp_cstate_start(c, &s);
    return sp_cstate_feed(c, &s, text, (int)strlen(text));
}

/* generates under constraint c and returns the generated text (malloc'd) */
static inline char *generate(sp_session *s, const sp_constraint *c,
                            const char *prompt,
                      uint64_t seed, const sp_params *p, int budget, int *ok) {
    /* start, then constrain: the new text is empty, so it fits */
    *ok = sp_session_start(s, prompt, seed, err) == SP_OK &&
          sp_session_constrain(s, c, budget, err) == SP_OK;
    size_t cap = 4096, n = 0;
    char *text = malloc(cap);
    text[0] = '\0';
    const sp_tokenizer *tok = sp_session_tokenizer(s);
    for (int i = 0; *ok && i < budget && !sp_session_finished(s); i++) {
        if (sp_session_step(s, p, -1, err) != SP_OK) {
            *ok = 0;
            break;
        }
        const int *t = sp_session_tokens(s);
        int last = sp_session_n_tokens(s) - 1, len;
        if (sp_session_is_end(s, t[last])) break;
        const char *piece = sp_decode(tok, t[last - 1], t[last], &len);
        if (n + (size_t)len + 1 > cap) text = realloc(text, cap *= 2);
        memcpy(text + n, piece, (size_t)len);
        n += (size_t)len;
        text[n] = '\0';
    }
    return text;
}

#endif /* SP_CONSTRAIN_UTIL_H */
