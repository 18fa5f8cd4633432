/*
 * step.c — a training step: its windows drawn by PCG32, each window
 * forward and backward (the gradients of the mean loss added up, window
 * after window), then the global norm, clipping and AdamW; in slices of
 * windows when a front-end asks (sp_train_run), with the same bits.
 *
 * The optimizer is PyTorch's AdamW (torch.optim.AdamW, as llama2.c's
 * train.py uses it) written out: the weight decay first (p *= 1 - lr wd,
 * matrices only), then the moments, m = b1 m + (1 - b1) g and v = b2 v +
 * (1 - b2) g^2, and p -= lr / (1 - b1^t) x m / (sqrt(v) / sqrt(1 - b2^t) +
 * eps), every operation in float as PyTorch does it, its scalars in
 * double first.  Clipping is torch.nn.utils.clip_grad_norm_'s: the
 * gradients times clip / (norm + 1e-6) when that is below 1.
 */
#include <stdio.h>
#include <string.h>

#include "train/train.h"

/* ---- the schedule ------------------------------------------------------ */

/* tiny_llama.py's: linear warm-up to lr over `warmup` steps, then a cosine
 * down to lr x lr_final at the last step. */
double sp_tr_lr(const sp_train_config *c, int step) {
    if (step < c->warmup) return c->lr * (double)(step + 1) / c->warmup;
    double min_lr = c->lr * c->lr_final;
    int span = c->steps - c->warmup > 1 ? c->steps - c->warmup : 1;
    double frac = (double)(step - c->warmup) / (double)span;
    if (frac > 1) frac = 1;
    return min_lr + 0.5 * (c->lr - min_lr) *
                        (1.0 + sp_cos(3.14159265358979323846 * frac));
}

double sp_train_lr_at(const sp_train *t, int step) {
    return sp_tr_lr(&t->c, step);
}

/* b^n by squaring (b may be 0) */
static double pow_int(double b, int n) {
    double r = 1.0;
    while (n > 0) {
        if (n & 1) r *= b;
        b *= b;
        n >>= 1;
    }
    return r;
}

/* ---- a step's parts ----------------------------------------------------- */

/* A uniform integer in [0, n), n >= 1: PCG's bounded draw (the reference
 * pcg32_boundedrand_r: rejection below 2^32 mod n, no bias). */
static uint32_t below(sp_rng *r, uint32_t n) {
    uint32_t threshold = (uint32_t)(0u - n) % n;
    for (;;) {
        uint32_t x = sp_rng_u32(r);
        if (x >= threshold) return x % n;
    }
}

/* The matrices of the weights, each [rows][cols]: f(t, w, wt, rows, cols)
 * for each with its place in the weights and in the transposes. */
static void each_matrix(sp_train *t, void (*f)(float *, const float *, int,
                                               int)) {
    const tweights *W = &t->W, *WT = &t->WT;
    const int dim = t->dim, kv = t->kv_dim, hid = t->hidden;
    f(WT->emb, W->emb, t->V, dim);
    if (W->cls != W->emb) f(WT->cls, W->cls, t->V, dim);
    for (int l = 0; l < t->L; l++) {
        size_t sq = (size_t)l * dim * dim, skv = (size_t)l * kv * dim;
        size_t sh = (size_t)l * hid * dim;
        f(WT->wq + sq, W->wq + sq, dim, dim);
        f(WT->wk + skv, W->wk + skv, kv, dim);
        f(WT->wv + skv, W->wv + skv, kv, dim);
        f(WT->wo + sq, W->wo + sq, dim, dim);
        f(WT->w1 + sh, W->w1 + sh, hid, dim);
        f(WT->w2 + sh, W->w2 + sh, dim, hid);
        f(WT->w3 + sh, W->w3 + sh, hid, dim);
    }
}

void sp_tr_begin_step(sp_train *t) {
    uint32_t span = (uint32_t)(t->n_train - (size_t)t->T); /* >= 1 */
    for (int b = 0; b < t->B; b++) t->offsets[b] = below(&t->data_rng, span);
    memset(t->g, 0, sizeof(float) * t->n_params);
    t->loss_sum = 0;
    t->in_step = 1;
    if (!t->wt_fresh) {
        each_matrix(t, sp_tr_transpose);
        t->wt_fresh = 1;
    }
}

void sp_tr_run_window(sp_train *t, uint32_t offset) {
    t->n = t->T;
    for (int i = 0; i <= t->T; i++) t->tokens[i] = t->train_ids[offset + i];
    t->loss_sum += sp_tr_forward(t, 1.0 / ((double)t->B * t->T));
    sp_tr_backward(t);
}

/* The weights' segments in the checkpoint's order and whether weight
 * decay applies (the matrices: yes; the norms: no). */
