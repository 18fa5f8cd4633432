/*
 * test_gguf_model.c — GGUF models (c/engine/model/gguf_model.c) through
 * sp_model_load and sp_forward:
 *   - a llama2.c checkpoint written as an F32 GGUF gives the very logits
 *     of the checkpoint, bit for bit (the tiny test model; stories260K
 *     when ../shared/fixtures/llama2c is there), one token at a time and
 *     batched;
 *   - llama and qwen2 models (GQA, tied and untied classifiers, biases,
 *     the neox RoPE layout, Llama 3's RoPE factors, linear RoPE scaling)
 *     against a straightforward forward pass in double written here;
 *   - each weight type against the same weights dequantized to F32 (the
 *     difference is the input's conversion: quant.h), and batched passes
 *     against single ones, bit for bit.
 * What a GGUF model refuses: test_gguf_refusals.c.
 *
 * Usage: test_gguf_model [repository test_root]
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fuzz/build_gguf.h"
#include "check.h"
#include "internal.h"
#include "kernels/quant.h"
#include "model/gguf.h"
#include "testutil.h"

static char err[SP_ERR_LEN];

static sp_model *load_bytes(const bb_bytes *b) {
    err[0] = 0;
    sp_model *m = sp_model_load(bb_copy(b), b->len, 1, err);
    if (!m) fprintf(stderr, "load: %s\n", err);
    return m;
}

static uint32_t bits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* the greedy continuation of token 1 over n positions: whether a and b
 * give the same logits bits at every one (batched and single) */
static int same_logits(const sp_model *a, const sp_model *b, int n) {
    sp_state *sa = sp_state_new(a), *sb = sp_state_new(b);
    int vocab = sp_model_vocab(a), token = 1, same = 1;
    for (int pos = 0; pos < n && same; pos++) {
        const float *la = sp_forward(a, sa, token, pos);
        const float *lb = sp_forward(b, sb, token, pos);
        if (!la || !lb) return 0;
        int best = 0;
        for (int i = 0; i < vocab; i++) {
            same &= bits(la[i]) == bits(lb[i]);
            if (la[i] > la[best]) best = i;
        }
        token = best;
    }
    sp_state_free(sa);
    sp_state_free(sb);
    return same;
}

/* a batched pass over tokens[0..n) has the bits of n single passes */
static int batch_matches(const sp_model *m, const int *tokens, int n) {
    sp_state *s1 = sp_state_new(m), *s2 = sp_state_new(m);
    int vocab = sp_model_vocab(m), same = 1;
    const float *lb = sp_forward_batch(m, s2, tokens, n, 0, 0);
    if (!lb) return 0;
    for (int p = 0; p < n; p++) {
        const float *l1 = sp_forward(m, s1, tokens[p], p);
        for (int i = 0; i < vocab; i++)
            same &= bits(l1[i]) == bits(lb[(size_t)p * vocab + i]);
    }
    /* and the state after it continues alike */
    const float *a = sp_forward(m, s1, tokens[0], n);
    const float *b = sp_forward(m, s2, tokens[0], n);
    for (int i = 0; i < vocab; i++) same &= bits(a[i]) == bits(b[i]);
    sp_state_free(s1);
    sp_state_free(s2);
    return same;
}

/* ---- llama2.c checkpoints as GGUF --------------------------------------- */

static void check_converted(const uint8_t *ck, size_t size, int positions,
                            const char *what) {
    bb_bytes g = {0}, c = {0};
    CHECK(gg_from_llama2c(ck, size, GG_F32, &g));
    bb_put(&c, ck, size);
    sp_model *a = load_bytes(&c), *b = load_bytes(&g);
    CHECK(a && b);
    if (a && b) {
        CHECK_EQ_INT(sp_model_vocab(b), sp_model_vocab(a));
        CHECK_EQ_INT(sp_model_seq_len(b), sp_model_seq_len(a));
        int same = same_logits(a, b, positions);
        if (!same) fprintf(stderr, "%s: GGUF logits differ\n", what);
        CHECK(same);
        int tokens[SP_BATCH_MAX];
        for (int i = 0; i < SP_BATCH_MAX; i++) tokens[i] = (i * 7 + 1) % sp_model_vocab(b);
        int n = positions - 1 < SP_BATCH_MAX ? positions - 1 : SP_BATCH_MAX;
        CHECK(batch_matches(b, tokens, n)); /* n < the context: one more */
    }
    sp_model_free(a);
    sp_model_free(b);
    bb_free(&g);
    bb_free(&c);
}

