/*
 * session.c — one generation: a model's state, the sampler, the tokens so
 * far and the PRNG.  The CLI, the WASM API and the tests all drive this.
 *
 * After sp_session_start the logits of the next position are pending; each
 * sp_session_step warps them, draws the step's uniform, appends the token
 * and feeds it to the model, which leaves the next logits pending.  Step i
 * of a generation always consumes the i-th uniform of the seed's stream,
 * whatever the settings and whether or not the token was forced, so that
 * "what if" branches and side-by-side comparisons differ only where the
 * settings or the forced token make them differ.
 *
 * End of context: a transformer has seq_len positions.  When the last one is
 * filled the session stops with SP_ERR_STATE and the message "context full:
 * N tokens, the model's seq_len"; nothing slides silently, so every token a
 * lesson shows was computed with its whole past in view.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct sp_session {
    const sp_model *model;
    const sp_tokenizer *tok;
    sp_state *state;
    sp_sampler *sampler;
    int *tokens;      /* prompt + generated */
    int n_tokens, cap, n_prompt;
    int started;      /* sp_session_start succeeded (a hand-made model's
                       * prompt may be empty: n_prompt 0) */
    uint64_t seed;
    sp_rng rng;
    float *pending;   /* logits for position n_tokens, owned by state */
    sp_step step;     /* the last warp */
    int has_step;
    int finished;     /* end-of-text token, or the constraint is complete */
    /* constrained decoding */
    const sp_constraint *constraint; /* borrowed; NULL = none */
    sp_cvocab *cvocab; /* the constraint as this vocabulary can meet it */
    sp_cstate cstate; /* where the generated text leaves it */
    int budget;       /* generated tokens allowed in all */
    uint8_t *allowed; /* [vocab] the mask of the next step */
    const uint8_t *fixed_allowed; /* a mask for every step, NULL = none */
    sp_token_stat *stats; /* [cap], one per generated token */
    float *mu;        /* [cap + 1]: mirostat's target before generated step
                       * i (NaN: its start), kept so that a rewind or a look
                       * at the past finds it as it was */
    float *ada;       /* [2 (cap + 1)]: adaptive-p's sum and weight before
                       * generated step i (weight NaN: its start), alike */
    float *aside;     /* [vocab] the pending logits during sp_session_peek */
    char fault[SP_ERR_LEN]; /* why the model cannot go on, "" if it can */
    /* speculative decoding (speculative.c): a step may leave its token
     * unfed, for the next batched pass to feed with the drafted tokens
     * (anything else that needs the pending logits feeds it first); and
     * the logits a batched pass computed ahead for tokens that may come */
    int defer_feed;   /* steps leave their token unfed */
    int unfed;        /* the last token is not fed yet: pending is NULL */
    const int *ahead_tokens;   /* the tokens fed ahead, [n_ahead] */
    const float *ahead_logits; /* the logits after each, [n_ahead][vocab] */
    int n_ahead;
    int previewed;    /* the step record is a preview of the pending step
                       * (sp_session_commit may append from it) */
    float *held;      /* [vocab] the pending logits, kept over a batched pass
                       * (which leaves its own last row in the state's) */
    int *ends;        /* the tokens that end the text (the length stages'):
                       * the model's end-of-generation tokens and its EOS */
    int n_ends;
};

