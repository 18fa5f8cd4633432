/*
 * regex_nfa.c — Thompson's construction: a pattern's tree into an NFA over
 * byte sets, a fragment (start, dangling exits) per node.
 */
#include <stdlib.h>
#include <string.h>

#include "regex.h"

int rx_nfa_add(nfa *m, int kind, int set, int out, int out2) {
    if (m->n >= RX_MAX_NFA) {
        m->failed = 1;
        return -1;
    }
    if (m->n == m->cap) {
        int cap = m->cap ? m->cap * 2 : 256;
        nfa_state *s = realloc(m->s, sizeof *s * (size_t)cap);
        if (!s) {
            m->failed = 1;
            return -1;
        }
        m->s = s;
        m->cap = cap;
    }
    m->s[m->n] = (nfa_state){kind, set, out, out2};
    return m->n++;
}

void rx_patch(nfa *m, frag *f, int to) {
    for (int i = 0; i < f->n_exits; i++) {
        int e = f->exits[i];
        if (e >= 0) m->s[e].out = to;
        else m->s[-e - 1].out2 = to;
    }
}

static int frag_exits(frag *f, int n) {
    f->exits = malloc(sizeof(int) * (size_t)(n ? n : 1));
    f->n_exits = n;
    return f->exits != NULL;
}

static frag frag_join(frag a, frag b, int start) {
    frag f = {start, NULL, 0};
    if (frag_exits(&f, a.n_exits + b.n_exits)) {
        memcpy(f.exits, a.exits, sizeof(int) * (size_t)a.n_exits);
        memcpy(f.exits + a.n_exits, b.exits, sizeof(int) * (size_t)b.n_exits);
    } else {
        f.start = -1;
    }
    free(a.exits);
    free(b.exits);
    return f;
}

static frag frag_fail(void) { return (frag){-1, NULL, 0}; }

/* e? : a split with one branch into e, one exit */
static frag compile_optional(nfa *m, frag e) {
    int split = rx_nfa_add(m, NFA_SPLIT, -1, e.start, -1);
    if (split < 0) {
        free(e.exits);
        return frag_fail();
    }
    frag f = {split, NULL, 0};
    if (!frag_exits(&f, e.n_exits + 1)) {
        free(e.exits);
        return frag_fail();
    }
    memcpy(f.exits, e.exits, sizeof(int) * (size_t)e.n_exits);
    f.exits[e.n_exits] = -split - 1;
    free(e.exits);
    return f;
}

/* e* : a split looping through e */
static frag compile_star(nfa *m, frag e) {
    int split = rx_nfa_add(m, NFA_SPLIT, -1, e.start, -1);
    if (split < 0) {
        free(e.exits);
        return frag_fail();
    }
    rx_patch(m, &e, split);
    free(e.exits);
    frag f = {split, NULL, 0};
    if (!frag_exits(&f, 1)) return frag_fail();
    f.exits[0] = -split - 1;
    return f;
}

static frag compile_cat(nfa *m, frag a, frag b) {
    if (a.start < 0 || b.start < 0) {
        free(a.exits);
        free(b.exits);
        return frag_fail();
    }
    rx_patch(m, &a, b.start);
    free(a.exits);
    b.start = a.start; /* a then b: enter at a, leave by b's exits */
    return b;
}

static frag compile_empty(nfa *m) {
    int split = rx_nfa_add(m, NFA_SPLIT, -1, -1, -1); /* an epsilon */
    frag f = {split, NULL, 0};
    if (split < 0 || !frag_exits(&f, 1)) return frag_fail();
    f.exits[0] = split;
    return f;
}

frag rx_compile_node(nfa *m, const rx_parser *ps, int id) {
    const rx_node *n = &ps->nodes[id];
    if (m->failed) return frag_fail();
    switch (n->kind) {
    case RX_LIT: {
        int s = rx_nfa_add(m, NFA_SET, n->set, -1, -1);
        frag f = {s, NULL, 0};
        if (s < 0 || !frag_exits(&f, 1)) return frag_fail();
        f.exits[0] = s;
        return f;
    }
    case RX_EMPTY:
        return compile_empty(m);
    case RX_CAT:
        return compile_cat(m, rx_compile_node(m, ps, n->a),
                           rx_compile_node(m, ps, n->b));
    case RX_ALT: {
        frag a = rx_compile_node(m, ps, n->a), b = rx_compile_node(m, ps, n->b);
        if (a.start < 0 || b.start < 0) {
            free(a.exits);
            free(b.exits);
            return frag_fail();
        }
        int split = rx_nfa_add(m, NFA_SPLIT, -1, a.start, b.start);
        if (split < 0) {
            free(a.exits);
            free(b.exits);
            return frag_fail();
        }
        return frag_join(a, b, split);
    }
    case RX_REPEAT: {
        /* e{m,n} = e e ... e (m times) then (n - m) optional copies, or e*
         * when unbounded; each copy is compiled afresh */
        frag acc = compile_empty(m);
        for (int i = 0; i < n->min && acc.start >= 0; i++)
            acc = compile_cat(m, acc, rx_compile_node(m, ps, n->a));
        if (acc.start < 0) return acc;
        if (n->max < 0) {
            frag e = rx_compile_node(m, ps, n->a);
            if (e.start < 0) {
                free(acc.exits);
                return e;
            }
            return compile_cat(m, acc, compile_star(m, e));
        }
        /* nested optionals: (e(e(e)?)?)? keeps the NFA linear */
        frag tail = {-2, NULL, 0};
        for (int i = n->min; i < n->max; i++) {
            frag e = rx_compile_node(m, ps, n->a);
            if (e.start < 0) {
                free(acc.exits);
                free(tail.exits);
                return e;
            }
            frag step = tail.start == -2 ? e : compile_cat(m, e, tail);
            if (step.start < 0) {
                free(acc.exits);
                return step;
            }
            tail = compile_optional(m, step);
            if (tail.start < 0) {
                free(acc.exits);
                return tail;
            }
        }
        if (tail.start == -2) return acc;
        return compile_cat(m, acc, tail);
    }
    }
    return frag_fail();
}