static void test_llama2c_as_gguf(void) {
    bb_bytes ck = {0};
    bb_checkpoint(&ck, BB_TINY, 3, 0.5f);
    check_converted(ck.data, ck.len, BB_TINY.seq_len, "tiny");
    bb_free(&ck);
    bb_config unshared = BB_TINY;
    unshared.vocab_size = -unshared.vocab_size;
    bb_checkpoint(&ck, unshared, 4, 0.5f);
    check_converted(ck.data, ck.len, unshared.seq_len, "tiny, unshared");
    bb_free(&ck);

    char path[512];
    snprintf(path, sizeof path, "%s/../shared/fixtures/llama2c/stories260K.bin",
             test_root);
    size_t size;
    uint8_t *data = read_all(path, &size);
    if (!data) {
        fixtures_missing("stories260K as GGUF");
        return;
    }
    check_converted(data, size, 64, "stories260K");
    free(data);
}

/* ---- a forward pass in double ------------------------------------------- */

typedef struct {
    const sp_gguf *g;
    int dim, hidden, layers, heads, kv_heads, vocab, hs, kv, neox;
    double eps, base, scale;
    double *k, *v; /* [layers][ctx][kv] */
    int ctx;
} ref_model;

static const float *ref_tensor(const ref_model *r, const char *name) {
    const sp_gguf_tensor *t = sp_gguf_tensor_find(r->g, name);
    return t ? (const float *)(const void *)t->data : NULL;
}

/* y[rows] = W x, W a F32 tensor [cols, rows] (+ bias) */
static void ref_matmul(const ref_model *r, const char *name, const char *bias,
                       const double *x, int rows, int cols, double *y) {
    const float *w = ref_tensor(r, name), *b = bias ? ref_tensor(r, bias) : NULL;
    for (int i = 0; i < rows; i++) {
        double s = b ? b[i] : 0;
        for (int j = 0; j < cols; j++) s += (double)w[(size_t)i * cols + j] * x[j];
        y[i] = s;
    }
}

static void ref_rmsnorm(const double *x, const float *w, int n, double eps,
                        double *y) {
    double ss = 0;
    for (int j = 0; j < n; j++) ss += x[j] * x[j];
    double k = 1 / sqrt(ss / n + eps);
    for (int j = 0; j < n; j++) y[j] = w[j] * x[j] * k;
}

static void ref_rope(const ref_model *r, double *v, int heads, int pos) {
    const float *fac = ref_tensor(r, "rope_freqs.weight");
    int half = r->hs / 2;
    for (int h = 0; h < heads; h++) {
        double *p = v + h * r->hs;
        for (int i = 0; i < half; i++) {
            double theta = pos * pow(r->base, -2.0 * i / r->hs) * r->scale;
            if (fac) theta /= fac[i];
            int a = r->neox ? i : 2 * i, b = r->neox ? i + half : 2 * i + 1;
            double x0 = p[a], x1 = p[b];
            p[a] = x0 * cos(theta) - x1 * sin(theta);
            p[b] = x0 * sin(theta) + x1 * cos(theta);
        }
    }
}

