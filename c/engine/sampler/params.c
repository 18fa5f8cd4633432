/*
 * params.c — the sampler's registry: every parameter, declared once (the
 * stages are rows of sampler.h's SP_STAGE_ROWS, read by rows.c).  The CLI's options and --help, the
 * WASM API (a parameter set by name), the JavaScript wrapper, the page's
 * controls and link keys and docs/samplers.md are all read from these
 * two tables.
 *
 * A parameter's declaration: its name (the API's and the link's), its CLI
 * flag, a short code for compact links, a label and one line of doc, the
 * stage it belongs to, its type and range, its neutral value (the stage
 * does nothing at it), and the range a lesson's slider spans.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define F SP_PARAM_FLOAT
#define I SP_PARAM_INT
#define LO SP_PARAM_MIN_OPEN
#define HI SP_PARAM_MAX_OPEN
#define LINK SP_PARAM_IN_LINK
#define SW SP_PARAM_SWITCH
#define INF INFINITY

typedef struct {
    sp_param_info info;
    size_t offset; /* of the field in sp_params */
} param_def;

#define P(field, flag, code, label, doc, stage, type, flags, lo, hi, neutral, \
          umin, umax, ustep, on)                                              \
    {{#field, flag, code, label, doc, stage, type, flags, lo, hi, neutral,   \
      umin, umax, ustep, on},                                                 \
     offsetof(sp_params, field)}