sp_session *sp_session_new(const sp_model *m, const sp_tokenizer *tok,
                           char *err) {
    if (!tok) tok = sp_model_tokenizer(m);
    if (!tok) {
        sp_fail(err, SP_ERR_ARG, "session: the model has no tokenizer; give "
                "one");
        return NULL;
    }
    /* a pair: fewer pieces would leave tokens the model emits without
     * text, more would let prompts hold ids the model cannot read */
    if (sp_tokenizer_vocab(tok) != sp_model_vocab(m)) {
        sp_fail(err, SP_ERR_FORMAT, "tokenizer: it has %d pieces, the model "
                "%d logits: not its tokenizer", sp_tokenizer_vocab(tok),
                sp_model_vocab(m));
        return NULL;
    }
    sp_session *s = calloc(1, sizeof *s);
    if (!s) goto nomem;
    s->model = m;
    s->tok = tok;
    s->state = sp_state_new(m);
    s->sampler = sp_sampler_new(sp_model_vocab(m));
    s->cap = 256;
    /* every per-token array exists from the start at cap entries, and
     * push_token only ever grows them together: a failed growth leaves
     * each at least cap long, so no later step meets a missing one */
    s->tokens = malloc(sizeof(int) * (size_t)s->cap);
    s->stats = malloc(sizeof(sp_token_stat) * (size_t)s->cap);
    s->mu = malloc(sizeof(float) * ((size_t)s->cap + 1));
    s->ada = malloc(sizeof(float) * 2 * ((size_t)s->cap + 1));
    if (!s->state || !s->sampler || !s->tokens || !s->stats || !s->mu ||
        !s->ada)
        goto nomem;
    /* the end-of-text tokens the length stages act on: the tokenizer's
     * end-of-generation tokens (llama2.c's EOS and BOS, a GGUF file's EOG
     * set) and its EOS (the bigram's boundary, which ends a word) */
    int vocab = sp_tokenizer_vocab(tok), eos = sp_tokenizer_eos(tok);
    for (int t = 0; t < vocab; t++)
        if (t == eos || sp_tokenizer_is_eog(tok, t)) s->n_ends++;
    s->ends = malloc(sizeof(int) * (size_t)(s->n_ends ? s->n_ends : 1));
    if (!s->ends) goto nomem;
    s->n_ends = 0;
    for (int t = 0; t < vocab; t++)
        if (t == eos || sp_tokenizer_is_eog(tok, t)) s->ends[s->n_ends++] = t;
    return s;
nomem:
    sp_session_free(s);
    sp_fail(err, SP_ERR_NOMEM, "session: out of memory");
    return NULL;
}

void sp_session_free(sp_session *s) {
    if (!s) return;
    sp_state_free(s->state);
    sp_sampler_free(s->sampler);
    free(s->tokens);
    free(s->allowed);
    free(s->stats);
    free(s->aside);
    free(s->held);
    sp_cvocab_free(s->cvocab);
    free(s->mu);
    free(s->ada);
    free(s->ends);
    free(s);
}

sp_sampler *sp_session_sampler(sp_session *s) { return s->sampler; }

static int push_token(sp_session *s, int token, char *err) {
    if (s->n_tokens == s->cap) {
        int cap = s->cap * 2;
        int *tokens = realloc(s->tokens, sizeof(int) * (size_t)cap);
        if (tokens) s->tokens = tokens;
        sp_token_stat *stats =
            realloc(s->stats, sizeof(sp_token_stat) * (size_t)cap);
        if (stats) s->stats = stats;
        float *mu = realloc(s->mu, sizeof(float) * ((size_t)cap + 1));
        if (mu) s->mu = mu;
        float *ada = realloc(s->ada, sizeof(float) * 2 * ((size_t)cap + 1));
        if (ada) s->ada = ada;
        if (!tokens || !stats || !mu || !ada)
            return sp_fail(err, SP_ERR_NOMEM, "session: out of memory");
        s->cap = cap;
    }
    s->tokens[s->n_tokens++] = token;
    return SP_OK;
}

/* The token before tokens[i], or -1 at the start of a hand-made model's
 * text (which needs no begin token). */
static int prev_token(const sp_session *s, int i) {
    return i > 0 ? s->tokens[i - 1] : -1;
}

static int check_pending(sp_session *s, int pos, char *err);

/* Feeds tokens[n_tokens - 1] at its position; the next logits pend.  With
 * no token yet (a hand-made model's empty prompt) the model's distribution
 * for an empty context pends. */
