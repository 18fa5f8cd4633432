/*
 * constraint.h — what the constraint files share (c/engine/constrain/):
 *
 *   regex.c       a regular expression -> Thompson NFA -> DFA over bytes
 *   json.c        the JSON grammar as a pushdown automaton
 *   constraint.c  one interface over both: where the text stands (sp_cstate)
 *   vocab.c       a constraint as one vocabulary's tokens can meet it
 *
 * The session (decode/session*.c) drives them through internal.h.
 */
#ifndef SP_CONSTRAINT_H
#define SP_CONSTRAINT_H

#include "internal.h"

#define SP_UNREACHABLE 0x3fffffff /* no match can be reached */

enum { SP_CONSTRAINT_REGEX = 1, SP_CONSTRAINT_JSON = 2 };

struct sp_constraint {
    int kind;       /* SP_CONSTRAINT_* */
    /* regex: the DFA */
    int n_states;
    int *next;      /* [n_states][256], -1 = dead */
    uint8_t *accept;
    int *dist;      /* fewest bytes to a match, SP_UNREACHABLE if none */
    uint8_t *live;  /* has an edge to a state that can still match */
    /* JSON */
    int json_object; /* the top value must be an object */
    char pattern[64]; /* what sp_constraint_describe says */
};

/* json.c: the JSON automaton over sp_cstate (mode, stack) */
void sp_json_start(sp_cstate *s);
/* Feeds one byte; 0 when no document of c can go on this way. */
int sp_json_feed(const sp_constraint *c, sp_cstate *s, int byte);
int sp_json_accepting(const sp_cstate *s);
/* sp_cstate_start_after for JSON */
void sp_json_start_after(const sp_constraint *c, sp_cstate *s,
                         const char *text, int len);
int sp_json_can_extend(const sp_cstate *s);
/* The fewest tokens that complete a document of c from s when the only
 * tokens are the single bytes in avail[256], or SP_UNREACHABLE. */
int sp_json_need(const sp_constraint *c, const uint8_t *avail,
                 const sp_cstate *s);

#endif /* SP_CONSTRAINT_H */
