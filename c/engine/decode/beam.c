/*
 * beam.c — beam search: keep the B most probable continuations, not one.
 *
 * Each step, every live beam proposes its B most probable next tokens; of
 * all B x B candidates the B best by score survive (score = sum of log p,
 * divided by length^alpha when a length penalty alpha > 0 is set, as in
 * Hugging Face's beam scorer).  Probabilities come from the pipeline's
 * logits processors only -- the logit bias and the penalties -- with
 * temperature 1 and no truncation (beam search ranks, it does not sample).
 * A candidate that ends the text (EOS, or BOS for llama2.c models) becomes a
 * finished hypothesis; the search stops when the steps run out, or when B
 * hypotheses are finished and no live beam can beat them (alpha = 0).
 * Ties are broken by parent beam and token id, so the search is exactly
 * deterministic: no randomness at all.
 *
 * Diverse beam search (sp_beam_set_groups; Vijayakumar et al. 2016, HF's
 * group beam search and HammingDiversityLogitsProcessor): G groups of B/G
 * beams, each a search of its own from the prompt, expand in order; a
 * group's candidates lose F times the number of earlier groups' beams that
 * chose the same token this step, a loss kept in the score from then on
 * (as HF's running score).  G = 1 is plain beam search; with F = 0 the
 * groups are G identical searches of width B/G.
 *
 * Every beam has its own model state (KV cache); a surviving candidate
 * copies its parent's cache rows and feeds its token.  The prompt goes
 * through the batched forward pass (sp_forward_batch).
 *
 * Constraints (sp_beam_constrain): each hypothesis carries where its text
 * leaves the regex or grammar; its expansions are masked to the tokens that
 * can still lead to a match within the budget (the same rule as a
 * session's), the end-of-text token only when the text matches, and a
 * hypothesis whose text is complete (nothing else could follow) is
 * finished.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

typedef struct {
    int *tokens;     /* prompt + generated */
    int n;
    double logprob;  /* of the generated tokens */
    double penalty;  /* the diversity penalties it collected */
    double score;
    int finished;
    sp_state *state; /* after feeding tokens[0..n-1] (live beams) */
    float *pending;  /* the next logits (live beams) */
    sp_cstate cstate; /* where the text leaves the constraint */
} hyp;

typedef struct {
    double score, logprob, penalty;
    int parent, token;
} candidate;

/* d = parent followed by the candidate's token, with its scores and where
 * the text leaves the constraint (cs); finished: it ended (a done one) */
static void extend(hyp *d, const hyp *parent, const candidate *cd,
                   sp_cstate cs, int finished) {
    memcpy(d->tokens, parent->tokens, sizeof(int) * (size_t)parent->n);
    d->tokens[parent->n] = cd->token;
    d->n = parent->n + 1;
    d->logprob = cd->logprob;
    d->penalty = cd->penalty;
    d->score = cd->score;
    d->finished = finished;
    d->cstate = cs;
}

struct sp_beam_search {
    const sp_model *model;
    const sp_tokenizer *tok;
    int width;
    float length_penalty;
    int groups, group_width;    /* G groups of width / G beams */
    float diversity;            /* the diversity penalty F */
    int group_live[SP_BEAM_MAX_WIDTH], group_done[SP_BEAM_MAX_WIDTH];
    int chosen[SP_BEAM_MAX_WIDTH], n_chosen; /* this step's tokens so far */
    int n_prompt, seq_len, cap; /* cap: tokens each hypothesis can hold */
    hyp *live, *next;           /* [width] each; states double-buffered */
    int n_live;
    hyp *done;                  /* [width] finished hypotheses */
    int n_done;
    sp_sampler *sampler;
    candidate *cands;           /* [width * width] */
    int *top_ids;
    double *top_cum;
    int *order;                 /* hypotheses by score: live then done ids */
    int n_order;
    int steps;
    const sp_constraint *constraint; /* borrowed; NULL = none */
    sp_cvocab *cvocab;
    int budget;                 /* generated tokens allowed in all */
    uint8_t *allowed;           /* [vocab] a hypothesis's mask */
};

static double beam_score(const sp_beam_search *b, double logprob, int len) {
    if (b->length_penalty == 0.0f || len <= 0) return logprob;
    return logprob / sp_pow((double)len, (double)b->length_penalty);
}