static int feed_last(sp_session *s, char *err) {
    int pos = s->n_tokens - 1;
    if (pos < 0) {
        s->pending = sp_forward_empty(s->model, s->state);
        if (!s->pending)
            return sp_fail(err, SP_ERR_PROMPT, "prompt: this model needs at "
                           "least one token to start from");
        return SP_OK;
    }
    int seq_len = sp_model_seq_len(s->model);
    if (seq_len > 0 && pos >= seq_len)
        return sp_fail(err, SP_ERR_CONTEXT_FULL, "context full: %d tokens, the "
                       "model's seq_len", seq_len);
    s->unfed = 0;
    s->pending = sp_forward(s->model, s->state, s->tokens[pos], pos);
    if (!s->pending)
        return sp_fail(err, SP_ERR_STATE, "forward: token %d at position %d "
                       "is invalid", s->tokens[pos], pos);
    return check_pending(s, pos, err);
}

/* The pending logits (after the token at pos) as the model gave them: a
 * transformer's must be finite. */
static int check_pending(sp_session *s, int pos, char *err) {
    if (sp_model_kind_of(s->model) == SP_MODEL_TRANSFORMER) {
        /* a transformer never masks: -inf means its arithmetic overflowed
         * (NaN and +inf are caught by every warp) */
        int vocab = sp_model_vocab(s->model);
        for (int i = 0; i < vocab; i++)
            if (s->pending[i] == -INFINITY) {
                s->pending = NULL;
                sp_fail(s->fault, SP_ERR_LOGITS, "logits: token %d is -inf at "
                        "position %d; the model's output is not finite", i,
                        pos);
                return sp_fail(err, SP_ERR_LOGITS, "%s", s->fault);
            }
    }
    return SP_OK;
}

int sp_session_start(sp_session *s, const char *prompt, uint64_t seed,
                     char *err) {
    s->n_tokens = s->n_prompt = 0;
    s->started = 0;
    s->previewed = 0;
    s->pending = NULL;
    s->unfed = 0;
    s->n_ahead = 0;
    s->has_step = 0;
    s->finished = 0;
    s->fault[0] = '\0';
    s->seed = seed;
    sp_rng_seed(&s->rng, seed);
    if (!prompt) prompt = "";
    int max_ids = sp_encode_bound(s->tok, strlen(prompt));
    int *ids = malloc(sizeof(int) * (size_t)max_ids);
    if (!ids) return sp_fail(err, SP_ERR_NOMEM, "session: out of memory");
    int n = sp_encode(s->tok, prompt, 1, 0, ids, max_ids, err);
    int rc = n < 0 ? SP_ERR_ARG : SP_OK;
    int seq_len = sp_model_seq_len(s->model);
    if (rc == SP_OK && seq_len > 0 && n >= seq_len)
        rc = sp_fail(err, SP_ERR_PROMPT_LONG, "prompt: %d tokens leave no room in "
                     "the model's context of %d", n, seq_len);
    for (int i = 0; rc == SP_OK && i < n; i++) rc = push_token(s, ids[i], err);
    /* the prompt in batched passes (sp_forward_batch): the weights are
     * read once per SP_BATCH_MAX tokens, and the last logits pend -- the
     * bits one call per token would give */
    s->unfed = 0;
    s->n_ahead = 0;
    for (int at = 0; rc == SP_OK && at < n; at += SP_BATCH_MAX) {
        int chunk = n - at < SP_BATCH_MAX ? n - at : SP_BATCH_MAX;
        if (!sp_forward_batch(s->model, s->state, ids + at, chunk, at, 1)) {
            rc = sp_fail(err, SP_ERR_NOMEM, "session: out of memory");
            break;
        }
        s->pending = sp_state_logits(s->model, s->state);
        rc = check_pending(s, at + chunk - 1, err);
    }
    if (rc == SP_OK && n == 0) rc = feed_last(s, err); /* hand-made */
    free(ids);
    if (rc != SP_OK) {
        s->n_tokens = 0;
        s->pending = NULL;
        return rc;
    }
    s->n_prompt = n;
    s->started = 1;
    s->mu[0] = NAN; /* mirostat starts from 2 tau */
    s->ada[0] = s->ada[1] = NAN; /* adaptive-p from its target */
    if (s->constraint)
        sp_cstate_start_prompt(s->constraint, &s->cstate, s->tok, s->tokens,
                               s->n_prompt);
    return SP_OK;
}

