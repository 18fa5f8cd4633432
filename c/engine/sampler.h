/*
 * sampler.h — the public API of the sampler playground's engine.
 *
 * The data's path: model -> logits -> sampler pipeline -> step record.
 *
 *   sp_model     read-only weights of a model (character bigram or a
 *                llama2.c-format transformer), loaded from bytes.
 *   sp_state     per-generation forward state of a model (KV cache,
 *                activations); allocated once, never per step.
 *   sp_tokenizer text <-> token ids.
 *   sp_sampler   the warper pipeline and its scratch memory for one
 *                vocabulary size.
 *   sp_step      everything a lesson shows about one step.
 *   sp_session   model + state + tokenizer + sampler + history + PRNG:
 *                what the CLI, the WASM API and the tests drive.
 *
 * The sampler chain: an ordered list of stages (sp_stage), each one
 * function of the candidates and the parameters (masking writes -INFINITY;
 * nothing is normalized until the final softmax).  The default order:
 *
 *   [constraint mask] -> logit bias -> penalties (repetition, frequency,
 *   presence) -> DRY -> no-repeat-ngram -> min-new-tokens -> exponential
 *   decay length penalty -> watermark -> temperature (dynamic
 *   temperature) -> quadratic sampling -> top-nσ -> top-k -> top-p -> top-H -> min-p -> p-less ->
 *   typical-p -> epsilon -> eta -> tail-free -> top-a -> XTC -> [mirostat]
 *   -> softmax -> draw
 *
 * (the constraint mask runs first when a regex or grammar is set; mirostat,
 * when on, is the chain's last stage: it sets the final truncation and
 * learns from the token drawn).  Every stage is off at its neutral
 * settings; sp_params.order reorders them (--samplers).
 *
 * DETERMINISM — same seed + model + prompt + settings => byte-identical
 * output in the native CLI, the WASM SIMD build, the scalar WASM build and
 * every browser.  How that is guaranteed:
 *
 *  1. One random source: PCG32 (O'Neill 2014, XSH-RR output, 64-bit state,
 *     fixed increment), seeded once per generation from the 64-bit seed and
 *     never reseeded.  Step i of a generation uses exactly the i-th uniform
 *     u = ((a >> 5) * 2^26 + (b >> 6)) / 2^53 built from two 32-bit outputs,
 *     whatever the settings, so runs with other settings draw the same u's.
 *  2. IEEE-754 binary32/binary64 arithmetic only, with no -ffast-math and
 *     -ffp-contract=off (no fused multiply-add anywhere): every + - * / and
 *     sqrt is correctly rounded on x86-64 SSE2 and in WebAssembly alike.
 *  3. The engine owns its transcendental functions (mathx.c: exp, log, sin,
 *     cos, pow built from + - * / only); no libm call can differ between
 *     glibc and the WASM libc.
 *  4. Every reduction (dot products, sums of exponentials) has one canonical
 *     order, defined in vec4.h: 16 lanes accumulated blockwise, combined in
 *     a fixed tree, then a sequential tail.  The SIMD kernels (WASM simd128,
 *     x86 SSE2) and the scalar kernels perform the very same operations in
 *     that order, lane by lane, so they produce the same bits.  The sums the
 *     sampler keeps in double (entropies, top-nσ's mean and variance) are
 *     one by one in index order -- or in any order when every addition is
 *     provably exact (sp_sum_finite), which is the same sum.
 *  5. Orderings break every tie by token id (top-p and typical-p rank by
 *     probability, then id; top-k keeps every token tied with the k-th, as
 *     its definition says), selection uses a deterministic pivot, and sums
 *     run over the kept tokens in ascending id order, so the kept set and
 *     every later sum never depend on the build.
 *  6. Numbers are printed with "%.9g" (9 significant digits, enough to
 *     round-trip a float); both C libraries print correctly rounded decimals.
 *  The byte-identity tests (tests/js/identity.test.js) hold the builds to it.
 */
#ifndef SAMPLER_H
#define SAMPLER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SP_VERSION "0.1.0"

/* Errors: one row each, X(ID, code, name, class).  The codes 0-5 are the
 * classes and never change; a function that fails returns its error's class
 * and, when given a buffer, writes a one-line message in English for people
 * (sp_fail) with the error's own code stored beside it for programs
 * (sp_error_code): a front-end decides by that code or its name, never by
 * the words.  The classes: a malformed file or request; a parameter out of
 * range, not a number, ...; allocation failed; a call not valid now; no
 * token of the vocabulary fits the constraint.  The finer errors: the
 * model's context is full; the model emitted its end-of-text token; the
 * options ban every token; the model's output is not finite; a pattern the
 * engine cannot use; a prompt it cannot encode; one too long for the
 * model; a tokenizer.bin given as the model. */
#define SP_ERRORS(X)                                              \
    X(SP_OK, 0, "ok", SP_OK)                                      \
    X(SP_ERR_FORMAT, 1, "format", SP_ERR_FORMAT)                  \
    X(SP_ERR_ARG, 2, "arg", SP_ERR_ARG)                           \
    X(SP_ERR_NOMEM, 3, "nomem", SP_ERR_NOMEM)                     \
    X(SP_ERR_STATE, 4, "state", SP_ERR_STATE)                     \
    X(SP_ERR_UNSATISFIABLE, 5, "unsatisfiable", SP_ERR_UNSATISFIABLE) \
    X(SP_ERR_CONTEXT_FULL, 6, "context_full", SP_ERR_STATE)       \
    X(SP_ERR_FINISHED, 7, "finished", SP_ERR_STATE)               \
    X(SP_ERR_NO_TOKEN, 8, "no_token", SP_ERR_STATE)               \
    X(SP_ERR_LOGITS, 9, "logits", SP_ERR_FORMAT)                  \
    X(SP_ERR_REGEX, 10, "regex", SP_ERR_ARG)                      \
    X(SP_ERR_PROMPT, 11, "prompt", SP_ERR_ARG)                    \
    X(SP_ERR_PROMPT_LONG, 12, "prompt_long", SP_ERR_ARG)          \
    X(SP_ERR_TOKENIZER_AS_MODEL, 13, "tokenizer_as_model", SP_ERR_FORMAT)

#define SP_ERROR_ENUM(id, code, name, cls) id = code,
enum { SP_ERRORS(SP_ERROR_ENUM) SP_ERR_COUNT };
#undef SP_ERROR_ENUM

#define SP_ERR_LEN 256 /* size of every error-message buffer */

/* Writes a one-line message into err (SP_ERR_LEN bytes) when err is not
 * NULL, with code stored beside it (its last byte), and returns code's
 * class: how the engine reports, and how the front-ends (c/cli, c/wasm)
 * word their own errors alike. */
