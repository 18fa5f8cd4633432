/*
 * internal.h — what the engine's files (c/engine/) share with each other but
 * not with users of sampler.h: the math kernels, the model and tokenizer
 * structs, the constraints' automata.  The front-ends (c/cli, c/wasm) see
 * sampler.h only.
 */
#ifndef SP_INTERNAL_H
#define SP_INTERNAL_H

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#include "sampler.h"
#include "kernels/vec4.h"

/* ---- math (mathx.c) ---------------------------------------------------- */

/* A float's bits and the float of bits (memcpy: no aliasing, no
 * conversion). */
static inline uint32_t sp_float_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static inline float sp_bits_float(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* Constants of the float exp.  Inputs below SP_EXP_LO give exactly 0 (the
 * masked tokens' -inf among them); SP_EXP_HI keeps 2^k a normal float. */
#define SP_EXP_LO (-87.0f)
#define SP_EXP_HI 88.0f
#define SP_LOG2E_F 1.44269504088896341f
#define SP_ROUND_MAGIC_F 12582912.0f   /* 1.5 * 2^23 */
#define SP_LN2_HI_F 0.693145751953125f /* low 9 bits zero: k * hi is exact */
#define SP_LN2_LO_F 1.42860682030941723212e-6f
#define SP_EXP_C2 (1.0f / 2.0f)
#define SP_EXP_C3 (1.0f / 6.0f)
#define SP_EXP_C4 (1.0f / 24.0f)
#define SP_EXP_C5 (1.0f / 120.0f)
#define SP_EXP_C6 (1.0f / 720.0f)

/* The float exp's polynomial in r, |r| <= ln2 / 2 (sp_expf's; v4_exp_core
 * evaluates the same on four lanes) */
static inline float sp_exp_poly_f(float r) {
    float p = SP_EXP_C6;
    p = p * r + SP_EXP_C5;
    p = p * r + SP_EXP_C4;
    p = p * r + SP_EXP_C3;
    p = p * r + SP_EXP_C2;
    p = p * r + 1.0f;
    return p * r + 1.0f;
}

float sp_expf(float x); /* scalar; same bits as a lane of v4_exp */
double sp_exp(double x);
double sp_log(double x);
double sp_pow(double base, double exponent); /* base > 0 */
double sp_sin(double x);
double sp_cos(double x);

/* exp of four lanes: the same operations as sp_expf, lane by lane.
 *
 * Two steps that look missing are not: no clamp to SP_EXP_LO, because a
 * lane below it (or -inf, or NaN) is zeroed by the last mask whatever was
 * computed for it, and a lane at or above it is its own clamp; and no
 * multiplication by 2^k, because for every lane the mask keeps
 * (SP_EXP_LO <= x <= SP_EXP_HI) k lies in [-126, 127] and p * 2^k is a
 * normal float, which the multiplication would give exactly: adding k to
 * p's exponent field is the same bits.  The bits of magic + k are
 * 0x4B400000 + k, and shifting them left by 23 drops 0x4B400000's bits,
 * leaving k << 23.  (The long way round -- clamp, 2^k built as a float,
 * a multiplication -- gives these very bits for every one of the 2^32
 * inputs: checked exhaustively when this was written.)  Fewer operations
 * on the chain that every exp waits for: the softmax's passes are bound by
 * it. */
static inline vec4 v4_exp_core(vec4 xc, vec4 x) { /* xc: x clamped to HI */
    vec4 magic = v4_splat(SP_ROUND_MAGIC_F);
    vec4 rounded = v4_add(v4_mul(xc, v4_splat(SP_LOG2E_F)), magic);
    vec4 k = v4_sub(rounded, magic); /* round to nearest */
    vec4 r = v4_sub(v4_sub(xc, v4_mul(k, v4_splat(SP_LN2_HI_F))),
                    v4_mul(k, v4_splat(SP_LN2_LO_F)));
    vec4 p = v4_splat(SP_EXP_C6);
    p = v4_add(v4_mul(p, r), v4_splat(SP_EXP_C5));
    p = v4_add(v4_mul(p, r), v4_splat(SP_EXP_C4));
    p = v4_add(v4_mul(p, r), v4_splat(SP_EXP_C3));
    p = v4_add(v4_mul(p, r), v4_splat(SP_EXP_C2));
    p = v4_add(v4_mul(p, r), v4_splat(1.0f));
    p = v4_add(v4_mul(p, r), v4_splat(1.0f));
    /* p * 2^k; below SP_EXP_LO (and for -inf and NaN): exactly 0 */
    return v4_and(v4_add_shl23(p, rounded), v4_ge(x, v4_splat(SP_EXP_LO)));
}
static inline vec4 v4_exp(vec4 x) {
    return v4_exp_core(v4_min(x, v4_splat(SP_EXP_HI)), x); /* NaN -> HI,
                                                            * masked */
}
/* v4_exp for lanes at most SP_EXP_HI (or NaN), where the clamp to it does
 * nothing: the same bits, one operation fewer on the chain.  Every softmax
 * has such lanes: exp(x - max), x - max <= 0. */
static inline vec4 v4_exp_upto_hi(vec4 x) { return v4_exp_core(x, x); }

/* ---- the sampler's settings (sampler/params.c) ------------------------- */

/* sp_params_check without the order's rule (a stage set but left out):
 * what a warp needs.  Beam search warps with a chain of its own, leaving
 * out the stages a search does not use, whatever the settings say. */
int sp_params_check_ranges(const sp_params *p, int vocab, char *err);
/* The bad words' and sequence biases' checks (sampler/words.c). */
int sp_words_check(const sp_params *p, int vocab, char *err);
/* text as a JSON string, cut to fit out (size bytes). */
void sp_json_quote(const char *text, char *out, size_t size);
/* The tokenizer's tokens for text (no begin or end token) into
 * ids[max]: their count, or minus an error's class with a message that
 * names what and quotes the text (as JSON) when the tokenizer cannot write
 * it, it is no token, or more than max. */
int sp_text_tokens(const sp_tokenizer *tok, const char *what,
                   const char *text, int *ids, int max, char *err);

/* On: the sampler takes none of its shortcuts (chain.c and topk.c: the
 * temperature fused with top-k or with the snapshot, the snapshot copied
 * from the raw softmax, top-k's group maxima, its dense way through a list
 * of the whole vocabulary and its cut logits left unwritten; cutoffs.c:
 * top-nσ on the dense logits), every stage runs the long way round.  The
 * tests hold the shortcuts to its bits (tests/c/test_fastpaths.c,
 * tests/c/test_chain_diff.c). */
void sp_sampler_set_reference(sp_sampler *s, int on);


/* ---- kernels (kernels.c); every sum in the canonical order of vec4.h ---- */

/* out[i] = exp(x[i] - shift); returns the canonical sum of out (float).
 * Every x[i] - shift must be <= SP_EXP_HI (NaN and -inf are fine): the
 * callers' shift is the max. */
float sp_exp_shift_sum(const float *x, float shift, float *out, int n);
/* x[i] = (x[i] - shift) / t (sp_sub_div), then out[i] = exp(x[i]); returns
 * the canonical sum of out: the temperature and the softmax's exps in one
 * pass.  As sp_exp_shift_sum: every new x[i] <= SP_EXP_HI (shift the max,
 * t > 0). */
float sp_sub_div_exp_sum(float *x, float shift, float t, float *out, int n);
/* sp_exp_shift_sum(x, shift, out, n) and sp_div_scalar(p, z, n) in one
 * pass (the arrays apart): returns the sum (shift as sp_exp_shift_sum's) */
float sp_exp_sum_div(const float *x, float shift, float *out, float *p,
                     float z, int n);
/* canonical dot product */
float sp_dot(const float *a, const float *b, int n);
/* out[i] = dot(w + i * n, x, n) for i in [0, d): W (d, n) @ x (n) */
void sp_matmul(float *out, const float *x, const float *w, int n, int d);
/* out[b * d + i] = dot(w + i * n, x + b * n, n) for b in [0, nb): the same
 * W against nb inputs, each weight loaded once per tile of inputs; every
 * output has the bits sp_matmul gives for its input alone */
void sp_matmul_batch(float *out, const float *x, const float *w, int n, int d,
                     int nb);
/* largest element ((a > b) ? a : b folding, so NaN never wins) */
float sp_max(const float *x, int n);
/* out[g] = the largest of x[g * size .. (g + 1) * size) for g in [0,
 * groups), the last group running on to n; size a multiple of 16.  The
 * value only: a zero maximum may come out either sign. */
void sp_group_max(const float *x, int n, int size, int groups, float *out);
/* The sum of the x[i] that are not -inf, in double, as a loop adding them
 * one by one in index order gives it (the same bits), how many into *count
 * and the largest into *max (-inf when none; a zero maximum may come out
 * either sign); without the loop's chain of dependent additions when the
 * sum is exact. */
double sp_sum_finite(const float *x, int n, int *count, float *max);
/* The entropy in nats of the distribution e / z (e[j] = exp(x[j] - m),
 * log_z = log z): h = 0, then h -= (e[j] / z) * ((x[j] - m) - log_z) for
 * each e[j] > 0 in index order, in double (those bits) */
double sp_entropy_nats(const float *e, const float *x, int n, double z,
                       float m, double log_z);
/* dst[i] = src[i] (the arrays apart) */
void sp_copy(float *dst, const float *src, int n);
/* x[i] /= t */
void sp_div_scalar(float *x, float t, int n);
/* x[i] = (x[i] - shift) / t */
void sp_sub_div(float *x, float shift, float t, int n);
/* index of the first element > threshold at or after `from`, or n */
int sp_scan_gt(const float *x, float threshold, int from, int n);
/* index of the first element that is not < limit (NaN counts), or -1 */
int sp_find_not_below(const float *x, float limit, int n);
/* canonical sum of p[i] * (x[i] - shift) over the i with p[i] > 0 */
float sp_dot_shift_pos(const float *p, const float *x, float shift, int n);
/* p[i] /= t, then sp_dot_shift_pos(p, x, shift, n): one pass */
float sp_div_dot_shift_pos(float *p, float t, const float *x, float shift,
                           int n);
/* index of the first element >= threshold at or after `from`, or n */
int sp_scan_ge(const float *x, float threshold, int from, int n);

/* ---- tokenizer (tokenizer.c) ------------------------------------------- */

typedef struct {
    const char *str;
    int id;
} sp_token_index;

struct sp_tokenizer {
    sp_tok_kind kind;
    int vocab;
    char **pieces;   /* NUL-terminated piece bytes */
    int *piece_len;  /* their byte lengths */
    float *scores;   /* merge scores (BPE) */
    int max_token_length;
    int bos, eos;    /* -1 when none */
    sp_token_index *sorted; /* pieces sorted by bytes, for lookup */
    int byte_fallback[256]; /* id of "<0xXX>", or -1 */
    char *storage;   /* one block holding every piece */
    struct sp_gguf_vocab *gguf; /* a GGUF tokenizer's (model/gguf_vocab.h),
                                 * else NULL */
};

/* A character tokenizer over pieces[vocab] (copied); bos = eos = boundary. */
sp_tokenizer *sp_tokenizer_new_chars(const char *const *pieces, int vocab,
                                     int boundary, char *err);
/* A label tokenizer over pieces[vocab] (copied; distinct, checked): the
 * hand-made model's; no begin or end token, prompts by longest match. */
sp_tokenizer *sp_tokenizer_new_labels(const char *const *pieces, int vocab,
                                      char *err);
/* A copy of a character or label tokenizer. */
sp_tokenizer *sp_tokenizer_copy(const sp_tokenizer *t, char *err);
/* Builds t->sorted (and clears byte_fallback); pieces must be set. */
int sp_tokenizer_index(sp_tokenizer *t, char *err);
/* Token id of exactly these bytes, or -1. */
int sp_tokenizer_lookup(const sp_tokenizer *t, const char *str, int len);
/* Whether token stands for text (not a begin, end, control or unknown
 * token): what a constraint may let through. */
int sp_tokenizer_is_text(const sp_tokenizer *t, int token);

/* bpe.c: llama2.c's encode() and decode() */
/* Pieces when the whole file reads as a llama2.c tokenizer.bin, else -1. */
int sp_bpe_file_pieces(const uint8_t *data, size_t size);
int sp_bpe_encode(const sp_tokenizer *t, const char *text, int bos, int eos,
                  int *ids, int max_ids, char *err);
const char *sp_bpe_decode(const sp_tokenizer *t, int prev, int token,
                          int *len);

/* ---- models ------------------------------------------------------------- */

typedef struct sp_bigram sp_bigram;
typedef struct sp_transformer sp_transformer;
typedef struct sp_handmade sp_handmade;

struct sp_model {
    sp_model_kind kind;
    int vocab;
    int seq_len;
    sp_bigram *bigram;
    sp_transformer *transformer;
    sp_handmade *handmade;
    sp_tokenizer *tokenizer; /* built in (bigram); owned; else NULL */
};

/* bigram.c */
#define SP_BIGRAM_MAGIC "SPBG"
#define SP_BIGRAM_VERSION 1
int sp_is_bigram(const uint8_t *data, size_t size);
int sp_bigram_load(sp_model *m, const uint8_t *data, size_t size, char *err);
void sp_bigram_free(sp_bigram *b);
float *sp_bigram_forward(const sp_bigram *b, float *out, int token);
sp_bigram *sp_bigram_copy(const sp_bigram *b);
float *sp_bigram_row(sp_bigram *b, int row); /* logits after token row */

/* handmade.c */
void sp_handmade_free(sp_handmade *h);
float *sp_handmade_forward(const sp_handmade *h, float *out);
sp_handmade *sp_handmade_copy(const sp_handmade *h);
float *sp_handmade_logits(sp_handmade *h);

/* transformer.c */
int sp_transformer_load(sp_model *m, uint8_t *data, size_t size,
                        int take_ownership, char *err);
void sp_transformer_free(sp_transformer *t);
void *sp_transformer_state_new(const sp_transformer *t);
void sp_transformer_state_free(void *state);
float *sp_transformer_forward(const sp_transformer *t, void *state,
                              int token, int pos);
/* tokens[0..n) at positions pos.. in one pass (n <= SP_BATCH_MAX); the
 * logits [n][vocab] (only the last row when last_only), or NULL for bad
 * tokens or positions or when memory is short */
float *sp_transformer_forward_batch(const sp_transformer *t, void *state,
                                    const int *tokens, int n, int pos,
                                    int last_only);
void sp_transformer_state_copy(const sp_transformer *t, void *dst,
                               const void *src, int n_pos);
/* the state's last logits [vocab] */
float *sp_transformer_state_logits(void *state);
/* the last logits a state's forward pass left, [vocab] */
float *sp_state_logits(const sp_model *m, sp_state *st);
/* adds the work of one forward pass at pos to *c (sp_state_counters) */
void sp_transformer_count(const sp_transformer *t, int pos, sp_counters *c);
/* A look inside (model/inspect.c): on, every pass keeps the attention
 * weights and the residual stream of the last position it fed (SP_OK, or
 * SP_ERR_NOMEM: off); what it kept, [n_layers][n_heads][*pos + 1] (NULL:
 * off), its position and token (-1: nothing yet) and a count of the
 * passes that kept theirs; the logits of the lens after layer `layer`. */
int sp_transformer_set_capture(const sp_transformer *t, void *state, int on);
const float *sp_transformer_captured(const void *state, int *pos, int *token,
                                     unsigned *serial);
void sp_transformer_lens(const sp_transformer *t, void *state, int layer,
                         float *logits);
/* the passes a state's capture has kept so far (0 for a state without
 * one): a record made from it is current while this stays the same */
unsigned sp_state_capture_serial(const sp_state *st);

/* model.c: the logits of an empty context (a hand-made model's one
 * distribution), or NULL for a model that needs a token first. */
float *sp_forward_empty(const sp_model *m, sp_state *st);

struct sp_state {
    sp_model_kind kind;
    int vocab;
    float *logits;   /* bigram: the row for the last token */
    float *batch_logits; /* bigram: [SP_BATCH_MAX][vocab], or NULL */
    void *transformer_state;
    sp_counters counters; /* sp_state_counters */
    /* the logit lens's logits and distribution, [vocab] each (allocated
     * with the capture: model/inspect.c) */
    float *lens_logits, *lens_probs;
};

/* ---- speculative decoding's hooks into a session (session*.c) ---------- */

/* One batched pass of the session's model over its last token, when a
 * step left it unfed, and the drafted tokens[0..n) that fit in the
 * context (tokens stays borrowed until sp_session_feed_ahead_end).  Until
 * then, a step whose token is the next of those takes the logits computed
 * for it, and a step whose token is not leaves it unfed for the next pass.
 * *fed: the positions the pass ran (0: none was needed). */
int sp_session_feed_ahead(sp_session *s, const int *tokens, int n, int *fed,
                          char *err);
void sp_session_feed_ahead_end(sp_session *s);
/* Appends token as sp_session_step(s, p, token) would, from the warp the
 * sp_session_preview(s, p) just before made (no second warp): the draw's
 * uniform, the stats, the constraint, the next logits.  SP_ERR_STATE when
 * the step record is not a live preview. */
int sp_session_commit(sp_session *s, const sp_params *p, int token,
                      char *err);
/* The tokens the session's constraint would allow after its text and
 * extra[0..n_extra) (allowed[vocab]; the fixed mask too); returns how many,
 * or -1 when the session has no constraint. */
int sp_session_constraint_after(sp_session *s, const int *extra, int n_extra,
                                uint8_t *allowed);

/* ---- constraints (constrain/) -------------------------------------------- */

/* Where a constraint stands after some text: a DFA state (regex) or the
 * JSON automaton's mode and stack.  Plain data: copy it to look ahead. */
typedef struct {
    int mode;     /* regex: DFA state; JSON: lexical mode */
    int aux, aux2;
    int is_key;
    int ws;       /* JSON: the whitespace run so far (json.c) */
    int depth;
    uint8_t stack[64];
} sp_cstate;

void sp_cstate_start(const sp_constraint *c, sp_cstate *s);
/* Where the constraint starts after a prompt of text[0..len): a JSON
 * document the prompt opened and left open is continued; otherwise (and
 * for a regex) sp_cstate_start. */
void sp_cstate_start_after(const sp_constraint *c, sp_cstate *s,
                           const char *text, int len);
/* sp_cstate_start_after for the prompt's tokens[0..n) */
void sp_cstate_start_prompt(const sp_constraint *c, sp_cstate *s,
                            const sp_tokenizer *t, const int *tokens, int n);
/* Feeds bytes; 0 when they leave no way to satisfy the constraint. */
int sp_cstate_feed(const sp_constraint *c, sp_cstate *s, const char *bytes,
                   int len);
int sp_cstate_accepting(const sp_constraint *c, const sp_cstate *s);
/* whether anything but the end (or whitespace after JSON) can follow */
int sp_cstate_can_extend(const sp_constraint *c, const sp_cstate *s);

/* A constraint as one vocabulary can satisfy it. */
typedef struct sp_cvocab sp_cvocab;
sp_cvocab *sp_cvocab_new(const sp_constraint *c, const sp_tokenizer *t,
                         char *err);
void sp_cvocab_free(sp_cvocab *v);
/* sp_cvocab_new, refused (SP_ERR_ARG) when no text of the vocabulary
 * matches, or none within budget tokens (0: no limit); *out on SP_OK. */
int sp_cvocab_open(const sp_constraint *c, const sp_tokenizer *t, int budget,
                   sp_cvocab **out, char *err);
/* The fewest tokens of the vocabulary that complete a match from s, or -1
 * when none can. */
int sp_cvocab_need(const sp_cvocab *v, const sp_cstate *s);
/* The tokens (allowed[vocab]) after which text that stands at `at`, its
 * last token prev, can still match within `remaining` more tokens; the
 * end-of-text tokens end_a and end_b (-1: none) only when it matches now.
 * Returns how many. */
int sp_cvocab_mask(const sp_cvocab *v, const sp_tokenizer *t,
                   const sp_cstate *at, int prev, int remaining, int end_a,
                   int end_b, int vocab, uint8_t *allowed);

#endif /* SP_INTERNAL_H */