/* What the warp of generated step `step` draws on besides the logits. */
static void set_state(sp_session *s, int step) {
    sp_sampler_state st = {sp_xtc_uniform(s->seed, step), s->mu[step],
                           step, s->ends, s->n_ends, s->ada[2 * step],
                           s->ada[2 * step + 1]};
    sp_sampler_set_state(s->sampler, &st);
}

static int is_end_of_text(const sp_session *s, int token) {
    /* run.c stops at BOS too: in llama2.c's data it separates texts.  The
     * bigram's boundary token only ends a word, not the text -- except
     * under a constraint, where it is the only way to say "done". */
    if (s->tok->kind == SP_TOK_BPE || s->tok->gguf)
        return sp_tokenizer_is_eog(s->tok, token);
    return s->constraint && token == s->tok->eos;
}

/* Replays the generated text through the constraint; 0 if it does not fit
 * (or is already complete before the end). */
static int constraint_replay(sp_session *s) {
    sp_cstate_start_prompt(s->constraint, &s->cstate, s->tok, s->tokens,
                           s->n_prompt);
    for (int i = s->n_prompt; i < s->n_tokens; i++) {
        int t = s->tokens[i];
        if (is_end_of_text(s, t)) return i == s->n_tokens - 1;
        int len;
        const char *bytes = sp_decode(s->tok, prev_token(s, i), t, &len);
        if (!sp_cstate_feed(s->constraint, &s->cstate, bytes, len)) return 0;
    }
    return 1;
}

/* The tokens that keep the text able to satisfy the constraint within the
 * steps left, after the text and extra[0..n_extra) (tokens not generated
 * yet: a draft's), into allowed[vocab]; returns how many.  with_fixed: the
 * fixed mask applies too. */
static int mask_after(sp_session *s, const int *extra, int n_extra,
                      uint8_t *allowed, int with_fixed) {
    const sp_constraint *c = s->constraint;
    sp_cstate at = s->cstate;
    int prev = prev_token(s, s->n_tokens);
    int vocab = sp_model_vocab(s->model), n = 0;
    for (int i = 0; i < n_extra; i++) {
        int len;
        const char *bytes = sp_decode(s->tok, prev, extra[i], &len);
        if (is_end_of_text(s, extra[i]) || !sp_cstate_feed(c, &at, bytes, len)) {
            memset(allowed, 0, (size_t)vocab); /* nothing can follow */
            return 0;
        }
        prev = extra[i];
    }
    int remaining = s->budget - (s->n_tokens - s->n_prompt) - n_extra;
    /* the end-of-text tokens (is_end_of_text under a constraint) */
    int end_a = s->tok->eos, end_b = s->tok->kind == SP_TOK_BPE ? s->tok->bos
                                                                 : -1;
    n = sp_cvocab_mask(s->cvocab, s->tok, &at, prev, remaining, end_a, end_b,
                       vocab, allowed);
    if (with_fixed && s->fixed_allowed) {
        n = 0;
        for (int t = 0; t < vocab; t++) n += allowed[t] &= s->fixed_allowed[t];
    }
    return n;
}

static int constraint_mask(sp_session *s) {
    return mask_after(s, NULL, 0, s->allowed, 0);
}

int sp_session_constraint_after(sp_session *s, const int *extra, int n_extra,
                                uint8_t *allowed) {
    return s->constraint ? mask_after(s, extra, n_extra, allowed, 1) : -1;
}

void sp_session_set_allowed(sp_session *s, const uint8_t *allowed) {
    s->fixed_allowed = allowed;
}

int sp_session_constrain(sp_session *s, const sp_constraint *c, int budget,
                         char *err) {
    if (!c) {
        s->constraint = NULL;
        sp_cvocab_free(s->cvocab);
        s->cvocab = NULL;
        sp_sampler_set_mask(s->sampler, s->fixed_allowed);
        return SP_OK;
    }
    if (!s->allowed) {
        s->allowed = malloc((size_t)sp_model_vocab(s->model));
        if (!s->allowed)
            return sp_fail(err, SP_ERR_NOMEM, "session: out of memory");
    }
    sp_cvocab *cv;
    int rc = sp_cvocab_open(c, s->tok, budget, &cv, err);
    if (rc != SP_OK) return rc;
    sp_cvocab_free(s->cvocab);
    s->cvocab = cv;
    s->constraint = c;
    s->budget = budget > 0 ? budget : 0x3fffffff;
    if (s->started && !constraint_replay(s)) {
        s->constraint = NULL; /* the session goes on unconstrained */
        sp_sampler_set_mask(s->sampler, s->fixed_allowed);
        return sp_fail(err, SP_ERR_ARG, "constraint: the text generated so "
                       "far does not fit it");
    }
    return SP_OK;
}