int sp_beam_is_end(const sp_beam_search *b, int token) {
    /* as a session: EOS or BOS for llama2.c models, the end-of-generation
     * tokens of a GGUF's; the bigram's boundary under a constraint (the
     * only way to say "done") */
    if (b->tok->kind == SP_TOK_BPE || b->tok->gguf)
        return sp_tokenizer_is_eog(b->tok, token);
    return b->constraint && token == b->tok->eos;
}

int sp_beam_text_end(const sp_beam_search *b, int i) {
    int n = 0;
    const int *tokens = sp_beam_tokens(b, i, &n);
    if (!tokens) return 0;
    for (int k = sp_beam_n_prompt(b); k < n; k++)
        if (sp_beam_is_end(b, tokens[k])) return k;
    return n;
}

int sp_beam_constrain(sp_beam_search *b, const sp_constraint *c, int budget,
                      char *err) {
    sp_cvocab_free(b->cvocab);
    b->cvocab = NULL;
    b->constraint = NULL;
    if (!c) return SP_OK;
    if (!b->allowed &&
        !(b->allowed = malloc((size_t)sp_model_vocab(b->model))))
        return sp_fail(err, SP_ERR_NOMEM, "beams: out of memory");
    sp_cvocab *cv;
    int rc = sp_cvocab_open(c, b->tok, budget, &cv, err);
    if (rc != SP_OK) return rc;
    b->cvocab = cv;
    b->constraint = c;
    b->budget = budget > 0 ? budget : 0x3fffffff;
    return SP_OK;
}

void sp_beam_free(sp_beam_search *b) {
    if (!b) return;
    hyp *sets[3] = {b->live, b->next, b->done};
    for (int k = 0; k < 3; k++) {
        if (!sets[k]) continue;
        for (int i = 0; i < b->width; i++) {
            free(sets[k][i].tokens);
            sp_state_free(sets[k][i].state);
        }
        free(sets[k]);
    }
    sp_sampler_free(b->sampler);
    sp_cvocab_free(b->cvocab);
    free(b->allowed);
    free(b->cands);
    free(b->top_ids);
    free(b->top_cum);
    free(b->order);
    free(b);
}

int sp_beam_set_groups(sp_beam_search *b, int groups, float diversity,
                       char *err) {
    if (sp_beam_check_groups(b->width, groups, err) != SP_OK ||
        sp_beam_check_diversity((double)diversity, err) != SP_OK)
        return SP_ERR_ARG;
    b->groups = groups;
    b->group_width = b->width / groups;
    b->diversity = diversity;
    return SP_OK;
}

sp_beam_search *sp_beam_new(const sp_model *m, const sp_tokenizer *tok,
                            int width, float length_penalty, int max_tokens,
                            char *err) {
    if (!tok) tok = sp_model_tokenizer(m);
    if (!tok) {
        sp_fail(err, SP_ERR_ARG, "beams: the model has no tokenizer; give one");
        return NULL;
    }
    if (sp_beam_check_width(width, err) != SP_OK ||
        sp_beam_check_length_penalty((double)length_penalty, err) != SP_OK)
        return NULL;
    sp_beam_search *b = calloc(1, sizeof *b);
    if (!b) goto nomem;
    b->model = m;
    b->tok = tok;
    b->width = width;
    b->length_penalty = length_penalty;
    b->groups = 1;
    b->group_width = width;
    b->seq_len = sp_model_seq_len(m);
    b->cap = max_tokens > 0 ? max_tokens : 1;
    b->live = calloc((size_t)width, sizeof(hyp));
    b->next = calloc((size_t)width, sizeof(hyp));
    b->done = calloc((size_t)width, sizeof(hyp));
    b->sampler = sp_sampler_new(sp_model_vocab(m));
    b->cands = malloc(sizeof(candidate) * (size_t)width * (size_t)width);
    b->top_ids = malloc(sizeof(int) * (size_t)width);
    b->top_cum = malloc(sizeof(double) * (size_t)width);
    b->order = malloc(sizeof(int) * (size_t)width * 2);
    if (!b->live || !b->next || !b->done || !b->sampler || !b->cands ||
        !b->top_ids || !b->top_cum || !b->order)
        goto nomem;
    hyp *sets[3] = {b->live, b->next, b->done};
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < width; i++) {
            sets[k][i].tokens = malloc(sizeof(int) * (size_t)b->cap);
            if (!sets[k][i].tokens) goto nomem;
            if (k < 2) {
                sets[k][i].state = sp_state_new(m);
                if (!sets[k][i].state) goto nomem;
            }
        }
    return b;
