/*
 * backward.c — the gradients of one window's loss, from the logits' (left
 * by sp_tr_forward) back to the embedding, added to t->g.
 *
 * Each product y = x W^T (W [d][n], x [T][n]) has two gradients, both
 * products again, run by the engine's kernel (sp_tr_matmul):
 *
 *   dx = dy W        = dot products of dy's rows and W^T's (the weights
 *                      transposed once a step, t->wt)
 *   dW += dy^T x     = dot products over the window's positions of the
 *                      rows of dy^T and x^T (both transposed here)
 *
 * so every sum has the canonical order of vec4.h, and a weight's gradient
 * adds the windows of a step one after another, in order: the same bits
 * in every build.  The rest, element by element (RMSNorm, RoPE, the
 * attention's softmax, SwiGLU), is written out below.
 */
#include <string.h>

#include "train/train.h"

/* dw ([d][n]) += the gradient of y = x w^T with respect to w, given dy
 * ([T][d]) and x ([T][n]): sum over positions b of dy[b][i] x[b][j]. */
static void weight_grad(sp_train *t, float *dw, const float *dy,
                        const float *x, int n, int d) {
    const int T = t->n;
    sp_tr_transpose(t->dyt, dy, T, d); /* [d][T] */
    sp_tr_transpose(t->xt, x, T, n);   /* [n][T] */
    /* tmp[i][j] = dot(xt[j], dyt[i]): d inputs against n rows */
    sp_tr_matmul(t->tmpw, t->dyt, t->xt, T, n, d);
    sp_tr_add(dw, t->tmpw, (size_t)d * (size_t)n);
}

/* The RMSNorm o = w * (s x) backward, position by position: dw += do * s x;
 * dx (+)= s (w do) - (s^3 / n) x sum_k (w_k do_k x_k). */
static void rmsnorm_back(sp_train *t, float *dx, const float *dout,
                         const float *x, const float *s, const float *w,
                         float *dw, int accumulate) {
    const int n = t->dim;
    float *g = t->vec;
    for (int b = 0; b < t->n; b++) {
        const float *xb = x + (size_t)b * n, *db = dout + (size_t)b * n;
        float *dxb = dx + (size_t)b * n;
        float sb = s[b];
        for (int j = 0; j < n; j++) {
            dw[j] += db[j] * (sb * xb[j]);
            g[j] = w[j] * db[j];
        }
        float c = sp_dot(g, xb, n);
        float coef = ((sb * sb) * sb) * c / (float)n;
        for (int j = 0; j < n; j++) {
            float d = sb * g[j] - coef * xb[j];
            dxb[j] = accumulate ? dxb[j] + d : d;
        }
    }
}

/* The rotation's transpose on the gradient of a rotated vector. */
static void rope_back(float *vec, int n_heads, int hs, const float *fcr,
                      const float *fci) {
    for (int h = 0; h < n_heads; h++) {
        float *v = vec + (size_t)h * (size_t)hs;
        for (int i = 0; i < hs / 2; i++) {
            float d0 = v[2 * i], d1 = v[2 * i + 1];
            v[2 * i] = d0 * fcr[i] + d1 * fci[i];
            v[2 * i + 1] = d1 * fcr[i] - d0 * fci[i];
        }
    }
}

/* The attention's gradients: from dao ([T][dim]) into dq ([T][dim]), dk
 * and dv ([T][kv_dim]), all set here.  Keys and values are transposed
 * first (kt, vt: each KV head's hs rows of n positions), so that every
 * sum over a row's earlier positions is one long vector operation: for
 * query position b of head h (a = its attention weights, o = its output's
 * gradient, q its query),
 *   da[p] = sum_i o_i vt[i][p]        dvt[i][p] += o_i a[p]
 *   ds[p] = a[p] (da[p] - sum_p' a[p'] da[p']) / sqrt(hs)   (the softmax;
 *           the score's dot product was divided by sqrt(hs))
 *   dq_i  = sum_p ds[p] kt[i][p]      dkt[i][p] += q_i ds[p]
 * heads in order, positions in order, so the key and value rows a group
 * of heads shares add up alike in every build. */
static void attend_back(sp_train *t, const tlayer *A) {
    const int T = t->n, hs = t->hs, kv = t->kv_dim, dim = t->dim;
    const size_t tri = (size_t)T * (size_t)(T + 1) / 2, sT = (size_t)T;
    const float sqrt_hs = sqrtf((float)hs);
    float *da = t->datt, *ds = t->ds;
    sp_tr_transpose(t->kt, A->k, T, kv);
    sp_tr_transpose(t->vt, A->v, T, kv);
    memset(t->dkt, 0, sizeof(float) * (size_t)kv * sT);
    memset(t->dvt, 0, sizeof(float) * (size_t)kv * sT);
    for (int h = 0; h < t->H; h++) {
        const size_t row0 = (size_t)(h / t->kv_mul) * (size_t)hs;
        for (int b = 0; b < T; b++) {
            const int m = b + 1;
            const float *att = A->att + (size_t)h * tri + (size_t)b * m / 2;
            const float *o = t->dao + (size_t)b * dim + (size_t)h * hs;
            const float *q = A->q + (size_t)b * dim + (size_t)h * hs;
            float *dq = t->dq + (size_t)b * dim + (size_t)h * hs;
            memset(da, 0, sizeof(float) * (size_t)m);
            for (int i = 0; i < hs; i++) {
                sp_tr_axpy(da, o[i], t->vt + (row0 + (size_t)i) * sT, m);
                sp_tr_axpy(t->dvt + (row0 + (size_t)i) * sT, o[i], att, m);
            }
            float c = sp_dot(att, da, m);
            for (int p = 0; p < m; p++) ds[p] = att[p] * (da[p] - c) / sqrt_hs;
            for (int i = 0; i < hs; i++) {
                dq[i] = sp_dot(ds, t->kt + (row0 + (size_t)i) * sT, m);
                sp_tr_axpy(t->dkt + (row0 + (size_t)i) * sT, q[i], ds, m);
            }
        }
    }
    sp_tr_transpose(t->dk, t->dkt, kv, T);
    sp_tr_transpose(t->dv, t->dvt, kv, T);
}

