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

#include "constraint.h"

#define RX_MAX_PATTERN 1000
#define RX_MAX_NFA 20000
#define RX_MAX_DFA 4096
#define RX_MAX_REPEAT 1000
#define RX_MAX_WORK 10000000 /* NFA-state visits while building the DFA */

typedef struct {
    uint8_t set[32]; /* the bytes a LIT node matches */
} byteset;

static void set_add(byteset *s, int c) { s->set[c >> 3] |= (uint8_t)(1u << (c & 7)); }
static int set_has(const byteset *s, int c) { return s->set[c >> 3] >> (c & 7) & 1; }

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

static int rx_fail(rx_parser *ps, const char *what) {
    if (!ps->failed)
        sp_fail(ps->err, SP_ERR_REGEX, "regex: %s at offset %d", what, ps->at);
    ps->failed = 1;
    return -1;
}

static int rx_node_new(rx_parser *ps, int kind) {
    if (ps->failed) return -1;
    if (ps->n_nodes == ps->cap_nodes) {
        int cap = ps->cap_nodes ? ps->cap_nodes * 2 : 64;
        rx_node *n = realloc(ps->nodes, sizeof *n * (size_t)cap);
        if (!n) return rx_fail(ps, "out of memory");
        ps->nodes = n;
        ps->cap_nodes = cap;
    }
    rx_node *n = &ps->nodes[ps->n_nodes];
    memset(n, 0, sizeof *n);
    n->kind = kind;
    n->a = n->b = -1;
    return ps->n_nodes++;
}

static int rx_set_new(rx_parser *ps) {
    if (ps->failed) return -1;
    if (ps->n_sets == ps->cap_sets) {
        int cap = ps->cap_sets ? ps->cap_sets * 2 : 32;
        byteset *s = realloc(ps->sets, sizeof *s * (size_t)cap);
        if (!s) return rx_fail(ps, "out of memory");
        ps->sets = s;
        ps->cap_sets = cap;
    }
    memset(&ps->sets[ps->n_sets], 0, sizeof(byteset));
    return ps->n_sets++;
}

static int rx_peek(rx_parser *ps) {
    return ps->at < ps->len ? (unsigned char)ps->p[ps->at] : -1;
}

/* \d \w \s and their complements, or a single escaped byte */
static int rx_escape_into(rx_parser *ps, byteset *s) {
    if (ps->at >= ps->len) return rx_fail(ps, "pattern ends after '\\'");
    int c = (unsigned char)ps->p[ps->at++];
    byteset cls;
    memset(&cls, 0, sizeof cls);
    int negate = 0;
    switch (c) {
    case 'D': negate = 1; /* fall through */
    case 'd':
        for (int x = '0'; x <= '9'; x++) set_add(&cls, x);
        break;
    case 'W': negate = 1; /* fall through */
    case 'w':
        for (int x = 0; x < 256; x++)
            if ((x >= 'a' && x <= 'z') || (x >= 'A' && x <= 'Z') ||
                (x >= '0' && x <= '9') || x == '_')
                set_add(&cls, x);
        break;
    case 'S': negate = 1; /* fall through */
    case 's':
        set_add(&cls, ' ');
        set_add(&cls, '\t');
        set_add(&cls, '\n');
        set_add(&cls, '\r');
        set_add(&cls, '\f');
        set_add(&cls, '\v');
        break;
    case 'n': set_add(&cls, '\n'); break;
    case 't': set_add(&cls, '\t'); break;
    case 'r': set_add(&cls, '\r'); break;
    case 'f': set_add(&cls, '\f'); break;
    case 'v': set_add(&cls, '\v'); break;
    default:
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
            (c >= '0' && c <= '9')) {
            ps->at--;
            return rx_fail(ps, "unknown escape");
        }
        set_add(&cls, c);
    }
    for (int x = 0; x < 256; x++)
        if (set_has(&cls, x) != negate) set_add(s, x);
    return 0;
}

/* [:name:] inside a bracket expression, at its '[' */
static int rx_posix_class(rx_parser *ps, byteset *s) {
    static const char *const NAMES[] = {"alpha", "digit", "alnum", "space",
                                        "upper", "lower", "punct", "xdigit"};
    const char *name = ps->p + ps->at + 2;
    const char *end = strstr(name, ":]");
    size_t n = end ? (size_t)(end - name) : 0;
    for (int k = 0; end && k < 8; k++) {
        if (strlen(NAMES[k]) != n || strncmp(name, NAMES[k], n)) continue;
        for (int x = 0; x < 128; x++) {
            int lower = x >= 'a' && x <= 'z', upper = x >= 'A' && x <= 'Z';
            int digit = x >= '0' && x <= '9';
            int space = x == ' ' || (x >= '\t' && x <= '\r');
            int punct = x > ' ' && x < 127 && !lower && !upper && !digit;
            int xdigit = digit || (x >= 'a' && x <= 'f') || (x >= 'A' && x <= 'F');
            int in[8] = {lower || upper, digit, lower || upper || digit, space,
                         upper, lower, punct, xdigit};
            if (in[k]) set_add(s, x);
        }
        ps->at += (int)n + 4; /* [: name :] */
        return 0;
    }
    return rx_fail(ps, "unknown character class (alpha, digit, alnum, space, "
                   "upper, lower, punct, xdigit)");
}