nomem:
    sp_beam_free(b);
    sp_fail(err, SP_ERR_NOMEM, "beams: out of memory");
    return NULL;
}

/* hypothesis id: live ones are 0..width-1, finished ones width + i */
static const hyp *hyp_at(const sp_beam_search *b, int id) {
    return id < b->width ? &b->live[id] : &b->done[id - b->width];
}

static void rebuild_order(sp_beam_search *b) {
    /* live and finished hypotheses by score (desc), live first on ties;
     * group k's live beams are slots k * group_width .. (and its finished
     * ones the same slots of done) */
    int n = 0, gw = b->group_width;
    for (int k = 0; k < b->groups; k++)
        for (int i = 0; i < b->group_live[k]; i++) b->order[n++] = k * gw + i;
    for (int k = 0; k < b->groups; k++)
        for (int i = 0; i < b->group_done[k]; i++)
            b->order[n++] = b->width + k * gw + i;
    for (int i = 1; i < n; i++) /* insertion sort: n <= 128 */
        for (int j = i; j > 0; j--) {
            const hyp *x = hyp_at(b, b->order[j - 1]);
            const hyp *y = hyp_at(b, b->order[j]);
            if (!(y->score > x->score)) break;
            int t = b->order[j];
            b->order[j] = b->order[j - 1];
            b->order[j - 1] = t;
        }
    b->n_order = n;
}

int sp_beam_start(sp_beam_search *b, const char *prompt, char *err) {
    int max_ids = (int)strlen(prompt ? prompt : "") + 2;
    if (max_ids > b->cap)
        return sp_fail(err, SP_ERR_ARG, "beams: the prompt is longer than %d "
                       "tokens", b->cap);
    hyp *h = &b->live[0];
    int n = sp_encode(b->tok, prompt ? prompt : "", 1, 0, h->tokens, b->cap,
                      err);
    if (n < 0) return SP_ERR_ARG;
    if (b->seq_len > 0 && n >= b->seq_len)
        return sp_fail(err, SP_ERR_PROMPT_LONG, "prompt: %d tokens leave no room in "
                       "the model's context of %d", n, b->seq_len);
    if (n == 0) { /* a hand-made model starts from nothing */
        h->pending = sp_forward_empty(b->model, h->state);
        if (!h->pending)
            return sp_fail(err, SP_ERR_PROMPT, "prompt: this model needs at "
                           "least one token to start from");
    }
    /* the prompt in batched passes: the last logits pend (the bits one
     * call per token gives) */
    for (int at = 0; at < n; at += SP_BATCH_MAX) {
        int chunk = n - at < SP_BATCH_MAX ? n - at : SP_BATCH_MAX;
        if (!sp_forward_batch(b->model, h->state, h->tokens + at, chunk, at, 1))
            return sp_fail(err, SP_ERR_NOMEM, "beams: out of memory");
        h->pending = sp_state_logits(b->model, h->state);
    }
    if (b->constraint)
        sp_cstate_start_prompt(b->constraint, &h->cstate, b->tok, h->tokens, n);
    h->n = n;
    h->logprob = h->penalty = h->score = 0.0;
    h->finished = 0;
    b->n_prompt = n;
    b->n_live = 1;
    b->n_done = 0;
    /* every group starts from the prompt (expand_group's first step) */
    memset(b->group_live, 0, sizeof b->group_live);
    memset(b->group_done, 0, sizeof b->group_done);
    b->group_live[0] = 1;
    b->steps = 0;
    rebuild_order(b);
    return SP_OK;
}

static int cmp_candidate(const void *x, const void *y) {
    const candidate *p = x, *q = y;
    if (p->score != q->score) return p->score > q->score ? -1 : 1;
    if (p->parent != q->parent) return p->parent < q->parent ? -1 : 1;
    return (p->token > q->token) - (p->token < q->token);
}