static int check_ready(sp_session *s, char *err) {
    if (!s->started)
        return sp_fail(err, SP_ERR_STATE, "session: not started");
    if (s->fault[0]) return sp_fail(err, SP_ERR_LOGITS, "%s", s->fault);
    if (s->unfed && !s->finished) {
        int rc = feed_last(s, err); /* a step left it for a batched pass */
        if (rc != SP_OK) return rc;
    }
    if (s->finished)
        return sp_fail(err, SP_ERR_FINISHED, "the text is finished: the model "
                       "emitted its end-of-text token");
    if (!s->pending)
        return sp_fail(err, SP_ERR_CONTEXT_FULL, "context full: %d tokens, the "
                       "model's seq_len", sp_model_seq_len(s->model));
    return SP_OK;
}

/* Sets the sampler's mask for the pending step: the fixed one and the
 * constraint's. */
static int prepare_mask(sp_session *s, char *err) {
    if (!s->constraint) {
        sp_sampler_set_mask(s->sampler, s->fixed_allowed);
        return SP_OK;
    }
    int n = constraint_mask(s);
    if (s->fixed_allowed) {
        n = 0;
        for (int t = 0; t < sp_model_vocab(s->model); t++)
            n += s->allowed[t] &= s->fixed_allowed[t];
    }
    if (n == 0)
        return sp_fail(err, SP_ERR_UNSATISFIABLE, "constraint: no token of this "
                       "model's vocabulary can continue the text (%s)",
                       sp_constraint_describe(s->constraint));
    sp_sampler_set_mask(s->sampler, s->allowed);
    return SP_OK;
}

int sp_session_preview(sp_session *s, const sp_params *p, char *err) {
    int rc = check_ready(s, err);
    if (rc == SP_OK) rc = prepare_mask(s, err);
    if (rc == SP_OK) rc = sp_params_check(p, sp_model_vocab(s->model), err);
    if (rc != SP_OK) return rc;
    set_state(s, s->n_tokens - s->n_prompt);
    rc = sp_sampler_warp(s->sampler, s->pending, s->tokens, s->n_tokens, p,
                         &s->step, err);
    s->has_step = rc == SP_OK;
    s->previewed = rc == SP_OK;
    return rc;
}

int sp_session_peek(sp_session *s, int n, const sp_params *p, char *err) {
    int generated = s->n_tokens - s->n_prompt;
    if (!s->started)
        return sp_fail(err, SP_ERR_STATE, "session: not started");
    if (n < 0 || n > generated)
        return sp_fail(err, SP_ERR_ARG, "peek: step %d is outside 0..%d", n,
                       generated);
    if (n == generated && (s->pending || s->unfed) && !s->finished)
        return sp_session_preview(s, p, err);
    s->previewed = 0;
    int vocab = sp_model_vocab(s->model);
    size_t bytes = sizeof(float) * (size_t)vocab;
    if (!s->aside && !(s->aside = malloc(bytes)))
        return sp_fail(err, SP_ERR_NOMEM, "session: out of memory");
    /* The logits after token pos, recomputed from the cache, which holds
     * the same rows below pos (the row at pos comes out the same).  The
     * state keeps one logits buffer: the pending logits wait aside and are
     * put back, bits unchanged.  A look at the past is no work of the
     * generation's, so the work counters stay as they were. */
    int pos = s->n_prompt + n - 1;
    if (s->pending) memcpy(s->aside, s->pending, bytes);
    sp_counters work;
    sp_state_counters(s->state, &work);
    const float *logits = pos < 0 ? sp_forward_empty(s->model, s->state)
                                  : sp_forward(s->model, s->state,
                                               s->tokens[pos], pos);
    s->state->counters = work;
    int rc;
    if (!logits) {
        rc = sp_fail(err, SP_ERR_STATE, "peek: position %d is invalid", pos);
    } else {
        sp_sampler_set_mask(s->sampler, s->fixed_allowed); /* no constraint */
        rc = sp_params_check(p, sp_model_vocab(s->model), err);
        set_state(s, n);
        if (rc == SP_OK)
            rc = sp_sampler_warp(s->sampler, logits, s->tokens, pos + 1, p,
                                 &s->step, err);
    }
    if (s->pending) memcpy(s->pending, s->aside, bytes);
    s->has_step = rc == SP_OK;
    return rc;
}

