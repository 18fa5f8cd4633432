/*
 * trainer.c — a trainer's life: the plan a text and settings make, the
 * memory (one block of weights, gradients, moments and transposes; one of
 * a window's activations), the initial weights, evaluation on the
 * held-out stream beside a bigram's, and the model snapshot.
 */
#include <stdlib.h>
#include <string.h>

#include "model/transformer.h"
#include "train/train.h"

/* ---- the plan ----------------------------------------------------------- */

int sp_train_plan_text(const uint8_t *text, size_t len,
                       const uint8_t *tokenizer, size_t tok_len,
                       const sp_train_config *c, sp_train_plan *out,
                       char *err) {
    memset(out, 0, sizeof *out);
    int rc = sp_train_config_check(c, err);
    if (rc == SP_OK)
        rc = sp_tr_read_text(text, len, tokenizer, tok_len, c, out, NULL, err);
    if (rc == SP_OK) {
        sp_tr_plan_sizes(c, out->vocab, out);
        rc = sp_tr_check_sizes(c, out, err);
    }
    return rc;
}

/* ---- layout ----------------------------------------------------------- */

void sp_tr_views(const sp_train *t, float *base, tweights *w) {
    size_t dim = (size_t)t->dim, L = (size_t)t->L, kv = (size_t)t->kv_dim;
    size_t hid = (size_t)t->hidden;
    float *p = base;
    w->emb = p;
    p += (size_t)t->V * dim;
    w->rms_att = p;
    p += L * dim;
    w->wq = p;
    p += L * dim * dim;
    w->wk = p;
    p += L * kv * dim;
    w->wv = p;
    p += L * kv * dim;
    w->wo = p;
    p += L * dim * dim;
    w->rms_ffn = p;
    p += L * dim;
    w->w1 = p;
    p += L * hid * dim;
    w->w2 = p;
    p += L * dim * hid;
    w->w3 = p;
    p += L * hid * dim;
    w->rms_final = p;
    p += dim;
    w->cls = t->c.tied ? w->emb : p;
}

/* ---- the initial weights ---------------------------------------------- */

/* Standard normal draws: Box-Muller on PCG32's doubles, with the engine's
 * log and cos (the same bits everywhere), both halves of each pair used. */
typedef struct {
    sp_rng rng;
    double spare;
    int have_spare;
} normals;

static double normal(normals *n) {
    if (n->have_spare) {
        n->have_spare = 0;
        return n->spare;
    }
    double u1 = 1.0 - sp_rng_uniform(&n->rng); /* (0, 1] */
    double u2 = sp_rng_uniform(&n->rng);
    double r = sqrt(-2.0 * sp_log(u1));
    const double two_pi = 6.28318530717958647692;
    n->spare = r * sp_sin(two_pi * u2);
    n->have_spare = 1;
    return r * sp_cos(two_pi * u2);
}

static void fill_normal(normals *n, float *w, size_t count, double std) {
    for (size_t i = 0; i < count; i++) w[i] = (float)(std * normal(n));
}

static void fill_ones(float *w, size_t count) {
    for (size_t i = 0; i < count; i++) w[i] = 1.0f;
}

/* llama2.c's initialisation (model.py): N(0, 0.02) for every matrix, the
 * ones that end a residual branch (wo, w3) N(0, 0.02 / sqrt(2 layers)),
 * the norms 1; drawn in the checkpoint's order. */
static void init_weights(sp_train *t, uint64_t seed) {
    normals n;
    sp_rng_seed(&n.rng, seed);
    n.have_spare = 0;
    const tweights *W = &t->W;
    size_t dim = (size_t)t->dim, L = (size_t)t->L, kv = (size_t)t->kv_dim;
    size_t hid = (size_t)t->hidden, V = (size_t)t->V;
    const double std = 0.02, scaled = 0.02 / sqrt(2.0 * t->L);
    fill_normal(&n, W->emb, V * dim, std);
    fill_ones(W->rms_att, L * dim);
    fill_normal(&n, W->wq, L * dim * dim, std);
    fill_normal(&n, W->wk, L * kv * dim, std);
    fill_normal(&n, W->wv, L * kv * dim, std);
    fill_normal(&n, W->wo, L * dim * dim, scaled);
    fill_ones(W->rms_ffn, L * dim);
    fill_normal(&n, W->w1, L * hid * dim, std);
    fill_normal(&n, W->w2, L * dim * hid, std);
    fill_normal(&n, W->w3, L * hid * dim, scaled);
    fill_ones(W->rms_final, dim);
    if (!t->c.tied) fill_normal(&n, W->cls, V * dim, std);
}

/* ---- life -------------------------------------------------------------- */

/* The window's buffers, carved from one block in sp_tr_buffer_sizes's
 * order. */