static const param_def PARAMS[] = {
    P(temperature, "temperature", "t", "Temperature",
      "divide the logits by T: below 1 sharper, above 1 flatter; 0 = greedy",
      SP_STAGE_TEMPERATURE, F, LINK | SW, 0, INF, 1, 0, 3, 0.05, 0.7),
    P(top_k, "top-k", "k", "Top-k",
      "keep the k most likely tokens (and any tied with the k-th); 0 = off",
      SP_STAGE_TOP_K, I, LINK | SW, 0, INF, 0, 0, 100000, 1, 10),
    P(top_p, "top-p", "p", "Top-p",
      "keep the fewest most likely tokens whose mass reaches p; 1 = off",
      SP_STAGE_TOP_P, F, LO | LINK | SW, 0, 1, 1, 0.01, 1, 0.01, 0.9),
    P(min_p, "min-p", "m", "Min-p",
      "drop tokens below this fraction of the top token's probability; 0 = off",
      SP_STAGE_MIN_P, F, SW, 0, 1, 0, 0, 1, 0.01, 0.05),
    P(typical_p, "typical-p", "y", "Typical-p",
      "keep the tokens whose surprise is nearest the entropy, up to this mass; "
      "1 = off",
      SP_STAGE_TYPICAL_P, F, LO | SW, 0, 1, 1, 0.01, 1, 0.01, 0.9),
    P(repetition_penalty, "repetition-penalty", "r", "Repetition penalty",
      "divide (or multiply, if negative) the logit of every token seen; "
      "1 = off",
      SP_STAGE_PENALTIES, F, LO | SW, 0, INF, 1, 1, 2, 0.05, 1.2),
    P(frequency_penalty, "frequency-penalty", "f", "Frequency penalty",
      "subtract this times the number of times a token was seen; 0 = off",
      SP_STAGE_PENALTIES, F, SW, -INF, INF, 0, -2, 2, 0.05, 0.3),
    P(presence_penalty, "presence-penalty", "pr", "Presence penalty",
      "subtract this from every token seen at all; 0 = off",
      SP_STAGE_PENALTIES, F, SW, -INF, INF, 0, -2, 2, 0.05, 0.3),
    P(penalty_last_n, "penalty-last-n", "n", "Penalty window",
      "the penalties look at the last n tokens; 0 = the whole text",
      SP_STAGE_PENALTIES, I, 0, 0, INF, 0, 0, 256, 1, 0),
    P(top_n_sigma, "top-n-sigma", "ns", "Top-nσ",
      "keep logits within n standard deviations of the largest; 0 = off",
      SP_STAGE_TOP_N_SIGMA, F, SW, -INF, INF, 0, 0, 5, 0.1, 1),
    P(epsilon_cutoff, "epsilon-cutoff", "ep", "Epsilon cutoff",
      "drop tokens with probability below epsilon; 0 = off",
      SP_STAGE_EPSILON, F, HI | SW, 0, 1, 0, 0, 0.1, 0.001, 0.02),
    P(eta_cutoff, "eta-cutoff", "et", "Eta cutoff",
      "drop tokens below min(eta, sqrt(eta) e^-H), H the entropy; 0 = off",
      SP_STAGE_ETA, F, HI | SW, 0, 1, 0, 0, 0.1, 0.001, 0.02),
    P(top_a, "top-a", "a", "Top-a",
      "drop tokens below a times the top probability squared; 0 = off",
      SP_STAGE_TOP_A, F, SW, 0, INF, 0, 0, 1, 0.01, 0.2),
    P(xtc_probability, "xtc-probability", "xp", "XTC probability",
      "how often XTC removes the top choices; 0 = off",
      SP_STAGE_XTC, F, SW, 0, 1, 0, 0, 1, 0.05, 0.5),
    P(xtc_threshold, "xtc-threshold", "xt", "XTC threshold",
      "the tokens at or above it but the least likely are removed; > 0.5 = off",
      SP_STAGE_XTC, F, 0, 0, 1, 0.1, 0, 0.6, 0.01, 0.1),
    P(dry_multiplier, "dry-multiplier", "dm", "DRY multiplier",
      "penalty on a token that would extend a repeat; 0 = off",
      SP_STAGE_DRY, F, SW, 0, INF, 0, 0, 2, 0.05, 0.8),
    P(dry_base, "dry-base", "db", "DRY base",
      "the penalty grows as base^(repeat length - allowed length)",
      SP_STAGE_DRY, F, 0, 1, INF, 1.75, 1, 3, 0.05, 1.75),
    P(dry_allowed_length, "dry-allowed-length", "dl", "DRY allowed length",
      "repeats up to this long go unpunished",
      SP_STAGE_DRY, I, 0, 1, INF, 2, 1, 10, 1, 2),
    P(dry_penalty_last_n, "dry-penalty-last-n", "dn", "DRY window",
      "DRY looks at the last n tokens; 0 = the whole text",
      SP_STAGE_DRY, I, 0, 0, INF, 0, 0, 256, 1, 0),
    P(dynatemp_range, "dynatemp-range", "dr", "Dynamic temperature range",
      "temperature moves within T +- range with the entropy; 0 = off",
      SP_STAGE_TEMPERATURE, F, SW, 0, INF, 0, 0, 2, 0.05, 0.5),
    P(dynatemp_exp, "dynatemp-exp", "de", "Dynamic temperature exponent",
      "the entropy's share is raised to this power",
      SP_STAGE_TEMPERATURE, F, LO, 0, INF, 1, 0.1, 4, 0.1, 1),
    P(no_repeat_ngram_size, "no-repeat-ngram-size", "ng", "No-repeat n-gram",
      "a token that would repeat an n-gram of the text is removed; 0 = off",
      SP_STAGE_NO_REPEAT_NGRAM, I, SW, 0, INF, 0, 0, 8, 1, 3),
    P(mirostat, "mirostat", "mi", "Mirostat",
      "aim at a steady surprise: 1 or 2 (the version); 0 = off",
      SP_STAGE_MIROSTAT, I, SW, 0, 2, 0, 0, 2, 1, 2),
    P(mirostat_tau, "mirostat-tau", "mt", "Mirostat target",
      "the surprise (bits per token) mirostat aims at",
      SP_STAGE_MIROSTAT, F, LO, 0, INF, 5, 0.5, 10, 0.5, 5),
    P(mirostat_eta, "mirostat-eta", "me", "Mirostat rate",
      "how fast mirostat learns from each token",
      SP_STAGE_MIROSTAT, F, LO, 0, INF, 0.1, 0.01, 1, 0.01, 0.1),
    P(adaptive_target, "adaptive-target", "at", "Adaptive-p target",
      "pick tokens near this probability, adapted to the text; -1 = off",
      SP_STAGE_ADAPTIVE_P, F, SW, -INF, 1, -1, 0, 1, 0.01, 0.3),
    P(adaptive_decay, "adaptive-decay", "ad", "Adaptive-p memory",
      "how long adaptive-p remembers: about 1 / (1 - decay) tokens",
      SP_STAGE_ADAPTIVE_P, F, HI, 0, 1, 0.9, 0, 0.99, 0.01, 0.9),
    /* the field's newer samplers (issue 25), each off at its neutral value */
    P(top_h, "top-h", "th", "Top-H",
      "keep the likeliest tokens while their entropy stays within top-h "
      "times the entropy of the 100 likeliest; 0 = off",
      SP_STAGE_TOP_H, F, SW, 0, 1, 0, 0, 1, 0.01, 0.4),
    P(p_less, "p-less", "pl", "P-less",
      "keep the tokens at least as likely as the sum of the squared "
      "probabilities (1 = on); 0 = off",
      SP_STAGE_P_LESS, I, SW, 0, 1, 0, 0, 1, 1, 1),
    P(tfs, "tfs", "tf", "Tail-free",
      "cut the tail where the running share of the sorted probabilities' "
      "second differences passes z; 1 = off",
      SP_STAGE_TFS, F, SW, 0, 1, 1, 0, 1, 0.01, 0.95),
    P(smoothing_factor, "smoothing-factor", "sf", "Smoothing factor",
      "bend each logit x to max - factor (x - max)^2 (and a cubic term); "
      "0 = off",
      SP_STAGE_QUADRATIC, F, SW, 0, INF, 0, 0, 3, 0.05, 0.3),
    P(smoothing_curve, "smoothing-curve", "sc", "Smoothing curve",
      "1: a parabola; above 1 the far tail falls off faster (a cubic)",
      SP_STAGE_QUADRATIC, F, 0, 1, INF, 1, 1, 4, 0.1, 1),
    P(min_new_tokens, "min-new-tokens", "mn", "Min new tokens",
      "the end of the text is banned until this many tokens are generated; "
      "0 = off",
      SP_STAGE_MIN_NEW_TOKENS, I, SW, 0, INF, 0, 0, 64, 1, 8),
    P(exp_decay_start, "exp-decay-start", "xs", "Length penalty start",
      "the generated tokens after which the end of the text is pushed up",
      SP_STAGE_EXP_DECAY, I, 0, 0, INF, 0, 0, 64, 1, 0),
    P(exp_decay_factor, "exp-decay-factor", "xf", "Length penalty factor",
      "the end of the text's logit gains |logit| (factor^(n - start) - 1); "
      "1 = off",
      SP_STAGE_EXP_DECAY, F, LO | SW, 0, INF, 1, 0.5, 2, 0.01, 1.1),
    /* watermarking (Kirchenbauer et al. 2023; watermark.c) */
    P(watermark_gamma, "watermark-gamma", "wg", "Green share",
      "the share of the vocabulary on each step's green list",
      SP_STAGE_WATERMARK, F, LO | HI, 0, 1, 0.25, 0.05, 0.95, 0.05, 0.25),
    P(watermark_delta, "watermark-delta", "wd", "Green bias",
      "added to the logits of the green list's tokens; 0 = off",
      SP_STAGE_WATERMARK, F, SW, 0, INF, 0, 0, 10, 0.1, 2),
    P(watermark_key, "watermark-key", "wk", "Watermark key",
      "the secret number that, with the previous token, picks the green list",
      SP_STAGE_WATERMARK, I, 0, 0, INF, 15485863, 0, 99999999, 1,
      15485863),
    /* classifier-free guidance (cfg.c; HF's guidance_scale) */
    P(cfg_scale, "cfg-scale", "cg", "Guidance scale",
      "mix the log-probabilities as scale (cond - uncond) + uncond: 0 = the "
      "negative prompt's run alone, above 1 away from it; 1 = off",
      SP_STAGE_CFG, F, SW, 0, INF, 1, 0, 5, 0.1, 1.5),
};
#define N_PARAMS ((int)(sizeof PARAMS / sizeof PARAMS[0]))

