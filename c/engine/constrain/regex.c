/*
 * regex.c — a regular expression as a constraint: the whole generated text
 * must match it.  The pattern is parsed into a tree, compiled into a
 * Thompson NFA and then, once, into a DFA over bytes (subset construction),
 * with the fewest bytes from each state to a match.
 *
 * Syntax: literals; escapes
 * \d \w \s \D \W \S \n \t \r and \ before any punctuation; . (any byte
 * except newline); classes [a-z0-9_], [^...] and [:alpha:]-style names
 * inside them (alpha digit alnum space upper lower punct xdigit); groups ( )
 * and (?: );
 * alternation |; quantifiers ? * + {m} {m,} {m,n} (bounds up to 1000).
 * Patterns are read as bytes: non-ASCII characters match their UTF-8 bytes
 * in sequence.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "regex.h"

/* ---- subset construction ---- */

typedef struct {
    int *states; /* sorted NFA states of each DFA state, concatenated */
    int *offset; /* [n + 1] */
    int n, cap, states_len, states_cap;
    int table[2 * RX_MAX_DFA]; /* open addressing: DFA id + 1, 0 = empty */
} dfa_sets;

static void closure(const nfa *m, int s, uint8_t *mark, int *list, int *n) {
    /* iterative epsilon closure */
    int stack_buf[64];
    int *stack = stack_buf, cap = 64, top = 0;
    if (s < 0 || mark[s]) return;
    stack[top++] = s;
    mark[s] = 1;
    while (top) {
        int x = stack[--top];
        list[(*n)++] = x;
        if (m->s[x].kind != NFA_SPLIT) continue;
        int outs[2] = {m->s[x].out, m->s[x].out2};
        for (int k = 0; k < 2; k++) {
            int y = outs[k];
            if (y < 0 || mark[y]) continue;
            mark[y] = 1;
            if (top == cap) {
                int *bigger = malloc(sizeof(int) * (size_t)cap * 2);
                if (!bigger) continue; /* cannot happen at these sizes */
                memcpy(bigger, stack, sizeof(int) * (size_t)top);
                if (stack != stack_buf) free(stack);
                stack = bigger;
                cap *= 2;
            }
            stack[top++] = y;
        }
    }
    if (stack != stack_buf) free(stack);
}