static int finish_step(sp_session *s, const sp_params *p, int force,
                       char *err);

int sp_session_step(sp_session *s, const sp_params *p, int force,
                    char *err) {
    int rc = check_ready(s, err);
    if (rc != SP_OK) return rc;
    if (force < -1 || force >= sp_model_vocab(s->model)) /* -1: not forced */
        return sp_fail(err, SP_ERR_ARG, "force: token %d is outside the "
                       "vocabulary (0..%d)", force, sp_model_vocab(s->model) - 1);
    rc = prepare_mask(s, err);
    if (rc != SP_OK) return rc;
    if (force >= 0 && s->constraint && !s->allowed[force])
        return sp_fail(err, SP_ERR_ARG, "force: token %d cannot continue the "
                       "text under the constraint", force);
    rc = sp_params_check(p, sp_model_vocab(s->model), err);
    if (rc != SP_OK) return rc;
    int step_index = s->n_tokens - s->n_prompt;
    set_state(s, step_index);
    s->previewed = 0;
    rc = sp_sampler_warp(s->sampler, s->pending, s->tokens, s->n_tokens, p,
                         &s->step, err);
    if (rc != SP_OK) {
        s->has_step = 0;
        return rc;
    }
    s->has_step = 1;
    return finish_step(s, p, force, err);
}

int sp_session_commit(sp_session *s, const sp_params *p, int token,
                      char *err) {
    if (!s->previewed || !s->has_step)
        return sp_fail(err, SP_ERR_STATE, "commit: no preview of this step");
    s->previewed = 0;
    if (token < 0 || token >= sp_model_vocab(s->model))
        return sp_fail(err, SP_ERR_ARG, "force: token %d is outside the "
                       "vocabulary (0..%d)", token, sp_model_vocab(s->model) - 1);
    if (s->constraint && !s->allowed[token])
        return sp_fail(err, SP_ERR_ARG, "force: token %d cannot continue the "
                       "text under the constraint", token);
    return finish_step(s, p, token, err);
}

/* The rest of a step, after its warp: the draw, the token, the stats, the
 * constraint, and the next logits. */