#undef P
#undef F
#undef I
#undef LO
#undef HI
#undef LINK
#undef SW
#undef INF

int sp_param_count(void) { return N_PARAMS; }

const sp_param_info *sp_param_at(int i) {
    return i >= 0 && i < N_PARAMS ? &PARAMS[i].info : NULL;
}

int sp_param_find(const char *name) {
    for (int i = 0; i < N_PARAMS; i++)
        if (!strcmp(PARAMS[i].info.name, name) ||
            !strcmp(PARAMS[i].info.flag, name))
            return i;
    return -1;
}

int sp_params_set(sp_params *p, int i, double value, char *err) {
    if (i < 0 || i >= N_PARAMS)
        return sp_fail(err, SP_ERR_ARG, "unknown sampler parameter %d", i);
    const param_def *d = &PARAMS[i];
    char *field = (char *)p + d->offset;
    if (d->info.type == SP_PARAM_INT) {
        /* whole numbers only; the range is sp_params_check's */
        if (!(value == floor(value)) || value < -2147483648.0 ||
            value > 2147483647.0)
            return sp_fail(err, SP_ERR_ARG, "%s must be an integer (got %g)",
                           d->info.flag, value);
        int x = (int)value;
        memcpy(field, &x, sizeof x);
    } else {
        float x = (float)value;
        memcpy(field, &x, sizeof x);
    }
    return SP_OK;
}