static int carve_activations(sp_train *t) {
    size_t fixed[TR_COUNT], layer[TL_COUNT], total = 0;
    sp_tr_buffer_sizes(&t->c, t->V, fixed, layer);
    for (int i = 0; i < TR_COUNT; i++) total += fixed[i];
    for (int i = 0; i < TL_COUNT; i++) total += (size_t)t->L * layer[i];
    t->act_block = calloc(total, sizeof(float));
    t->layers = calloc((size_t)t->L, sizeof(tlayer));
    if (!t->act_block || !t->layers) return 0;
    float **fixed_at[TR_COUNT] = {
        &t->rope_cos, &t->rope_sin, &t->freq, &t->res, &t->sf, &t->xnf,
        &t->logits, &t->dx, &t->dxn, &t->dq, &t->dk, &t->dv, &t->dao,
        &t->dh1, &t->dh3, &t->dhg, &t->dyt, &t->xt, &t->tmpw, &t->vec,
        &t->datt, &t->ds, &t->kt, &t->vt, &t->dkt, &t->dvt};
    float *at = t->act_block;
    for (int i = 0; i < TR_COUNT; i++) {
        *fixed_at[i] = at;
        at += fixed[i];
    }
    for (int l = 0; l < t->L; l++) {
        tlayer *A = &t->layers[l];
        float **layer_at[TL_COUNT] = {&A->s1, &A->s2, &A->xn1, &A->xn2, &A->q,
                                      &A->k, &A->v, &A->att, &A->ao, &A->xm,
                                      &A->h1, &A->h3, &A->hg};
        for (int i = 0; i < TL_COUNT; i++) {
            *layer_at[i] = at;
            at += layer[i];
        }
    }
    return 1;
}

/* RoPE as the engine's loader makes it (sp_rope_freqs), and the cosines
 * and sines of every position as its forward pass computes them. */
static void rope_tables(sp_train *t) {
    sp_tconfig tc;
    memset(&tc, 0, sizeof tc);
    tc.rope_dims = t->hs;
    sp_rope_freqs(&tc, 10000.0, NULL, 1.0f, t->freq);
    int half = t->hs / 2;
    for (int pos = 0; pos < t->T; pos++) {
        for (int i = 0; i < half; i++) {
            float val = (float)pos * t->freq[i];
            t->rope_cos[pos * half + i] = (float)sp_cos((double)val);
            t->rope_sin[pos * half + i] = (float)sp_sin((double)val);
        }
    }
}

static int allocate(sp_train *t) {
    t->n_params = (size_t)sp_tr_param_count(&t->c, t->V);
    t->block = calloc(5 * t->n_params, sizeof(float));
    t->tokens = malloc(sizeof(int) * (size_t)(t->T + 1));
    t->offsets = malloc(sizeof(uint32_t) * (size_t)t->B);
    t->losses = malloc(sizeof(float) * (size_t)(t->c.steps + 1));
    t->gnorms = malloc(sizeof(float) * (size_t)(t->c.steps + 1));
    if (!t->block || !t->tokens || !t->offsets || !t->losses || !t->gnorms ||
        !carve_activations(t))
        return 0;
    t->w = t->block;
    t->g = t->w + t->n_params;
    t->m = t->g + t->n_params;
    t->v = t->m + t->n_params;
    t->wt = t->v + t->n_params;
    sp_tr_views(t, t->w, &t->W);
    sp_tr_views(t, t->g, &t->G);
    sp_tr_views(t, t->wt, &t->WT);
    return 1;
}

sp_train *sp_train_new(const uint8_t *text, size_t len,
                       const uint8_t *tokenizer, size_t tok_len,
                       const sp_train_config *c, uint64_t seed, char *err) {
    if (sp_train_config_check(c, err) != SP_OK) return NULL;
    sp_train *t = calloc(1, sizeof *t);
    if (!t) {
        sp_fail(err, SP_ERR_NOMEM, "train: out of memory");
        return NULL;
    }
    t->c = *c;
    int rc = sp_tr_read_text(text, len, tokenizer, tok_len, c, &t->plan, t,
                             err);
    if (rc == SP_OK) {
        sp_tr_plan_sizes(c, t->plan.vocab, &t->plan);
        rc = sp_tr_check_sizes(c, &t->plan, err);
    }
    if (rc != SP_OK) {
        sp_train_free(t);
        return NULL;
    }
    t->dim = c->dim;
    t->hidden = c->hidden;
    t->L = c->layers;
    t->H = c->heads;
    t->KV = c->kv_heads;
    t->hs = c->dim / c->heads;
    t->kv_dim = t->hs * c->kv_heads;
    t->kv_mul = c->heads / c->kv_heads;
    t->T = c->context;
    t->V = t->plan.vocab;
    t->B = c->batch;
    if (!allocate(t)) {
        double mib = t->plan.bytes / 1048576.0;
        sp_train_free(t);
        sp_fail(err, SP_ERR_NOMEM, "train: out of memory (the trainer needs "
                "%.0f MiB)", mib);
        return NULL;
    }
    init_weights(t, seed);
    rope_tables(t);
    /* the windows' own stream: the seed moved by a fixed odd constant */
    sp_rng_seed(&t->data_rng, seed ^ 0x9E3779B97F4A7C15ull);
    return t;
}

