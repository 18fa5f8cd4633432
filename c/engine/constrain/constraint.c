/*
 * constraint.c — one interface over the two kinds of constraint (regex.c,
 * json.c): where the generated text leaves one (sp_cstate), and whether it
 * is complete or could grow.
 *
 * Constrained decoding: for each step the session asks, for every token,
 * whether feeding its bytes to a copy of the current state keeps a match
 * possible, and whether the vocabulary can complete it within the steps
 * left (vocab.c).  Tokens that fail are masked (cut stage "constraint").
 * The end-of-text token is allowed only where the text so far is complete;
 * when it is complete and nothing but whitespace could follow, the text
 * ends.
 */
#include <stdlib.h>
#include <string.h>

#include "constraint.h"

void sp_constraint_free(sp_constraint *c) {
    if (!c) return;
    free(c->next);
    free(c->accept);
    free(c->dist);
    free(c->live);
    free(c);
}

void sp_cstate_start(const sp_constraint *c, sp_cstate *s) {
    if (c->kind == SP_CONSTRAINT_JSON) {
        sp_json_start(s);
        return;
    }
    memset(s, 0, sizeof *s); /* the DFA's start state is 0 */
}

void sp_cstate_start_after(const sp_constraint *c, sp_cstate *s,
                           const char *text, int len) {
    if (c->kind == SP_CONSTRAINT_JSON)
        sp_json_start_after(c, s, text, len);
    else
        sp_cstate_start(c, s); /* a pattern matches the new text alone */
}

void sp_cstate_start_prompt(const sp_constraint *c, sp_cstate *s,
                            const sp_tokenizer *t, const int *tokens, int n) {
    char *text = NULL;
    int len = 0;
    if (c->kind == SP_CONSTRAINT_JSON && n > 0) {
        size_t cap = 0;
        for (int i = 0; i < n; i++) {
            int l;
            sp_decode(t, i > 0 ? tokens[i - 1] : -1, tokens[i], &l);
            cap += (size_t)l;
        }
        text = malloc(cap + 1);
        for (int i = 0; text && i < n; i++) {
            int l;
            const char *piece = sp_decode(t, i > 0 ? tokens[i - 1] : -1, tokens[i], &l);
            if (!sp_tokenizer_is_text(t, tokens[i])) continue; /* <s> */
            memcpy(text + len, piece, (size_t)l);
            len += l;
        }
    }
    sp_cstate_start_after(c, s, text ? text : "", text ? len : 0);
    free(text);
}

int sp_cstate_feed(const sp_constraint *c, sp_cstate *s, const char *bytes,
                   int len) {
    for (int i = 0; i < len; i++) {
        int b = (unsigned char)bytes[i];
        if (c->kind == SP_CONSTRAINT_REGEX) {
            int to = c->next[s->mode * 256 + b];
            if (to < 0 || c->dist[to] >= SP_UNREACHABLE) return 0;
            s->mode = to;
        } else if (!sp_json_feed(c, s, b)) {
            return 0;
        }
    }
    return 1;
}

int sp_cstate_accepting(const sp_constraint *c, const sp_cstate *s) {
    return c->kind == SP_CONSTRAINT_REGEX ? c->accept[s->mode]
                                          : sp_json_accepting(s);
}

int sp_cstate_can_extend(const sp_constraint *c, const sp_cstate *s) {
    return c->kind == SP_CONSTRAINT_REGEX ? c->live[s->mode]
                                          : sp_json_can_extend(s);
}

const char *sp_constraint_describe(const sp_constraint *c) {
    return c->pattern;
}
