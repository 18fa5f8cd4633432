/*
 * constrain.c — constrained decoding: a regular expression or the JSON
 * grammar decides which tokens may come next.
 *
 * Both constraints read the generated text byte by byte.  A regex is parsed
 * into a tree, compiled into a Thompson NFA and then, once, into a DFA over
 * bytes (subset construction).  JSON is a pushdown automaton (a stack of
 * open objects and arrays and a lexical mode).  A constraint's view of one
 * vocabulary (sp_cvocab, at the end) knows, for every state, the fewest
 * tokens that vocabulary needs to complete a match.  For each step the
 * session asks, for every token: feed its bytes to a copy of the current
 * state — is the result still a viable prefix, and can the vocabulary
 * complete it within the steps left?
 * Tokens that fail are masked (cut stage "constraint").  The end-of-text
 * token is allowed only where the text so far is complete; when it is
 * complete and nothing but whitespace could follow, the text ends.
 *
 * Regex syntax (the whole generated text must match): literals; escapes
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

#include "internal.h"

#define RX_MAX_PATTERN 1000
#define RX_MAX_NFA 20000
#define RX_MAX_DFA 4096
#define RX_MAX_REPEAT 1000
#define RX_MAX_WORK 10000000 /* NFA-state visits while building the DFA */
#define JSON_MAX_DEPTH 64
#define UNREACHABLE 0x3fffffff

/* ================================================================ regex */

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
        sp_fail(ps->err, SP_ERR_ARG, "regex: %s at offset %d", what, ps->at);
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