static void ref_forward(ref_model *r, int token, int pos, double *logits) {
    int D = r->dim, H = r->hidden;
    double *x = calloc(D, 8), *xb = calloc(D, 8), *q = calloc(D, 8),
           *o = calloc(D, 8), *h1 = calloc(H, 8), *h3 = calloc(H, 8),
           *att = calloc(r->ctx, 8);
    const float *emb = ref_tensor(r, "token_embd.weight");
    for (int j = 0; j < D; j++) x[j] = emb[(size_t)token * D + j];
    char n1[64], n2[64];
    for (int l = 0; l < r->layers; l++) {
        double *kc = r->k + ((size_t)l * r->ctx + pos) * r->kv;
        double *vc = r->v + ((size_t)l * r->ctx + pos) * r->kv;
#define NM(buf, part) (snprintf(buf, sizeof buf, "blk.%d.%s", l, part), buf)
        ref_rmsnorm(x, ref_tensor(r, NM(n1, "attn_norm.weight")), D, r->eps, xb);
        ref_matmul(r, NM(n1, "attn_q.weight"), NM(n2, "attn_q.bias"), xb, D, D, q);
        ref_matmul(r, NM(n1, "attn_k.weight"), NM(n2, "attn_k.bias"), xb, r->kv, D, kc);
        ref_matmul(r, NM(n1, "attn_v.weight"), NM(n2, "attn_v.bias"), xb, r->kv, D, vc);
        ref_rope(r, q, r->heads, pos);
        ref_rope(r, kc, r->kv_heads, pos);
        for (int h = 0; h < r->heads; h++) {
            int g = h / (r->heads / r->kv_heads);
            double max = -1e300, sum = 0;
            for (int p = 0; p <= pos; p++) {
                const double *kp = r->k + ((size_t)l * r->ctx + p) * r->kv + g * r->hs;
                double s = 0;
                for (int i = 0; i < r->hs; i++) s += q[h * r->hs + i] * kp[i];
                att[p] = s / sqrt((double)r->hs);
                max = fmax(max, att[p]);
            }
            for (int p = 0; p <= pos; p++) sum += att[p] = exp(att[p] - max);
            for (int i = 0; i < r->hs; i++) {
                double s = 0;
                for (int p = 0; p <= pos; p++)
                    s += att[p] / sum * r->v[((size_t)l * r->ctx + p) * r->kv + g * r->hs + i];
                xb[h * r->hs + i] = s;
            }
        }
        ref_matmul(r, NM(n1, "attn_output.weight"), NULL, xb, D, D, o);
        for (int j = 0; j < D; j++) x[j] += o[j];
        ref_rmsnorm(x, ref_tensor(r, NM(n1, "ffn_norm.weight")), D, r->eps, xb);
        ref_matmul(r, NM(n1, "ffn_gate.weight"), NULL, xb, H, D, h1);
        ref_matmul(r, NM(n1, "ffn_up.weight"), NULL, xb, H, D, h3);
        for (int j = 0; j < H; j++) h1[j] = h1[j] / (1 + exp(-h1[j])) * h3[j];
        ref_matmul(r, NM(n1, "ffn_down.weight"), NULL, h1, D, H, o);
        for (int j = 0; j < D; j++) x[j] += o[j];
#undef NM
    }
    ref_rmsnorm(x, ref_tensor(r, "output_norm.weight"), D, r->eps, xb);
    ref_matmul(r, ref_tensor(r, "output.weight") ? "output.weight" : "token_embd.weight",
               NULL, xb, r->vocab, D, logits);
    free(x); free(xb); free(q); free(o); free(h1); free(h3); free(att);
}

/* m's logits against the reference over `positions` positions: the
 * largest difference, relative to the logits' largest magnitude */
static double against_reference(const bb_bytes *b, const gg_model *gm,
                                double scale, int positions) {
    sp_gguf *g = sp_gguf_open(b->data, b->len, NULL, err);
    sp_model *m = load_bytes(b);
    if (!g || !m) return INFINITY;
    ref_model r = {g, gm->dim, gm->hidden, gm->layers, gm->heads, gm->kv_heads,
                   gm->vocab, gm->dim / gm->heads,
                   gm->dim / gm->heads * gm->kv_heads,
                   !strcmp(gm->arch, "qwen2"), gm->eps, gm->rope_base, scale,
                   NULL, NULL, positions};
    r.k = calloc((size_t)r.layers * positions * r.kv, 8);
    r.v = calloc((size_t)r.layers * positions * r.kv, 8);
    double *want = calloc(r.vocab, 8), worst = 0;
    sp_state *st = sp_state_new(m);
    for (int pos = 0; pos < positions; pos++) {
        int token = (pos * 37 + 5) % r.vocab;
        const float *got = sp_forward(m, st, token, pos);
        ref_forward(&r, token, pos, want);
        double top = 0, diff = 0;
        for (int i = 0; i < r.vocab; i++) {
            top = fmax(top, fabs(want[i]));
            diff = fmax(diff, fabs(got[i] - want[i]));
        }
        worst = fmax(worst, diff / top);
    }
    sp_state_free(st);
    sp_model_free(m);
    sp_gguf_close(g);
    free(r.k);
    free(r.v);
    free(want);
    return worst;
}

