/*
 * regex.h — what the three parts of the regex constraint share: the
 * pattern's tree (regex_parse.c), its Thompson NFA (regex_nfa.c) and the
 * DFA built from them by subset construction (regex.c).
 */
#ifndef SP_REGEX_H
#define SP_REGEX_H

#include <stdint.h>

#include "constraint.h"


#define RX_MAX_PATTERN 1000
#define RX_MAX_NFA 20000
#define RX_MAX_DFA 4096
#define RX_MAX_REPEAT 1000
#define RX_MAX_WORK 10000000 /* NFA-state visits while building the DFA */

typedef struct {
    uint8_t set[32]; /* the bytes a LIT node matches */
} byteset;

static inline void set_add(byteset *s, int c) { s->set[c >> 3] |= (uint8_t)(1u << (c & 7)); }
static inline int set_has(const byteset *s, int c) { return s->set[c >> 3] >> (c & 7) & 1; }

enum { RX_LIT, RX_CAT, RX_ALT, RX_REPEAT, RX_EMPTY };

typedef struct {
    int kind;
    int a, b;     /* children (CAT, ALT); a for REPEAT */
    int min, max; /* REPEAT; max -1 = unbounded */
    int set;      /* LIT: index into sets */
} rx_node;

typedef struct {
    const char *p;
    int at, len;
    rx_node *nodes;
    int n_nodes, cap_nodes;
    byteset *sets;
    int n_sets, cap_sets;
    char *err;
    int failed;
} rx_parser;

/* Parses ps->p whole; the root node's index, or -1 with ps->err set. */
int rx_parse(rx_parser *ps);


enum { NFA_SET, NFA_SPLIT, NFA_MATCH };

typedef struct {
    int kind;
    int set;       /* NFA_SET */
    int out, out2; /* -1 = dangling / none */
} nfa_state;

typedef struct {
    nfa_state *s;
    int n, cap;
    int failed;
} nfa;

/* A fragment: its start and the list of dangling exits, kept as indices of
 * states whose `out` (or out2 when the index is negated - 1) is unset. */
typedef struct {
    int start;
    int *exits;
    int n_exits;
} frag;

int rx_nfa_add(nfa *m, int kind, int set, int out, int out2);
void rx_patch(nfa *m, frag *f, int to);
/* The NFA of node `id`: its start is -1 when it failed (m->failed: too
 * many states or out of memory). */
frag rx_compile_node(nfa *m, const rx_parser *ps, int id);

#endif