struct sp_constraint {
    int kind; /* 1 regex, 2 json */
    /* regex: the DFA */
    int n_states;
    int *next;      /* [n_states][256], -1 = dead */
    uint8_t *accept;
    int *dist;      /* fewest bytes to a match, UNREACHABLE if none */
    uint8_t *live;  /* has an edge to a state that can still match */
    char pattern[64];
};

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
        sp_fail(err, SP_ERR_ARG, "regex: longer than %d bytes", RX_MAX_PATTERN);
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
        sp_fail(err, SP_ERR_ARG, "regex: too large (more than %d NFA states)",
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
                sp_fail(err, SP_ERR_ARG, "regex: too complex to compile (use "
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
                sp_fail(err, SP_ERR_ARG, "regex: too complex (more than %d "
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
    c->kind = 1;
    c->n_states = d->n;
    c->next = next;
    next = NULL;
    c->accept = calloc((size_t)d->n, 1);
    c->dist = malloc(sizeof(int) * (size_t)d->n);
    c->live = calloc((size_t)d->n, 1);
    if (!c->accept || !c->dist || !c->live) goto nomem;
    snprintf(c->pattern, sizeof c->pattern, "%s", pattern);
    for (int i = 0; i < d->n; i++) {
        c->dist[i] = UNREACHABLE;
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
            if (to >= 0 && c->dist[to] < UNREACHABLE) c->live[i] = 1;
        }
    if (c->dist[0] >= UNREACHABLE) {
        sp_fail(err, SP_ERR_ARG, "regex: matches nothing");
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

/* ================================================================= JSON */

enum {
    J_VALUE,      /* a value must start (after ':' , '[' , ',' in arrays, top) */
    J_ARR_FIRST,  /* after '[': a value or ']' */
    J_OBJ_FIRST,  /* after '{': a key or '}' */
    J_OBJ_KEY,    /* after ',' in an object: a key */
    J_COLON,      /* after a key */
    J_AFTER,      /* after a value: ',' or a closer (or the end) */
    J_STRING,
    J_ESCAPE,
    J_HEX,        /* \u: hex digits left in aux */
    J_NUMBER,     /* sub-state in aux */
    J_LITERAL     /* letters of true/false/null left: word in aux, index in aux2 */
};

/* number sub-states: which characters may come next */
enum { N_MINUS, N_ZERO, N_INT, N_DOT, N_FRAC, N_E, N_ESIGN, N_EXP };

static const char *const LITERALS[3] = {"true", "false", "null"};

static int json_ws(int c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

static int json_start_value(sp_cstate *s, int c) {
    if (c == '{') {
        if (s->depth >= JSON_MAX_DEPTH) return 0;
        s->stack[s->depth++] = '{';
        s->mode = J_OBJ_FIRST;
    } else if (c == '[') {
        if (s->depth >= JSON_MAX_DEPTH) return 0;
        s->stack[s->depth++] = '[';
        s->mode = J_ARR_FIRST;
    } else if (c == '"') {
        s->mode = J_STRING;
        s->is_key = 0;
    } else if (c == '-') {
        s->mode = J_NUMBER;
        s->aux = N_MINUS;
    } else if (c == '0') {
        s->mode = J_NUMBER;
        s->aux = N_ZERO;
    } else if (c >= '1' && c <= '9') {
        s->mode = J_NUMBER;
        s->aux = N_INT;
    } else if (c == 't' || c == 'f' || c == 'n') {
        s->mode = J_LITERAL;
        s->aux = c == 't' ? 0 : c == 'f' ? 1 : 2;
        s->aux2 = 1;
    } else {
        return 0;
    }
    return 1;
}

static int json_close(sp_cstate *s, int c) {
    if (s->depth == 0) return 0;
    char open = (char)s->stack[s->depth - 1];
    if ((open == '{' && c != '}') || (open == '[' && c != ']')) return 0;
    s->depth--;
    s->mode = J_AFTER;
    return 1;
}

static int json_feed(sp_cstate *s, int c) {
    for (;;) {
        switch (s->mode) {
        case J_VALUE:
            if (json_ws(c)) return 1;
            return json_start_value(s, c);
        case J_ARR_FIRST:
            if (json_ws(c)) return 1;
            if (c == ']') return json_close(s, c);
            return json_start_value(s, c);
        case J_OBJ_FIRST:
            if (json_ws(c)) return 1;
            if (c == '}') return json_close(s, c);
            /* fall through */
        case J_OBJ_KEY:
            if (json_ws(c)) return 1;
            if (c != '"') return 0;
            s->mode = J_STRING;
            s->is_key = 1;
            return 1;
        case J_COLON:
            if (json_ws(c)) return 1;
            if (c != ':') return 0;
            s->mode = J_VALUE;
            return 1;
        case J_AFTER:
            if (json_ws(c)) return 1;
            if (s->depth == 0) return 0; /* the document is complete */
            if (c == ',') {
                s->mode = s->stack[s->depth - 1] == '{' ? J_OBJ_KEY : J_VALUE;
                return 1;
            }
            return json_close(s, c);
        case J_STRING:
            if (c == '"') {
                s->mode = s->is_key ? J_COLON : J_AFTER;
                return 1;
            }
            if (c == '\\') {
                s->mode = J_ESCAPE;
                return 1;
            }
            return c >= 0x20; /* control characters must be escaped */
        case J_ESCAPE:
            if (c == 'u') {
                s->mode = J_HEX;
                s->aux = 4;
                return 1;
            }
            if (!strchr("\"\\/bfnrt", c) || c == 0) return 0;
            s->mode = J_STRING;
            return 1;
        case J_HEX:
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
                  (c >= 'A' && c <= 'F')))
                return 0;
            if (--s->aux == 0) s->mode = J_STRING;
            return 1;
        case J_LITERAL: {
            const char *word = LITERALS[s->aux];
            if (c != word[s->aux2]) return 0;
            if (word[++s->aux2] == '\0') s->mode = J_AFTER;
            return 1;
        }
        case J_NUMBER: {
            int digit = c >= '0' && c <= '9';
            switch (s->aux) {
            case N_MINUS:
                if (c == '0') s->aux = N_ZERO;
                else if (digit) s->aux = N_INT;
                else return 0;
                return 1;
            case N_ZERO:
            case N_INT:
                if (digit && s->aux == N_INT) return 1;
                if (c == '.') { s->aux = N_DOT; return 1; }
                if (c == 'e' || c == 'E') { s->aux = N_E; return 1; }
                break; /* the number ends here */
            case N_DOT:
                if (!digit) return 0;
                s->aux = N_FRAC;
                return 1;
            case N_FRAC:
                if (digit) return 1;
                if (c == 'e' || c == 'E') { s->aux = N_E; return 1; }
                break;
            case N_E:
                if (c == '+' || c == '-') { s->aux = N_ESIGN; return 1; }
                if (!digit) return 0;
                s->aux = N_EXP;
                return 1;
            case N_ESIGN:
                if (!digit) return 0;
                s->aux = N_EXP;
                return 1;
            case N_EXP:
                if (digit) return 1;
                break;
            }
            /* a complete number ended: the byte belongs to what follows */
            s->mode = J_AFTER;
            continue;
        }
        }
        return 0;
    }
}

/* the number can end where it stands */
static int json_number_complete(const sp_cstate *s) {
    return s->aux == N_ZERO || s->aux == N_INT || s->aux == N_FRAC ||
           s->aux == N_EXP;
}

static int json_accepting(const sp_cstate *s) {
    if (s->depth != 0) return 0;
    return s->mode == J_AFTER ||
           (s->mode == J_NUMBER && json_number_complete(s));
}

sp_constraint *sp_constraint_json(char *err) {
    sp_constraint *c = calloc(1, sizeof *c);
    if (!c) {
        sp_fail(err, SP_ERR_NOMEM, "grammar: out of memory");
        return NULL;
    }
    c->kind = 2;
    snprintf(c->pattern, sizeof c->pattern, "json");
    return c;
}

/* ================================================================ both */

void sp_constraint_free(sp_constraint *c) {
    if (!c) return;
    free(c->next);
    free(c->accept);
    free(c->dist);
    free(c->live);
    free(c);
}

void sp_cstate_start(const sp_constraint *c, sp_cstate *s) {
    memset(s, 0, sizeof *s);
    s->mode = c->kind == 1 ? 0 : J_VALUE;
}

int sp_cstate_feed(const sp_constraint *c, sp_cstate *s, const char *bytes,
                   int len) {
    for (int i = 0; i < len; i++) {
        int b = (unsigned char)bytes[i];
        if (c->kind == 1) {
            int to = c->next[s->mode * 256 + b];
            if (to < 0 || c->dist[to] >= UNREACHABLE) return 0;
            s->mode = to;
        } else if (!json_feed(s, b)) {
            return 0;
        }
    }
    return 1;
}

int sp_cstate_accepting(const sp_constraint *c, const sp_cstate *s) {
    return c->kind == 1 ? c->accept[s->mode] : json_accepting(s);
}

int sp_cstate_can_extend(const sp_constraint *c, const sp_cstate *s) {
    if (c->kind == 1) return c->live[s->mode];
    /* a finished document takes only whitespace, which is not growth */
    return !(s->depth == 0 && s->mode == J_AFTER);
}

const char *sp_constraint_describe(const sp_constraint *c) {
    return c->pattern;
}

/* ======================================================= a vocabulary's view */

/* What "fewest bytes to a match" means for a model that can only write its
 * own tokens.  A regex gets, per DFA state, the fewest *tokens* to a match
 * (shortest paths over the states the vocabulary's tokens lead to); JSON
 * gets the bytes some token spells alone, and completes a document only
 * with those. */
struct sp_cvocab {
    const sp_constraint *c;
    int *tok_dist;     /* regex: per state, UNREACHABLE if none */
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
        if (t->kind == SP_TOK_BPE && id <= 2) continue; /* <unk> <s> </s> */
        if (id == t->bos || id == t->eos) continue;
        int len;
        const char *piece = sp_decode(t, -1, id, &len);
        if (len == 1) v->avail[(unsigned char)piece[0]] = 1;
    }
    if (c->kind != 1) return v;
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
            if (t->kind == SP_TOK_BPE && id <= 2) continue;
            if (id == t->bos || id == t->eos) continue;
            int len;
            const char *piece = sp_decode(t, -1, id, &len);
            int to = s;
            for (int i = 0; i < len && to >= 0; i++) {
                to = c->next[to * 256 + (unsigned char)piece[i]];
                if (to >= 0 && c->dist[to] >= UNREACHABLE) to = -1;
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
    for (int s = 0; s < n; s++) v->tok_dist[s] = c->accept[s] ? 0 : UNREACHABLE;
    /* sweep the edges until no state improves (Bellman-Ford on unit edges;
     * each sweep is linear in the distinct edges) */
    for (int changed = 1; changed;) {
        changed = 0;
        for (int s = 0; s < n; s++)
            for (int e = succ_start[s]; e < succ_start[s + 1]; e++) {
                int d = v->tok_dist[succ[e]];
                if (d < UNREACHABLE && d + 1 < v->tok_dist[s]) {
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

/* fewest single-byte tokens that write any JSON value, or UNREACHABLE */
static int json_value_cost(const uint8_t *a) {
    int best = UNREACHABLE;
    for (int d = '0'; d <= '9'; d++)
        if (a[d]) best = 1;
    if (best == 1) return 1;
    if (a['"']) best = 2;
    if (a['['] && a[']'] && best > 2) best = 2;
    if (a['{'] && a['}'] && best > 2) best = 2;
    for (int k = 0; k < 3 && best > 4; k++) {
        const char *w = LITERALS[k];
        int ok = 1;
        for (const char *p = w; *p; p++) ok &= a[(unsigned char)*p];
        if (ok && (int)strlen(w) < best) best = (int)strlen(w);
    }
    return best;
}

static int add_cost(int a, int b) {
    return a >= UNREACHABLE || b >= UNREACHABLE ? UNREACHABLE : a + b;
}

static int json_need(const uint8_t *a, const sp_cstate *s) {
    int value = json_value_cost(a);
    int quote = a['"'] ? 1 : UNREACHABLE, colon = a[':'] ? 1 : UNREACHABLE;
    /* what a key still needs once its string is closed: ':' and a value */
    int key_tail = add_cost(colon, value);
    int string_close = add_cost(quote, s->is_key ? key_tail : 0);
    int cost = 0;
    switch (s->mode) {
    case J_VALUE: cost = value; break;
    case J_ARR_FIRST:
    case J_OBJ_FIRST:
    case J_AFTER: cost = 0; break;
    case J_OBJ_KEY: cost = add_cost(add_cost(quote, quote), key_tail); break;
    case J_COLON: cost = key_tail; break;
    case J_STRING: cost = string_close; break;
    case J_ESCAPE: {
        int esc = UNREACHABLE;
        for (const char *p = "\"\\/bfnrt"; *p; p++)
            if (a[(unsigned char)*p]) esc = 1;
        cost = add_cost(esc, string_close);
        break;
    }
    case J_HEX: {
        int hex = UNREACHABLE;
        for (int x = 0; x < 256; x++)
            if (a[x] && ((x >= '0' && x <= '9') || (x >= 'a' && x <= 'f') ||
                         (x >= 'A' && x <= 'F')))
                hex = 1;
        cost = hex < UNREACHABLE ? add_cost(s->aux, string_close) : UNREACHABLE;
        break;
    }
    case J_LITERAL: {
        const char *w = LITERALS[s->aux];
        cost = (int)strlen(w) - s->aux2;
        for (const char *p = w + s->aux2; *p; p++)
            if (!a[(unsigned char)*p]) cost = UNREACHABLE;
        break;
    }
    case J_NUMBER: {
        int digit = UNREACHABLE;
        for (int d = '0'; d <= '9'; d++)
            if (a[d]) digit = 1;
        cost = json_number_complete(s) ? 0 : digit;
        break;
    }
    }
    for (int i = 0; i < s->depth; i++)
        cost = add_cost(cost, a[s->stack[i] == '{' ? '}' : ']'] ? 1 : UNREACHABLE);
    return cost;
}

int sp_cvocab_need(const sp_cvocab *v, const sp_cstate *s) {
    int need = v->c->kind == 1 ? v->tok_dist[s->mode] : json_need(v->avail, s);
    return need >= UNREACHABLE ? -1 : need;
}