double sp_params_get(const sp_params *p, int i) {
    if (i < 0 || i >= N_PARAMS) return NAN;
    const char *field = (const char *)p + PARAMS[i].offset;
    if (PARAMS[i].info.type == SP_PARAM_INT) {
        int x;
        memcpy(&x, field, sizeof x);
        return x;
    }
    float x;
    memcpy(&x, field, sizeof x);
    return x;
}

void sp_params_default(sp_params *p) {
    memset(p, 0, sizeof *p);
    for (int i = 0; i < N_PARAMS; i++)
        sp_params_set(p, i, PARAMS[i].info.neutral, NULL);
}

static int finite(float x) { return x - x == 0.0f; }

/* "top-p must be in (0, 1] (got 1.5)": the range in words, from the
 * declaration (the messages the engine has always given). */
static int range_fail(char *err, const param_def *d, double v) {
    const sp_param_info *in = &d->info;
    char range[96];
    int lo_open = (in->flags & SP_PARAM_MIN_OPEN) != 0;
    int hi_open = (in->flags & SP_PARAM_MAX_OPEN) != 0;
    if (isfinite(in->min) && isfinite(in->max))
        snprintf(range, sizeof range, "in %c%g, %g%c", lo_open ? '(' : '[',
                 in->min, in->max, hi_open ? ')' : ']');
    else if (isfinite(in->min))
        snprintf(range, sizeof range, "%s%s %g",
                 in->type == SP_PARAM_FLOAT ? "a finite number " : "",
                 lo_open ? ">" : ">=", in->min);
    else
        snprintf(range, sizeof range, "a finite number");
    if (in->type == SP_PARAM_INT)
        return sp_fail(err, SP_ERR_ARG, "%s must be %s (got %d)", in->flag,
                       range, (int)v);
    return sp_fail(err, SP_ERR_ARG, "%s must be %s (got %g)", in->flag, range,
                   v);
}

