/*
 * json.c — the JSON grammar as a constraint: the generated text must be one
 * JSON document (RFC 8259; whitespace around it), whose top value is any
 * value, or an object ("JSON object", the usual "JSON mode").
 * A pushdown automaton reads it byte by byte: a stack of the open objects
 * and arrays (at most 64 deep) and a lexical mode (sp_cstate).
 *
 * Whitespace between tokens is bounded as llama.cpp's grammars/json.gbnf
 * bounds it (ws ::= | " " | "\n" [ \t]{0,20}): a run is one space, or a
 * newline and at most 20 spaces or tabs, and none before the document.
 * Unbounded, a small model fills
 * its whole budget with spaces (the likeliest token after "{").  A "JSON
 * object" has at least one member ({} says nothing).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "constraint.h"

#define JSON_MAX_DEPTH 64
#define JSON_MAX_INDENT 20 /* spaces or tabs after a newline */

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

/* One byte of a whitespace run (s->ws: 0 none yet, 1 after its one space,
 * 2 + k after its newline and k spaces or tabs); 0 if the run cannot take
 * it. */
static int json_ws_step(sp_cstate *s, int c) {
    if (s->ws == 0) {
        if (c != ' ' && c != '\n') return 0;
        s->ws = c == ' ' ? 1 : 2;
        return 1;
    }
    if (s->ws == 1 || (c != ' ' && c != '\t')) return 0;
    if (s->ws - 2 >= JSON_MAX_INDENT) return 0;
    s->ws++;
    return 1;
}

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

int sp_json_feed(const sp_constraint *g, sp_cstate *s, int c) {
    if (!json_ws(c)) s->ws = 0; /* a run ends at the next token */
    for (;;) {
        switch (s->mode) {
        case J_VALUE:
            /* no whitespace before the document (json.gbnf's root) */
            if (json_ws(c)) return s->depth > 0 && json_ws_step(s, c);
            /* "JSON object": the document's top value is an object */
            if (g->json_object && s->depth == 0 && c != '{') return 0;
            return json_start_value(s, c);
        case J_ARR_FIRST:
            if (json_ws(c)) return json_ws_step(s, c);
            if (c == ']') return json_close(s, c);
            return json_start_value(s, c);
        case J_OBJ_FIRST:
            if (json_ws(c)) return json_ws_step(s, c);
            /* "JSON object": the top object has a member */
            if (c == '}') return !(g->json_object && s->depth == 1) && json_close(s, c);
            /* fall through */
        case J_OBJ_KEY:
            if (json_ws(c)) return json_ws_step(s, c);
            if (c != '"') return 0;
            s->mode = J_STRING;
            s->is_key = 1;
            return 1;
        case J_COLON:
            if (json_ws(c)) return json_ws_step(s, c);
            if (c != ':') return 0;
            s->mode = J_VALUE;
            return 1;
        case J_AFTER:
            if (json_ws(c)) return json_ws_step(s, c);
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

int sp_json_accepting(const sp_cstate *s) {
    if (s->depth != 0) return 0;
    return s->mode == J_AFTER ||
           (s->mode == J_NUMBER && json_number_complete(s));
}

void sp_json_start(sp_cstate *s) {
    memset(s, 0, sizeof *s);
    s->mode = J_VALUE;
}

void sp_json_start_after(const sp_constraint *g, sp_cstate *s,
                         const char *text, int len) {
    /* the first '{' (or '[') from which the rest of the prompt is a
     * document's beginning that is still open */
    for (int i = 0; i < len; i++) {
        if (text[i] != '{' && (g->json_object || text[i] != '[')) continue;
        sp_cstate t;
        sp_json_start(&t);
        int j = i;
        while (j < len && sp_json_feed(g, &t, (unsigned char)text[j])) j++;
        if (j == len && sp_json_can_extend(&t)) {
            *s = t;
            return;
        }
    }
    sp_json_start(s);
}

int sp_json_can_extend(const sp_cstate *s) {
    /* a finished document takes only whitespace, which is not growth */
    return !(s->depth == 0 && s->mode == J_AFTER);
}

/* ---- what completing a document costs (the vocabulary's view, vocab.c) */

/* fewest single-byte tokens that write any JSON value, or SP_UNREACHABLE */
static int json_value_cost(const uint8_t *a) {
    int best = SP_UNREACHABLE;
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
    return a >= SP_UNREACHABLE || b >= SP_UNREACHABLE ? SP_UNREACHABLE : a + b;
}

int sp_json_need(const sp_constraint *g, const uint8_t *a,
                 const sp_cstate *s) {
    int value = json_value_cost(a);
    int quote = a['"'] ? 1 : SP_UNREACHABLE, colon = a[':'] ? 1 : SP_UNREACHABLE;
    /* what a key still needs once its string is closed: ':' and a value */
    int key_tail = add_cost(colon, value);
    int member = add_cost(add_cost(quote, quote), key_tail); /* "":0 */
    if (g->json_object && s->depth == 0 && s->mode == J_VALUE) /* {"":0} */
        return a['{'] && a['}'] ? add_cost(2, member) : SP_UNREACHABLE;
    int string_close = add_cost(quote, s->is_key ? key_tail : 0);
    int cost = 0;
    switch (s->mode) {
    case J_VALUE: cost = value; break;
    case J_OBJ_FIRST: cost = g->json_object && s->depth == 1 ? member : 0; break;
    case J_ARR_FIRST:
    case J_AFTER: cost = 0; break;
    case J_OBJ_KEY: cost = member; break;
    case J_COLON: cost = key_tail; break;
    case J_STRING: cost = string_close; break;
    case J_ESCAPE: {
        int esc = SP_UNREACHABLE;
        for (const char *p = "\"\\/bfnrt"; *p; p++)
            if (a[(unsigned char)*p]) esc = 1;
        cost = add_cost(esc, string_close);
        break;
    }
    case J_HEX: {
        int hex = SP_UNREACHABLE;
        for (int x = 0; x < 256; x++)
            if (a[x] && ((x >= '0' && x <= '9') || (x >= 'a' && x <= 'f') ||
                         (x >= 'A' && x <= 'F')))
                hex = 1;
        cost = hex < SP_UNREACHABLE ? add_cost(s->aux, string_close) : SP_UNREACHABLE;
        break;
    }
    case J_LITERAL: {
        const char *w = LITERALS[s->aux];
        cost = (int)strlen(w) - s->aux2;
        for (const char *p = w + s->aux2; *p; p++)
            if (!a[(unsigned char)*p]) cost = SP_UNREACHABLE;
        break;
    }
    case J_NUMBER: {
        int digit = SP_UNREACHABLE;
        for (int d = '0'; d <= '9'; d++)
            if (a[d]) digit = 1;
        cost = json_number_complete(s) ? 0 : digit;
        break;
    }
    }
    for (int i = 0; i < s->depth; i++)
        cost = add_cost(cost, a[s->stack[i] == '{' ? '}' : ']'] ? 1 : SP_UNREACHABLE);
    return cost;
}

static sp_constraint *json_constraint(int object, char *err) {
    sp_constraint *c = calloc(1, sizeof *c);
    if (!c) {
        sp_fail(err, SP_ERR_NOMEM, "grammar: out of memory");
        return NULL;
    }
    c->kind = SP_CONSTRAINT_JSON;
    c->json_object = object;
    snprintf(c->pattern, sizeof c->pattern, object ? "json-object" : "json");
    return c;
}

sp_constraint *sp_constraint_json(char *err) { return json_constraint(0, err); }

sp_constraint *sp_constraint_json_object(char *err) {
    return json_constraint(1, err);
}
