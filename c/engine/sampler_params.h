/*
 * sampler_params.h — the settings' registry and setters: every stage and
 * every parameter declared once (names, flags, ranges, neutral values),
 * the chain's order, the checks, and the lists a setting holds (logit
 * biases, DRY's breakers, bad words, sequence biases).
 * Part of the engine's public API: include sampler.h, which includes
 * this file where its declarations belong.
 */
#ifndef SAMPLER_PARAMS_H
#define SAMPLER_PARAMS_H
#ifndef SAMPLER_H
#error "include sampler.h (the engine's public API), not sampler_params.h"
#endif

/* The neutral settings: T 1, everything else off, the default order. */
void sp_params_default(sp_params *p);

/* ---- the registry: every stage and every parameter, declared once ---- */

/* A stage's name ("top_p"; "mirostat" for SP_STAGE_MIROSTAT), or NULL
 * past it. */
const char *sp_stage_name(int stage);
/* The stage called name, or -1. */
int sp_stage_find(const char *name);
/* A stage for people: its label ("Top-p") and one line of what it does. */
const char *sp_stage_label(int stage);
const char *sp_stage_doc(int stage);

enum { SP_PARAM_FLOAT = 0, SP_PARAM_INT = 1 };
enum {
    SP_PARAM_MIN_OPEN = 1,   /* the range excludes its lower end */
    SP_PARAM_MAX_OPEN = 2,   /* ... its upper end */
    SP_PARAM_IN_LINK = 4,    /* a playground link always states it */
    SP_PARAM_SWITCH = 8      /* away from neutral, it turns its stage on */
};

typedef struct {
    const char *name;   /* the API's and the link's: "top_p" */
    const char *flag;   /* the CLI's, without "--": "top-p" */
    const char *code;   /* its short code in compact links: "p" */
    const char *label;  /* for people: "Top-p" */
    const char *doc;    /* one line: what it does, and its off value */
    int stage;          /* the sp_stage it belongs to (mirostat's:
                         * SP_STAGE_MIROSTAT) */
    int type;           /* SP_PARAM_FLOAT or SP_PARAM_INT */
    int flags;          /* SP_PARAM_* */
    double min, max;    /* its range (+-INFINITY: open-ended) */
    double neutral;     /* its default: the stage does nothing */
    double ui_min, ui_max, ui_step; /* the range a lesson's slider spans */
    double ui_on;       /* a switch's value when a learner turns its stage on */
} sp_param_info;

/* The number of parameters, and the i-th one's declaration (NULL past). */
int sp_param_count(void);
const sp_param_info *sp_param_at(int i);
/* The parameter called name (or flag), or -1. */
int sp_param_find(const char *name);
/* Sets parameter i from a number: SP_ERR_ARG when it is not a whole
 * number for an integer parameter (the range is sp_params_check's). */
int sp_params_set(sp_params *p, int i, double value, char *err);
double sp_params_get(const sp_params *p, int i);
/* Why the engine refuses value for parameter i alone, as sp_params_set
 * stores it and sp_params_check checks it (a float holds what a C float
 * holds: 1e308 is infinity there): SP_PARAM_TAKEN, or the reason, with
 * the message in err.  A link's and an element's values are asked here,
 * so what the page takes is what the engine takes. */
enum {
    SP_PARAM_TAKEN = 0,
    SP_PARAM_NOT_NUMBER = 1, /* NaN */
    SP_PARAM_FRACTION = 2,   /* not a whole number, for an integer */
    SP_PARAM_NOT_FINITE = 3, /* infinite, or beyond what a float holds */
    SP_PARAM_OUTSIDE = 4     /* outside the range (sp_param_range_text) */
};
int sp_param_refusal(int i, double value, char *err);
/* Parameter i's range as people read it: "(0, 1]", "[0, ∞)"; an
 * integer's open end is the largest it holds ("[0, 2147483647]"). */
void sp_param_range_text(int i, char *out, size_t size);
/* Whether stage's parameters turn it on. */
int sp_stage_active(const sp_params *p, int stage);
/* The sp_cut a stage marks the tokens it removes with (SP_CUT_NONE for
 * the stages that only reshape: the penalties, DRY). */
int sp_stage_cut(int stage);


/* The chain's order from a list of stage names separated by commas or
 * semicolons, or a preset: "default", "hf" (Hugging Face generate's) or
 * "llama.cpp" (llama.cpp's default); SP_ERR_ARG names an unknown stage or
 * a stage given twice. */
int sp_params_set_order(sp_params *p, const char *list, char *err);
/* The chain as names joined by commas, into out (at least 256 bytes). */
void sp_params_order_text(const sp_params *p, char *out, size_t size);
/* The i-th preset's name ("default", "hf", "llama.cpp"; NULL past). */
const char *sp_order_preset(int i);

/* Adds a DRY sequence breaker (1..SP_MAX_DRY_BREAKER_LEN token ids). */
int sp_params_add_dry_breaker(sp_params *p, const int *tokens, int n,
                              char *err);

/* Checks every field; on failure returns SP_ERR_ARG and a message that names
 * the parameter, e.g. "top-p must be in (0, 1] (got 1.5)".  vocab bounds the
 * bias token ids (pass 0 to skip that check).  A parameter set away from
 * its neutral value whose stage the order leaves out is an error too ("top-p
 * is set but the chain leaves out top_p").  The engine checks parameters
 * here and in the constructors below, and nowhere else: the front-ends
 * report its messages (the CLI puts "--" before the name). */
int sp_params_check(const sp_params *p, int vocab, char *err);

/* Appends a logit bias: SP_ERR_ARG when p holds SP_MAX_BIAS already.  The
 * token and the value are checked with the rest by sp_params_check. */
int sp_params_add_bias(sp_params *p, int token, float value, char *err);

/* Words, not ids (sampler/words.c): a bad word or a sequence bias of n
 * token ids (1..SP_MAX_WORD_LEN; the ids and the value are checked with the
 * rest by sp_params_check); SP_ERR_ARG when p holds SP_MAX_WORDS already. */
int sp_params_add_bad_word(sp_params *p, const int *tokens, int n,
                           char *err);
int sp_params_add_sequence_bias(sp_params *p, const int *tokens, int n,
                                float value, char *err);

#endif /* SAMPLER_PARAMS_H */
