/*
 * bench_core.c — the benchmark's sampler workloads, one source for the
 * native harness and the WASM modules (see bench.h; the model's workloads
 * are in bench_model.c).  Inputs are built here from the engine's own PRNG
 * and log, so every build benchmarks the very same numbers, and the
 * checksums it returns must agree between builds.
 */
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "bench_shared.h"
#include "internal.h"

/* ======================================================== the sampler */

#define N_VARIANTS 4
#define N_HISTORY 64

static int g_vocab;
static float *g_logits[N_VARIANTS];
static float g_max[N_VARIANTS]; /* their maxima */
static float g_one = 1.0f;      /* bench_softmax_pass's divisor */
static int g_history[N_VARIANTS][N_HISTORY];
static sp_params g_params;
static sp_sampler *g_sampler;
static sp_step g_step;
static sp_rng g_rng; /* the draws' uniforms */

/* the reference's scratch */
typedef struct {
    float p;
    int id;
} ref_item;
static float *r_x;
static ref_item *r_items;
static uint8_t *r_seen;

typedef struct {
    int n;          /* kept tokens: r_items[0..n), most probable first */
    double z_final; /* their total probability before renormalizing */
    int token;      /* drawn */
} ref_result;

/* the benchmark's sampler settings */
void bench_base_params(sp_params *p) {
    sp_params_default(p);
    p->repetition_penalty = 1.1f;
    p->penalty_last_n = N_HISTORY;
    p->temperature = 0.8f;
    p->top_k = 50;
    p->top_p = 0.9f;
    p->min_p = 0.05f;
}

int bench_sampler_init(int vocab) {
    if (vocab < 100) return 1;
    g_vocab = vocab;
    sp_rng r;
    sp_rng_seed(&r, 20240611);
    int *rank = malloc(sizeof(int) * (size_t)vocab);
    if (!rank) return 1;
    for (int v = 0; v < N_VARIANTS; v++) {
        free(g_logits[v]);
        g_logits[v] = malloc(sizeof(float) * (size_t)vocab);
        if (!g_logits[v]) return 1;
        /* a random permutation: token id -> its rank */
        for (int i = 0; i < vocab; i++) rank[i] = i;
        for (int i = vocab - 1; i > 0; i--) {
            int j = (int)(sp_rng_u32(&r) % (uint32_t)(i + 1));
            int t = rank[i];
            rank[i] = rank[j];
            rank[j] = t;
        }
        /* Zipf: p(rank) ~ rank^-1.1, i.e. logit = -1.1 ln(rank) + const,
         * with a little jitter so that no two logits tie */
        for (int i = 0; i < vocab; i++)
            g_logits[v][i] = (float)(4.0 - 1.1 * sp_log(1.0 + rank[i])) +
                             0.02f * (rand01(&r) - 0.5f);
        g_max[v] = sp_max(g_logits[v], vocab);
        /* the history: half likely tokens (rank < 200), half anything */
        for (int i = 0; i < N_HISTORY; i++) {
            uint32_t likely = vocab < 200 ? (uint32_t)vocab : 200u;
            int want_rank = (sp_rng_u32(&r) & 1)
                                ? (int)(sp_rng_u32(&r) % likely)
                                : (int)(sp_rng_u32(&r) % (uint32_t)vocab);
            int id = 0;
            while (rank[id] != want_rank) id++;
            g_history[v][i] = id;
        }
    }
    free(rank);
    bench_base_params(&g_params);
    sp_sampler_free(g_sampler);
    g_sampler = sp_sampler_new(vocab);
    free(r_x);
    free(r_items);
    free(r_seen);
    r_x = malloc(sizeof(float) * (size_t)vocab);
    r_items = malloc(sizeof(ref_item) * (size_t)vocab);
    r_seen = calloc((size_t)vocab, 1);
    if (!g_sampler || !r_x || !r_items || !r_seen) return 1;
    sp_rng_seed(&g_rng, 7);
    return 0;
}

static const char *const STAGE_NAMES[BENCH_N_STAGES + 1] = {
    "the benchmark's pipeline", "top-nσ 1.0", "epsilon 3e-4", "eta 3e-4",
    "top-a 0.2", "XTC 0.5 / 0.1", "DRY 0.8 / 1.75 / 2",
    "dynamic temperature ±0.5", "no-repeat-ngram 3", "mirostat v1 5 / 0.1",
    "mirostat v2 5 / 0.1", "top-H 0.4", "p-less", "tail-free 0.95",
    "quadratic sampling 0.3 / 1", "min-new-tokens 8 (step 3)",
    "exp. decay length penalty 0, 1.1 (step 3)", "adaptive-p 0.3 / 0.9",
    "watermark 0.25 / 2", "bad words 32 x 3 tokens", "sequence bias 32 x 3 tokens",
    "classifier-free guidance 1.5"};

const char *bench_stage_name(int which) {
    return which >= 0 && which <= BENCH_N_STAGES ? STAGE_NAMES[which] : NULL;
}

