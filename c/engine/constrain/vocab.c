/*
 * vocab.c — a constraint as one vocabulary can meet it (sp_cvocab).
 */
#include <stdlib.h>
#include <string.h>

#include "constraint.h"

/* What "fewest bytes to a match" means for a model that can only write its
 * own tokens.  A regex gets, per DFA state, the fewest *tokens* to a match
 * (shortest paths over the states the vocabulary's tokens lead to); JSON
 * gets the bytes some token spells alone, and completes a document only
 * with those. */
struct sp_cvocab {
    const sp_constraint *c;
    int *tok_dist;     /* regex: per state, SP_UNREACHABLE if none */
    uint8_t avail[256]; /* bytes that are a token on their own */
};

void sp_cvocab_free(sp_cvocab *v) {
    if (!v) return;
    free(v->tok_dist);
    free(v);
}

sp_cvocab *sp_cvocab_new(const sp_constraint *c, const sp_tokenizer *t,
                         char *err) {
    sp_cvocab *v = calloc(1, sizeof *v);
    if (!v) goto nomem;
    v->c = c;
    int vocab = sp_tokenizer_vocab(t);
    for (int id = 0; id < vocab; id++) {
        if (!sp_tokenizer_is_text(t, id)) continue; /* <s> </s> <unk> */
        int len;
        const char *piece = sp_decode(t, -1, id, &len);
        if (len == 1) v->avail[(unsigned char)piece[0]] = 1;
    }
    if (c->kind != SP_CONSTRAINT_REGEX) return v;
    int n = c->n_states;
    if ((long long)n * vocab > 20000000) {
        /* too much work for one search: bytes stand in for tokens, which
         * is exact when every byte is a token (byte-fallback vocabularies) */
        v->tok_dist = malloc(sizeof(int) * (size_t)n);
        if (!v->tok_dist) goto nomem;
        memcpy(v->tok_dist, c->dist, sizeof(int) * (size_t)n);
        return v;
    }
    /* regex: the distinct successors of every state under the tokens,
     * then a backward breadth-first search from the accepting states */
    int *succ_start = calloc((size_t)n + 1, sizeof(int));
    int *succ = NULL, n_succ = 0, cap = 0;
    int *mark = malloc(sizeof(int) * (size_t)n);
    v->tok_dist = malloc(sizeof(int) * (size_t)n);
    if (!succ_start || !mark || !v->tok_dist) goto fail;
    for (int s = 0; s < n; s++) mark[s] = -1;
    for (int s = 0; s < n; s++) {
        succ_start[s] = n_succ;
        for (int id = 0; id < vocab; id++) {
            if (!sp_tokenizer_is_text(t, id)) continue;
            int len;
            const char *piece = sp_decode(t, -1, id, &len);
            int to = s;
            for (int i = 0; i < len && to >= 0; i++) {
                to = c->next[to * 256 + (unsigned char)piece[i]];
                if (to >= 0 && c->dist[to] >= SP_UNREACHABLE) to = -1;
            }
            if (len == 0 || to < 0 || mark[to] == s) continue;
            mark[to] = s;
            if (n_succ == cap) {
                cap = cap ? cap * 2 : 1024;
                int *more = realloc(succ, sizeof(int) * (size_t)cap);
                if (!more) goto fail;
                succ = more;
            }
            succ[n_succ++] = to;
        }
    }
    succ_start[n] = n_succ;
    /* relax: tok_dist[s] = 1 + min tok_dist[successor]; by BFS layers */
    for (int s = 0; s < n; s++) v->tok_dist[s] = c->accept[s] ? 0 : SP_UNREACHABLE;
    /* sweep the edges until no state improves (Bellman-Ford on unit edges;
     * each sweep is linear in the distinct edges) */
    for (int changed = 1; changed;) {
        changed = 0;
        for (int s = 0; s < n; s++)
            for (int e = succ_start[s]; e < succ_start[s + 1]; e++) {
                int d = v->tok_dist[succ[e]];
                if (d < SP_UNREACHABLE && d + 1 < v->tok_dist[s]) {
                    v->tok_dist[s] = d + 1;
                    changed = 1;
                }
            }
    }
    free(succ_start);
    free(succ);
    free(mark);
    return v;
fail:
    free(succ_start);
    free(succ);
    free(mark);
nomem:
    sp_cvocab_free(v);
    sp_fail(err, SP_ERR_NOMEM, "constraint: out of memory");
    return NULL;
}

int sp_cvocab_need(const sp_cvocab *v, const sp_cstate *s) {
    int need = v->c->kind == SP_CONSTRAINT_REGEX ? v->tok_dist[s->mode]
                                                 : sp_json_need(v->c, v->avail, s);
    return need >= SP_UNREACHABLE ? -1 : need;
}

int sp_cvocab_open(const sp_constraint *c, const sp_tokenizer *t, int budget,
                   sp_cvocab **out, char *err) {
    *out = NULL;
    sp_cvocab *cv = sp_cvocab_new(c, t, err);
    if (!cv) return SP_ERR_NOMEM;
    sp_cstate start;
    sp_cstate_start(c, &start);
    int need = sp_cvocab_need(cv, &start);
    if (need < 0) {
        sp_cvocab_free(cv);
        /* unsatisfiable, not a bad argument: the constraint is well formed
         * and the page says so in its own words (error.unsatisfiable) */
        return sp_fail(err, SP_ERR_UNSATISFIABLE, "constraint: no text this "
                       "model's vocabulary can write matches it");
    }
    if (budget > 0 && need > budget) {
        sp_cvocab_free(cv);
        return sp_fail(err, SP_ERR_ARG, "constraint: a match needs at least "
                       "%d tokens but only %d steps are allowed", need,
                       budget);
    }
    *out = cv;
    return SP_OK;
}

int sp_cvocab_mask(const sp_cvocab *v, const sp_tokenizer *t,
                   const sp_cstate *at, int prev, int remaining, int end_a,
                   int end_b, int vocab, uint8_t *allowed) {
    const sp_constraint *c = v->c;
    int accepting = sp_cstate_accepting(c, at);
    int tok_vocab = sp_tokenizer_vocab(t), n = 0;
    for (int id = 0; id < vocab; id++) {
        int ok = 0;
        if (id == end_a || id == end_b || sp_tokenizer_is_eog(t, id)) {
            ok = accepting;
        } else if (id < tok_vocab && remaining > 0 &&
                   sp_tokenizer_is_text(t, id)) { /* not <unk>, control */
            int len;
            const char *bytes = sp_decode(t, prev, id, &len);
            sp_cstate next = *at;
            if (len > 0 && sp_cstate_feed(c, &next, bytes, len)) {
                int need = sp_cvocab_need(v, &next);
                ok = need >= 0 && need <= remaining - 1;
            }
        }
        allowed[id] = (uint8_t)ok;
        n += ok;
    }
    return n;
}
