/*
 * sampler_decode.h — decoding: the session (one generation),
 * beam search, speculative decoding and the metrics of a text.
 * Part of the engine's public API: include sampler.h, which includes
 * this file where its declarations belong.
 */
#ifndef SAMPLER_DECODE_H
#define SAMPLER_DECODE_H
#ifndef SAMPLER_H
#error "include sampler.h (the engine's public API), not sampler_decode.h"
#endif

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
/* Classifier-free guidance's negative prompt (NULL or "": none; the
 * unconditional run then starts from the prompt's last token alone, as
 * Hugging Face's does).  Its run is made anew at the next step that asks
 * for guidance (sp_params.cfg_scale != 1); the text is copied. */
int sp_session_set_negative_prompt(sp_session *s, const char *text,
                                   char *err);
const char *sp_session_negative_prompt(const sp_session *s);
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

/* A look inside the model with each preview and peek (off by default):
 * what is a mask of SP_INSPECT_ATTENTION (the attention weights) and
 * SP_INSPECT_LENS (also the logit lens, lens_top tokens per layer, 1 ..
 * SP_LENS_TOP_MAX); 0 turns it off.  The step record's `inspect` then
 * holds them for the step's query position (the last token before it):
 * a preview copies what the forward pass that computed the pending logits
 * kept as it ran; a peek runs the pass at its position again, as it does
 * for the logits (time travel; a preview after a batched pass that fed
 * drafts beyond the text does so too).  A step's own record has none
 * (peek it).  SP_ERR_ARG for a model without attention (the message says
 * why: sp_model_no_attention) or a bad mask or count. */
#define SP_INSPECT_ATTENTION 1
#define SP_INSPECT_LENS 2
int sp_session_set_inspect(sp_session *s, int what, int lens_top, char *err);
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
/* Diverse beam search: width splits into groups of width / groups beams,
 * each a beam search of its own; a group's candidates lose diversity
 * times the number of earlier groups' beams that chose the same token at
 * this step (Hugging Face's num_beam_groups and diversity_penalty).
 * groups in 1..SP_BEAM_MAX_WIDTH dividing width, diversity in
 * [0, SP_BEAM_MAX_DIVERSITY]; 1 group is plain beam search.  Before
 * sp_beam_start. */
#define SP_BEAM_MAX_DIVERSITY 100
int sp_beam_check_groups(int width, int groups, char *err);
int sp_beam_check_diversity(double penalty, char *err);
sp_beam_search *sp_beam_new(const sp_model *m, const sp_tokenizer *tok,
                            int width, float length_penalty, int max_tokens,
                            char *err);
void sp_beam_free(sp_beam_search *b);
int sp_beam_set_groups(sp_beam_search *b, int groups, float diversity,
                       char *err);
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
/* The group of the i-th hypothesis (0 .. groups - 1), the number of
 * groups, and the diversity penalties the hypothesis collected (its score
 * is (logprob - penalty) / length^alpha). */
int sp_beam_group(const sp_beam_search *b, int i);
int sp_beam_groups(const sp_beam_search *b);
double sp_beam_penalty(const sp_beam_search *b, int i);
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
/* Prompt-lookup decoding: the same rounds, the drafts copied from the
 * text (the tokens after the first earlier occurrence of its last ngram
 * .. 1 tokens; Hugging Face's prompt_lookup_num_tokens = n_draft and
 * max_matching_ngram_size = ngram) instead of drawn from a draft model. */
#define SP_SPEC_MAX_NGRAM 8
int sp_spec_check_ngram(int ngram, char *err);
sp_speculator *sp_spec_new_lookup(sp_session *target, int n_draft, int ngram,
                                  char *err);
/* Prompt lookup's longest n-gram (0: a draft model drafts), and where the
 * last round's draft was copied from: the index in the text of its first
 * token (-1: no match, no draft) and the n-gram matched in *ngram. */
int sp_spec_lookup(const sp_speculator *sp);
int sp_spec_round_match(const sp_speculator *sp, int *ngram);
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

#endif /* SAMPLER_DECODE_H */
