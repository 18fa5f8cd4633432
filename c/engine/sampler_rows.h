/*
 * sampler_rows.h — the sampler chain's tables: the cut codes
 * (SP_CUT_ROWS) and the stages (SP_STAGE_ROWS, SP_STAGE_TERMINAL), one row
 * each, and the enums they make (sp_cut, sp_stage).
 * Part of the engine's public API: include sampler.h, which includes
 * this file where its declarations belong.
 */
#ifndef SAMPLER_ROWS_H
#define SAMPLER_ROWS_H
#ifndef SAMPLER_H
#error "include sampler.h (the engine's public API), not sampler_rows.h"
#endif

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
    X(MIN_NEW_TOKENS, "min_new_tokens")                                     \
    X(BAD_WORDS, "bad_words")

#define SP_CUT_ENUM_(id, name) SP_CUT_##id,
typedef enum { SP_CUT_ROWS(SP_CUT_ENUM_) SP_CUT_COUNT } sp_cut;
#undef SP_CUT_ENUM_

const char *sp_cut_name(int cut); /* "kept", "bias", "temperature", "top_k", ... */

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
    X(CFG, "cfg", NONE, "Classifier-free guidance",                        \
      "mixes the model's log-probabilities with a second run's on a "      \
      "negative prompt: scale (cond - uncond) + uncond", sp_stage_cfg,     \
      p->cfg_scale != 1.0f)                                                 \
    X(BIAS, "bias", BIAS, "Logit bias",                                     \
      "adds a value to chosen tokens' logits; -inf bans them",              \
      sp_stage_bias, p->n_bias > 0)                                         \
    X(SEQUENCE_BIAS, "sequence_bias", NONE, "Sequence bias",                \
      "adds a value to the token that would complete a chosen word (a "     \
      "sequence of tokens)", sp_stage_sequence_bias, p->n_seq_bias > 0)     \
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
    X(BAD_WORDS, "bad_words", BAD_WORDS, "Bad words",                       \
      "removes the token that would complete a banned word (a sequence of " \
      "tokens)", sp_stage_bad_words, p->n_bad_words > 0)                    \
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

#endif /* SAMPLER_ROWS_H */