void sp_train_free(sp_train *t) {
    if (!t) return;
    free(t->train_ids);
    free(t->held_ids);
    free(t->tok_file);
    free(t->block);
    free(t->act_block);
    free(t->layers);
    free(t->tokens);
    free(t->offsets);
    free(t->losses);
    free(t->gnorms);
    free(t->bigram);
    free(t);
}

const sp_train_plan *sp_train_get_plan(const sp_train *t) { return &t->plan; }
const sp_train_config *sp_train_get_config(const sp_train *t) { return &t->c; }
int sp_train_steps_done(const sp_train *t) { return t->step; }
int sp_train_windows_done(const sp_train *t) { return t->window; }
const float *sp_train_losses(const sp_train *t) { return t->losses; }
const float *sp_train_grad_norms(const sp_train *t) { return t->gnorms; }

const float *sp_train_gradients(const sp_train *t, size_t *n) {
    *n = t->n_params;
    return t->have_grads ? t->g : NULL;
}

const float *sp_train_weights(const sp_train *t, size_t *n) {
    *n = t->n_params;
    return t->w;
}

/* ---- evaluation --------------------------------------------------------- */

/* log P(b | a) of a bigram counted on the training stream, add-0.1 (as
 * models/bigram_format.py), [V][V]; 0 when memory is short. */
static int make_bigram(sp_train *t) {
    size_t V = (size_t)t->V;
    uint32_t *counts = calloc(V * V, sizeof(uint32_t));
    float *table = malloc(sizeof(float) * V * V);
    if (!counts || !table) {
        free(counts);
        free(table);
        return 0;
    }
    for (size_t i = 0; i + 1 < t->n_train; i++)
        counts[(size_t)t->train_ids[i] * V + t->train_ids[i + 1]]++;
    for (size_t a = 0; a < V; a++) {
        double total = 0;
        for (size_t b = 0; b < V; b++) total += counts[a * V + b];
        double denom = total + 0.1 * (double)V;
        for (size_t b = 0; b < V; b++)
            table[a * V + b] =
                (float)sp_log(((double)counts[a * V + b] + 0.1) / denom);
    }
    free(counts);
    t->bigram = table;
    return 1;
}

int sp_train_eval(sp_train *t, int max_windows, double *loss, double *bigram,
                  char *err) {
    *loss = *bigram = NAN;
    if (max_windows < 0)
        return sp_fail(err, SP_ERR_ARG, "train: windows must be >= 0 (got %d)",
                       max_windows);
    if (t->n_held < 2)
        return sp_fail(err, SP_ERR_STATE, "train: nothing is held out (holdout "
                       "%d, %d of %d lines)", t->c.holdout,
                       t->plan.heldout_documents, t->plan.documents);
    if (!t->bigram && t->V <= 2048 && !make_bigram(t))
        return sp_fail(err, SP_ERR_NOMEM, "train: out of memory");
    /* windows of T + 1 tokens evenly spread over the stream (tiny_llama's
     * fixed_offsets), or the whole stream as one shorter window */
    size_t T = (size_t)t->T, count = 1, last = 0;
    t->n = t->n_held >= T + 1 ? t->T : (int)(t->n_held - 1);
    if (t->n_held >= T + 1) {
        last = t->n_held - T - 1;
        count = last / T + 1;
        if (max_windows > 0 && count > (size_t)max_windows)
            count = (size_t)max_windows;
    }
    double sum = 0, sum_bigram = 0;
    for (size_t w = 0; w < count; w++) {
        size_t offset = count > 1 ? (size_t)((uint64_t)w * last / (count - 1))
                                  : 0;
        for (int i = 0; i <= t->n; i++)
            t->tokens[i] = t->held_ids[offset + (size_t)i];
        sum += sp_tr_forward(t, 0);
        for (int i = 0; t->bigram && i < t->n; i++)
            sum_bigram -= t->bigram[(size_t)t->tokens[i] * (size_t)t->V +
                                    (size_t)t->tokens[i + 1]];
    }
    double n = (double)count * t->n;
    *loss = sum / n;
    if (t->bigram) *bigram = sum_bigram / n;
    return SP_OK;
}

/* ---- the model ------------------------------------------------------------ */

sp_model *sp_train_model(const sp_train *t, char *err) {
    size_t size;
    uint8_t *bytes = sp_tr_checkpoint_of(t, t->w, &size);
    if (!bytes) {
        sp_fail(err, SP_ERR_NOMEM, "train: out of memory");
        return NULL;
    }
    return sp_model_load(bytes, size, 1, err); /* it frees them on failure */
}

sp_tokenizer *sp_train_tokenizer(const sp_train *t, char *err) {
    return sp_tokenizer_load(t->tok_file, t->tok_size, t->V, err);
}