int bench_sampler_config(int which) {
    bench_base_params(&g_params);
    switch (which) {
    case 0: break;
    case 1: g_params.top_n_sigma = 1.0f; break;
    case 2: g_params.epsilon_cutoff = 3e-4f; break;
    case 3: g_params.eta_cutoff = 3e-4f; break;
    case 4: g_params.top_a = 0.2f; break;
    /* a bare sampler's XTC draw is 0: XTC acts at every step */
    case 5: g_params.xtc_probability = 0.5f; g_params.xtc_threshold = 0.1f; break;
    case 6: g_params.dry_multiplier = 0.8f; break; /* base 1.75, length 2 */
    case 7: g_params.dynatemp_range = 0.5f; break;
    case 8: g_params.no_repeat_ngram_size = 3; break;
    case 9: g_params.mirostat = 1; break; /* tau 5, eta 0.1 */
    case 10: g_params.mirostat = 2; break;
    case 11: g_params.top_h = 0.4f; break;
    case 12: g_params.p_less = 1; break;
    case 13: g_params.tfs = 0.95f; break;
    case 14: g_params.smoothing_factor = 0.3f; break; /* curve 1 */
    /* the length stages act on end tokens at a step: a session's state */
    case 15: g_params.min_new_tokens = 8; break;
    case 16: g_params.exp_decay_factor = 1.1f; break;
    /* a bare sampler's adaptive-p state is its start: the transform's cost */
    case 17: g_params.adaptive_target = 0.3f; break; /* decay 0.9 */
    /* a new green list at every step: the history's variants change the
     * previous token */
    case 18: g_params.watermark_delta = 2.0f; break; /* gamma 0.25 */
    /* words, not ids: 32 words of 3 tokens, one in four ending as the
     * history does (then its last token is cut or biased) */
    case 19:
    case 20:
        for (int w = 0; w < SP_MAX_WORDS; w++) {
            int ids[3] = {(w * 7919) % g_vocab, (w * 104729) % g_vocab,
                          (w * 31) % g_vocab};
            if (w % 4 == 0) {
                ids[0] = g_history[0][N_HISTORY - 2];
                ids[1] = g_history[0][N_HISTORY - 1];
            }
            if (which == 19) sp_params_add_bad_word(&g_params, ids, 3, NULL);
            else sp_params_add_sequence_bias(&g_params, ids, 3, 1.5f, NULL);
        }
        break;
    /* classifier-free guidance: another variant's logits stand for the
     * second run's (the stage's cost, not the model's) */
    case 21: g_params.cfg_scale = 1.5f; break;
    default: return 1;
    }
    static const int end[1] = {0}; /* token 0 ends the text, step 3 */
    sp_sampler_state st = {0.0, NAN, 3, end, 1, 0.0f, 0.0f,
                           which == 21 ? g_logits[N_VARIANTS - 1] : NULL};
    sp_sampler_set_state(g_sampler, &st);
    char err[SP_ERR_LEN];
    return sp_params_check(&g_params, g_vocab, err) == SP_OK ? 0 : 1;
}

double bench_sampler_steps(int n, int report) {
    char err[SP_ERR_LEN];
    double sum = 0.0;
    sp_sampler_set_raw(g_sampler, report);
    for (int i = 0; i < n; i++) {
        int v = i % N_VARIANTS;
        if (sp_sampler_warp(g_sampler, g_logits[v], g_history[v], N_HISTORY,
                            &g_params, &g_step, err) != SP_OK ||
            sp_sampler_draw(&g_step, sp_rng_uniform(&g_rng)) != SP_OK)
            return -1.0;
        sum += g_step.token;
    }
    return sum;
}

double bench_softmax_pass(int n, int what) {
    double sum = 0.0;
    float *out = r_x; /* the reference's scratch, [vocab] */
    /* the divisions' operands: the logits (no subnormals), divided by a
     * 1 the compiler cannot see */
    memcpy(out, g_logits[0], sizeof(float) * (size_t)g_vocab);
    for (int i = 0; i < n; i++) {
        int v = i % N_VARIANTS;
        if (what == 0) {
            sum += sp_exp_shift_sum(g_logits[v], g_max[v], out, g_vocab);
        } else {
            sp_div_scalar(out, g_one, g_vocab);
            sum += out[i % g_vocab];
        }
    }
    return sum;
}

/* --- the textbook reference: the same settings, by sorting everything --- */

static int ref_cmp(const void *a, const void *b) {
    const ref_item *x = a, *y = b;
    if (x->p != y->p) return x->p > y->p ? -1 : 1; /* most probable first */
    return (x->id > y->id) - (x->id < y->id);
}