static int in_range(const param_def *d, double v) {
    const sp_param_info *in = &d->info;
    if (in->type == SP_PARAM_FLOAT && !finite((float)v)) return 0;
    if (in->flags & SP_PARAM_MIN_OPEN ? !(v > in->min) : !(v >= in->min))
        return 0;
    if (in->flags & SP_PARAM_MAX_OPEN ? !(v < in->max) : !(v <= in->max))
        return 0;
    return 1;
}

/* An end of a range as its text says it: an integer's open end is the
 * largest (smallest) number it holds, a float's infinity "∞" ("−∞"). */
static void put_end(char *out, size_t size, const sp_param_info *in,
                    double end) {
    if (isfinite(end))
        snprintf(out, size, "%g", end);
    else if (in->type == SP_PARAM_INT)
        snprintf(out, size, "%d", end > 0 ? 2147483647 : -2147483647 - 1);
    else
        snprintf(out, size, "%s",
                 end > 0 ? "\xe2\x88\x9e" : "\xe2\x88\x92\xe2\x88\x9e");
}

void sp_param_range_text(int i, char *out, size_t size) {
    const sp_param_info *in = sp_param_at(i);
    if (!in || size == 0) {
        if (size) out[0] = 0;
        return;
    }
    char lo[32], hi[32];
    put_end(lo, sizeof lo, in, in->min);
    put_end(hi, sizeof hi, in, in->max);
    int int_type = in->type == SP_PARAM_INT;
    int lo_open = (in->flags & SP_PARAM_MIN_OPEN) ||
                  (!int_type && !isfinite(in->min));
    int hi_open = (in->flags & SP_PARAM_MAX_OPEN) ||
                  (!int_type && !isfinite(in->max));
    snprintf(out, size, "%c%s, %s%c", lo_open ? '(' : '[', lo, hi,
             hi_open ? ')' : ']');
}

/* The value stored as sp_params_set stores it, then checked as
 * sp_params_check checks it: one way to refuse, whichever asks. */
int sp_param_refusal(int i, double value, char *err) {
    const sp_param_info *in = sp_param_at(i);
    if (!in) {
        sp_fail(err, SP_ERR_ARG, "unknown sampler parameter %d", i);
        return SP_PARAM_OUTSIDE;
    }
    if (value != value) {
        sp_fail(err, SP_ERR_ARG, "%s must be a number (got nan)", in->flag);
        return SP_PARAM_NOT_NUMBER;
    }
    sp_params p;
    sp_params_default(&p);
    if (sp_params_set(&p, i, value, err) != SP_OK)
        return isinf(value) ? SP_PARAM_NOT_FINITE
               : value == floor(value) ? SP_PARAM_OUTSIDE
                                       : SP_PARAM_FRACTION;
    double stored = sp_params_get(&p, i);
    if (in_range(&PARAMS[i], stored)) return SP_PARAM_TAKEN;
    range_fail(err, &PARAMS[i], stored);
    return in->type == SP_PARAM_FLOAT && !finite((float)stored)
               ? SP_PARAM_NOT_FINITE : SP_PARAM_OUTSIDE;
}

/* Whether the chain holds stage (the default order holds every stage). */
static int in_order(const sp_params *p, int stage) {
    if (p->n_order == 0) return 1;
    for (int i = 0; i < p->n_order; i++)
        if (p->order[i] == stage) return 1;
    return 0;
}