static void test_against_reference(void) {
    struct {
        const char *what;
        gg_model m;
        double scale; /* linear RoPE scaling: 1 / factor */
        const char *scaling;
    } cases[] = {
        {"llama, GQA, untied", gg_tiny_model("llama", GG_F32), 1, NULL},
        {"llama, tied", gg_tiny_model("llama", GG_F32), 1, NULL},
        {"llama with biases", gg_tiny_model("llama", GG_F32), 1, NULL},
        {"llama 3 RoPE factors", gg_tiny_model("llama", GG_F32), 1, NULL},
        {"llama, linear RoPE x4", gg_tiny_model("llama", GG_F32), 0.25, "linear"},
        {"qwen2 (neox, biases)", gg_tiny_model("qwen2", GG_F32), 1, NULL},
        {"qwen2, MHA, base 1e6", gg_tiny_model("qwen2", GG_F32), 1, NULL},
    };
    cases[1].m.tied = 1;
    cases[2].m.biases = 1;
    cases[3].m.rope_factors = 1;
    cases[6].m.kv_heads = cases[6].m.heads;
    cases[6].m.rope_base = 1e6;
    cases[6].m.eps = 1e-6f;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        bb_bytes b = {0};
        if (cases[i].scaling) cases[i].m.linear_rope = 4.0f;
        gg_model_write(&cases[i].m, &b);
        double worst = against_reference(&b, &cases[i].m, cases[i].scale, 12);
        if (!(worst < 2e-5))
            fprintf(stderr, "%s: logits differ from the reference by %g of "
                    "their range\n", cases[i].what, worst);
        CHECK(worst < 2e-5);
        bb_free(&b);
    }
}

/* ---- weight types ------------------------------------------------------------ */

/* The file with every matrix dequantized to F32 (sp_qrow): the same
 * weights, read without converting the input. */
static void dequantized_copy(const bb_bytes *b, bb_bytes *out) {
    sp_gguf *g = sp_gguf_open(b->data, b->len, NULL, err);
    gg_file f;
    gg_init(&f);
    for (uint64_t k = 0; k < g->n_kv; k++) {
        const sp_gguf_kv *kv = &g->kv[k];
        static const int size[] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};
        const uint8_t *end = kv->type == SP_GGUF_ARRAY
                                 ? kv->array.data + kv->array.bytes
                             : kv->type == SP_GGUF_STRING
                                 ? kv->value + 8 + (size_t)((const uint8_t *)
                                       kv->value)[0] /* short strings */
                                 : kv->value + size[kv->type];
        if (kv->type == SP_GGUF_STRING) {
            sp_gguf_str str;
            const uint8_t *cur = kv->value;
            str = sp_gguf_array_next_str(&cur);
            end = (const uint8_t *)str.ptr + str.len;
        }
        char key[128];
        snprintf(key, sizeof key, "%.*s", (int)kv->key.len, kv->key.ptr);
        gg_raw_kv(&f, key, kv->type, kv->value, (size_t)(end - kv->value));
    }
    for (uint64_t t = 0; t < g->n_tensors; t++) {
        const sp_gguf_tensor *tn = &g->tensors[t];
        char name[80];
        snprintf(name, sizeof name, "%.*s", (int)tn->name.len, tn->name.ptr);
        int cols = (int)tn->ne[0], rows = (int)(tn->n_elements / tn->ne[0]);
        sp_qmat m = {tn->data, tn->type, rows, cols, sp_qtype_row_bytes(tn->type, cols)};
        float *w = malloc(sizeof(float) * tn->n_elements);
        for (int r = 0; r < rows; r++) sp_qrow(&m, r, w + (size_t)r * cols);
        gg_tensor(&f, name, GG_F32, tn->ne, tn->n_dims, w, sizeof(float) * tn->n_elements);
        free(w);
    }
    sp_gguf_close(g);
    gg_finish(&f, 3, out);
    gg_free(&f);
}

