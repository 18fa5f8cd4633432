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

#include "session.h"

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
     * session_push_token only ever grows them together: a failed growth leaves
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
    session_cfg_free(s);
    session_inspect_free(s);
    free(s);
}

sp_sampler *sp_session_sampler(sp_session *s) { return s->sampler; }

int session_push_token(sp_session *s, int token, char *err) {
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
/* Feeds tokens[n_tokens - 1] at its position; the next logits pend.  With
 * no token yet (a hand-made model's empty prompt) the model's distribution
 * for an empty context pends. */
int session_feed_last(sp_session *s, char *err) {
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
    return session_check_pending(s, pos, err);
}

/* The pending logits (after the token at pos) as the model gave them: a
 * transformer's must be finite. */
int session_check_pending(sp_session *s, int pos, char *err) {
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
    session_cfg_reset(s);
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
    for (int i = 0; rc == SP_OK && i < n; i++)
        rc = session_push_token(s, ids[i], err);
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
        rc = session_check_pending(s, at + chunk - 1, err);
    }
    if (rc == SP_OK && n == 0) rc = session_feed_last(s, err); /* hand-made */
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

int session_is_end_of_text(const sp_session *s, int token) {
    /* run.c stops at BOS too: in llama2.c's data it separates texts.  The
     * bigram's boundary token only ends a word, not the text -- except
     * under a constraint, where it is the only way to say "done". */
    if (s->tok->kind == SP_TOK_BPE || s->tok->gguf)
        return sp_tokenizer_is_eog(s->tok, token);
    return s->constraint && token == s->tok->eos;
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
    session_cfg_rewind(s, n_generated);
    s->finished = n_generated > 0 &&
                  session_is_end_of_text(s, s->tokens[s->n_tokens - 1]);
    if (s->constraint) {
        session_constraint_replay(s);
        if (sp_cstate_accepting(s->constraint, &s->cstate) &&
            !sp_cstate_can_extend(s->constraint, &s->cstate))
            s->finished = 1;
    }
    int seq_len = sp_model_seq_len(s->model);
    if (!s->finished && !(seq_len > 0 && s->n_tokens >= seq_len)) {
        /* the cache keeps positions < n_tokens - 1: they saw the same
         * tokens; this recomputes the last one and the pending logits */
        int rc = session_feed_last(s, err);
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
    if (s->ustate) { /* classifier-free guidance's second run: its work */
        sp_counters u;
        sp_state_counters(s->ustate, &u);
        out->flops += u.flops;
        out->flops_no_cache += u.flops_no_cache;
        out->tokens += u.tokens;
        out->kv_reused += u.kv_reused;
        out->kv_written += u.kv_written;
        out->passes += u.passes;
    }
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
        if (session_is_end_of_text(s, t)) break;
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
    if (s->finished && n > 0 &&
        session_is_end_of_text(s, s->tokens[s->n_tokens - 1]))
        n--; /* the end token is not part of the text */
    int rc = sp_text_metrics(s->tokens + s->n_prompt, n, text, len, s->stats,
                             out);
    free(text);
    return rc;
}
int sp_session_is_end(const sp_session *s, int token) {
    return session_is_end_of_text(s, token);
}
const sp_tokenizer *sp_session_tokenizer(const sp_session *s) {
    return s->tok;
}
int sp_session_vocab(const sp_session *s) { return sp_model_vocab(s->model); }