static int rx_class(rx_parser *ps) {
    /* after '[' */
    int id = rx_set_new(ps);
    if (id < 0) return -1;
    byteset s;
    memset(&s, 0, sizeof s);
    int negate = 0;
    if (rx_peek(ps) == '^') {
        negate = 1;
        ps->at++;
    }
    int first = 1;
    for (;;) {
        int c = rx_peek(ps);
        if (c < 0) return rx_fail(ps, "unterminated character class");
        if (c == ']' && !first) {
            ps->at++;
            break;
        }
        first = 0;
        if (c == '[' && ps->at + 1 < ps->len && ps->p[ps->at + 1] == ':') {
            if (rx_posix_class(ps, &s) < 0) return -1;
            continue;
        }
        ps->at++;
        if (c == '\\') {
            if (rx_escape_into(ps, &s) < 0) return -1;
            continue;
        }
        int lo = c, hi = c;
        if (rx_peek(ps) == '-' && ps->at + 1 < ps->len &&
            ps->p[ps->at + 1] != ']') {
            ps->at++;
            hi = (unsigned char)ps->p[ps->at++];
            if (hi == '\\') return rx_fail(ps, "escape as a range end");
            if (hi < lo) return rx_fail(ps, "range out of order");
        }
        for (int x = lo; x <= hi; x++) set_add(&s, x);
    }
    byteset *dst = &ps->sets[id];
    for (int x = 0; x < 256; x++)
        if (set_has(&s, x) != negate) set_add(dst, x);
    int n = rx_node_new(ps, RX_LIT);
    if (n >= 0) ps->nodes[n].set = id;
    return n;
}

static int rx_alt(rx_parser *ps, int depth);

static int rx_atom(rx_parser *ps, int depth) {
    int c = rx_peek(ps);
    if (c == '(') {
        ps->at++;
        if (ps->at + 1 < ps->len && ps->p[ps->at] == '?' &&
            ps->p[ps->at + 1] == ':')
            ps->at += 2;
        int n = rx_alt(ps, depth + 1);
        if (n < 0) return -1;
        if (rx_peek(ps) != ')') return rx_fail(ps, "missing ')'");
        ps->at++;
        return n;
    }
    if (c == '[') {
        ps->at++;
        return rx_class(ps);
    }
    int id = rx_set_new(ps);
    if (id < 0) return -1;
    ps->at++;
    if (c == '\\') {
        if (rx_escape_into(ps, &ps->sets[id]) < 0) return -1;
    } else if (c == '.') {
        for (int x = 0; x < 256; x++)
            if (x != '\n') set_add(&ps->sets[id], x);
    } else {
        set_add(&ps->sets[id], c);
    }
    int n = rx_node_new(ps, RX_LIT);
    if (n >= 0) ps->nodes[n].set = id;
    return n;
}

static int rx_number(rx_parser *ps, int *out) {
    int v = 0, digits = 0;
    while (rx_peek(ps) >= '0' && rx_peek(ps) <= '9') {
        v = v * 10 + (ps->p[ps->at++] - '0');
        if (v > RX_MAX_REPEAT) return rx_fail(ps, "repetition bound over 1000");
        digits++;
    }
    *out = v;
    return digits;
}

static int rx_repeat(rx_parser *ps, int depth) {
    int n = rx_atom(ps, depth);
    for (;;) {
        if (n < 0) return -1;
        int c = rx_peek(ps), min, max;
        if (c == '*') { min = 0; max = -1; }
        else if (c == '+') { min = 1; max = -1; }
        else if (c == '?') { min = 0; max = 1; }
        else if (c == '{') {
            ps->at++;
            if (rx_number(ps, &min) <= 0) return rx_fail(ps, "expected a number in {m,n}");
            max = min;
            if (rx_peek(ps) == ',') {
                ps->at++;
                max = -1;
                if (rx_peek(ps) != '}') {
                    if (rx_number(ps, &max) <= 0) return rx_fail(ps, "expected a number in {m,n}");
                    if (max < min) return rx_fail(ps, "{m,n} with n < m");
                }
            }
            if (rx_peek(ps) != '}') return rx_fail(ps, "missing '}'");
            /* the '}' is consumed below, like the other quantifiers */
        } else {
            return n;
        }
        ps->at++;
        int r = rx_node_new(ps, RX_REPEAT);
        if (r < 0) return -1;
        ps->nodes[r].a = n;
        ps->nodes[r].min = min;
        ps->nodes[r].max = max;
        n = r;
    }
}