/* group k's finished hypothesis with the lowest score (a slot), or -1 */
static int worst_done(const sp_beam_search *b, int k) {
    int w = -1, base = k * b->group_width;
    for (int i = base; i < base + b->group_done[k]; i++)
        if (w < 0 || b->done[i].score < b->done[w].score) w = i;
    return w;
}

/* beam search's chain: the logits processors only (it ranks, it does not
 * sample: no temperature, no cutoffs, no mirostat) */
static const uint8_t BEAM_CHAIN[] = {SP_STAGE_BIAS, SP_STAGE_SEQUENCE_BIAS,
                                     SP_STAGE_PENALTIES, SP_STAGE_DRY,
                                     SP_STAGE_NO_REPEAT_NGRAM,
                                     SP_STAGE_BAD_WORDS};

int sp_beam_chain(const uint8_t **stages) {
    *stages = BEAM_CHAIN;
    return (int)sizeof BEAM_CHAIN;
}

/* How many beams of the earlier groups chose token at this step. */
static int times_chosen(const sp_beam_search *b, int token) {
    int c = 0;
    for (int i = 0; i < b->n_chosen; i++) c += b->chosen[i] == token;
    return c;
}

/* Group k's expansion: its live beams' candidates (each losing the
 * diversity penalty for the tokens the earlier groups chose at this step),
 * the best group_width of them surviving into next (or finished into
 * done): SP_OK with their number in *survivors, or the warp's error. */
static int expand_group(sp_beam_search *b, int k, const sp_params *p,
                        int len, int *survivors, char *err) {
    int gw = b->group_width, base = k * gw;
    /* the first step expands the prompt (live[0]) in every group */
    int first = b->steps == 0 ? 0 : base;
    int count = b->steps == 0 ? 1 : b->group_live[k];
    int n_cands = 0;
    for (int i = first; i < first + count; i++) {
        hyp *h = &b->live[i];
        sp_step st;
        if (b->constraint) {
            const sp_tokenizer *t = b->tok;
            int n_ok = sp_cvocab_mask(
                b->cvocab, t, &h->cstate, h->tokens[h->n - 1],
                b->budget - (h->n - b->n_prompt), t->eos,
                t->kind == SP_TOK_BPE ? t->bos : -1, sp_model_vocab(b->model),
                b->allowed);
            if (n_ok == 0) continue; /* this beam cannot go on */
            sp_sampler_set_mask(b->sampler, b->allowed);
        }
        int rc = sp_sampler_warp(b->sampler, h->pending, h->tokens, h->n, p,
                                 &st, err);
        sp_sampler_set_mask(b->sampler, NULL);
        if (rc != SP_OK) return rc;
        /* (the top `width` hold the group's best: at most width -
         * group_width tokens are penalized) */
        int top = sp_step_top(&st, b->width, b->top_ids, b->top_cum);
        for (int j = 0; j < top; j++) {
            int t = b->top_ids[j];
            if (!(st.probs[t] > 0.0f)) continue; /* cut or underflow */
            double lp = h->logprob + sp_log((double)st.probs[t]);
            double pen = h->penalty;
            int times = b->diversity != 0.0f ? times_chosen(b, t) : 0;
            if (times) pen += (double)b->diversity * times; /* else exact */
            b->cands[n_cands++] = (candidate){
                beam_score(b, lp - pen, h->n + 1 - b->n_prompt), lp, pen, i, t};
        }
    }
    qsort(b->cands, (size_t)n_cands, sizeof(candidate), cmp_candidate);
    int n_next = 0;
    for (int c = 0; c < n_cands && n_next < gw; c++) {
        const candidate *cd = &b->cands[c];
        const hyp *parent = &b->live[cd->parent];
        sp_cstate cs = parent->cstate;
        int complete = 0;
        if (b->constraint && !sp_beam_is_end(b, cd->token)) {
            int blen;
            const char *bytes = sp_decode(b->tok, parent->tokens[parent->n - 1],
                                          cd->token, &blen);
            sp_cstate_feed(b->constraint, &cs, bytes, blen); /* allowed */
            complete = sp_cstate_accepting(b->constraint, &cs) &&
                       !sp_cstate_can_extend(b->constraint, &cs);
        }
        if (sp_beam_is_end(b, cd->token) || complete) {
            /* a finished hypothesis: keep it if it is among the group's
             * best group_width */
            int full = b->group_done[k] == gw;
            int slot = full ? worst_done(b, k) : base + b->group_done[k];
            if (full && !(cd->score > b->done[slot].score)) continue;
            extend(&b->done[slot], parent, cd, cs, 1);
            if (!full) b->group_done[k]++;
            continue;
        }
        hyp *h = &b->next[base + n_next++];
        extend(h, parent, cd, cs, 0);
        sp_state_copy(b->model, h->state, parent->state, parent->n);
        h->pending = NULL;
    }
    for (int i = 0; i < n_next; i++)
        b->chosen[b->n_chosen++] = b->next[base + i].tokens[len];
    *survivors = n_next;
    return SP_OK;
}