static int cmp_int(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static unsigned hash_list(const int *list, int n) {
    unsigned h = 2166136261u; /* FNV-1a over the state numbers */
    for (int i = 0; i < n; i++) h = (h ^ (unsigned)list[i]) * 16777619u;
    return h;
}

static int dfa_find_or_add(dfa_sets *d, const int *list, int n) {
    const int size = 2 * RX_MAX_DFA;
    unsigned slot = hash_list(list, n) % size;
    for (; d->table[slot]; slot = (slot + 1) % size) {
        int i = d->table[slot] - 1;
        int len = d->offset[i + 1] - d->offset[i];
        if (len == n &&
            !memcmp(d->states + d->offset[i], list, sizeof(int) * (size_t)n))
            return i;
    }
    if (d->n >= RX_MAX_DFA) return -2;
    if (d->n + 2 > d->cap) {
        int cap = d->cap ? d->cap * 2 : 64;
        int *o = realloc(d->offset, sizeof(int) * (size_t)(cap + 1));
        if (!o) return -3;
        d->offset = o;
        d->cap = cap;
    }
    if (d->states_len + n > d->states_cap) {
        int cap = d->states_cap ? d->states_cap * 2 : 1024;
        while (cap < d->states_len + n) cap *= 2;
        int *st = realloc(d->states, sizeof(int) * (size_t)cap);
        if (!st) return -3;
        d->states = st;
        d->states_cap = cap;
    }
    if (d->n == 0) d->offset[0] = 0;
    memcpy(d->states + d->states_len, list, sizeof(int) * (size_t)n);
    d->states_len += n;
    d->offset[d->n + 1] = d->states_len;
    d->table[slot] = d->n + 1;
    return d->n++;
}

sp_constraint *sp_constraint_regex(const char *pattern, char *err) {
    int len = (int)strlen(pattern);
    if (len > RX_MAX_PATTERN) {
        sp_fail(err, SP_ERR_REGEX, "regex: longer than %d bytes", RX_MAX_PATTERN);
        return NULL;
    }
    rx_parser ps = {pattern, 0, len, NULL, 0, 0, NULL, 0, 0, err, 0};
    int root = rx_parse(&ps);
    sp_constraint *c = NULL;
    nfa m = {NULL, 0, 0, 0};
    dfa_sets *d = calloc(1, sizeof *d); /* its table is large: heap */
    if (!d) {
        sp_fail(err, SP_ERR_NOMEM, "regex: out of memory");
        free(ps.nodes);
        free(ps.sets);
        return NULL;
    }
    uint8_t *mark = NULL;
    int *list = NULL, *moved = NULL;
    int *next = NULL;
    int next_cap = 0;
    if (root < 0) goto done;
    frag f = rx_compile_node(&m, &ps, root);
    int match = f.start >= 0 ? rx_nfa_add(&m, NFA_MATCH, -1, -1, -1) : -1;
    if (f.start < 0 || match < 0 || m.failed) {
        free(f.exits);
        sp_fail(err, SP_ERR_REGEX, "regex: too large (more than %d NFA states)",
                RX_MAX_NFA);
        goto done;
    }
    rx_patch(&m, &f, match);
    free(f.exits);
    mark = calloc((size_t)m.n, 1);
    list = malloc(sizeof(int) * (size_t)m.n);
    moved = malloc(sizeof(int) * (size_t)m.n);
    if (!mark || !list || !moved) {
        sp_fail(err, SP_ERR_NOMEM, "regex: out of memory");
        goto done;
    }
    int n = 0;
    closure(&m, f.start, mark, list, &n);
    memset(mark, 0, (size_t)m.n);
    qsort(list, (size_t)n, sizeof(int), cmp_int);
    dfa_find_or_add(d, list, n);
    /* bytes no class tells apart behave alike: build the DFA over one
     * representative byte per class (refined set by set) */
    int byte_class[256] = {0}, n_classes = 1, rep[256] = {0};
    for (int k = 0; k < ps.n_sets; k++) {
        int remap[512], next_classes = 0;
        for (int x = 0; x < 512; x++) remap[x] = -1;
        for (int b = 0; b < 256; b++) {
            int key = byte_class[b] * 2 + set_has(&ps.sets[k], b);
            if (remap[key] < 0) remap[key] = next_classes++;
            byte_class[b] = remap[key];
        }
        n_classes = next_classes;
    }
    for (int b = 255; b >= 0; b--) rep[byte_class[b]] = b;
    long long work = 0;
    for (int i = 0; i < d->n; i++) { /* d->n grows as states are found */
        if ((i + 1) * 256 > next_cap) {
            int cap = next_cap ? next_cap * 2 : 256 * 64;
            int *nx = realloc(next, sizeof(int) * (size_t)cap);
            if (!nx) {
                sp_fail(err, SP_ERR_NOMEM, "regex: out of memory");
                goto done;
            }
            next = nx;
            next_cap = cap;
        }
        int class_to[256] = {0}; /* every class is set below */
        for (int cls = 0; cls < n_classes; cls++) {
            int byte = rep[cls], k = 0;
            for (int j = d->offset[i]; j < d->offset[i + 1]; j++) {
                const nfa_state *s = &m.s[d->states[j]];
                if (s->kind == NFA_SET && set_has(&ps.sets[s->set], byte))
                    moved[k++] = s->out;
            }
            n = 0;
            for (int j = 0; j < k; j++) closure(&m, moved[j], mark, list, &n);
            for (int j = 0; j < n; j++) mark[list[j]] = 0;
            work += d->offset[i + 1] - d->offset[i] + n;
            if (work > RX_MAX_WORK) {
                sp_fail(err, SP_ERR_REGEX, "regex: too complex to compile (use "
                        "fewer or smaller repetitions)");
                goto done;
            }
            if (n == 0) {
                class_to[cls] = -1;
                continue;
            }
            qsort(list, (size_t)n, sizeof(int), cmp_int);
            int to = dfa_find_or_add(d, list, n);
            if (to == -2) {
                sp_fail(err, SP_ERR_REGEX, "regex: too complex (more than %d "
                        "DFA states)", RX_MAX_DFA);
                goto done;
            }
            if (to < 0) {
                sp_fail(err, SP_ERR_NOMEM, "regex: out of memory");
                goto done;
            }
            class_to[cls] = to;
        }
        for (int b = 0; b < 256; b++) next[i * 256 + b] = class_to[byte_class[b]];
    }
    c = calloc(1, sizeof *c);
    if (!c) goto nomem;
    c->kind = SP_CONSTRAINT_REGEX;
    c->n_states = d->n;
    c->next = next;
    next = NULL;
    c->accept = calloc((size_t)d->n, 1);
    c->dist = malloc(sizeof(int) * (size_t)d->n);
    c->live = calloc((size_t)d->n, 1);
    if (!c->accept || !c->dist || !c->live) goto nomem;
    snprintf(c->pattern, sizeof c->pattern, "%s", pattern);
    for (int i = 0; i < d->n; i++) {
        c->dist[i] = SP_UNREACHABLE;
        for (int j = d->offset[i]; j < d->offset[i + 1]; j++)
            if (d->states[j] == match) c->accept[i] = 1;
        if (c->accept[i]) c->dist[i] = 0;
    }
    /* fewest bytes to a match: relax until nothing changes (Bellman-Ford
     * on unit edges; the DFA is small) */
    for (int changed = 1; changed;) {
        changed = 0;
        for (int i = 0; i < d->n; i++)
            for (int b = 0; b < 256; b++) {
                int to = c->next[i * 256 + b];
                if (to >= 0 && c->dist[to] + 1 < c->dist[i]) {
                    c->dist[i] = c->dist[to] + 1;
                    changed = 1;
                }
            }
    }
    for (int i = 0; i < d->n; i++)
        for (int b = 0; b < 256; b++) {
            int to = c->next[i * 256 + b];
            if (to >= 0 && c->dist[to] < SP_UNREACHABLE) c->live[i] = 1;
        }
    if (c->dist[0] >= SP_UNREACHABLE) {
        sp_fail(err, SP_ERR_REGEX, "regex: matches nothing");
        sp_constraint_free(c);
        c = NULL;
    }
    goto done;
nomem:
    sp_fail(err, SP_ERR_NOMEM, "regex: out of memory");
    sp_constraint_free(c);
    c = NULL;
done:
    free(next);
    free(mark);
    free(list);
    free(moved);
    free(m.s);
    free(d->states);
    free(d->offset);
    free(d);
    free(ps.nodes);
    free(ps.sets);
    return c;
}