int sp_params_check_ranges(const sp_params *p, int vocab, char *err) {
    for (int i = 0; i < N_PARAMS; i++) {
        double v = sp_params_get(p, i);
        if (!in_range(&PARAMS[i], v)) return range_fail(err, &PARAMS[i], v);
    }
    if (p->n_bias < 0 || p->n_bias > SP_MAX_BIAS)
        return sp_fail(err, SP_ERR_ARG, "logit-bias: at most %d entries "
                       "(got %d)", SP_MAX_BIAS, p->n_bias);
    for (int i = 0; i < p->n_bias; i++) {
        const sp_bias *b = &p->bias[i];
        if (b->token < 0 || (vocab > 0 && b->token >= vocab))
            return sp_fail(err, SP_ERR_ARG, "logit-bias token %d is outside "
                           "the vocabulary (0..%d)", b->token, vocab - 1);
        if (!(finite(b->value) || b->value == -INFINITY))
            return sp_fail(err, SP_ERR_ARG, "logit-bias value for token %d "
                           "must be a finite number or -inf (got %g)",
                           b->token, (double)b->value);
    }
    if (p->n_dry_breakers < 0 || p->n_dry_breakers > SP_MAX_DRY_BREAKERS)
        return sp_fail(err, SP_ERR_ARG, "dry-sequence-breaker: at most %d",
                       SP_MAX_DRY_BREAKERS);
    for (int i = 0; i < p->n_dry_breakers; i++) {
        int n = p->dry_breaker_len[i];
        if (n < 1 || n > SP_MAX_DRY_BREAKER_LEN)
            return sp_fail(err, SP_ERR_ARG, "dry-sequence-breaker %d has %d "
                           "tokens (1..%d)", i + 1, n, SP_MAX_DRY_BREAKER_LEN);
        for (int j = 0; j < n; j++) {
            int t = p->dry_breakers[i][j];
            if (t < 0 || (vocab > 0 && t >= vocab))
                return sp_fail(err, SP_ERR_ARG, "dry-sequence-breaker token "
                               "%d is outside the vocabulary (0..%d)", t,
                               vocab - 1);
        }
    }
    int words = sp_words_check(p, vocab, err);
    if (words != SP_OK) return words;
    /* the terminal stages each pick the token their way: one at most */
    if (sp_stage_active(p, SP_STAGE_MIROSTAT) &&
        sp_stage_active(p, SP_STAGE_ADAPTIVE_P))
        return sp_fail(err, SP_ERR_ARG, "mirostat and adaptive-target are "
                       "both set: each picks the token its own way (turn one "
                       "off)");
    if (p->n_order < 0 || p->n_order > SP_STAGE_COUNT)
        return sp_fail(err, SP_ERR_ARG, "samplers: %d stages (at most %d)",
                       p->n_order, SP_STAGE_COUNT);
    for (int i = 0; i < p->n_order; i++)
        if (p->order[i] >= SP_STAGE_COUNT)
            return sp_fail(err, SP_ERR_ARG, "samplers: stage %d is unknown",
                           p->order[i]);
    return SP_OK;
}

int sp_params_check(const sp_params *p, int vocab, char *err) {
    int rc = sp_params_check_ranges(p, vocab, err);
    if (rc != SP_OK) return rc;
    /* a setting whose stage the chain leaves out would be ignored: say so */
    for (int s = 0; s < SP_STAGE_COUNT; s++) {
        if (in_order(p, s) || !sp_stage_active(p, s)) continue;
        for (int i = 0; i < N_PARAMS; i++) {
            if (PARAMS[i].info.stage != s) continue;
            if (sp_params_get(p, i) == PARAMS[i].info.neutral) continue;
            return sp_fail(err, SP_ERR_ARG, "%s is set but the samplers' "
                           "order leaves out %s", PARAMS[i].info.flag,
                           sp_stage_name(s));
        }
        return sp_fail(err, SP_ERR_ARG, "%s is set but the samplers' order "
                       "leaves out %s", s == SP_STAGE_BIAS ? "logit-bias"
                       : s == SP_STAGE_BAD_WORDS ? "bad-words"
                       : s == SP_STAGE_SEQUENCE_BIAS ? "sequence-bias"
                       : sp_stage_name(s), sp_stage_name(s));
    }
    return SP_OK;
}