static int segments(const sp_train *t, size_t start[], size_t count[],
                    int decay[]) {
    size_t dim = (size_t)t->dim, L = (size_t)t->L, kv = (size_t)t->kv_dim;
    size_t hid = (size_t)t->hidden, V = (size_t)t->V;
    size_t sizes[12] = {V * dim, L * dim, L * dim * dim, L * kv * dim,
                        L * kv * dim, L * dim * dim, L * dim, L * hid * dim,
                        L * dim * hid, L * hid * dim, dim,
                        t->c.tied ? 0 : V * dim};
    static const int decays[12] = {1, 0, 1, 1, 1, 1, 0, 1, 1, 1, 0, 1};
    size_t at = 0;
    for (int i = 0; i < 12; i++) {
        start[i] = at;
        count[i] = sizes[i];
        decay[i] = decays[i];
        at += sizes[i];
    }
    return 12;
}

/* AdamW on every weight with the gradients times coef (clipping). */
static void adamw(sp_train *t, float coef) {
    const sp_train_config *c = &t->c;
    const int n_step = t->step + 1;
    const double lr = sp_tr_lr(c, t->step);
    const double bc1 = 1.0 - pow_int(c->beta1, n_step);
    const double bc2 = 1.0 - pow_int(c->beta2, n_step);
    const float step_size = (float)(lr / bc1);
    const float bc2_sqrt = (float)sqrt(bc2);
    const float b1 = (float)c->beta1, b2 = (float)c->beta2;
    const float a1 = (float)(1.0 - c->beta1), a2 = (float)(1.0 - c->beta2);
    const float eps = (float)c->eps;
    const float decay = (float)(1.0 - lr * c->weight_decay);
    size_t start[12], count[12];
    int decayed[12];
    int n_seg = segments(t, start, count, decayed);
    for (int s = 0; s < n_seg; s++) {
        for (size_t i = start[s]; i < start[s] + count[s]; i++) {
            float g = t->g[i];
            if (coef != 1.0f) g = g * coef;
            float p = t->w[i];
            if (decayed[s]) p = p * decay;
            float m = t->m[i] * b1 + a1 * g;
            float v = t->v[i] * b2 + a2 * (g * g);
            float denom = sqrtf(v) / bc2_sqrt + eps;
            t->w[i] = p - step_size * (m / denom);
            t->m[i] = m;
            t->v[i] = v;
        }
    }
}

/* Stops training: the message (fmt takes the step, the value as text and
 * the learning rate) kept for every later call. */
static int fail(sp_train *t, char *err, const char *fmt, double value) {
    char shown[32];
    if (isnan(value)) snprintf(shown, sizeof shown, "not a number");
    else if (isinf(value)) snprintf(shown, sizeof shown, "infinite");
    else snprintf(shown, sizeof shown, "%.3g", value);
    snprintf(t->fail_msg, sizeof t->fail_msg, fmt, t->step + 1, shown,
             sp_tr_lr(&t->c, t->step));
    t->failed = 1;
    return sp_fail(err, SP_ERR_LOGITS, "%s", t->fail_msg);
}

static int finish_step(sp_train *t, char *err) {
    double loss = t->loss_sum / ((double)t->B * t->T);
    double ss = 0;
    for (size_t i = 0; i < t->n_params; i++)
        ss += (double)t->g[i] * (double)t->g[i];
    double norm = sqrt(ss);
    if (!isfinite(loss))
        return fail(t, err, "train: the loss at step %d is %s: training "
                    "diverged (learning rate %g); lower lr and start again",
                    loss);
    if (!isfinite(norm))
        return fail(t, err, "train: the gradients at step %d are not finite "
                    "(norm %s): training diverged (learning rate %g); lower "
                    "lr and start again", norm);
    /* an untrained model's loss is ln V: one far above it is a model made
     * confidently wrong by too large steps, which training does not mend
     * before its learning rate has decayed */
    if (loss > 2 * sp_log((double)t->V) + 1)
        return fail(t, err, "train: the loss at step %d is %s, far above "
                    "an untrained model's: training diverged (learning rate "
                    "%g); lower lr and start again", loss);
    t->losses[t->step] = (float)loss;
    t->gnorms[t->step] = (float)norm;
    float coef = 1.0f;
    if (t->c.clip > 0) {
        double k = t->c.clip / (norm + 1e-6);
        if (k < 1.0) coef = (float)k;
    }
    adamw(t, coef);
    t->step++;
    t->window = 0;
    t->in_step = 0;
    t->wt_fresh = 0;
    t->have_grads = 1;
    return SP_OK;
}

/* ---- the slices -------------------------------------------------------- */

int sp_train_run(sp_train *t, int max_steps, int max_windows,
                 int *steps_done, char *err) {
    *steps_done = 0;
    if (t->failed) return sp_fail(err, SP_ERR_LOGITS, "%s", t->fail_msg);
    if (max_steps < 0 || max_windows < 0)
        return sp_fail(err, SP_ERR_ARG, "train: steps and windows must be "
                       ">= 0 (got %d and %d)", max_steps, max_windows);
    int windows = 0;
    while (*steps_done < max_steps && t->step < t->c.steps) {
        if (!t->in_step) sp_tr_begin_step(t);
        while (t->window < t->B) {
            if (max_windows > 0 && windows >= max_windows) return SP_OK;
            sp_tr_run_window(t, t->offsets[t->window]);
            t->window++;
            windows++;
        }
        int rc = finish_step(t, err);
        if (rc != SP_OK) return rc;
        (*steps_done)++;
    }
    return SP_OK;
}