/* The feed-forward half of layer l backward: t->dx holds the gradient of
 * the layer's output and gets the one of its residual after attention. */
static void ffn_back(sp_train *t, int l) {
    const int T = t->n, dim = t->dim, hidden = t->hidden;
    const size_t ul = (size_t)l, sdim = (size_t)dim;
    const size_t wsize = (size_t)hidden * sdim, nh = (size_t)T * hidden;
    const tlayer *A = &t->layers[l];
    tweights *G = &t->G, *WT = &t->WT;
    weight_grad(t, G->w2 + ul * wsize, t->dx, A->hg, hidden, dim);
    sp_tr_matmul(t->dhg, t->dx, WT->w2 + ul * wsize, dim, hidden, T);
    for (size_t i = 0; i < nh; i++) {
        float a = A->h1[i];
        float sig = 1.0f / (1.0f + sp_expf(-a));
        float silu = a * sig;
        t->dh3[i] = t->dhg[i] * silu;
        t->dh1[i] = (t->dhg[i] * A->h3[i]) * (sig * (1.0f + a * (1.0f - sig)));
    }
    weight_grad(t, G->w1 + ul * wsize, t->dh1, A->xn2, dim, hidden);
    weight_grad(t, G->w3 + ul * wsize, t->dh3, A->xn2, dim, hidden);
    sp_tr_matmul(t->dxn, t->dh1, WT->w1 + ul * wsize, hidden, dim, T);
    sp_tr_matmul(t->dao, t->dh3, WT->w3 + ul * wsize, hidden, dim, T);
    sp_tr_add(t->dxn, t->dao, (size_t)T * sdim);
    rmsnorm_back(t, t->dx, t->dxn, A->xm, A->s2, t->W.rms_ffn + ul * sdim,
                 G->rms_ffn + ul * sdim, 1);
}

/* The attention half: t->dx from the residual after attention to the
 * layer's input x. */
static void attention_back(sp_train *t, int l, const float *x) {
    const int T = t->n, dim = t->dim, kv = t->kv_dim;
    const size_t ul = (size_t)l, sdim = (size_t)dim;
    const size_t sq = sdim * sdim, skv = (size_t)kv * sdim;
    const tlayer *A = &t->layers[l];
    tweights *G = &t->G, *WT = &t->WT;
    weight_grad(t, G->wo + ul * sq, t->dx, A->ao, dim, dim);
    sp_tr_matmul(t->dao, t->dx, WT->wo + ul * sq, dim, dim, T);
    attend_back(t, A);
    const size_t half = (size_t)t->hs / 2;
    for (int b = 0; b < T; b++) {
        const float *fc = t->rope_cos + b * half, *fs = t->rope_sin + b * half;
        rope_back(t->dq + b * sdim, t->H, t->hs, fc, fs);
        rope_back(t->dk + (size_t)b * kv, t->KV, t->hs, fc, fs);
    }
    weight_grad(t, G->wq + ul * sq, t->dq, A->xn1, dim, dim);
    weight_grad(t, G->wk + ul * skv, t->dk, A->xn1, dim, kv);
    weight_grad(t, G->wv + ul * skv, t->dv, A->xn1, dim, kv);
    sp_tr_matmul(t->dxn, t->dq, WT->wq + ul * sq, dim, dim, T);
    sp_tr_matmul(t->dao, t->dk, WT->wk + ul * skv, kv, dim, T);
    sp_tr_add(t->dxn, t->dao, (size_t)T * sdim);
    sp_tr_matmul(t->dao, t->dv, WT->wv + ul * skv, kv, dim, T);
    sp_tr_add(t->dxn, t->dao, (size_t)T * sdim);
    rmsnorm_back(t, t->dx, t->dxn, x, A->s1, t->W.rms_att + ul * sdim,
                 G->rms_att + ul * sdim, 1);
}

void sp_tr_backward(sp_train *t) {
    const int T = t->n, dim = t->dim, V = t->V;
    const size_t sdim = (size_t)dim, step = (size_t)t->T * sdim;
    tweights *G = &t->G;
    /* the classifier, then the final norm */
    weight_grad(t, G->cls, t->logits, t->xnf, dim, V);
    sp_tr_matmul(t->dxn, t->logits, t->WT.cls, V, dim, T);
    rmsnorm_back(t, t->dx, t->dxn, t->res + (size_t)t->L * step, t->sf,
                 t->W.rms_final, G->rms_final, 0);
    for (int l = t->L - 1; l >= 0; l--) {
        ffn_back(t, l);
        attention_back(t, l, t->res + (size_t)l * step);
    }
    for (int b = 0; b < T; b++)
        sp_tr_add(G->emb + (size_t)t->tokens[b] * sdim, t->dx + b * sdim, sdim);
}
