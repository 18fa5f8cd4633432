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
 * This header is the whole API a front-end includes; it includes six
 * parts of it where they belong: sampler_rows.h (the cut codes' and the
 * stages' rows, SP_CUT_ROWS and SP_STAGE_ROWS), sampler_params.h (the
 * settings' registry, the chain's order, checks and setters),
 * sampler_watermark.h (green lists, detection), sampler_models.h (models,
 * tokenizers, constraints), sampler_decode.h (the session, beam search,
 * speculative decoding, metrics) and sampler_train.h (training a
 * transformer on a text).
 *
 * The sampler chain: an ordered list of stages (sp_stage), each one
 * function of the candidates and the parameters (masking writes -INFINITY;
 * nothing is normalized until the final softmax).  The default order:
 *
 *   [constraint mask] -> classifier-free guidance -> logit bias -> sequence bias -> penalties
 *   (repetition, frequency, presence) -> DRY -> no-repeat-ngram -> bad
 *   words -> min-new-tokens -> exponential
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

/* The cut codes and the stages, one row each: sampler_rows.h. */
#include "sampler_rows.h"

typedef struct {
    int token;
    float value; /* added to the logit; -INFINITY bans the token */
} sp_bias;

#define SP_MAX_BIAS 256
#define SP_MAX_DRY_BREAKERS 32    /* sequence breakers of DRY */
#define SP_MAX_DRY_BREAKER_LEN 8  /* tokens in one breaker */

/* Words, not ids: bad words (Hugging Face's NoBadWordsLogitsProcessor,
 * vLLM's bad_words) and sequence biases (HF's SequenceBiasLogitsProcessor):
 * a sequence of tokens whose last token is cut (a bad word) or has value
 * added to its logit (a bias) when the text ends with the tokens before it;
 * a sequence of one token, always.  (sampler/words.c) */
#define SP_MAX_WORDS 32    /* bad words, and sequence biases, each */
#define SP_MAX_WORD_LEN 16 /* tokens in one */
typedef struct {
    int n;                       /* 1..SP_MAX_WORD_LEN */
    int tokens[SP_MAX_WORD_LEN];
    float value; /* a bias's (finite); a bad word's: -INFINITY */
} sp_word;

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
    /* classifier-free guidance (sampler/cfg.c; the second run: a
     * session's, decode/session_cfg.c) */
    float cfg_scale;          /* >= 0; 1 off */
    int n_bias;
    sp_bias bias[SP_MAX_BIAS];
    /* DRY's sequence breakers: token sequences that end a repeat */
    int n_dry_breakers;
    int dry_breaker_len[SP_MAX_DRY_BREAKERS];
    int dry_breakers[SP_MAX_DRY_BREAKERS][SP_MAX_DRY_BREAKER_LEN];
    /* bad words and sequence biases (sampler/words.c) */
    int n_bad_words;
    sp_word bad_words[SP_MAX_WORDS];
    int n_seq_bias;
    sp_word seq_bias[SP_MAX_WORDS];
    /* the chain's order: n_order stages from order[]; 0 = the default */
    int n_order;
    uint8_t order[SP_STAGE_COUNT];
} sp_params;

/* The settings' registry (every stage and parameter, declared once),
 * the chain's order, the checks and the setters: sampler_params.h. */
#include "sampler_params.h"

/* ------------------------------------------------------------- step record */

/* A look inside a transformer at one position (sp_state_inspect,
 * sp_session_set_inspect): the attention weights of every layer's heads
 * over the cached positions 0..pos -- the softmax the forward pass
 * computed, copied as it ran, never recomputed apart -- and the logit
 * lens: after each layer, the residual stream through the final RMSNorm
 * and the classifier, softmaxed, its most probable tokens.  The last
 * layer's lens is the model's own distribution, bit for bit (the pass's
 * logits, softmaxed as the step record's probs_raw is). */
#define SP_LENS_TOP_MAX 16
typedef struct {
    int pos;           /* the query's position: the token there, whose
                        * output is the next token's logits */
    int token;         /* the token at pos */
    int n_layers, n_heads, n_kv_heads; /* heads h and h' share keys when
                        * h / (n_heads / n_kv_heads) is the same */
    int n_keys;        /* pos + 1: the cached positions it attends to */
    const float *attention; /* [n_layers][n_heads][n_keys]: each row sums
                             * to 1 */
    int lens_top;      /* tokens per layer (0: no lens) */
    const int *lens_ids;      /* [n_layers][lens_top], most probable first
                               * (ties by id) */
    const float *lens_p;      /* [n_layers][lens_top], their probabilities */
    const double *lens_entropy_bits; /* [n_layers] of each whole
                                      * distribution */
} sp_inspection;

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
     * step, clamp(2 target - average, 0, 1); the goal each worked towards
     * this step: mirostat's target surprise tau (bits), adaptive-p's
     * target as it used it (at most 1) */
    float mirostat_mu;
    float adaptive_average, adaptive_aim;
    float mirostat_goal, adaptive_goal;
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
    /* what the repeat stages saw, for the page's strip of the samplers'
     * state: how many distinct tokens of the penalty window the penalties
     * changed (-1: the stage did not run) and each one's count in it
     * ([vocab], 0 elsewhere); how many candidates DRY penalized (-1: it
     * did not run), the longest repeat any of them would have extended,
     * and each one's ([vocab], 0 elsewhere) */
    int penalties_n;
    const int *penalty_count;
    int dry_n, dry_longest;
    const int *dry_length;
    /* classifier-free guidance (NULL when off): the unconditional run's
     * distribution (softmax of its logits, every token) and the mix the
     * chain went on with (softmax of scale (cond - uncond) + uncond, 0
     * where cut before the stage); the conditional one is probs_raw */
    const float *probs_uncond, *probs_cfg;
    /* a look inside the model at this step's query position (NULL: not
     * asked; set by a session's preview and peek: sp_session_set_inspect) */
    const sp_inspection *inspect;
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
    /* classifier-free guidance's unconditional logits ([vocab], borrowed;
     * NULL: none, and a warp with cfg_scale != 1 is refused) */
    const float *cfg_uncond;
} sp_sampler_state;
void sp_sampler_set_state(sp_sampler *s, const sp_sampler_state *state);
/* Mirostat's target after a token of final probability p_token was drawn
 * (mu NaN: its start, 2 tau); mu itself when mirostat is off. */
float sp_mirostat_update(const sp_params *p, float mu, float p_token);
/* The surprise mirostat learns from, -log2 p_token in bits (0 when
 * p_token is 0: no token drawn). */
double sp_surprise_bits(float p_token);
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

/* The green lists and the detector: sampler_watermark.h. */
#include "sampler_watermark.h"

/* Models, tokenizers and constraints: sampler_models.h. */
#include "sampler_models.h"

/* The session, beam search, speculative decoding, metrics: sampler_decode.h. */
#include "sampler_decode.h"

/* Training a transformer on a text: sampler_train.h (c/engine/train/; in
 * the native and WASM command lines and build/engine-train-*.wasm, not in
 * the page's first engine). */
#include "sampler_train.h"

#ifdef __cplusplus
}
#endif
#endif /* SAMPLER_H */
