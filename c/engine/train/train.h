/*
 * train.h — what the files of the training room (c/engine/train/) share:
 * the trainer's struct, the weights' layout, the activations one window
 * keeps for the backward pass, and the room's kernels.
 *
 *   config.c    the settings' table, presets, checks, the plan's sizes
 *   data.c      text -> vocabulary, documents, the two token streams, the
 *               tokenizer.bin image
 *   kernels.c   the backward pass's products (and the forward's, chunked)
 *   forward.c   one window forward, every activation kept; its loss
 *   backward.c  one window backward, the gradients added up
 *   step.c      the schedule, clipping, AdamW, a step in slices
 *   export.c    the llama2.c checkpoint and the GGUF file
 *   trainer.c   the trainer's life, evaluation, the model snapshot
 *
 * The data's path: text -> token streams -> windows (PCG32) -> forward ->
 * loss -> backward -> gradients -> AdamW -> weights -> checkpoint / model.
 */
#ifndef SP_TRAIN_INTERNAL_H
#define SP_TRAIN_INTERNAL_H

#include "internal.h"

/* Views of one block of floats laid out as a llama2.c checkpoint stores
 * its weights (the weights, their gradients and AdamW's two moments each
 * have one): the embedding, the norms and matrices layer by layer, the
 * final norm, the classifier (the embedding itself when tied). */
typedef struct {
    float *emb;     /* [V][dim] */
    float *rms_att; /* [L][dim] */
    float *wq;      /* [L][dim][dim] */
    float *wk, *wv; /* [L][kv_dim][dim] */
    float *wo;      /* [L][dim][dim] */
    float *rms_ffn; /* [L][dim] */
    float *w1;      /* [L][hidden][dim] gate */
    float *w2;      /* [L][dim][hidden] down */
    float *w3;      /* [L][hidden][dim] up */
    float *rms_final; /* [dim] */
    float *cls;     /* [V][dim]: emb when tied */
} tweights;

/* The activations of one layer for one window of T positions, kept for
 * the backward pass. */
typedef struct {
    float *s1, *s2;     /* [T] the two RMSNorms' 1 / rms */
    float *xn1, *xn2;   /* [T][dim] their outputs */
    float *q;           /* [T][dim] queries, rotated */
    float *k, *v;       /* [T][kv_dim] keys (rotated) and values */
    float *att;         /* [heads][T (T + 1) / 2] attention weights, row t
                         * at t (t + 1) / 2 */
    float *ao;          /* [T][dim] attention output, before wo */
    float *xm;          /* [T][dim] the residual after attention */
    float *h1, *h3;     /* [T][hidden] w1 x, w3 x */
    float *hg;          /* [T][hidden] silu(h1) * h3, into w2 */
} tlayer;

struct sp_train {
    sp_train_config c;
    sp_train_plan plan;
    int dim, hidden, L, H, KV, hs, kv_dim, kv_mul, T, V, B;

    /* data: the two token streams, the tokenizer.bin image */
    uint16_t *train_ids, *held_ids;
    size_t n_train, n_held;
    uint8_t *tok_file;
    size_t tok_size;
    int char_vocab;          /* 1: the vocabulary was made from the text */

    /* weights, gradients, AdamW's moments and the weights' matrices
     * transposed (for the backward pass's products): 5 x n_params floats */
    size_t n_params;
    float *block;
    float *w, *g, *m, *v, *wt;
    tweights W, G, WT;
    int wt_fresh;            /* wt holds the current weights' transposes */
    float *freq;             /* [hs / 2] RoPE angles per position */
    float *rope_cos, *rope_sin; /* [T][hs / 2] */

    /* one window's activations */
    int n;                   /* its positions: T, or fewer (a short
                              * held-out stream) */
    int *tokens;             /* [T + 1] */
    float *res;              /* [L + 1][T][dim] residual stream: layer l's
                              * input, then the final one */
    tlayer *layers;          /* [L] */
    float *sf, *xnf;         /* [T], [T][dim] the final norm */
    float *logits;           /* [T][V], then the loss's gradient */
    /* the backward pass's scratch */
    float *dx, *dxn, *dq, *dk, *dv, *dao, *dh1, *dh3, *dhg; /* [T][...] */
    float *dyt;              /* [max(V, hidden, dim)][T]: a gradient
                              * transposed */
    float *xt;               /* [max(hidden, dim)][T]: an input transposed */
    float *tmpw;             /* [the largest matrix]: a window's weight
                              * gradient */
    float *vec;              /* [max(hidden, dim)] */
    float *datt, *ds;        /* [T]: a row's attention gradients */
    float *kt, *vt;          /* [kv_dim][T]: keys, values transposed (each
                              * KV head's hs rows of T positions) */
    float *dkt, *dvt;        /* [kv_dim][T]: their gradients, so */
    float *act_block;