static int rx_concat(rx_parser *ps, int depth) {
    int left = -2; /* none yet */
    for (;;) {
        int c = rx_peek(ps);
        if (c < 0 || c == '|' || c == ')') break;
        if (c == '*' || c == '+' || c == '?' || c == '{')
            return rx_fail(ps, "quantifier without anything to repeat");
        int right = rx_repeat(ps, depth);
        if (right < 0) return -1;
        if (left == -2) {
            left = right;
        } else {
            int cat = rx_node_new(ps, RX_CAT);
            if (cat < 0) return -1;
            ps->nodes[cat].a = left;
            ps->nodes[cat].b = right;
            left = cat;
        }
    }
    return left == -2 ? rx_node_new(ps, RX_EMPTY) : left;
}

static int rx_alt(rx_parser *ps, int depth) {
    if (depth > 100) return rx_fail(ps, "groups nested too deeply");
    int left = rx_concat(ps, depth);
    while (left >= 0 && rx_peek(ps) == '|') {
        ps->at++;
        int right = rx_concat(ps, depth);
        if (right < 0) return -1;
        int alt = rx_node_new(ps, RX_ALT);
        if (alt < 0) return -1;
        ps->nodes[alt].a = left;
        ps->nodes[alt].b = right;
        left = alt;
    }
    return left;
}

/* ---- Thompson NFA ---- */

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

static int nfa_add(nfa *m, int kind, int set, int out, int out2) {
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

static void patch(nfa *m, frag *f, int to) {
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

static frag compile_node(nfa *m, const rx_parser *ps, int id);

static frag frag_fail(void) { return (frag){-1, NULL, 0}; }

/* e? : a split with one branch into e, one exit */
static frag compile_optional(nfa *m, frag e) {
    int split = nfa_add(m, NFA_SPLIT, -1, e.start, -1);
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
    int split = nfa_add(m, NFA_SPLIT, -1, e.start, -1);
    if (split < 0) {
        free(e.exits);
        return frag_fail();
    }
    patch(m, &e, split);
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
    patch(m, &a, b.start);
    free(a.exits);
    b.start = a.start; /* a then b: enter at a, leave by b's exits */
    return b;
}

static frag compile_empty(nfa *m) {
    int split = nfa_add(m, NFA_SPLIT, -1, -1, -1); /* an epsilon */
    frag f = {split, NULL, 0};
    if (split < 0 || !frag_exits(&f, 1)) return frag_fail();
    f.exits[0] = split;
    return f;
}

static frag compile_node(nfa *m, const rx_parser *ps, int id) {
    const rx_node *n = &ps->nodes[id];
    if (m->failed) return frag_fail();
    switch (n->kind) {
    case RX_LIT: {
        int s = nfa_add(m, NFA_SET, n->set, -1, -1);
        frag f = {s, NULL, 0};
        if (s < 0 || !frag_exits(&f, 1)) return frag_fail();
        f.exits[0] = s;
        return f;
    }
    case RX_EMPTY:
        return compile_empty(m);
    case RX_CAT:
        return compile_cat(m, compile_node(m, ps, n->a),
                           compile_node(m, ps, n->b));
    case RX_ALT: {
        frag a = compile_node(m, ps, n->a), b = compile_node(m, ps, n->b);
        if (a.start < 0 || b.start < 0) {
            free(a.exits);
            free(b.exits);
            return frag_fail();
        }
        int split = nfa_add(m, NFA_SPLIT, -1, a.start, b.start);
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
            acc = compile_cat(m, acc, compile_node(m, ps, n->a));
        if (acc.start < 0) return acc;
        if (n->max < 0) {
            frag e = compile_node(m, ps, n->a);
            if (e.start < 0) {
                free(acc.exits);
                return e;
            }
            return compile_cat(m, acc, compile_star(m, e));
        }
        /* nested optionals: (e(e(e)?)?)? keeps the NFA linear */
        frag tail = {-2, NULL, 0};
        for (int i = n->min; i < n->max; i++) {
            frag e = compile_node(m, ps, n->a);
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
    int root = rx_alt(&ps, 0);
    if (root >= 0 && ps.at < ps.len) root = rx_fail(&ps, "unmatched ')'");
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
    frag f = compile_node(&m, &ps, root);
    int match = f.start >= 0 ? nfa_add(&m, NFA_MATCH, -1, -1, -1) : -1;
    if (f.start < 0 || match < 0 || m.failed) {
        free(f.exits);
        sp_fail(err, SP_ERR_REGEX, "regex: too large (more than %d NFA states)",
                RX_MAX_NFA);
        goto done;
    }
    patch(&m, &f, match);
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