static void ref_step(const float *logits, const int *hist, int nh,
                     const sp_params *p, double u, ref_result *res) {
    int V = g_vocab;
    float *x = r_x;
    memcpy(x, logits, sizeof(float) * (size_t)V);
    /* repetition penalty, each distinct token of the history once */
    for (int i = 0; i < nh; i++) {
        int id = hist[i];
        if (r_seen[id]) continue;
        r_seen[id] = 1;
        x[id] = x[id] > 0.0f ? x[id] / p->repetition_penalty
                             : x[id] * p->repetition_penalty;
    }
    for (int i = 0; i < nh; i++) r_seen[hist[i]] = 0;
    /* temperature, softmax over the whole vocabulary */
    for (int i = 0; i < V; i++) x[i] /= p->temperature;
    float m = x[0];
    for (int i = 1; i < V; i++)
        if (x[i] > m) m = x[i];
    double z = 0.0;
    for (int i = 0; i < V; i++) {
        float e = sp_expf(x[i] - m);
        r_items[i].p = e;
        r_items[i].id = i;
        z += e;
    }
    for (int i = 0; i < V; i++) r_items[i].p = (float)(r_items[i].p / z);
    /* sort all of it */
    qsort(r_items, (size_t)V, sizeof(ref_item), ref_cmp);
    /* top-k */
    int n = p->top_k > 0 && p->top_k < V ? p->top_k : V;
    /* top-p over the renormalized top-k: the fewest whose mass reaches p */
    double zk = 0.0;
    for (int j = 0; j < n; j++) zk += r_items[j].p;
    double cum = 0.0;
    for (int j = 0; j < n; j++) {
        cum += r_items[j].p / zk;
        if (cum >= p->top_p) {
            n = j + 1;
            break;
        }
    }
    /* min-p: p >= min_p * p_max */
    float floor_p = p->min_p * r_items[0].p;
    int nm = 0;
    while (nm < n && r_items[nm].p >= floor_p) nm++;
    n = nm;
    /* renormalize, draw by inverse CDF in rank order */
    double zf = 0.0;
    for (int j = 0; j < n; j++) zf += r_items[j].p;
    double target = u * zf, c = 0.0;
    int token = r_items[n - 1].id;
    for (int j = 0; j < n; j++) {
        c += r_items[j].p;
        if (target < c) {
            token = r_items[j].id;
            break;
        }
    }
    res->n = n;
    res->z_final = zf;
    res->token = token;
}

double bench_ref_steps(int n) {
    double sum = 0.0;
    ref_result res;
    for (int i = 0; i < n; i++) {
        int v = i % N_VARIANTS;
        ref_step(g_logits[v], g_history[v], N_HISTORY, &g_params,
                 sp_rng_uniform(&g_rng), &res);
        sum += res.token;
    }
    return sum;
}

static int int_cmp(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int bench_sampler_check(int *n_kept, double *max_dp) {
    char err[SP_ERR_LEN];
    int bad = 0;
    double worst = 0.0;
    int *ids = malloc(sizeof(int) * (size_t)g_vocab);
    if (!ids) return -1;
    for (int v = 0; v < N_VARIANTS; v++) {
        for (int report = 0; report <= 1; report++) {
            sp_sampler_set_raw(g_sampler, report);
            if (sp_sampler_warp(g_sampler, g_logits[v], g_history[v],
                                N_HISTORY, &g_params, &g_step, err) != SP_OK) {
                bad++;
                continue;
            }
            ref_result res;
            ref_step(g_logits[v], g_history[v], N_HISTORY, &g_params, 0.5,
                     &res);
            if (v == 0) *n_kept = g_step.n_kept;
            if (res.n != g_step.n_kept) {
                bad++;
                continue;
            }
            for (int j = 0; j < res.n; j++) ids[j] = r_items[j].id;
            qsort(ids, (size_t)res.n, sizeof(int), int_cmp);
            int same = 1;
            for (int j = 0; j < res.n; j++)
                if (ids[j] != g_step.kept[j]) same = 0;
            if (!same) {
                bad++;
                continue;
            }
            for (int j = 0; j < res.n; j++) {
                double dp = (double)g_step.probs[r_items[j].id] -
                            (double)r_items[j].p / res.z_final;
                if (dp < 0) dp = -dp;
                if (dp > worst) worst = dp;
            }
        }
    }
    free(ids);
    *max_dp = worst;
    return bad;
}

double bench_sampler_digest(void) {
    char err[SP_ERR_LEN];
    uint64_t h = HASH_SEED;
    for (int v = 0; v < N_VARIANTS; v++) {
        for (int report = 0; report <= 1; report++) {
            sp_sampler_set_raw(g_sampler, report);
            if (sp_sampler_warp(g_sampler, g_logits[v], g_history[v],
                                N_HISTORY, &g_params, &g_step, err) != SP_OK ||
                sp_sampler_draw(&g_step, 0.3 + 0.1 * v) != SP_OK)
                return -1.0;
            h = hash_u32(h, (uint32_t)g_step.n_kept);
            for (int j = 0; j < g_step.n_kept; j++) {
                h = hash_u32(h, (uint32_t)g_step.kept[j]);
                h = hash_f32(h, g_step.probs[g_step.kept[j]]);
            }
            h = hash_f64(h, g_step.entropy_bits);
            h = hash_u32(h, (uint32_t)g_step.token);
            if (report) {
                for (int i = 0; i < g_vocab; i++) {
                    h = hash_f32(h, g_step.probs_raw[i]);
                    h = hash_f32(h, g_step.probs_tempered[i]);
                }
                h = hash_f64(h, g_step.entropy_raw_bits);
                h = hash_f64(h, g_step.kept_mass);
            }
        }
    }
    return hash_out(h);
}