static int finish_step(sp_session *s, const sp_params *p, int force,
                       char *err) {
    int rc;
    int seq_len = sp_model_seq_len(s->model);
    int step_index = s->n_tokens - s->n_prompt;
    sp_rng before = s->rng; /* a step that fails changes nothing */
    double u = sp_rng_uniform(&s->rng); /* consumed whether forced or not */
    sp_sampler_draw(&s->step, u);
    int drawn = s->step.token;
    if (force >= 0) {
        s->step.token = force;
        s->step.p_token = s->step.probs[force];
    }
    rc = push_token(s, s->step.token, err);
    if (rc != SP_OK) return rc;
    /* mirostat learns from the token drawn (its final probability) */
    /* adaptive-p from the drawn token's probability before it (a forced
     * token other than the drawn one teaches it nothing, as in llama.cpp,
     * whose accept learns only from the token it picked) */
    float *ada = s->ada + 2 * step_index;
    ada[2] = ada[0];
    ada[3] = ada[1];
    if (s->step.probs_adaptive_in && (force < 0 || force == drawn))
        sp_adaptive_update(p, &ada[2], &ada[3],
                           s->step.probs_adaptive_in[s->step.token]);
    s->mu[step_index + 1] = sp_mirostat_update(p, s->mu[step_index],
                                               s->step.p_token);
    sp_token_stat *stat = &s->stats[s->n_tokens - 1 - s->n_prompt];
    stat->p = s->step.p_token;
    stat->logp_raw = ((double)s->step.logits[s->step.token] - s->step.raw_max) -
                     s->step.raw_log_z;
    stat->entropy_bits = (float)s->step.entropy_bits;
    stat->entropy_raw_bits = (float)s->step.entropy_raw_bits;
    stat->n_kept = s->step.n_kept;
    if (is_end_of_text(s, s->step.token)) {
        s->finished = 1;
        return SP_OK;
    }
    if (s->constraint) {
        int len;
        const int *t = s->tokens;
        const char *bytes = sp_decode(s->tok, prev_token(s, s->n_tokens - 1),
                                      t[s->n_tokens - 1], &len);
        sp_cstate_feed(s->constraint, &s->cstate, bytes, len); /* allowed */
        if (sp_cstate_accepting(s->constraint, &s->cstate) &&
            !sp_cstate_can_extend(s->constraint, &s->cstate))
            s->finished = 1; /* complete: nothing else could follow */
    }
    if (seq_len > 0 && s->n_tokens >= seq_len) {
        s->pending = NULL; /* nothing can follow; the next step says so */
        return SP_OK;
    }
    if (s->n_ahead > 0 && s->ahead_tokens[0] == s->step.token) {
        /* a batched pass fed this very token here: its logits pend */
        s->pending = (float *)s->ahead_logits;
        s->ahead_tokens++;
        s->ahead_logits += sp_model_vocab(s->model);
        s->n_ahead--;
        rc = check_pending(s, s->n_tokens - 1, err);
    } else if (s->defer_feed) {
        s->n_ahead = 0;
        s->pending = NULL;
        s->unfed = 1; /* the next batched pass (or check_ready) feeds it */
        return SP_OK;
    } else {
        rc = feed_last(s, err);
    }
    if (rc != SP_OK) {
        /* the model cannot read the token it chose (its output overflowed):
         * the step fails as a whole, the text stays as it was and the fault
         * stops the session until a rewind */
        s->n_tokens--;
        s->rng = before;
        s->finished = 0;
        if (s->constraint) constraint_replay(s);
    }
    return rc;
}

int sp_session_feed_ahead(sp_session *s, const int *tokens, int n,
                          int *fed, char *err) {
    *fed = 0;
    if (!s->started || s->finished || s->fault[0]) return SP_OK;
    if (!s->unfed && !s->pending) return SP_OK; /* the context is full */
    int seq_len = sp_model_seq_len(s->model);
    int batch[SP_BATCH_MAX];
    int m = 0, pos = s->n_tokens;
    if (s->unfed) {
        batch[m++] = s->tokens[s->n_tokens - 1];
        pos--;
    }
    /* the drafted tokens that fit in the context: position pos + m + i */
    for (int i = 0; i < n && m < SP_BATCH_MAX; i++) {
        if (seq_len > 0 && pos + m >= seq_len) break;
        batch[m++] = tokens[i];
    }
    if (m == 0) return SP_OK;
    s->previewed = 0;
    size_t vocab = (size_t)sp_model_vocab(s->model);
    if (!s->unfed) {
        if (!s->held && !(s->held = malloc(sizeof(float) * vocab)))
            return sp_fail(err, SP_ERR_NOMEM, "session: out of memory");
        memcpy(s->held, s->pending, sizeof(float) * vocab);
        s->pending = s->held;
    }
    const float *rows = sp_forward_batch(s->model, s->state, batch, m, pos, 0);
    if (!rows) return sp_fail(err, SP_ERR_NOMEM, "session: out of memory");
    *fed = m;
    int skip = 0;
    if (s->unfed) {
        s->unfed = 0;
        s->pending = (float *)rows;
        int rc = check_pending(s, pos, err);
        if (rc != SP_OK) return rc;
        skip = 1;
    }
    s->ahead_tokens = tokens;
    s->ahead_logits = rows + (size_t)skip * vocab;
    s->n_ahead = m - skip;
    s->defer_feed = 1;
    return SP_OK;
}