static void test_weight_types(void) {
    static const uint32_t types[] = {GG_F16, GG_BF16, GG_Q8_0, GG_Q4_0, GG_Q4_K, GG_Q6_K};
    /* how far the converted input may move the logits, relative to their
     * largest magnitude: F16 keeps 11 significant bits of each input,
     * BF16 8, Q8_0 about 8 below its block's largest (Q8_K's blocks of 256
     * are coarser).  Measured: 1.1e-3, 1.1e-2, 2.5e-2, 3.2e-2, 4.4e-2,
     * 3.7e-2 (a random model amplifies more than a trained one) */
    static const double limit[] = {2e-3, 1.5e-2, 4e-2, 5e-2, 6e-2, 6e-2};
    for (size_t t = 0; t < sizeof types / sizeof *types; t++) {
        gg_model gm = gg_tiny_model(t % 2 ? "qwen2" : "llama", types[t]);
        gm.emb_type = t % 3 == 0 ? GG_Q6_K : types[t]; /* mixed, as files are */
        bb_bytes b = {0}, f32 = {0};
        gg_model_write(&gm, &b);
        dequantized_copy(&b, &f32);
        sp_model *mq = load_bytes(&b), *mf = load_bytes(&f32);
        CHECK(mq && mf);
        if (!mq || !mf) continue;
        sp_state *sq = sp_state_new(mq), *sf = sp_state_new(mf);
        double worst = 0;
        int agree = 0;
        for (int pos = 0; pos < 16; pos++) {
            int token = (pos * 11 + 3) % gm.vocab;
            const float *lq = sp_forward(mq, sq, token, pos);
            const float *lf = sp_forward(mf, sf, token, pos);
            double top = 0, diff = 0;
            int aq = 0, af = 0;
            for (int i = 0; i < gm.vocab; i++) {
                top = fmax(top, fabs(lf[i]));
                diff = fmax(diff, fabs(lq[i] - lf[i]));
                if (lq[i] > lq[aq]) aq = i;
                if (lf[i] > lf[af]) af = i;
            }
            worst = fmax(worst, diff / top);
            agree += aq == af;
        }
        printf("%s weights: logits within %.2e of the dequantized model's "
               "range; argmax agrees at %d of 16 positions\n",
               sp_ggml_type_name(types[t]), worst, agree);
        CHECK(worst < limit[t]);
        CHECK(worst > 0 || types[t] == GG_BF16);
        CHECK(agree >= 14);
        int tokens[7] = {5, 17, 3, 299, 0, 42, 8};
        CHECK(batch_matches(mq, tokens, 7));
        sp_state_free(sq);
        sp_state_free(sf);
        sp_model_free(mq);
        sp_model_free(mf);
        bb_free(&b);
        bb_free(&f32);
    }
}

/* The loader reads in place when it owns the bytes, copies them when not:
 * the same logits either way; a context past 2048 is cut to it. */
static void test_ownership_and_context(void) {
    gg_model gm = gg_tiny_model("llama", GG_Q8_0);
    gm.ctx = 131072;
    bb_bytes b = {0};
    gg_model_write(&gm, &b);
    sp_model *owned = load_bytes(&b);
    sp_model *copied = sp_model_load(b.data, b.len, 0, err);
    CHECK(owned && copied);
    if (owned && copied) {
        CHECK_EQ_INT(sp_model_seq_len(owned), 2048);
        CHECK_EQ_INT(sp_model_kind_of(owned), SP_MODEL_TRANSFORMER);
        CHECK_EQ_INT(sp_model_vocab(owned), 300);
        CHECK(same_logits(owned, copied, 8));
    }
    sp_model_free(owned);
    sp_model_free(copied);
    bb_free(&b);
}

TEST_SUITE(gguf_model,
           TEST(test_llama2c_as_gguf),
           TEST(test_against_reference),
           TEST(test_weight_types),
           TEST(test_ownership_and_context));
