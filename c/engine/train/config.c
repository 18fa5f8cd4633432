/*
 * config.c — the training settings (SP_TRAIN_SETTINGS in sampler_train.h:
 * one row each), the presets, the checks, and what a shape costs: its
 * weights, its memory and its work per step.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "train/train.h"

/* ---- the settings' table ------------------------------------------------ */

#define IS_INT_INT 1
#define IS_INT_REAL 0
#define SETTING_ROW(field, name, type, def, min, max, doc)                    \
    {name, doc, IS_INT_##type, def, min, max},
static const sp_train_setting SETTINGS[] = {SP_TRAIN_SETTINGS(SETTING_ROW)};
#undef SETTING_ROW

#define N_SETTINGS ((int)(sizeof SETTINGS / sizeof SETTINGS[0]))

/* Where each setting lives in the struct. */
#define SETTING_OFFSET(field, name, type, def, min, max, doc)                 \
    offsetof(sp_train_config, field),
static const size_t OFFSETS[] = {SP_TRAIN_SETTINGS(SETTING_OFFSET)};
#undef SETTING_OFFSET

int sp_train_setting_count(void) { return N_SETTINGS; }

const sp_train_setting *sp_train_setting_at(int i) {
    return i >= 0 && i < N_SETTINGS ? &SETTINGS[i] : NULL;
}

int sp_train_setting_find(const char *name) {
    for (int i = 0; name && i < N_SETTINGS; i++)
        if (!strcmp(SETTINGS[i].name, name)) return i;
    return -1;
}

static void put(sp_train_config *c, int i, double v) {
    char *at = (char *)c + OFFSETS[i];
    if (SETTINGS[i].is_int) {
        int x = (int)v;
        memcpy(at, &x, sizeof x);
    } else {
        memcpy(at, &v, sizeof v);
    }
}

double sp_train_config_get(const sp_train_config *c, int i) {
    if (i < 0 || i >= N_SETTINGS) return 0;
    const char *at = (const char *)c + OFFSETS[i];
    if (SETTINGS[i].is_int) {
        int x;
        memcpy(&x, at, sizeof x);
        return x;
    }
    double v;
    memcpy(&v, at, sizeof v);
    return v;
}

void sp_train_config_default(sp_train_config *c) {
    memset(c, 0, sizeof *c);
    for (int i = 0; i < N_SETTINGS; i++) put(c, i, SETTINGS[i].def);
}

/* A value for setting i: in range, whole for a whole-number setting. */
static int check_value(int i, double v, char *err) {
    const sp_train_setting *s = &SETTINGS[i];
    if (!(v >= s->min && v <= s->max))
        return sp_fail(err, SP_ERR_ARG, "train: %s must be %s %g..%g (got %g)",
                       s->name, s->is_int ? "a whole number in" : "in",
                       s->min, s->max, v);
    if (s->is_int && v != (double)(int)v)
        return sp_fail(err, SP_ERR_ARG, "train: %s must be a whole number "
                       "(got %g)", s->name, v);
    return SP_OK;
}

int sp_train_config_set(sp_train_config *c, const char *name, double value,
                        char *err) {
    int i = sp_train_setting_find(name);
    if (i < 0)
        return sp_fail(err, SP_ERR_ARG, "train: no setting named '%.64s'",
                       name ? name : "");
    int rc = check_value(i, value, err);
    if (rc == SP_OK) put(c, i, value);
    return rc;
}

int sp_train_config_check(const sp_train_config *c, char *err) {
    for (int i = 0; i < N_SETTINGS; i++) {
        int rc = check_value(i, sp_train_config_get(c, i), err);
        if (rc != SP_OK) return rc;
    }
    if (c->dim % c->heads)
        return sp_fail(err, SP_ERR_ARG, "train: heads (%d) must divide dim "
                       "(%d)", c->heads, c->dim);
    if ((c->dim / c->heads) % 2)
        return sp_fail(err, SP_ERR_ARG, "train: the head size dim / heads = "
                       "%d must be even (RoPE rotates pairs)",
                       c->dim / c->heads);
    if (c->heads % c->kv_heads)
        return sp_fail(err, SP_ERR_ARG, "train: kv-heads (%d) must divide "
                       "heads (%d)", c->kv_heads, c->heads);
    return SP_OK;
}

/* ---- presets ---------------------------------------------------------- */

typedef struct {
    const char *name, *doc;
    int dim, hidden, layers, heads, kv_heads, context, batch, warmup;
    double lr;
} preset;

static const preset PRESETS[] = {
    {"tiny", "the shipped draft's shape: dim 64, 1 layer (~56 K weights "
     "with 99 tokens)", 64, 192, 1, 4, 2, 64, 8, 30, 1e-2},
    {"small", "2 layers of dim 128 (~0.41 M weights with 99 tokens)", 128,
     384, 2, 4, 2, 64, 8, 30, 5e-3},
    {"shipped", "the shipped transformer's shape: 4 layers of dim 128, "
     "context 256 (0.80 M weights with 99 tokens)", 128, 384, 4, 4, 2, 256,
     16, 100, 3e-3},
};
#define N_PRESETS ((int)(sizeof PRESETS / sizeof PRESETS[0]))

const char *sp_train_preset_name(int i) {
    return i >= 0 && i < N_PRESETS ? PRESETS[i].name : NULL;
}

const char *sp_train_preset_doc(int i) {
    return i >= 0 && i < N_PRESETS ? PRESETS[i].doc : NULL;
}

int sp_train_preset(sp_train_config *c, const char *name, char *err) {
    for (int i = 0; i < N_PRESETS; i++) {
        const preset *p = &PRESETS[i];
        if (!name || strcmp(p->name, name)) continue;
        c->dim = p->dim;
        c->hidden = p->hidden;
        c->layers = p->layers;
        c->heads = p->heads;
        c->kv_heads = p->kv_heads;
        c->context = p->context;
        c->batch = p->batch;
        c->warmup = p->warmup;
        c->lr = p->lr;
        return SP_OK;
    }
    return sp_fail(err, SP_ERR_ARG, "train: no preset named '%.32s' (tiny, "
                   "small or shipped)", name ? name : "");
}

/* ---- sizes -------------------------------------------------------------- */

uint64_t sp_tr_param_count(const sp_train_config *c, int vocab) {
    uint64_t dim = (uint64_t)c->dim, hidden = (uint64_t)c->hidden;
    uint64_t kv = dim / (uint64_t)c->heads * (uint64_t)c->kv_heads;
    uint64_t per_layer = 2 * dim + 2 * dim * dim + 2 * kv * dim +
                         3 * hidden * dim;
    uint64_t emb = (uint64_t)vocab * dim;
    return emb * (c->tied ? 1 : 2) + (uint64_t)c->layers * per_layer + dim;
}

#define ROUND4(n) (((size_t)(n) + 3) & ~(size_t)3)

void sp_tr_buffer_sizes(const sp_train_config *c, int vocab,
                        size_t fixed[TR_COUNT], size_t layer[TL_COUNT]) {
    size_t T = (size_t)c->context, dim = (size_t)c->dim;
    size_t hidden = (size_t)c->hidden, V = (size_t)vocab;
    size_t hs = dim / (size_t)c->heads, kv = hs * (size_t)c->kv_heads;
    size_t widest_dy = V > hidden ? V : hidden;   /* a gradient's width */
    widest_dy = widest_dy > dim ? widest_dy : dim;
    size_t widest_x = hidden > dim ? hidden : dim; /* an input's */
    size_t matrix = widest_dy * widest_x;         /* >= every matrix */
    size_t f[TR_COUNT] = {
        [TR_ROPE_COS] = T * hs / 2, [TR_ROPE_SIN] = T * hs / 2,
        [TR_FREQ] = hs / 2, [TR_RES] = ((size_t)c->layers + 1) * T * dim,
        [TR_SF] = T, [TR_XNF] = T * dim, [TR_LOGITS] = T * V,
        [TR_DX] = T * dim, [TR_DXN] = T * dim, [TR_DQ] = T * dim,
        [TR_DK] = T * kv, [TR_DV] = T * kv, [TR_DAO] = T * dim,
        [TR_DH1] = T * hidden, [TR_DH3] = T * hidden, [TR_DHG] = T * hidden,
        [TR_DYT] = widest_dy * T, [TR_XT] = widest_x * T,
        [TR_TMPW] = matrix, [TR_VEC] = widest_x, [TR_DATT] = T, [TR_DS] = T,
        [TR_KT] = kv * T, [TR_VT] = kv * T, [TR_DKT] = kv * T,
        [TR_DVT] = kv * T};
    size_t l[TL_COUNT] = {
        [TL_S1] = T, [TL_S2] = T, [TL_XN1] = T * dim, [TL_XN2] = T * dim,
        [TL_Q] = T * dim, [TL_K] = T * kv, [TL_V] = T * kv,
        [TL_ATT] = (size_t)c->heads * T * (T + 1) / 2, [TL_AO] = T * dim,
        [TL_XM] = T * dim, [TL_H1] = T * hidden, [TL_H3] = T * hidden,
        [TL_HG] = T * hidden};
    for (int i = 0; i < TR_COUNT; i++) fixed[i] = ROUND4(f[i]);
    for (int i = 0; i < TL_COUNT; i++) layer[i] = ROUND4(l[i]);
}

/* The floats of the buffers above. */
static double activation_floats(const sp_train_config *c, int vocab) {
    size_t fixed[TR_COUNT], layer[TL_COUNT];
    sp_tr_buffer_sizes(c, vocab, fixed, layer);
    double total = 0, per_layer = 0;
    for (int i = 0; i < TR_COUNT; i++) total += (double)fixed[i];
    for (int i = 0; i < TL_COUNT; i++) per_layer += (double)layer[i];
    return total + (double)c->layers * per_layer;
}

void sp_tr_plan_sizes(const sp_train_config *c, int vocab,
                      sp_train_plan *plan) {
    double P = (double)sp_tr_param_count(c, vocab);
    double T = c->context, dim = c->dim, hidden = c->hidden, L = c->layers;
    double kv = (double)(c->dim / c->heads * c->kv_heads);
    plan->params = P;
    plan->tokens_per_step = (double)c->batch * T;
    /* the multiply-adds of a position's forward pass: the matrices, the
     * attention (a score and a weighted value per earlier position, on
     * average (T + 1) / 2), the classifier; the backward pass does two
     * products for each forward one */
    double forward = L * (2 * dim * dim + 2 * kv * dim + 3 * hidden * dim +
                          2 * dim * (T + 1) / 2) +
                     (double)vocab * dim;
    plan->flops_per_step = 2 * 3 * forward * plan->tokens_per_step;
    double bigram = vocab <= 2048 ? (double)vocab * vocab : 0;
    double floats = 5 * P + activation_floats(c, vocab) + 2.0 * c->steps +
                    bigram + 2.0 * c->batch + 2.0 * c->context;
    plan->bytes = 4 * floats + 2 * (plan->train_tokens +
                                    plan->heldout_tokens) + 64 * (double)vocab;
}

int sp_tr_check_sizes(const sp_train_config *c, const sp_train_plan *plan,
                      char *err) {
    if (plan->vocab > 32 * c->dim)
        return sp_fail(err, SP_ERR_ARG, "train: a vocabulary of %d tokens is "
                       "too large for a model of dim %d (at most 32 tokens "
                       "per dimension: %d); raise dim to %d or use a "
                       "smaller vocabulary", plan->vocab, c->dim,
                       32 * c->dim, (plan->vocab + 31) / 32);
    if (plan->bytes > SP_TRAIN_MAX_MEMORY)
        return sp_fail(err, SP_ERR_NOMEM, "train: this model and batch need "
                       "%.0f MiB, more than the trainer's %.0f MiB (%.2f M "
                       "weights, %d windows of %d tokens, %d layers); make "
                       "the model, the context or the text smaller",
                       plan->bytes / 1048576.0, SP_TRAIN_MAX_MEMORY / 1048576.0,
                       plan->params / 1e6, c->batch, c->context, c->layers);
    return SP_OK;
}