void sp_session_feed_ahead_end(sp_session *s) {
    s->n_ahead = 0;
    s->defer_feed = 0;
}

int sp_session_rewind(sp_session *s, int n_generated, char *err) {
    int have = s->n_tokens - s->n_prompt;
    if (!s->started)
        return sp_fail(err, SP_ERR_STATE, "session: not started");
    if (n_generated < 0 || n_generated > have)
        return sp_fail(err, SP_ERR_ARG, "rewind: %d is outside 0..%d",
                       n_generated, have);
    s->n_tokens = s->n_prompt + n_generated;
    s->has_step = 0;
    s->previewed = 0;
    s->pending = NULL;
    s->unfed = 0;
    s->n_ahead = 0;
    s->fault[0] = '\0';
    s->finished = n_generated > 0 &&
                  is_end_of_text(s, s->tokens[s->n_tokens - 1]);
    if (s->constraint) {
        constraint_replay(s);
        if (sp_cstate_accepting(s->constraint, &s->cstate) &&
            !sp_cstate_can_extend(s->constraint, &s->cstate))
            s->finished = 1;
    }
    int seq_len = sp_model_seq_len(s->model);
    if (!s->finished && !(seq_len > 0 && s->n_tokens >= seq_len)) {
        /* the cache keeps positions < n_tokens - 1: they saw the same
         * tokens; this recomputes the last one and the pending logits */
        int rc = feed_last(s, err);
        if (rc != SP_OK) return rc;
    }
    sp_rng_seed(&s->rng, s->seed);
    for (int i = 0; i < n_generated; i++) sp_rng_uniform(&s->rng);
    return SP_OK;
}

const sp_step *sp_session_last_step(const sp_session *s) {
    return s->has_step ? &s->step : NULL;
}
int sp_session_n_generated(const sp_session *s) {
    return s->n_tokens - s->n_prompt;
}
int sp_session_n_tokens(const sp_session *s) { return s->n_tokens; }
const int *sp_session_tokens(const sp_session *s) { return s->tokens; }
int sp_session_n_prompt(const sp_session *s) { return s->n_prompt; }
int sp_session_finished(const sp_session *s) { return s->finished; }

void sp_session_counters(const sp_session *s, sp_counters *out) {
    sp_state_counters(s->state, out);
}

const sp_token_stat *sp_session_stats(const sp_session *s) {
    return s->stats;
}

char *sp_session_text(const sp_session *s, int *len) {
    size_t cap = 64, n = 0;
    char *text = malloc(cap);
    if (!text) return NULL;
    for (int i = s->n_prompt; i < s->n_tokens; i++) {
        int t = s->tokens[i], piece_len;
        if (is_end_of_text(s, t)) break;
        const char *piece = sp_decode(s->tok, prev_token(s, i), t, &piece_len);
        if (n + (size_t)piece_len + 1 > cap) {
            while (n + (size_t)piece_len + 1 > cap) cap *= 2;
            char *more = realloc(text, cap);
            if (!more) {
                free(text);
                return NULL;
            }
            text = more;
        }
        memcpy(text + n, piece, (size_t)piece_len);
        n += (size_t)piece_len;
    }
    text[n] = '\0';
    *len = (int)n;
    return text;
}

int sp_session_metrics(const sp_session *s, sp_metrics *out) {
    int len;
    char *text = sp_session_text(s, &len);
    if (!text) return SP_ERR_NOMEM;
    int n = s->n_tokens - s->n_prompt;
    if (s->finished && n > 0 && is_end_of_text(s, s->tokens[s->n_tokens - 1]))
        n--; /* the end token is not part of the text */
    int rc = sp_text_metrics(s->tokens + s->n_prompt, n, text, len, s->stats,
                             out);
    free(text);
    return rc;
}
int sp_session_is_end(const sp_session *s, int token) {
    return is_end_of_text(s, token);
}
const sp_tokenizer *sp_session_tokenizer(const sp_session *s) {
    return s->tok;
}
int sp_session_vocab(const sp_session *s) { return sp_model_vocab(s->model); }