int sp_fail(char *err, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Which error err holds after a call returned rc: the code sp_fail stored
 * with the message when it is of class rc (any class when rc < 0), else rc
 * itself (SP_OK when rc < 0 and err holds no message). */
int sp_error_code(int rc, const char *err);

/* An error's class (SP_OK .. SP_ERR_UNSATISFIABLE) and its name ("regex");
 * a code out of range has class -1 and name NULL. */
int sp_error_class(int code);
const char *sp_error_name(int code);

/* The kernels this build runs: "wasm-simd128", "sse2" or "scalar". */
const char *sp_backend(void);

/* ------------------------------------------------------------------ PRNG */

/* PCG32 (XSH-RR) with a fixed stream: the 64-bit state is all there is. */
typedef struct {
    uint64_t state;
} sp_rng;

void sp_rng_seed(sp_rng *rng, uint64_t seed);
uint32_t sp_rng_u32(sp_rng *rng);
double sp_rng_uniform(sp_rng *rng); /* in [0, 1), 53 random bits */

/* ------------------------------------------------------------ parameters */

/* The codes a step record's cut holds (sp_step.cut): who removed a token.
 * One row each, in the codes' order (the numbers never change): the code's
 * suffix and its name.  The stages name theirs in their rows (below). */
#define SP_CUT_ROWS(X)                                                      \
    X(NONE, "kept")                                                         \
    X(BIAS, "bias")               /* logit bias of -inf (a banned token) */ \
    X(TEMPERATURE, "temperature") /* temperature 0: not the argmax */      \
    X(TOP_K, "top_k")                                                       \
    X(TOP_P, "top_p")                                                       \
    X(MIN_P, "min_p")                                                       \
    X(TYPICAL_P, "typical_p")                                               \
    X(MASK, "mask")          /* masked by the model or the request */       \
    X(CONSTRAINT, "constraint") /* cannot continue the regex / grammar */   \
    X(TOP_N_SIGMA, "top_n_sigma")                                           \
    X(EPSILON, "epsilon")                                                   \
    X(ETA, "eta")                                                           \
    X(TOP_A, "top_a")                                                       \
    X(XTC, "xtc")                                                           \
    X(NO_REPEAT_NGRAM, "no_repeat_ngram")                                   \
    X(MIROSTAT, "mirostat")                                                 \
    X(TOP_H, "top_h")                                                       \
    X(P_LESS, "p_less")                                                     \
    X(TFS, "tfs")                                                           \
    X(MIN_NEW_TOKENS, "min_new_tokens")

#define SP_CUT_ENUM_(id, name) SP_CUT_##id,
typedef enum { SP_CUT_ROWS(SP_CUT_ENUM_) SP_CUT_COUNT } sp_cut;
#undef SP_CUT_ENUM_

const char *sp_cut_name(int cut); /* "kept", "bias", "temperature", "top_k", ... */

typedef struct {
    int token;
    float value; /* added to the logit; -INFINITY bans the token */
} sp_bias;

#define SP_MAX_BIAS 256
#define SP_MAX_DRY_BREAKERS 32    /* sequence breakers of DRY */
#define SP_MAX_DRY_BREAKER_LEN 8  /* tokens in one breaker */

/*
 * The stages of the sampler chain: one row each, in their default order.
 * Everything about a stage derives from its row: the sp_stage enum, its
 * name (the API's, --samplers', the link's), its label and one line of
 * doc (the registry: `sampler params`, the page, docs/samplers.md), the
 * cut code it marks the tokens it removes with (NONE: it only reshapes),
 * its function (void fn(sp_candidates *, const sp_params *), in
 * c/engine/sampler/) and when the settings turn it on (an expression of
 * the settings p: sp_stage_active).  Its parameters are rows of the
 * parameter table (sampler/params.c) that name the stage.
 *
 *   X(id, name, cut, label, doc, fn, active)
 */
#define SP_STAGE_ROWS(X)                                                    \
    X(BIAS, "bias", BIAS, "Logit bias",                                     \
      "adds a value to chosen tokens' logits; -inf bans them",              \
      sp_stage_bias, p->n_bias > 0)                                         \
    X(PENALTIES, "penalties", NONE, "Penalties",                            \
      "pushes down the tokens the text already has", sp_stage_penalties,    \
      p->repetition_penalty != 1.0f || p->frequency_penalty != 0.0f ||      \
          p->presence_penalty != 0.0f)                                      \
    X(DRY, "dry", NONE, "DRY",                                              \
      "pushes down a token that would extend a repeat of the text",         \
      sp_stage_dry, p->dry_multiplier != 0.0f)                              \
    X(NO_REPEAT_NGRAM, "no_repeat_ngram", NO_REPEAT_NGRAM,                  \
      "No-repeat n-gram", "removes a token that would repeat an n-gram",    \
      sp_stage_no_repeat_ngram, p->no_repeat_ngram_size > 0)                \
    X(MIN_NEW_TOKENS, "min_new_tokens", MIN_NEW_TOKENS, "Min new tokens",   \
      "bans the end of the text until the text has this many new tokens",   \
      sp_stage_min_new_tokens, p->min_new_tokens > 0)                       \
    X(EXP_DECAY, "exp_decay_length_penalty", NONE, "Length penalty",        \
      "pushes the end of the text up, more with every token past a start",  \
      sp_stage_exp_decay, p->exp_decay_factor != 1.0f)                      \
    X(WATERMARK, "watermark", NONE, "Watermark",                            \
      "adds delta to a green list of tokens that the previous token and a "  \
      "key choose", sp_stage_watermark, p->watermark_delta != 0.0f)         \
    X(TEMPERATURE, "temperature", TEMPERATURE, "Temperature",               \
      "sharpens (below 1) or flattens (above 1) the distribution",          \
      sp_stage_temperature,                                                 \
      p->temperature != 1.0f || p->dynatemp_range > 0.0f)                   \
    X(QUADRATIC, "quadratic_sampling", NONE, "Quadratic sampling",          \
      "bends the logits below the top one along a parabola (and a cubic)",  \
      sp_stage_quadratic, p->smoothing_factor > 0.0f)                       \
    X(TOP_N_SIGMA, "top_n_sigma", TOP_N_SIGMA, "Top-nσ",                    \
      "keeps the logits near the largest, in standard deviations",          \
      sp_stage_top_n_sigma, p->top_n_sigma > 0.0f)                          \
    X(TOP_K, "top_k", TOP_K, "Top-k", "keeps the k most likely tokens",     \
      sp_stage_top_k, p->top_k > 0)                                         \
    X(TOP_P, "top_p", TOP_P, "Top-p",                                       \
      "keeps the fewest likely tokens that hold mass p (the nucleus)",      \
      sp_stage_top_p, p->top_p < 1.0f)                                      \
    X(TOP_H, "top_h", TOP_H, "Top-H",                                       \
      "keeps the likeliest tokens while the entropy they add stays within " \
      "a share of the whole's", sp_stage_top_h, p->top_h > 0.0f)            \
    X(MIN_P, "min_p", MIN_P, "Min-p",                                       \
      "keeps the tokens at least this fraction as likely as the top",       \
      sp_stage_min_p, p->min_p > 0.0f)                                      \
    X(P_LESS, "p_less", P_LESS, "P-less",                                   \
      "keeps the tokens at least as likely as two draws are to agree (the " \
      "sum of p squared)", sp_stage_p_less, p->p_less != 0)                 \
    X(TYPICAL_P, "typical_p", TYPICAL_P, "Typical-p",                       \
      "keeps the tokens whose surprise is nearest the entropy",             \
      sp_stage_typical_p, p->typical_p < 1.0f)                              \
    X(EPSILON, "epsilon", EPSILON, "Epsilon cutoff",                        \
      "drops the tokens below a fixed probability", sp_stage_epsilon,       \
      p->epsilon_cutoff > 0.0f)                                             \
    X(ETA, "eta", ETA, "Eta cutoff",                                        \
      "drops the tokens below a bar that falls as entropy grows",           \
      sp_stage_eta, p->eta_cutoff > 0.0f)                                   \
    X(TFS, "tfs", TFS, "Tail-free",                                         \
      "cuts the tail where the curve of the sorted probabilities flattens " \
      "out", sp_stage_tfs, p->tfs < 1.0f)                                   \
    X(TOP_A, "top_a", TOP_A, "Top-a",                                       \
      "drops the tokens below a times the top probability squared",         \
      sp_stage_top_a, p->top_a > 0.0f)                                      \
    X(XTC, "xtc", XTC, "XTC",                                               \
      "sometimes removes the top choices, leaving the least likely",        \
      sp_stage_xtc, p->xtc_probability > 0.0f && p->xtc_threshold <= 0.5f)

/* The terminal stages, after the chain when on: each learns from the token
 * drawn, from one step to the next.  Mirostat sets the final truncation;
 * adaptive-p (llama.cpp's, PR #17927) reshapes the distribution around a
 * target probability it adapts to the text.  No order moves them, so they
 * are not among the names an order takes; at most one is on. */
#define SP_STAGE_TERMINAL(X)                                                \
    X(MIROSTAT, "mirostat", MIROSTAT, "Mirostat",                           \
      "keeps the tokens whose surprise is within a target it learns",       \
      sp_stage_mirostat, p->mirostat != 0)                                  \
    X(ADAPTIVE_P, "adaptive_p", NONE, "Adaptive-p",                         \
      "favours the tokens near a target probability it adapts to the text", \
      sp_stage_adaptive_p, p->adaptive_target >= 0.0f)

/* Every row: the chain's, then the terminal one. */
#define SP_STAGE_ALL_ROWS(X) SP_STAGE_ROWS(X) SP_STAGE_TERMINAL(X)

#define SP_STAGE_ENUM_(id, ...) SP_STAGE_##id,
typedef enum {
    SP_STAGE_ROWS(SP_STAGE_ENUM_)
    SP_STAGE_COUNT, /* the stages an order holds */
    SP_STAGE_TERMINAL_ = SP_STAGE_COUNT - 1,
    SP_STAGE_TERMINAL(SP_STAGE_ENUM_) /* the terminal stages, after them */
    SP_STAGE_ALL    /* every row */
} sp_stage;
#define SP_STAGE_N_TERMINAL (SP_STAGE_ALL - SP_STAGE_COUNT)
#undef SP_STAGE_ENUM_

/* The sampler settings.  Each field is declared once, with its name, CLI
 * flag, range, neutral value and documentation, in the parameter registry
 * (sp_param_info, sampler/params.c); the CLI, the WASM API, the page and
 * the docs read it from there. */
typedef struct {
    float temperature;        /* >= 0; 0 = greedy; default 1 */
    int top_k;                /* >= 0; 0 or >= vocab = off */
    float top_p;              /* (0, 1]; 1 = off */
    float min_p;              /* [0, 1]; 0 = off */
    float typical_p;          /* (0, 1]; 1 = off */
    float repetition_penalty; /* > 0; 1 = off */
    float frequency_penalty;  /* finite; 0 = off */
    float presence_penalty;   /* finite; 0 = off */
    int penalty_last_n;       /* >= 0; 0 = the whole history */
    float top_n_sigma;        /* <= 0 off */
    float epsilon_cutoff;     /* [0, 1); 0 off */
    float eta_cutoff;         /* [0, 1); 0 off */
    float top_a;              /* >= 0; 0 off */
    float xtc_probability;    /* [0, 1]; 0 off */
    float xtc_threshold;      /* [0, 1]; > 0.5 off; default 0.1 */
    float dry_multiplier;     /* >= 0; 0 off */
    float dry_base;           /* >= 1; default 1.75 */
    int dry_allowed_length;   /* >= 1; default 2 */
    int dry_penalty_last_n;   /* >= 0; 0 = the whole history */
    float dynatemp_range;     /* >= 0; 0 off */
    float dynatemp_exp;       /* > 0; default 1 */
    int no_repeat_ngram_size; /* >= 0; 0 off */
    int mirostat;             /* 0 off, 1 or 2 */
    float mirostat_tau;       /* > 0; default 5 */
    float mirostat_eta;       /* > 0; default 0.1 */
    float adaptive_target;    /* <= 1; < 0 off (default -1) */
    float adaptive_decay;     /* [0, 1); default 0.9 */
    float top_h;              /* [0, 1]; 0 off */
    int p_less;               /* 0 off, 1 on */
    float tfs;                /* [0, 1]; 1 off */
    float smoothing_factor;   /* >= 0; 0 off */
    float smoothing_curve;    /* >= 1; default 1 */
    int min_new_tokens;       /* >= 0; 0 off */
    int exp_decay_start;      /* >= 0; default 0 */
    float exp_decay_factor;   /* > 0; 1 off */
    /* watermarking (Kirchenbauer et al. 2023; watermark.c) */
    float watermark_gamma;    /* (0, 1): the green list's share; 0.25 */
    float watermark_delta;    /* >= 0: added to green logits; 0 off */
    int watermark_key;        /* >= 0: the hash key; 15485863 */
    int n_bias;
    sp_bias bias[SP_MAX_BIAS];
    /* DRY's sequence breakers: token sequences that end a repeat */
    int n_dry_breakers;
    int dry_breaker_len[SP_MAX_DRY_BREAKERS];
    int dry_breakers[SP_MAX_DRY_BREAKERS][SP_MAX_DRY_BREAKER_LEN];
    /* the chain's order: n_order stages from order[]; 0 = the default */
    int n_order;
    uint8_t order[SP_STAGE_COUNT];
} sp_params;

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

/* ------------------------------------------------------------- step record */

typedef struct {
    int vocab;
    /* per token, [vocab] each; owned by the sampler, valid until its next
     * warp */
    const float *logits;    /* the model's logits as given */
    const float *probs_raw; /* softmax of the model's logits */
    const float *probs_tempered; /* softmax after bias, penalties and
                                  * temperature: what top-k, top-p, min-p and
                                  * typical-p see */
    const float *probs;     /* the final distribution; 0 where cut */
    const uint8_t *cut;     /* sp_cut: which stage removed the token */
    const int *kept;        /* kept token ids, ascending; [n_kept] */
    int n_kept;             /* nucleus size */
    const int *penalized;   /* the tokens a penalty or DRY changed */
    int n_penalized;        /*   (each once, in the order they were met) */
    double kept_mass;       /* raw-distribution mass of the kept tokens */
    double entropy_raw_bits;
    double entropy_bits;    /* of the final distribution */
    int argmax_raw;         /* most likely token of the raw distribution */
    float raw_max;          /* max logit; log p_raw(t) = logit - raw_max - */
    double raw_log_z;       /*   raw_log_z (NaN when raw is off) */
    /* the terminal stages' state, as this warp used it (NaN when off):
     * mirostat's target mu; adaptive-p's running average (sum / weight)
     * of the drawn tokens' probabilities and the target it aimed at this
     * step, clamp(2 target - average, 0, 1) */
    float mirostat_mu;
    float adaptive_average, adaptive_aim;
    /* the distribution adaptive-p reshaped ([vocab], 0 where cut; NULL
     * when it is off): its state learns from the drawn token's entry */
    const float *probs_adaptive_in;
    /* the watermark (NULL / NaN when off, or at a step with no previous
     * token): green[vocab] is 1 on this step's green list; green_mass the
     * green list's probability in the distribution the stage saw (before
     * its bias: what the model alone gives green); spike_entropy that
     * distribution's spike entropy, sum p / (1 + zeta p) with zeta =
     * (1 - gamma)(e^delta - 1) / (1 + (e^delta - 1) gamma) (the paper's
     * measure of how much a step can carry) */
    const uint8_t *green;
    double green_mass, spike_entropy;
    /* filled by sp_sampler_draw */
    int token;              /* the chosen token, -1 before a draw */
    float p_token;          /* its final probability */
    double u;               /* the uniform that chose it */
} sp_step;

/* -------------------------------------------------------------- sampler */

typedef struct sp_sampler sp_sampler;

sp_sampler *sp_sampler_new(int vocab);
void sp_sampler_free(sp_sampler *s);
int sp_sampler_vocab(const sp_sampler *s);

/* Runs the pipeline on logits[vocab] with the token history (the penalties
 * look at its last penalty_last_n entries).  Fills *step (token = -1).
 * Returns SP_OK, or SP_ERR_ARG with a message for bad parameters, or
 * SP_ERR_STATE when no token survives (every logit is -inf). */
int sp_sampler_warp(sp_sampler *s, const float *logits, const int *history,
                    int n_history, const sp_params *p, sp_step *step,
                    char *err);

/* What a warp draws on besides the logits and the settings: the step's
 * XTC draw (in [0, 1): XTC acts when it is below xtc_probability) and
 * mirostat's running surprise target mu (NaN: its start, 2 tau); for the
 * length stages, the tokens generated before this step and the tokens
 * that end the text (ends[n_ends], borrowed).  A session sets them all for
 * each step (the draws each from its own seeded stream, so the step's main
 * uniform stays the i-th); a bare sampler uses 0, NaN and no end tokens
 * (the length stages then do nothing). */
typedef struct {
    double xtc_u;
    float mirostat_mu;
    int n_generated;
    const int *ends;
    int n_ends;
    /* adaptive-p's running sums (llama.cpp's weighted_sum, total_weight):
     * sum_i decay^i p_i over the tokens drawn, newest first, p_i the
     * probability each had before the stage, and sum_i decay^i.  A weight
     * that is not > 0 (0, NaN) is its start: as if the text had met the
     * target, target / (1 - decay) and 1 / (1 - decay). */
    float adaptive_sum, adaptive_weight;
} sp_sampler_state;
void sp_sampler_set_state(sp_sampler *s, const sp_sampler_state *state);
/* Mirostat's target after a token of final probability p_token was drawn
 * (mu NaN: its start, 2 tau); mu itself when mirostat is off. */
float sp_mirostat_update(const sp_params *p, float mu, float p_token);
/* Adaptive-p's sums after a token was drawn whose probability before the
 * stage was p_in (sp_step.probs_adaptive_in[token]): sum = p_in + decay sum,
 * weight = 1 + decay weight, from the start when *weight is not > 0.
 * Nothing changes when adaptive-p is off. */
void sp_adaptive_update(const sp_params *p, float *sum, float *weight,
                        float p_in);
/* XTC's uniform for generated step `step` of a text seeded with seed: a
 * stream of its own, so a step's main uniform stays the i-th of the seed's
 * stream whatever XTC does (and a rewind finds the same one again). */
double sp_xtc_uniform(uint64_t seed, int step);

/* Tokens the next warps may choose: allowed[vocab], 0 = masked by a
 * constraint (cut stage "constraint"); NULL = all.  The array is borrowed
 * and read at every warp until replaced. */
void sp_sampler_set_mask(sp_sampler *s, const uint8_t *allowed);

/* Whether sp_sampler_warp computes the raw and the tempered distribution,
 * the raw entropy and the kept mass (default on; off saves passes over the
 * vocabulary when nobody looks at them: probs_raw and probs_tempered are
 * then NULL and the numbers NaN). */
void sp_sampler_set_raw(sp_sampler *s, int on);

/* The n tokens the truncating stages rank first (by probs_tempered, or by
 * probs when the sampler does not compute it; descending, ties by id), into
 * ids[n], with the cumulative tempered mass after each in cum[n].  One pass
 * with an n-element heap: the vocabulary is never sorted.  Returns the
 * count (n, or vocab if smaller). */
int sp_step_top(const sp_step *st, int n, int *ids, double *cum);

/* Who cut what in a warp, in the chain's order: the mask and the
 * constraint first, then each stage of p's chain, then mirostat; an entry
 * for every one that cut at least one token.  Fills names[] and counts[]
 * (SP_STAGE_COUNT + 3 each at most) and, unless NULL, masses[]: the model's
 * probability (probs_raw) of the tokens each one cut (NaN when the sampler
 * does not compute probs_raw).  Returns the entries. */
int sp_step_cuts(const sp_step *st, const sp_params *p, const char **names,
                 int *counts, double *masses);

/* Draws n tokens from the step's final distribution with a PRNG of its own
 * (seeded by seed; the generation's stream is not touched) into
 * counts[vocab], and returns the KL divergence, in bits, of those empirical
 * frequencies from the final distribution (NaN if the step cannot draw). */
double sp_step_sample_counts(const sp_step *st, uint64_t seed, int n,
                             int *counts);

/* Picks the token for uniform u in [0, 1) by inverse CDF over the kept
 * tokens in ascending id order; fills step->token, p_token, u. */
int sp_sampler_draw(sp_step *step, double u);

/* ----------------------------------------------------------- watermark */

/* Watermarking (Kirchenbauer et al. 2023, "A Watermark for Large Language
 * Models"; watermark.c).  The green list after token prev is the first
 * floor(vocab gamma) ids of a permutation of the vocabulary drawn by a
 * Fisher-Yates shuffle from PCG32 seeded with (key << 32) | prev: integer
 * arithmetic only, the same list in every build.  green[vocab] gets 1 on
 * the list and 0 elsewhere (perm[vocab]: scratch); returns the list's size.
 * gamma outside (0, 1), a prev or key < 0: -1. */
int sp_watermark_green(int vocab, float gamma, int key, int prev,
                       uint8_t *green, int *perm);
/* Whether token is on the green list after prev (perm[vocab]: scratch);
 * -1 for bad arguments. */
int sp_watermark_is_green(int vocab, float gamma, int key, int prev,
                          int token, int *perm);

/* Detection: the tokens ids[first .. n) are each judged green or red by
 * the green list of the token before it (first >= 1: ids[0 .. first) are
 * context, e.g. the prompt; first 0 counts from ids[1]).  T tokens, G
 * green, z = (G - gamma T) / sqrt(T gamma (1 - gamma)) (the paper's plain
 * count: repeated pairs count every time), p_value the normal upper tail
 * of z (0.5 erfc(z / sqrt 2), to about 1e-7 relative).  per_token[n]
 * (may be NULL): 1 green, 0 red, -1 not judged (context); running[n] (may
 * be NULL): the z of the tokens scored up to and with token i (NaN for the
 * context).  SP_ERR_ARG for a token outside the vocabulary or a bad gamma
 * or key. */
typedef struct {
    int tokens, green;
    double z, p_value;
} sp_watermark_score;
int sp_watermark_detect(int vocab, float gamma, int key, const int *ids,
                        int n, int first, int8_t *per_token,
                        double *running, sp_watermark_score *out, char *err);

/* ---------------------------------------------------------------- models */

typedef enum {
    SP_MODEL_BIGRAM = 1,
    SP_MODEL_TRANSFORMER = 2,
    SP_MODEL_HANDMADE = 3 /* a list of labels with logits, every step */
} sp_model_kind;

typedef struct sp_model sp_model;
typedef struct sp_state sp_state;
typedef struct sp_tokenizer sp_tokenizer;

/* Loads a model from a complete file image.  The format is recognized by
 * its content (bigram: magic "SPBG"; GGUF: magic "GGUF", the llama and
 * qwen2 architectures; otherwise a llama2.c checkpoint).  The model keeps
 * a pointer into data when take_ownership is 1 and frees it with free() in
 * sp_model_free (a GGUF or checkpoint's weights are then read in place: no
 * copy); otherwise it copies what it needs. */
sp_model *sp_model_load(uint8_t *data, size_t size, int take_ownership,
                        char *err);
void sp_model_free(sp_model *m);

/* The most memory this build can use (WASM: its maximum memory, the same
 * as build.sh's -sMAXIMUM_MEMORY; 0 for native builds: no limit of ours). */
#define SP_WASM_MAX_MEMORY ((double)(2u << 30))
double sp_memory_limit(void);
/* Whether a model file of `size` bytes can be loaded at all: SP_OK, or
 * SP_ERR_NOMEM and a message with its size and the limit when it is
 * larger than the memory less what a session needs beside it -- asked
 * before the bytes are read, so that a file too large is refused before
 * anything is loaded. */
int sp_model_check_size(double size, char *err);

/* A hand-made model from a spec (handmade.c): "logits:2,1,0",
 * "logits:yes=2,no=1,maybe=0" or "probs:0.5,0.3,0.2" (logit = ln p); the
 * same distribution at every step, whatever came before (the penalties
 * still see the history).  Its tokenizer reads prompts by longest match of
 * the labels and has no begin or end token: a generation may start from an
 * empty prompt.  SP_ERR_ARG with a message that names the bad entry. */
#define SP_HANDMADE_MAX 128      /* tokens (a step summary shows them all) */
#define SP_HANDMADE_MAX_LABEL 16 /* bytes of one label */
sp_model *sp_model_handmade(const char *spec, char *err);

/* A copy of a bigram or hand-made model that sp_model_set_prob may edit
 * (the loaded one stays as it was); NULL and a message for a transformer. */
sp_model *sp_model_copy(const sp_model *m, char *err);
/* The logits of the distribution after token row (bigram), or the
 * hand-made model's (row 0): [vocab], owned by the model; NULL for a
 * transformer or a row outside the vocabulary. */
const float *sp_model_row(const sp_model *m, int row);
/* Sets P(token | row) to p, in (0, 1), keeping the other tokens' logits:
 * they keep their ratios and share 1 - p (a learner drags a bar's top).
 * Only token's logit changes: ln(p / (1 - p)) + ln sum_{j != token}
 * exp(logit_j).  SP_ERR_ARG for a transformer, a row or token outside the
 * vocabulary, p outside (0, 1), or when every other token is masked. */
int sp_model_set_prob(sp_model *m, int row, int token, double p, char *err);

/* Trains a character bigram on a text (train.c), as models/train_bigram.py
 * does, byte for byte: each line (split as Python splits text files,
 * stripped as str.strip() strips) is a word framed by the boundary "\n";
 * P(b | a) = (count(a, b) + alpha) / (count(a) + alpha V), stored as float32
 * ln P in the bigram file format.  Feed the UTF-8 text in chunks of any
 * size (a front-end reports progress between them), then finish: *out is
 * a malloc'd bigram file of *size bytes (sp_model_load reads it).  Errors,
 * each with its message: a NUL byte (a binary file), bytes that are not
 * UTF-8, more than SP_TRAIN_MAX_BYTES, more than 4095 different
 * characters, an empty text.  After a failed feed, finish fails too. */
#define SP_TRAIN_MAX_BYTES (64 << 20)
typedef struct sp_trainer sp_trainer;
sp_trainer *sp_trainer_new(char *err);
int sp_trainer_feed(sp_trainer *t, const uint8_t *bytes, size_t n,
                    char *err);
int sp_trainer_finish(sp_trainer *t, double alpha, uint8_t **out,
                      size_t *size, char *err);
size_t sp_trainer_bytes(const sp_trainer *t); /* fed so far */
int sp_trainer_chars(const sp_trainer *t);    /* different characters */
void sp_trainer_free(sp_trainer *t);

sp_model_kind sp_model_kind_of(const sp_model *m);
int sp_model_vocab(const sp_model *m);
int sp_model_seq_len(const sp_model *m); /* context length; 0 = unbounded */
/* A tokenizer built into the model file (bigram), or NULL. */
const sp_tokenizer *sp_model_tokenizer(const sp_model *m);

sp_state *sp_state_new(const sp_model *m);
void sp_state_free(sp_state *st);
/* Makes dst continue from where src stood after n_pos tokens (copies the
 * KV cache rows [0, n_pos) and the last logits). */
void sp_state_copy(const sp_model *m, sp_state *dst, const sp_state *src,
                   int n_pos);
/* Feeds token at position pos (0-based, in order) and returns the logits for
 * the next position, [vocab], owned by the state. */
float *sp_forward(const sp_model *m, sp_state *st, int token, int pos);

/* The batched forward pass: feeds tokens[0..n) at positions pos..pos+n-1
 * (n in 1..SP_BATCH_MAX) in one call, reading each weight matrix once for
 * the n positions, and returns their logits, [n][vocab] row by row, owned
 * by the state and valid until its next forward.  Row b has the very bits
 * sp_forward(m, st, tokens[b], pos + b) would give after the rows before
 * it (same kernels, same summation order), and the state is left as those
 * n calls leave it.  last_only: only the last row is computed (a prompt's
 * prefill).  NULL for a token or a position out of range, or when memory
 * is short.  Speculative decoding verifies its drafted tokens with it, and
 * a session prefills its prompt with it. */
#define SP_BATCH_MAX 32
const float *sp_forward_batch(const sp_model *m, sp_state *st,
                              const int *tokens, int n, int pos,
                              int last_only);

/* Work done by a state's forward passes since sp_state_new or the last
 * reset.  flops: 2 x the multiply-adds the passes did (matmuls, attention
 * scores, weighted sums of the values); flops_no_cache: what recomputing
 * the whole prefix 0..pos from scratch at every call would have cost (the
 * same count for positions 0..pos, logits included, summed over the calls);
 * tokens: positions fed (one per sp_forward call, n per batched pass);
 * kv_reused: key and value vectors (one [kv_dim] row of one layer each)
 * read from earlier positions; kv_written: new ones; passes: forward calls,
 * a batched pass counting once (each reads the weights once).  A bigram
 * counts tokens and passes only. */
typedef struct {
    double flops;
    double flops_no_cache;
    uint64_t tokens;
    uint64_t kv_reused;
    uint64_t kv_written;
    uint64_t passes;
} sp_counters;

void sp_state_counters(const sp_state *st, sp_counters *out);
/* The counters a state of model m reads after n forward passes from
 * position 0 (one token at a time, as a session feeds them), computed from
 * the model's shape without running them: the KV-cache cost of a text of
 * n tokens.  SP_ERR_ARG when n is negative or past the model's context. */
int sp_model_cost(const sp_model *m, int n, sp_counters *out, char *err);
void sp_state_reset_counters(sp_state *st);

/* ------------------------------------------------------------- tokenizers */

typedef enum {
    SP_TOK_CHAR = 1, /* one piece per character, no merges (the bigram) */
    SP_TOK_BPE = 2,  /* llama2.c tokenizer.bin: merges by score */
    SP_TOK_LABEL = 3, /* the hand-made model's labels: longest match, no
                       * begin or end token */
    SP_TOK_SPM = 4,  /* a GGUF file's "llama" tokenizer: SentencePiece
                      * merges by score, byte fallback, special tokens */
    SP_TOK_BYTE_BPE = 5 /* a GGUF file's "gpt2" tokenizer: a pre-tokenizer
                         * cuts words, byte-level BPE merges them by rank */
} sp_tok_kind;

/* Loads a llama2.c tokenizer.bin image, or the tokenizer of a GGUF file
 * (recognised by its magic; the model's weights are not read), copied:
 * data stays the caller's.  vocab > 0: the model's logits, which the
 * tokenizer's size must match. */
sp_tokenizer *sp_tokenizer_load(const uint8_t *data, size_t size, int vocab,
                                char *err);
/* A tokenizer of ids for a model without one (a llama2.c checkpoint chosen
 * alone): token i's piece is "<i>", a prompt is read as such pieces
 * ("<1><17>"); BOS 1 and EOS 2 as in llama2.c (run.c) when the vocabulary
 * has them; the model's text then shows its ids. */
sp_tokenizer *sp_tokenizer_ids(int vocab, char *err);
void sp_tokenizer_free(sp_tokenizer *t);
int sp_tokenizer_vocab(const sp_tokenizer *t);
sp_tok_kind sp_tokenizer_kind(const sp_tokenizer *t);
int sp_tokenizer_bos(const sp_tokenizer *t); /* -1 when it has none */
/* Whether two tokenizers are the same: kind, pieces, ids, scores. */
int sp_tokenizers_equal(const sp_tokenizer *a, const sp_tokenizer *b);
int sp_tokenizer_eos(const sp_tokenizer *t); /* -1 when it has none */
/* Encodes text into ids (at most max_ids); returns the count or -1 with a
 * message.  bos, eos: begin and end the text as the model's texts do --
 * llama2.c's always with BOS and EOS, a GGUF file's with the tokens its
 * add_bos_token and add_eos_token say (llama.cpp's add_special).  A GGUF
 * tokenizer reads its special tokens in the text as those tokens
 * ("<|im_end|>" is one token, as with llama.cpp's parse_special). */
int sp_encode(const sp_tokenizer *t, const char *text, int bos, int eos,
              int *ids, int max_ids, char *err);
/* The most ids sp_encode can make of len bytes (max_ids that never falls
 * short). */
int sp_encode_bound(const sp_tokenizer *t, size_t len);
/* Adds a DRY sequence breaker given as text: the tokenizer's tokens for it.
 * SP_ERR_ARG with a message that quotes the text (as JSON) when it is no
 * token, more than SP_MAX_DRY_BREAKER_LEN, or one the tokenizer cannot
 * write. */
int sp_params_add_dry_breaker_text(sp_params *p, const sp_tokenizer *tok,
                                   const char *text, char *err);
/* The bytes token `token` contributes after token `prev`, and their count. */
const char *sp_decode(const sp_tokenizer *t, int prev, int token, int *len);
/* Whether token ends a generated text: llama2.c's BOS and EOS, a GGUF
 * file's end-of-generation tokens (its EOS, <|eot_id|>, <|im_end|>, ...
 * as llama.cpp finds them).  A character tokenizer's boundary only ends a
 * word (0). */
int sp_tokenizer_is_eog(const sp_tokenizer *t, int token);

/* A GGUF file's chat template (tokenizer.chat_template), as recognised. */
typedef enum {
    SP_CHAT_NONE = 0,   /* the tokenizer has none */
    SP_CHAT_CHATML = 1, /* <|im_start|>user ... <|im_end|> (Qwen, SmolLM) */
    SP_CHAT_LLAMA3 = 2, /* <|start_header_id|>user<|end_header_id|> ... */
    SP_CHAT_OTHER = 3   /* one of another family: not supported */
} sp_chat_kind;
sp_chat_kind sp_tokenizer_chat(const sp_tokenizer *t);
/* The prompt as one user message in the model's chat template, the
 * assistant's turn opened (malloc'd; free it), or NULL with a message that
 * says why (no template, or one not supported): then use the prompt as it
 * is.  The text holds the template's special tokens as text; sp_encode
 * reads them back as those tokens. */
char *sp_chat_wrap(const sp_tokenizer *t, const char *prompt, char *err);

/* ----------------------------------------------------------- constraints */

/* A regex (the whole generated text must match it) or the JSON grammar:
 * one JSON document, or one whose top value is an object (the usual "JSON
 * mode").  Syntax and semantics: constrain/regex.c and constrain/json.c. */
typedef struct sp_constraint sp_constraint;
sp_constraint *sp_constraint_regex(const char *pattern, char *err);
sp_constraint *sp_constraint_json(char *err);
sp_constraint *sp_constraint_json_object(char *err);
void sp_constraint_free(sp_constraint *c);
const char *sp_constraint_describe(const sp_constraint *c);

/* --------------------------------------------------------------- session */

typedef struct sp_session sp_session;

/* A session borrows the model and the tokenizer (tok may be NULL for a
 * model with its own) and owns its state, sampler, history and PRNG. */
sp_session *sp_session_new(const sp_model *m, const sp_tokenizer *tok,
                           char *err);
void sp_session_free(sp_session *s);

/* Starts a generation: seeds the PRNG, encodes and feeds the prompt.  After
 * this the next token's logits are pending. */
int sp_session_start(sp_session *s, const char *prompt, uint64_t seed,
                     char *err);
/* Warps the pending logits without drawing (a preview for the UI). */
int sp_session_preview(sp_session *s, const sp_params *p, char *err);
/* Warps the distribution of generated step n (0 = the first generated
 * token) under p, as sp_session_preview does for the pending one: time
 * travel.  The session's text and PRNG are untouched; a constraint's mask is
 * not applied (it belongs to the live step). */
int sp_session_peek(sp_session *s, int n, const sp_params *p, char *err);
/* Warps, draws the step's uniform, appends the token and feeds it to the
 * model.  force >= 0 appends that token instead of the drawn one (the
 * uniform is consumed all the same).  Returns SP_OK, SP_ERR_STATE at the end
 * of the model's context, or another error with a message. */
int sp_session_step(sp_session *s, const sp_params *p, int force, char *err);
/* Tokens every step may choose (allowed[vocab], borrowed; NULL = all): a
 * fixed mask, combined with any constraint's (cut stage "constraint").
 * Forced tokens are not checked against it. */
void sp_session_set_allowed(sp_session *s, const uint8_t *allowed);
/* Constrains the generated text (not the prompt) to the regex or grammar c
 * (borrowed; NULL removes it), with at most budget generated tokens in all
 * (0 = no limit): every step masks the tokens that could not lead to a
 * match within the steps left, the end-of-text token (the bigram's boundary)
 * is allowed only when the text matches, and the session finishes when the
 * text matches and nothing else could follow.  SP_ERR_ARG if the budget is
 * too small or the text so far does not fit. */
int sp_session_constrain(sp_session *s, const sp_constraint *c, int budget,
                         char *err);
/* Goes back to the moment n generated tokens had been produced (the prompt
 * stays), restoring the PRNG so step n draws the same uniform as before. */
int sp_session_rewind(sp_session *s, int n_generated, char *err);

/* The step record of the last preview or step (NULL before any). */
const sp_step *sp_session_last_step(const sp_session *s);
sp_sampler *sp_session_sampler(sp_session *s);
int sp_session_n_generated(const sp_session *s);
int sp_session_n_tokens(const sp_session *s);      /* prompt + generated */
const int *sp_session_tokens(const sp_session *s); /* prompt + generated */
int sp_session_n_prompt(const sp_session *s);
/* The text is finished: the model chose an end-of-text token, or the
 * constraint is complete. */
int sp_session_finished(const sp_session *s);
/* Whether token ends the text here (EOS, BOS for llama2.c models; the
 * bigram's boundary only under a constraint): its piece is not text. */
int sp_session_is_end(const sp_session *s, int token);
const sp_tokenizer *sp_session_tokenizer(const sp_session *s);
int sp_session_vocab(const sp_session *s);

/* ----------------------------------------------------------- beam search */

/* Deterministic beam search (beam.c): width beams, optional length
 * penalty alpha (score = log p / length^alpha; 0 = plain log p), each
 * hypothesis holding at most max_tokens tokens (prompt included). */
typedef struct sp_beam_search sp_beam_search;
#define SP_BEAM_MAX_WIDTH 64
#define SP_BEAM_MAX_LENGTH_PENALTY 10
/* The checks sp_beam_new makes, for a front-end that reads the settings
 * before it has a model: width in 1..SP_BEAM_MAX_WIDTH, alpha in
 * [0, SP_BEAM_MAX_LENGTH_PENALTY]; SP_ERR_ARG and a message otherwise. */
int sp_beam_check_width(int width, char *err);
int sp_beam_check_length_penalty(double alpha, char *err);
sp_beam_search *sp_beam_new(const sp_model *m, const sp_tokenizer *tok,
                            int width, float length_penalty, int max_tokens,
                            char *err);
void sp_beam_free(sp_beam_search *b);
/* Constrains every hypothesis's generated text to the regex or grammar c
 * (borrowed; NULL lifts it), within budget generated tokens (0 = no
 * limit), as sp_session_constrain does a session's; before sp_beam_start. */
int sp_beam_constrain(sp_beam_search *b, const sp_constraint *c, int budget,
                      char *err);
int sp_beam_start(sp_beam_search *b, const char *prompt, char *err);
/* One expansion; bias and penalties of p apply, its warpers do not.
 * SP_ERR_STATE when every hypothesis is finished or the context is full. */
/* The stages beam search applies, in order (the logits processors: it
 * ranks and draws nothing); returns their number. */
int sp_beam_chain(const uint8_t **stages);
int sp_beam_step(sp_beam_search *b, const sp_params *p, char *err);
int sp_beam_live(const sp_beam_search *b);     /* beams still growing */
int sp_beam_count(const sp_beam_search *b);    /* live + finished */
int sp_beam_n_prompt(const sp_beam_search *b);
const sp_tokenizer *sp_beam_tokenizer(const sp_beam_search *b);
/* The i-th hypothesis by score, best first: its tokens (prompt included),
 * summed log probability, score, and whether it ended the text. */
const int *sp_beam_tokens(const sp_beam_search *b, int i, int *n);
double sp_beam_logprob(const sp_beam_search *b, int i);
double sp_beam_score(const sp_beam_search *b, int i);
int sp_beam_finished(const sp_beam_search *b, int i);
/* Whether token ends a hypothesis's text (EOS, or BOS for llama2.c
 * models): its piece is not text. */
int sp_beam_is_end(const sp_beam_search *b, int token);
/* Where the i-th hypothesis's text ends: the index of its first
 * end-of-text token after the prompt (sp_beam_is_end), else its token
 * count.  Its text is the pieces of tokens[n_prompt .. that index). */
int sp_beam_text_end(const sp_beam_search *b, int i);

/* -------------------------------------------------- speculative decoding */

/* Speculative sampling (speculative.c): a draft model proposes n_draft
 * tokens per round, the target session's model accepts each with
 * probability min(1, p/q) or replaces the first rejected one from the
 * residual max(0, p - q); the text is distributed exactly as the target's.
 * The speculator drives the target session (borrowed) and owns a session
 * of the draft model. */
typedef struct sp_speculator sp_speculator;
enum { SP_SPEC_ACCEPTED = 1, SP_SPEC_CORRECTED = 2, SP_SPEC_BONUS = 3 };
#define SP_SPEC_MAX_DRAFT 16
/* The check sp_spec_new makes: n_draft in 1..SP_SPEC_MAX_DRAFT. */
int sp_spec_check_draft(int n_draft, char *err);
sp_speculator *sp_spec_new(sp_session *target, const sp_model *draft_model,
                           const sp_tokenizer *draft_tok, int n_draft,
                           char *err);
void sp_spec_free(sp_speculator *sp);
/* Starts the target session (and the draft) on prompt with seed. */
int sp_spec_start(sp_speculator *sp, const char *prompt, uint64_t seed,
                  char *err);
/* One round: appends 1..n_draft+1 tokens to the target session. */
int sp_spec_round(sp_speculator *sp, const sp_params *p, char *err);
/* The last round: the target tokens it appended and their SP_SPEC_*
 * status; and the draft's proposals (target ids, -1 = none). */
int sp_spec_round_tokens(const sp_speculator *sp, const int **tokens,
                         const int **status);
int sp_spec_round_drafted(const sp_speculator *sp, const int **drafted);
/* target_positions: the positions the target verified (one per token it
 * appended), counted as before batching. */
void sp_spec_totals(const sp_speculator *sp, long long *drafted,
                    long long *accepted, long long *rounds,
                    long long *target_positions);
/* The target's batched passes (one per round) and the positions they fed
 * (the token the last round ended with, and every draft, accepted or not):
 * the work verification did. */
void sp_spec_work(const sp_speculator *sp, long long *target_passes,
                  long long *target_fed);
/* The positions the last round's batched pass fed (0: none was needed). */
int sp_spec_round_fed(const sp_speculator *sp);
/* Whether the draft speaks the target's ids (its tokenizer is the same). */
int sp_spec_matched(const sp_speculator *sp);
/* The last round's rejection: the index of the rejected draft (-1: none
 * was), the drafted target id, and at that position the target's final
 * distribution p, the draft's q and the residual max(0, p - q) (not
 * normalized) the replacement was drawn from, each [target vocab]. */
int sp_spec_round_rejection(const sp_speculator *sp, int *drafted,
                            const float **p, const float **q,
                            const float **residual);
/* The draft's session (its text: the target's, then the round's drafts). */
const sp_session *sp_spec_draft_session(const sp_speculator *sp);

/* --------------------------------------------------------------- metrics */

/* One generated token, as the session saw it. */
typedef struct {
    float p;                 /* its final probability */
    double logp_raw;         /* ln of its raw model probability */
    float entropy_bits, entropy_raw_bits;
    int n_kept;
} sp_token_stat;

typedef struct {
    int tokens, bytes;
    double distinct1, distinct2, distinct3; /* distinct n-grams / n-grams */
    double type_token_ratio;                /* distinct words / words */
    int longest_repeat;      /* bytes of the longest repeated substring */
    int longest_repeat_at;   /* its first occurrence (byte offset) */
    double mean_entropy_bits, mean_entropy_raw_bits, mean_nucleus;
    double perplexity;       /* 2^(mean -log2 p_raw(token)) */
} sp_metrics;

/* The metrics of a generated text (definitions in metrics.c). */
int sp_text_metrics(const int *tokens, int n_tokens, const char *text,
                    int text_len, const sp_token_stat *stats,
                    sp_metrics *out);
/* The work the session's model state has done (sp_counters). */
void sp_session_counters(const sp_session *s, sp_counters *out);
/* Per generated token stats of a session, [n_generated]. */
const sp_token_stat *sp_session_stats(const sp_session *s);
/* The session's generated text (malloc'd bytes, *len set; end-of-text
 * tokens excluded) and its metrics. */
char *sp_session_text(const sp_session *s, int *len);
int sp_session_metrics(const sp_session *s, sp_metrics *out);

#ifdef __cplusplus
}
#endif
#endif /* SAMPLER_H */