int sp_beam_step(sp_beam_search *b, const sp_params *params, char *err) {
    if (b->n_live == 0)
        return sp_fail(err, SP_ERR_FINISHED, "beams: every hypothesis is "
                       "finished");
    int gw = b->group_width;
    int len = 0; /* all live beams have the same length */
    for (int k = 0; k < b->groups && !len; k++)
        if (b->group_live[k]) len = b->live[k * gw].n;
    if (len >= b->cap || (b->seq_len > 0 && len >= b->seq_len))
        return sp_fail(err, SP_ERR_CONTEXT_FULL, "context full: %d tokens", len);
    sp_params p = *params;
    p.n_order = (int)sizeof BEAM_CHAIN;
    memcpy(p.order, BEAM_CHAIN, sizeof BEAM_CHAIN);
    p.mirostat = 0;
    int next_live[SP_BEAM_MAX_WIDTH];
    b->n_chosen = 0;
    for (int k = 0; k < b->groups; k++) {
        next_live[k] = 0;
        if (b->steps > 0 && b->group_live[k] == 0) continue; /* finished */
        int rc = expand_group(b, k, &p, len, &next_live[k], err);
        if (rc != SP_OK) return rc;
    }
    /* feed the survivors (after all copies: parents are read above) */
    for (int k = 0; k < b->groups; k++)
        for (int i = k * gw; i < k * gw + next_live[k]; i++) {
            hyp *h = &b->next[i];
            if (b->seq_len > 0 && h->n >= b->seq_len) continue; /* full */
            h->pending = sp_forward(b->model, h->state, h->tokens[h->n - 1],
                                    h->n - 1);
        }
    hyp *t = b->live;
    b->live = b->next;
    b->next = t;
    b->steps++;
    b->n_live = b->n_done = 0;
    for (int k = 0; k < b->groups; k++) {
        b->group_live[k] = next_live[k];
        /* with no length penalty scores only fall: finished ones that beat
         * every live beam of their group cannot be overtaken */
        if (b->length_penalty == 0.0f && b->group_done[k] == gw &&
            b->group_live[k] > 0 &&
            b->live[k * gw].score <= b->done[worst_done(b, k)].score)
            b->group_live[k] = 0;
        b->n_live += b->group_live[k];
        b->n_done += b->group_done[k];
    }
    rebuild_order(b);
    return SP_OK;
}

int sp_beam_count(const sp_beam_search *b) { return b->n_order; }
int sp_beam_n_prompt(const sp_beam_search *b) { return b->n_prompt; }
int sp_beam_live(const sp_beam_search *b) { return b->n_live; }

const int *sp_beam_tokens(const sp_beam_search *b, int i, int *n) {
    const hyp *h = hyp_at(b, b->order[i]);
    *n = h->n;
    return h->tokens;
}
double sp_beam_logprob(const sp_beam_search *b, int i) {
    return hyp_at(b, b->order[i])->logprob;
}
double sp_beam_score(const sp_beam_search *b, int i) {
    return hyp_at(b, b->order[i])->score;
}
int sp_beam_group(const sp_beam_search *b, int i) {
    int id = b->order[i];
    return (id < b->width ? id : id - b->width) / b->group_width;
}
int sp_beam_groups(const sp_beam_search *b) { return b->groups; }
double sp_beam_penalty(const sp_beam_search *b, int i) {
    return hyp_at(b, b->order[i])->penalty;
}
int sp_beam_finished(const sp_beam_search *b, int i) {
    return hyp_at(b, b->order[i])->finished;
}
const sp_tokenizer *sp_beam_tokenizer(const sp_beam_search *b) {
    return b->tok;
}
