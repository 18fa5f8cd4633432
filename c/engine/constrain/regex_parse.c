/*
 * regex_parse.c — a pattern into a tree of nodes (literal byte sets,
 * concatenation, alternation, repetition); the syntax is listed in regex.c.
 */
#include <stdlib.h>
#include <string.h>

#include "regex.h"

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

int rx_parse(rx_parser *ps) {
    int root = rx_alt(ps, 0);
    if (root >= 0 && ps->at < ps->len) root = rx_fail(ps, "unmatched ')'");
    return root;
}