    /* progress */
    sp_rng data_rng;
    int step;                /* steps done */
    int in_step;             /* a step is under way: its windows drawn */
    int window;              /* windows of the current step done */
    uint32_t *offsets;       /* [B] the current step's windows */
    double loss_sum;         /* the current step's, so far */
    float *losses, *gnorms;  /* [steps] */
    int have_grads;          /* a step completed: g holds its gradients */
    int failed;              /* SP_ERR_LOGITS: stopped, fail_msg says why */
    char fail_msg[SP_ERR_LEN];
    float *bigram;           /* [V][V] log P(b | a), made by the first
                              * evaluation; NULL until then */
};

/* ---- config.c */

/* Weights of a shape (a shared classifier counted once). */
uint64_t sp_tr_param_count(const sp_train_config *c, int vocab);
/* Fills plan's sizes (params, bytes, tokens and flops per step) for a
 * vocabulary; the data's counts are the caller's. */
void sp_tr_plan_sizes(const sp_train_config *c, int vocab,
                      sp_train_plan *plan);
/* The refusals that need the vocabulary: too large for the shape, more
 * memory than SP_TRAIN_MAX_MEMORY. */
int sp_tr_check_sizes(const sp_train_config *c, const sp_train_plan *plan,
                      char *err);

/* The float buffers trainer.c carves from one block: the window's
 * activations and the backward's scratch (TR_*), then each layer's
 * (TL_*), and their floats (each rounded up to 4: 16-byte aligned). */
enum {
    TR_ROPE_COS, TR_ROPE_SIN, TR_FREQ, TR_RES, TR_SF, TR_XNF, TR_LOGITS,
    TR_DX, TR_DXN, TR_DQ, TR_DK, TR_DV, TR_DAO, TR_DH1, TR_DH3, TR_DHG,
    TR_DYT, TR_XT, TR_TMPW, TR_VEC, TR_DATT, TR_DS, TR_KT, TR_VT, TR_DKT,
    TR_DVT, TR_COUNT
};
enum {
    TL_S1, TL_S2, TL_XN1, TL_XN2, TL_Q, TL_K, TL_V, TL_ATT, TL_AO, TL_XM,
    TL_H1, TL_H3, TL_HG, TL_COUNT
};
void sp_tr_buffer_sizes(const sp_train_config *c, int vocab,
                        size_t fixed[TR_COUNT], size_t layer[TL_COUNT]);

/* ---- data.c */

/* The text as training data: vocabulary, streams, tokenizer image.  With
 * t NULL only counts (into plan: vocab, documents, tokens); else fills t's
 * data fields too.  SP_ERR_* and a message. */
int sp_tr_read_text(const uint8_t *text, size_t len, const uint8_t *tok,
                    size_t tok_len, const sp_train_config *c,
                    sp_train_plan *plan, sp_train *t, char *err);

/* ---- trainer.c */

/* The views of a block laid out for t's shape. */
void sp_tr_views(const sp_train *t, float *base, tweights *out);

/* ---- kernels.c: every sum in one order, the same bits in every build */

/* y[b][i] = dot(w[i], x[b]) for b in 0..nb, i in 0..d (w is [d][n], x
 * [nb][n]): sp_dot's bits, as the inference pass computes them, in chunks
 * of inputs that stay in the cache.  The backward pass runs its products
 * through it too: an input's gradient against the weights transposed, a
 * weight's gradient as the dot products of the transposed gradient and
 * input rows (over the window's positions). */
void sp_tr_matmul(float *y, const float *x, const float *w, int n, int d,
                  int nb);
/* out[i][b] = in[b][i]: [rows][cols] -> [cols][rows] */
void sp_tr_transpose(float *out, const float *in, int rows, int cols);
/* y[i] += x[i] */
void sp_tr_add(float *y, const float *x, size_t n);
/* y[j] += a * x[j] */
void sp_tr_axpy(float *y, float a, const float *x, int n);

/* ---- forward.c, backward.c */

/* The window at tokens[0..n] through the model (n = t->n positions):
 * every activation kept, the logits of each position into t->logits.
 * Returns the window's summed cross-entropy (nats) over its n
 * predictions; with grad_scale > 0, the logits become the loss's
 * gradient, (softmax - one-hot) x grad_scale. */
double sp_tr_forward(sp_train *t, double grad_scale);
/* The gradients of the window sp_tr_forward left, added to t->g. */
void sp_tr_backward(sp_train *t);

/* ---- step.c */

double sp_tr_lr(const sp_train_config *c, int step);
/* A step's first part: its windows drawn, the gradients zeroed, the
 * transposes made; then each window at its offset forward and backward
 * (the tests run them alone, to hold gradients against differences). */
void sp_tr_begin_step(sp_train *t);
void sp_tr_run_window(sp_train *t, uint32_t offset);

/* ---- export.c */

/* The checkpoint of weights w (t's layout), malloc'd. */
uint8_t *sp_tr_checkpoint_of(const sp_train *t, const float *w,
                             size_t *size);

#endif /* SP_TRAIN_INTERNAL_H */
