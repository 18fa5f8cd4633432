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
    uint64_t seed;
    sp_rng rng;
    float *pending;   /* logits for position n_tokens, owned by state */
    sp_step step;     /* the last warp */
    int has_step;
    int finished;     /* the model emitted its end-of-text token */
};

sp_session *sp_session_new(const sp_model *m, const sp_tokenizer *tok,
                           char *err) {
    if (!tok) tok = sp_model_tokenizer(m);
    if (!tok) {
        sp_fail(err, SP_ERR_ARG, "session: the model has no tokenizer; give "
                "one");
        return NULL;
    }
    if (sp_tokenizer_vocab(tok) > sp_model_vocab(m)) {
        sp_fail(err, SP_ERR_FORMAT, "tokenizer: it has %d pieces but the "
                "model only %d logits", sp_tokenizer_vocab(tok),
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
    s->tokens = malloc(sizeof(int) * (size_t)s->cap);
    if (!s->state || !s->sampler || !s->tokens) goto nomem;
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
    free(s);
}

sp_sampler *sp_session_sampler(sp_session *s) { return s->sampler; }

static int push_token(sp_session *s, int token, char *err) {
    if (s->n_tokens == s->cap) {
        int cap = s->cap * 2;
        int *tokens = realloc(s->tokens, sizeof(int) * (size_t)cap);
        if (!tokens)
            return sp_fail(err, SP_ERR_NOMEM, "session: out of memory");
        s->tokens = tokens;
        s->cap = cap;
    }
    s->tokens[s->n_tokens++] = token;
    return SP_OK;
}

/* Feeds tokens[n_tokens - 1] at its position; the next logits pend. */
static int feed_last(sp_session *s, char *err) {
    int pos = s->n_tokens - 1;
    int seq_len = sp_model_seq_len(s->model);
    if (seq_len > 0 && pos >= seq_len)
        return sp_fail(err, SP_ERR_STATE, "context full: %d tokens, the "
                       "model's seq_len", seq_len);
    s->pending = sp_forward(s->model, s->state, s->tokens[pos], pos);
    if (!s->pending)
        return sp_fail(err, SP_ERR_STATE, "forward: token %d at position %d "
                       "is invalid", s->tokens[pos], pos);
    return SP_OK;
}

int sp_session_start(sp_session *s, const char *prompt, uint64_t seed,
                     char *err) {
    s->n_tokens = s->n_prompt = 0;
    s->pending = NULL;
    s->has_step = 0;
    s->finished = 0;
    s->seed = seed;
    sp_rng_seed(&s->rng, seed);
    if (!prompt) prompt = "";
    /* a prompt never has more tokens than bytes, plus BOS */
    int max_ids = (int)strlen(prompt) + 2;
    int *ids = malloc(sizeof(int) * (size_t)max_ids);
    if (!ids) return sp_fail(err, SP_ERR_NOMEM, "session: out of memory");
    int n = sp_encode(s->tok, prompt, 1, 0, ids, max_ids, err);
    int rc = n < 0 ? SP_ERR_ARG : SP_OK;
    int seq_len = sp_model_seq_len(s->model);
    if (rc == SP_OK && seq_len > 0 && n >= seq_len)
        rc = sp_fail(err, SP_ERR_ARG, "prompt: %d tokens leave no room in "
                     "the model's context of %d", n, seq_len);
    for (int i = 0; rc == SP_OK && i < n; i++) {
        rc = push_token(s, ids[i], err);
        if (rc == SP_OK) rc = feed_last(s, err);
    }
    free(ids);
    if (rc != SP_OK) {
        s->n_tokens = 0;
        s->pending = NULL;
        return rc;
    }
    s->n_prompt = n;
    return SP_OK;
}

static int is_end_of_text(const sp_session *s, int token) {
    /* run.c stops at BOS too: in llama2.c's data it separates texts.  The
     * bigram's boundary token only ends a word, not the text. */
    return s->tok->kind == SP_TOK_BPE &&
           (token == s->tok->eos || token == s->tok->bos);
}

static int check_ready(const sp_session *s, char *err) {
    if (s->n_prompt == 0)
        return sp_fail(err, SP_ERR_STATE, "session: not started");
    if (s->finished)
        return sp_fail(err, SP_ERR_STATE, "the text is finished: the model "
                       "emitted its end-of-text token");
    if (!s->pending)
        return sp_fail(err, SP_ERR_STATE, "context full: %d tokens, the "
                       "model's seq_len", sp_model_seq_len(s->model));
    return SP_OK;
}

int sp_session_preview(sp_session *s, const sp_params *p, char *err) {
    int rc = check_ready(s, err);
    if (rc != SP_OK) return rc;
    rc = sp_sampler_warp(s->sampler, s->pending, s->tokens, s->n_tokens, p,
                         &s->step, err);
    s->has_step = rc == SP_OK;
    return rc;
}

int sp_session_step(sp_session *s, const sp_params *p, int force,
                    char *err) {
    int rc = check_ready(s, err);
    if (rc != SP_OK) return rc;
    int seq_len = sp_model_seq_len(s->model);
    if (force >= sp_model_vocab(s->model))
        return sp_fail(err, SP_ERR_ARG, "force: token %d is outside the "
                       "vocabulary (0..%d)", force, sp_model_vocab(s->model) - 1);
    rc = sp_sampler_warp(s->sampler, s->pending, s->tokens, s->n_tokens, p,
                         &s->step, err);
    if (rc != SP_OK) {
        s->has_step = 0;
        return rc;
    }
    s->has_step = 1;
    double u = sp_rng_uniform(&s->rng); /* consumed whether forced or not */
    sp_sampler_draw(&s->step, u);
    if (force >= 0) {
        s->step.token = force;
        s->step.p_token = s->step.probs[force];
    }
    rc = push_token(s, s->step.token, err);
    if (rc != SP_OK) return rc;
    if (is_end_of_text(s, s->step.token)) {
        s->finished = 1;
        return SP_OK;
    }
    if (seq_len > 0 && s->n_tokens >= seq_len) {
        s->pending = NULL; /* nothing can follow; the next step says so */
        return SP_OK;
    }
    return feed_last(s, err);
}

int sp_session_rewind(sp_session *s, int n_generated, char *err) {
    int have = s->n_tokens - s->n_prompt;
    if (s->n_prompt == 0)
        return sp_fail(err, SP_ERR_STATE, "session: not started");
    if (n_generated < 0 || n_generated > have)
        return sp_fail(err, SP_ERR_ARG, "rewind: %d is outside 0..%d",
                       n_generated, have);
    s->n_tokens = s->n_prompt + n_generated;
    s->has_step = 0;
    s->pending = NULL;
    s->finished = n_generated > 0 &&
                  is_end_of_text(s, s->tokens[s->n_tokens - 1]);
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
const sp_tokenizer *sp_session_tokenizer(const sp_session *s) {
    return s->tok;
}
int sp_session_vocab(const sp_session *s) { return sp_model_vocab(s->model); }