int sp_params_add_bias(sp_params *p, int token, float value, char *err) {
    if (p->n_bias < 0 || p->n_bias >= SP_MAX_BIAS)
        return sp_fail(err, SP_ERR_ARG, "logit-bias: at most %d entries",
                       SP_MAX_BIAS);
    p->bias[p->n_bias].token = token;
    p->bias[p->n_bias].value = value;
    p->n_bias++;
    return SP_OK;
}

int sp_params_add_dry_breaker(sp_params *p, const int *tokens, int n,
                              char *err) {
    if (p->n_dry_breakers < 0 || p->n_dry_breakers >= SP_MAX_DRY_BREAKERS)
        return sp_fail(err, SP_ERR_ARG, "dry-sequence-breaker: at most %d",
                       SP_MAX_DRY_BREAKERS);
    if (n < 1 || n > SP_MAX_DRY_BREAKER_LEN)
        return sp_fail(err, SP_ERR_ARG, "dry-sequence-breaker: %d tokens "
                       "(1..%d)", n, SP_MAX_DRY_BREAKER_LEN);
    int k = p->n_dry_breakers++;
    p->dry_breaker_len[k] = n;
    for (int i = 0; i < n; i++) p->dry_breakers[k][i] = tokens[i];
    return SP_OK;
}

/* text as a JSON string, cut to fit out (size bytes) */
void sp_json_quote(const char *text, char *out, size_t size) {
    size_t at = 0;
    out[at++] = '"';
    for (const unsigned char *c = (const unsigned char *)text;
         *c && at + 8 < size; c++) {
        const char *esc = *c == '"' ? "\\\"" : *c == '\\' ? "\\\\"
                        : *c == '\n' ? "\\n" : *c == '\r' ? "\\r"
                        : *c == '\t' ? "\\t" : *c == '\b' ? "\\b"
                        : *c == '\f' ? "\\f" : NULL;
        if (esc) at += (size_t)snprintf(out + at, size - at, "%s", esc);
        else if (*c < 0x20)
            at += (size_t)snprintf(out + at, size - at, "\\u%04x", *c);
        else out[at++] = (char)*c;
    }
    out[at++] = '"';
    out[at] = '\0';
}

int sp_text_tokens(const sp_tokenizer *tok, const char *what,
                   const char *text, int *ids, int max, char *err) {
    char quoted[96];
    sp_json_quote(text, quoted, sizeof quoted);
    int max_ids = sp_encode_bound(tok, strlen(text));
    int *all = malloc(sizeof(int) * (size_t)(max_ids > 0 ? max_ids : 1));
    if (!all) return -sp_fail(err, SP_ERR_NOMEM, "%s: out of memory", what);
    int n = sp_encode(tok, text, 0, 0, all, max_ids, err);
    if (n < 0) {
        /* (the tokenizer's message speaks of a prompt: here a text) */
        char why[SP_ERR_LEN];
        snprintf(why, sizeof why, "%s",
                 strncmp(err, "prompt: ", 8) ? err : err + 8);
        n = -sp_fail(err, sp_error_code(SP_ERR_ARG, err) == SP_ERR_NOMEM
                              ? SP_ERR_NOMEM : SP_ERR_ARG,
                     "%s: %s: %s", what, quoted, why);
    } else if (n == 0)
        n = -sp_fail(err, SP_ERR_ARG, "%s: %s is no token", what, quoted);
    else if (n > max)
        n = -sp_fail(err, SP_ERR_ARG, "%s: %s is more than %d tokens", what,
                     quoted, max);
    else
        memcpy(ids, all, sizeof(int) * (size_t)n);
    free(all);
    return n;
}

int sp_params_add_dry_breaker_text(sp_params *p, const sp_tokenizer *tok,
                                   const char *text, char *err) {
    int ids[SP_MAX_DRY_BREAKER_LEN];
    int n = sp_text_tokens(tok, "dry-sequence-breaker", text, ids,
                           SP_MAX_DRY_BREAKER_LEN, err);
    return n < 0 ? -n : sp_params_add_dry_breaker(p, ids, n, err);
}
