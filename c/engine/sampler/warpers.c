/*
 * warpers.c — the sampler chain: the classic stages (logit bias, penalties,
 * temperature, top-k, top-p, min-p, typical-p), the chain that runs every
 * stage in its order, the final softmax, the draw, and the step record a
 * lesson reads.  The other stages: repeats.c (DRY, no-repeat-ngram),
 * cutoffs.c (top-nσ, epsilon, eta, top-a, XTC, mirostat); the registry of
 * stages and parameters: params.c.
 *
 * Cost: the vocabulary can hold 32 000-50 000 tokens and the chain runs
 * every step, so nothing sorts the vocabulary.  The stages before top-k work
 * in place on the dense logits; top-k finds its threshold from the maxima of
 * about 4k groups of tokens (a vector pass) and a k-element heap over the
 * few tokens that can reach it (dense_kth), and builds the candidate list;
 * later stages work on that list, and top-p / typical-p select their prefix
 * by partitioning (expected O(n)), sorting only a few boundary elements.
 */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "candidates.h"

#define LN2 0.69314718055994530942

/* ------------------------------------------------------------ cut names */

#define CUT_NAME(id, name) name,
static const char *const CUT_NAMES[SP_CUT_COUNT] = {SP_CUT_ROWS(CUT_NAME)};
#undef CUT_NAME

const char *sp_cut_name(int cut) {
    return cut >= 0 && cut < SP_CUT_COUNT ? CUT_NAMES[cut] : "unknown";
}

/* ------------------------------------------------------------- sampler */

sp_sampler *sp_sampler_new(int vocab) {
    if (vocab <= 0) return NULL;
    sp_sampler *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    size_t v = (size_t)vocab;
    s->vocab = vocab;
    s->want_raw = 1;
    s->logits = malloc(v * sizeof(float));
    s->probs_raw = calloc(v, sizeof(float));
    s->probs_tempered = calloc(v, sizeof(float));
    s->work = malloc(v * sizeof(float));
    s->probs = calloc(v, sizeof(float));
    s->probs_ids = malloc(v * sizeof(int));
    s->cut = calloc(v, 1);
    s->ids = malloc(v * sizeof(int));
    s->cand_logit = malloc(v * sizeof(float));
    s->cand_exp = malloc(v * sizeof(float));
    s->heap = malloc(v * sizeof(float));
    s->listed_logits = malloc(v * sizeof(float));
    s->gmax = malloc((v / 16 + 1) * sizeof(float));
    s->gmax_stale = calloc(v / 16 + 1, 1);
    s->counts = calloc(v, sizeof(int));
    s->penalized = malloc(v * sizeof(int));
    s->pen_mark = calloc(v, 1);
    s->sel = malloc(v * sizeof(sp_sel_item));
    s->state.xtc_u = 0.0;
    s->state.mirostat_mu = NAN;
    if (!s->logits || !s->probs_raw || !s->probs_tempered || !s->work ||
        !s->probs || !s->probs_ids || !s->cut || !s->ids || !s->cand_logit ||
        !s->cand_exp || !s->heap || !s->listed_logits || !s->gmax ||
        !s->gmax_stale || !s->counts ||
        !s->penalized || !s->pen_mark || !s->sel) {
        sp_sampler_free(s);
        return NULL;
    }
    return s;
}

void sp_sampler_free(sp_sampler *s) {
    if (!s) return;
    free(s->logits);
    free(s->probs_raw);
    free(s->probs_tempered);
    free(s->work);
    free(s->probs);
    free(s->probs_ids);
    free(s->cut);
    free(s->ids);
    free(s->cand_logit);
    free(s->cand_exp);
    free(s->heap);
    free(s->listed_logits);
    free(s->gmax);
    free(s->gmax_stale);
    free(s->counts);
    free(s->penalized);
    free(s->pen_mark);
    free(s->repeat);
    free(s->sel);
    free(s);
}

int sp_sampler_vocab(const sp_sampler *s) { return s->vocab; }

void sp_sampler_set_raw(sp_sampler *s, int on) { s->want_raw = on != 0; }

void sp_sampler_set_reference(sp_sampler *s, int on) { s->reference = on != 0; }

void sp_sampler_set_mask(sp_sampler *s, const uint8_t *allowed) {
    s->allowed = allowed;
}

void sp_sampler_set_state(sp_sampler *s, const sp_sampler_state *state) {
    s->state = *state;
}

/* -------------------------------------------------------- candidate list */

/* Builds the list of candidates (finite working logits, ascending) if the
 * dense stages have not yet. */
void sp_cands_list(sp_candidates *c) {
    if (c->listed) return;
    /* locals: a store into ids could otherwise be an int of c's */
    const float *x = c->logits;
    int *ids = c->ids, v = c->vocab, n = 0, i = 0;
    vec4 ninf = v4_splat(-INFINITY);
    for (; i + 16 <= v; i += 16) { /* a block with no -inf: all sixteen */
        const float *xb = x + i;
        if (v4_all(v4_and(v4_and(v4_gt(v4_load(xb), ninf),
                                 v4_gt(v4_load(xb + 4), ninf)),
                          v4_and(v4_gt(v4_load(xb + 8), ninf),
                                 v4_gt(v4_load(xb + 12), ninf))))) {
            for (int j = 0; j < 16; j++) ids[n + j] = i + j;
            n += 16;
            continue;
        }
        for (int j = i; j < i + 16; j++)
            if (x[j] != -INFINITY) ids[n++] = j;
    }
    for (; i < v; i++)
        if (x[i] != -INFINITY) ids[n++] = i;
    c->n = n;
    c->listed = 1;
}

/* Removes from the list the tokens a stage has cut (order is kept). */
void sp_cands_compact(sp_candidates *c) {
    int n = 0;
    for (int j = 0; j < c->n; j++)
        if (c->cut[c->ids[j]] == SP_CUT_NONE) c->ids[n++] = c->ids[j];
    c->n = n;
}

void sp_cands_keep_at_least(sp_candidates *c, float threshold, sp_cut stage) {
    float *x = c->logits;
    uint8_t *cut = c->cut;
    int *ids = c->ids, n = 0;
    if (c->listed) {
        for (int j = 0; j < c->n; j++) {
            int id = ids[j];
            if (x[id] >= threshold) {
                ids[n++] = id;
            } else {
                x[id] = -INFINITY;
                cut[id] = (uint8_t)stage;
            }
        }
        c->n = n;
        return;
    }
    /* Dense: the candidates are the finite logits (sp_cands_list's), in
     * ascending order.  Sixteen at a time: a block where none stays and
     * every one is finite (nearly all of them) is cut whole. */
    int v = c->vocab, i = 0;
    vec4 tv = v4_splat(threshold), ninf = v4_splat(-INFINITY);
    for (; i + 16 <= v; i += 16) {
        float *xb = x + i;
        vec4 x0 = v4_load(xb), x1 = v4_load(xb + 4);
        vec4 x2 = v4_load(xb + 8), x3 = v4_load(xb + 12);
        vec4 keep = v4_or(v4_or(v4_ge(x0, tv), v4_ge(x1, tv)),
                          v4_or(v4_ge(x2, tv), v4_ge(x3, tv)));
        vec4 finite = v4_and(v4_and(v4_gt(x0, ninf), v4_gt(x1, ninf)),
                             v4_and(v4_gt(x2, ninf), v4_gt(x3, ninf)));
        if (!v4_any(keep) && v4_all(finite)) {
            v4_store(xb, ninf);
            v4_store(xb + 4, ninf);
            v4_store(xb + 8, ninf);
            v4_store(xb + 12, ninf);
            memset(cut + i, stage, 16);
            continue;
        }
        for (int j = i; j < i + 16; j++) {
            if (x[j] == -INFINITY) continue;
            if (x[j] >= threshold) {
                ids[n++] = j;
            } else {
                x[j] = -INFINITY;
                cut[j] = (uint8_t)stage;
            }
        }
    }
    for (; i < v; i++) {
        if (x[i] == -INFINITY) continue;
        if (x[i] >= threshold) {
            ids[n++] = i;
        } else {
            x[i] = -INFINITY;
            cut[i] = (uint8_t)stage;
        }
    }
    c->n = n;
    c->listed = 1;
}

/* Penalties and biases keep logits finite: an overflow must not turn a
 * token into +inf (or into a -inf no stage claimed). */
float sp_clamp_finite(float x) {
    if (x > FLT_MAX) return FLT_MAX;
    if (x < -FLT_MAX) return -FLT_MAX;
    return x;
}

void sp_cands_penalized(sp_candidates *c, int id) {
    sp_sampler *s = c->s;
    if (s->pen_mark[id]) return;
    s->pen_mark[id] = 1;
    s->penalized[s->n_penalized++] = id;
}

void sp_cands_cut(sp_candidates *c, int id, sp_cut stage) {
    c->logits[id] = -INFINITY;
    c->cut[id] = (uint8_t)stage;
}

/* Gathers the candidates' logits, subtracts their max and exponentiates:
 * cand_exp[j] = exp(logit[ids[j]] - max).  Returns max; *z gets the sum of
 * the exps in list order (double).  The gathered logits: cand_x. */
float sp_cands_exp(sp_candidates *c, double *z) {
    float *ce = c->s->cand_exp;
    const float *x = c->logits, *cl = x;
    const int *ids = c->ids;
    int n = c->n, count;
    if (n != c->vocab) { /* the whole vocabulary, ids[j] = j, needs none */
        float *gathered = c->s->cand_logit;
        for (int j = 0; j < n; j++) gathered[j] = x[ids[j]];
        cl = gathered;
    }
    c->s->cand_x = cl;
    float m = sp_max(cl, n), top;
    sp_exp_shift_sum(cl, m, ce, n);
    /* the exps' sum in double, one by one in list order (those bits) */
    *z = sp_sum_finite(ce, n, &count, &top);
    return m;
}

static int item_less(const sp_sel_item *a, const sp_sel_item *b) {
    return a->key < b->key || (a->key == b->key && a->id < b->id);
}

static void item_swap(sp_sel_item *a, sp_sel_item *b) {
    sp_sel_item t = *a;
    *a = *b;
    *b = t;
}

/* Reorders it[0..n) so that it[0..m) are the m smallest items by (key, id),
 * m being the fewest whose masses reach target; returns m (>= 1; n when the
 * total falls short).  Quickselect-style partitioning with a median-of-three
 * pivot (deterministic): expected O(n), and only the last few items around
 * the boundary get sorted. */
static int select_mass_prefix(sp_sel_item *it, int n, double target) {
    int lo = 0, hi = n;
    double acc = 0.0; /* mass of it[0..lo), all certainly selected */
    while (hi - lo > 16) {
        int mid = lo + (hi - lo) / 2, last = hi - 1;
        if (item_less(&it[mid], &it[lo])) item_swap(&it[mid], &it[lo]);
        if (item_less(&it[last], &it[lo])) item_swap(&it[last], &it[lo]);
        if (item_less(&it[mid], &it[last])) item_swap(&it[mid], &it[last]);
        /* now it[last] holds the median of the three: the pivot */
        int store = lo;
        double mass_less = 0.0;
        for (int j = lo; j < last; j++) {
            if (item_less(&it[j], &it[last])) {
                item_swap(&it[j], &it[store]);
                mass_less += it[store].mass;
                store++;
            }
        }
        item_swap(&it[store], &it[last]);
        if (acc + mass_less >= target) {
            hi = store; /* the prefix ends among the smaller items */
        } else {
            acc += mass_less + it[store].mass;
            if (acc >= target) return store + 1;
            lo = store + 1;
        }
    }
    for (int i = lo + 1; i < hi; i++) /* insertion sort of the rest */
        for (int j = i; j > lo && item_less(&it[j], &it[j - 1]); j--)
            item_swap(&it[j], &it[j - 1]);
    for (int j = lo; j < hi; j++) {
        acc += it[j].mass;
        if (acc >= target) return j + 1;
    }
    return hi > 0 ? hi : 1;
}

/* Keeps the first m items of sel (as chosen by select_mass_prefix) and cuts
 * every other candidate with `stage`. */
static void keep_selected(sp_candidates *c, int m, sp_cut stage) {
    sp_sel_item *sel = c->s->sel;
    for (int j = m; j < c->n; j++) sp_cands_cut(c, sel[j].id, stage);
    sp_cands_compact(c);
}

/* s->logits = s->work = logits, and cut = SP_CUT_MASK where a logit is -inf,
 * SP_CUT_NONE elsewhere; the logits' check, their max and the maxima of
 * their groups of s->gmax_size (s->gmax): one pass, sixteen tokens at a
 * time, where a check-and-max pass, memcpy, memcpy, memset, a marking loop
 * and top-k's pass for the groups took six (the hot loops at V = 32 000;
 * bench/); the marking loop only when a lane's sum says a -inf is there.  Returns the first token that is NaN or +inf
 * (sp_find_not_below's), or -1 and the max into *max (sp_max's bits: a
 * nonzero max is one value whatever order finds it; a zero, whose sign the
 * order decides, is sp_max's own).  The copies are made before the check:
 * a warp that fails leaves s->logits, s->work and s->cut written. */
static int intake(sp_sampler *s, const float *logits, int v, float *max) {
    /* the buffers in locals: a vector store may alias anything, so fields
     * read through s would be read again after every store */
    float *copy = s->logits, *work = s->work, *gmax = s->gmax;
    uint8_t *cut = s->cut;
    int size = s->gmax_size, groups = s->gmax_groups;
    vec4 ninf = v4_splat(-INFINITY);
    /* A NaN or a +inf shows in a sum: NaN stays NaN, +inf stays +inf or
     * meets a -inf and makes NaN.  So lanes that sum to something finite
     * or -inf saw neither; a lane that sums to NaN or +inf (or overflows)
     * sends us to the exact check. */
    vec4 sum = v4_splat(0.0f), acc = ninf;
    int i = 0;
    for (int g = 0; g < groups; g++) {
        int end = g == groups - 1 ? v - v % 16 : (g + 1) * size;
        vec4 a0 = ninf, a1 = ninf, a2 = ninf, a3 = ninf;
        for (; i < end; i += 16) {
            vec4 x0 = v4_load(logits + i), x1 = v4_load(logits + i + 4);
            vec4 x2 = v4_load(logits + i + 8), x3 = v4_load(logits + i + 12);
            sum = v4_add(sum, v4_add(v4_add(x0, x1), v4_add(x2, x3)));
            a0 = v4_max(x0, a0);
            a1 = v4_max(x1, a1);
            a2 = v4_max(x2, a2);
            a3 = v4_max(x3, a3);
            v4_store(copy + i, x0);
            v4_store(copy + i + 4, x1);
            v4_store(copy + i + 8, x2);
            v4_store(copy + i + 12, x3);
            v4_store(work + i, x0);
            v4_store(work + i + 4, x1);
            v4_store(work + i + 8, x2);
            v4_store(work + i + 12, x3);
            memset(cut + i, SP_CUT_NONE, 16); /* the -inf ones: below */
        }
        vec4 top = v4_max(v4_max(a0, a1), v4_max(a2, a3));
        acc = v4_max(top, acc);
        float m = -INFINITY;
        for (int l = 0; l < 4; l++) m = v4_lane(top, l) > m ? v4_lane(top, l) : m;
        gmax[g] = m;
        s->gmax_stale[g] = 0;
    }
    int good = v4_all(v4_lt(sum, v4_splat(INFINITY)));
    /* a -inf logit (a masked token) makes its lane's sum -inf too (or
     * NaN, with a +inf: then the logits fail anyway); the marks for them
     * only then, a pass of their own (a model that masks is rare) */
    if (!v4_all(v4_gt(sum, ninf)))
        for (int j = 0; j < v - v % 16; j++)
            if (logits[j] == -INFINITY) cut[j] = SP_CUT_MASK;
    float m = -INFINITY;
    for (int l = 0; l < 4; l++) m = v4_lane(acc, l) > m ? v4_lane(acc, l) : m;
    for (; i < v; i++) { /* the tail: the last group's */
        copy[i] = work[i] = logits[i];
        cut[i] = logits[i] == -INFINITY ? SP_CUT_MASK : SP_CUT_NONE;
        good &= logits[i] < INFINITY;
        m = logits[i] > m ? logits[i] : m;
        if (logits[i] > gmax[groups - 1]) gmax[groups - 1] = logits[i];
    }
    if (!good) {
        int bad = sp_find_not_below(logits, INFINITY, v);
        if (bad >= 0) return bad;
    }
    /* short vectors, and a zero whose sign the order decides: sp_max
     * itself */
    *max = v < 64 || m == 0.0f ? sp_max(logits, v) : m;
    return -1;
}

/* The groups of the intake's maxima: top-k's (dense_kth) when top-k is on
 * and they are large enough, else 256 tokens (for the argmax); one group
 * in the scalar build, where a float max is a branch and per-group maxima
 * change often. */
static int top_k_group_size(int v, int k) {
    return k > 0 && k < v ? (v / (4 * k)) & ~15 : 0;
}

static void gmax_layout(sp_sampler *s, int v, int k) {
    int size = top_k_group_size(v, k);
    if (size < 32) size = 256;
    if (SP_VEC4_LANES_ARE_SCALAR || size > v) size = v;
    s->gmax_size = size;
    s->gmax_groups = v / size; /* >= 1: the last runs on to v */
}

/* A stage changed token id's working logit from old to new: the intake's
 * group maxima follow it (a group whose maximum went down is recomputed
 * before top-k reads it). */
static void gmax_moved(sp_sampler *s, int id, float old, float new_) {
    int g = id / s->gmax_size;
    if (g >= s->gmax_groups) g = s->gmax_groups - 1;
    if (new_ > s->gmax[g]) s->gmax[g] = new_;
    else if (old == s->gmax[g] && new_ < old) s->gmax_stale[g] = 1;
}

/* ---------------------------------------------------------------- warpers */

static void warp_constraint(sp_candidates *c, const sp_params *p) {
    (void)p;
    if (!c->allowed) return;
    for (int i = 0; i < c->vocab; i++)
        if (!c->allowed[i] && c->cut[i] == SP_CUT_NONE)
            sp_cands_cut(c, i, SP_CUT_CONSTRAINT);
}

void sp_stage_bias(sp_candidates *c, const sp_params *p) {
    int banned = 0;
    for (int i = 0; i < p->n_bias; i++) {
        int id = p->bias[i].token;
        if (c->cut[id] != SP_CUT_NONE) continue;
        if (p->bias[i].value == -INFINITY) {
            sp_cands_cut(c, id, SP_CUT_BIAS);
            banned = 1;
        } else {
            c->logits[id] = sp_clamp_finite(c->logits[id] + p->bias[i].value);
        }
    }
    /* a chain may put the bias after a cutoff stage: keep its list exact */
    if (banned && c->listed) sp_cands_compact(c);
}

static void warp_repetition_penalty(sp_candidates *c, const sp_params *p) {
    /* CTRL (Keskar et al. 2019): each distinct token of the window once */
    float r = p->repetition_penalty;
    if (r == 1.0f) return;
    int *seen = c->s->counts;
    for (int i = 0; i < c->n_history; i++) {
        int id = c->history[i];
        if (seen[id]++) continue;
        float x = c->logits[id];
        if (x != -INFINITY) {
            c->logits[id] = sp_clamp_finite(x > 0.0f ? x / r : x * r);
            gmax_moved(c->s, id, x, c->logits[id]);
        }
        sp_cands_penalized(c, id);
    }
    for (int i = 0; i < c->n_history; i++) seen[c->history[i]] = 0;
}

static void warp_frequency_presence(sp_candidates *c, const sp_params *p) {
    /* OpenAI's: logit -= count * frequency + (count > 0) * presence */
    float f = p->frequency_penalty, pres = p->presence_penalty;
    if (f == 0.0f && pres == 0.0f) return;
    int *count = c->s->counts;
    for (int i = 0; i < c->n_history; i++) count[c->history[i]]++;
    for (int i = 0; i < c->n_history; i++) {
        int id = c->history[i];
        if (!count[id]) continue; /* already done */
        float x = c->logits[id];
        if (x != -INFINITY) {
            c->logits[id] = sp_clamp_finite(x - ((float)count[id] * f + pres));
            gmax_moved(c->s, id, x, c->logits[id]);
        }
        count[id] = 0;
        sp_cands_penalized(c, id);
    }
}

/* The penalties stage: the repetition penalty, then frequency and
 * presence, over the penalty window. */
void sp_stage_penalties(sp_candidates *c, const sp_params *p) {
    warp_repetition_penalty(c, p);
    warp_frequency_presence(c, p);
}

/* Greedy: the largest candidate logit alone (ties -> the lowest id). */
static void keep_argmax(sp_candidates *c, float m) {
    int best = sp_scan_ge(c->logits, m, 0, c->vocab);
    for (int i = 0; i < c->vocab; i++)
        if (i != best && c->cut[i] == SP_CUT_NONE)
            sp_cands_cut(c, i, SP_CUT_TEMPERATURE);
    c->ids[0] = best;
    c->n = 1;
    c->listed = 1;
}

/* Dynamic temperature (entropy-based, as llama.cpp's temp_ext): the
 * temperature moves within [T - range, T + range] with the alive tokens'
 * normalized entropy raised to exp.  Returns the temperature to use. */
static float dynamic_temperature(sp_candidates *c, const sp_params *p) {
    sp_cands_list(c);
    if (c->n <= 1) return 1.0f; /* one token or none: nothing to scale */
    double z;
    float m = sp_cands_exp(c, &z);
    const float *cl = c->s->cand_x, *ce = c->s->cand_exp;
    double log_z = sp_log(z); /* the entropy in nats: */
    double h = sp_entropy_nats(ce, cl, c->n, z, m, log_z);
    double h_max = sp_log((double)c->n);
    double lo = p->temperature - p->dynatemp_range;
    double hi = (double)p->temperature + p->dynatemp_range;
    if (lo < 0.0) lo = 0.0;
    double share = h > 0.0 ? h / h_max : 0.0;
    return (float)(lo + (hi - lo) * (share > 0.0 ? sp_pow(share, p->dynatemp_exp) : 0.0));
}

/* The temperature the stage uses: T, or dynamic temperature's.  Returns 0
 * when the stage has nothing to do (one token or none left, as llama.cpp
 * returns too). */
static int temperature_value(sp_candidates *c, const sp_params *p, float *t) {
    *t = p->temperature;
    if (p->dynatemp_range > 0.0f) {
        if (!c->listed) sp_cands_list(c);
        if (c->n <= 1) return 0;
        *t = dynamic_temperature(c, p);
    }
    return 1;
}

/* The temperature stage's work at temperature t.  With `snap` (the step
 * record's probs_tempered, when the chain takes its snapshot right after
 * this stage), a temperature that divides takes the snapshot in the same
 * pass: after the division the largest working logit is (max - max) / T
 * = 0 (every other one is <= 0), so the snapshot's exp(x - 0) is exp(x) (a
 * -0 gives exp(+-0) = 1 either way), the same bits as the snapshot's own
 * pass computes after a pass for that max.  Returns 1 when it took the
 * snapshot. */
static int apply_temperature(sp_candidates *c, float t, float *snap) {
    if (t == 1.0f) return 0;
    float m = sp_max(c->logits, c->vocab);
    if (m == -INFINITY) return 0; /* nothing left */
    if (t <= 0.0f) { /* greedy: the argmax alone */
        keep_argmax(c, m);
        return 0;
    }
    if (c->sign_later) {
        /* a later stage reads the sign (the repetition penalty): x / T as
         * llama.cpp divides, each logit keeping its sign; a tiny T cannot
         * make +inf (clamped), -inf stays -inf */
        float *x = c->logits;
        for (int i = 0; i < c->vocab; i++)
            if (x[i] != -INFINITY) x[i] = sp_clamp_finite(x[i] / t);
        return 0;
    }
    /* (x - max) / T: the same distribution as x / T, but a tiny T cannot
     * overflow to +inf (every value is <= 0); -inf stays -inf */
    if (!snap) {
        sp_sub_div(c->logits, m, t, c->vocab);
        return 0;
    }
    c->s->snap_z = sp_sub_div_exp_sum(c->logits, m, t, snap, c->vocab);
    c->s->snap_waits = 1; /* the division: raw_softmax or the warp's end */
    return 1;
}

void sp_stage_temperature(sp_candidates *c, const sp_params *p) {
    float t;
    if (temperature_value(c, p, &t)) apply_temperature(c, t, NULL);
}

static void heap_sift_down(float *h, int n, int i) {
    for (;;) {
        int l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && h[l] < h[m]) m = l;
        if (r < n && h[r] < h[m]) m = r;
        if (m == i) return;
        float t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

static void heap_push(float *h, int n, float x) {
    int i = n;
    h[i] = x;
    while (i > 0) {
        int parent = (i - 1) / 2;
        if (!(h[i] < h[parent])) break;
        float t = h[i];
        h[i] = h[parent];
        h[parent] = t;
        i = parent;
    }
}

/* The k-th largest of the values != -inf among vals[0..n) (at least k of
 * them): a min-heap of the k largest seen so far; returns its root. */
static float heap_kth(float *heap, const float *vals, int n, int k) {
    int hn = 0, j = 0;
    for (; j < n && hn < k; j++)
        if (vals[j] != -INFINITY) heap_push(heap, hn++, vals[j]);
    for (; j < n; j++) {
        if (vals[j] > heap[0]) {
            heap[0] = vals[j];
            heap_sift_down(heap, hn, 0);
        }
    }
    return heap[0];
}

/* The heap over the whole of x, a vector scan skipping the blocks that
 * cannot enter it (the way for a k that is large next to v): 0 when fewer
 * than k values are finite. */
static int scan_kth(float *heap, const float *x, int v, int k, float *kth,
                    float *max) {
    int hn = 0, i = 0;
    for (; i < v && hn < k; i++)
        if (x[i] != -INFINITY) heap_push(heap, hn++, x[i]);
    if (hn < k) return 0;
    for (i = sp_scan_gt(x, heap[0], i, v); i < v;
         i = sp_scan_gt(x, heap[0], i + 1, v)) {
        heap[0] = x[i];
        heap_sift_down(heap, hn, 0);
    }
    float m = heap[0];
    for (int j = 1; j < hn; j++) m = heap[j] > m ? heap[j] : m;
    *kth = heap[0];
    *max = m;
    return 1;
}

/*
 * The k-th largest finite value of x[0..v) (ties counted: the value top-k
 * keeps every token at or above) into *kth, and the largest into *max;
 * returns 0 when fewer than k values are finite.
 *
 * Without a heap over the whole vocabulary (it took ~k ln(V/k) sifts, each
 * a string of unpredictable branches: the plain step's biggest cost).
 * Instead: cut x into about 4k groups of equal size and take each group's
 * largest (a vector pass).  The k-th largest of those, tau, is the k-th
 * largest of k tokens at least, so the k-th largest token is >= tau; the
 * tokens >= tau (about 1.2 k of them: only groups whose largest reaches
 * tau can hold one) are gathered, and the heap runs on them alone.  Any
 * exact selection finds the same k-th value, so the kept set is the
 * heap's.  Groups smaller than two blocks (a k large next to v), or too
 * few groups with a finite value, take the heap over everything; so does
 * the scalar build, where the groups' maxima cost more than the heap (in
 * V8's scalar code a float max is a branch, and within a group it often
 * goes the other way).
 */
static int dense_kth(sp_sampler *s, const float *x, int v, int k, float *kth,
                     float *max, int intake_groups) {
    int size = top_k_group_size(v, k); /* whole blocks of 16 */
    if (size < 32 || s->reference || SP_VEC4_LANES_ARE_SCALAR)
        return scan_kth(s->heap, x, v, k, kth, max);
    int groups = v / size; /* the last one takes the remainder */
    float *gmax = s->cand_exp, *cand = s->cand_logit; /* scratch here */
    if (intake_groups && size == s->gmax_size) {
        /* x is the working logits, changed since the intake by the
         * penalties alone: its maxima, those that went down recomputed */
        gmax = s->gmax;
        for (int g = 0; g < groups; g++) {
            if (!s->gmax_stale[g]) continue;
            int end = g == groups - 1 ? v : (g + 1) * size;
            sp_group_max(x + g * size, end - g * size, end - g * size, 1,
                         gmax + g);
            s->gmax_stale[g] = 0;
        }
    } else {
        sp_group_max(x, v, size, groups, gmax);
    }
    int finite = 0;
    float m = -INFINITY;
    for (int g = 0; g < groups; g++) {
        finite += gmax[g] != -INFINITY;
        m = gmax[g] > m ? gmax[g] : m;
    }
    if (finite < k) return scan_kth(s->heap, x, v, k, kth, max);
    float tau = heap_kth(s->heap, gmax, groups, k);
    vec4 tv = v4_splat(tau);
    int n = 0;
    for (int g = 0; g < groups; g++) {
        if (gmax[g] < tau) continue;
        int i = g * size, end = g == groups - 1 ? v : i + size;
        for (; i + 16 <= end; i += 16) {
            const float *xb = x + i;
            vec4 hit = v4_or(v4_or(v4_ge(v4_load(xb), tv),
                                   v4_ge(v4_load(xb + 4), tv)),
                             v4_or(v4_ge(v4_load(xb + 8), tv),
                                   v4_ge(v4_load(xb + 12), tv)));
            if (!v4_any(hit)) continue;
            for (int j = 0; j < 16; j++)
                if (xb[j] >= tau) cand[n++] = xb[j];
        }
        for (; i < end; i++)
            if (x[i] >= tau) cand[n++] = x[i];
    }
    *kth = heap_kth(s->heap, cand, n, k);
    *max = m;
    return 1;
}

/* The k-th largest of the candidates' logits, or -INFINITY when there are
 * at most k candidates (fewer than k on the dense logits). */
static float kth_largest(const sp_candidates *c, int k) {
    float kth, max;
    if (c->listed) {
        if (c->n <= k) return -INFINITY;
        /* the listed logits side by side (a listed one may be -inf: a
         * temperature's overflow; with fewer than k finite ones the k-th
         * largest is -inf, and dense_kth says so) */
        float *vals = c->s->listed_logits;
        for (int j = 0; j < c->n; j++) vals[j] = c->logits[c->ids[j]];
        return dense_kth(c->s, vals, c->n, k, &kth, &max, 0) ? kth
                                                              : -INFINITY;
    }
    return dense_kth(c->s, c->logits, c->vocab, k, &kth, &max, 0) ? kth
                                                                  : -INFINITY;
}

/* The temperature's map of a logit, (x - max) / t, as sp_sub_div computes
 * it: nondecreasing in x (each operation is correctly rounded). */
static float tempered(float x, float max, float t) { return (x - max) / t; }

/* Top-k's cut on the dense logits: the tokens whose logit is >= keep_from
 * stay (tempered when t != 1: temperature_top_k, which never runs at
 * t = 1) and make the candidate list; every other one not cut before is
 * cut.  Sixteen tokens at a time: a block where none stays and none was cut
 * before (nearly all of them) is cut whole, exactly as sp_cands_cut would
 * -- its -inf written only when a later stage reads the working logits
 * (c->read_later: the stores were a third of the pass) -- and any other
 * block goes token by token.  (The buffers in locals: a vector store may
 * alias anything.) */
static void top_k_cut(sp_candidates *c, float keep_from, float max, float t) {
    float *x = c->logits;
    uint8_t *cut = c->cut;
    int *ids = c->ids, v = c->vocab, n = 0, i = 0;
    int read_later = c->read_later || c->s->reference;
    vec4 kv = v4_splat(keep_from), ninf = v4_splat(-INFINITY);
    for (; i + 16 <= v; i += 16) {
        float *xb = x + i;
        vec4 keep = v4_or(v4_or(v4_ge(v4_load(xb), kv),
                                v4_ge(v4_load(xb + 4), kv)),
                          v4_or(v4_ge(v4_load(xb + 8), kv),
                                v4_ge(v4_load(xb + 12), kv)));
        uint64_t cut0, cut1; /* SP_CUT_NONE is 0 */
        memcpy(&cut0, cut + i, 8);
        memcpy(&cut1, cut + i + 8, 8);
        if (!v4_any(keep) && (cut0 | cut1) == 0) {
            if (read_later) {
                v4_store(xb, ninf);
                v4_store(xb + 4, ninf);
                v4_store(xb + 8, ninf);
                v4_store(xb + 12, ninf);
            }
            memset(cut + i, SP_CUT_TOP_K, 16);
            continue;
        }
        for (int j = i; j < i + 16; j++) {
            if (x[j] >= keep_from) {
                if (t != 1.0f) x[j] = tempered(x[j], max, t);
                ids[n++] = j;
            } else if (cut[j] == SP_CUT_NONE) {
                x[j] = -INFINITY;
                cut[j] = SP_CUT_TOP_K;
            } /* else already -inf, and -inf tempered is -inf */
        }
    }
    for (; i < v; i++) {
        if (x[i] >= keep_from) {
            if (t != 1.0f) x[i] = tempered(x[i], max, t);
            ids[n++] = i;
        } else if (cut[i] == SP_CUT_NONE) {
            x[i] = -INFINITY;
            cut[i] = SP_CUT_TOP_K;
        }
    }
    c->n = n;
    c->listed = 1;
}

void sp_stage_top_k(sp_candidates *c, const sp_params *p) {
    int k = p->top_k;
    if (k <= 0 || k >= c->vocab) return;
    /* A list of the whole vocabulary (dynamic temperature lists every
     * token, cutting none) is the dense logits: every token a candidate,
     * none cut before.  The dense way gives the same threshold and cuts
     * the same tokens (a listed -inf, the temperature's overflow, is cut
     * both ways), without the walk through the list. */
    int whole = c->listed && c->n == c->vocab && !c->s->reference;
    if (whole) c->listed = 0;
    float kth = kth_largest(c, k);
    if (kth == -INFINITY) { /* at most k candidates: nothing to cut */
        c->listed |= whole;
        return;
    }
    /* every token >= the k-th largest stays: ties at the boundary are kept */
    if (c->listed) {
        sp_cands_keep_at_least(c, kth, SP_CUT_TOP_K);
        return;
    }
    top_k_cut(c, kth, 0.0f, 1.0f);
}

/* The floats in their numeric order as unsigned keys (-0 just below +0). */
static uint32_t float_key(float x) {
    uint32_t b;
    memcpy(&b, &x, 4);
    return b & 0x80000000u ? ~b : b | 0x80000000u;
}

static float key_float(uint32_t k) {
    uint32_t b = k & 0x80000000u ? k & 0x7fffffffu : ~k;
    float x;
    memcpy(&x, &b, 4);
    return x;
}

/* The smallest finite float x <= hi with tempered(x) >= target, given that
 * tempered(hi) >= target: a bisection over the floats' order. */
static float lowest_reaching(float target, float max, float t, float hi) {
    uint32_t lo_k = float_key(-FLT_MAX), hi_k = float_key(hi);
    if (tempered(-FLT_MAX, max, t) >= target) return -FLT_MAX;
    while (hi_k - lo_k > 1) { /* tempered(lo) < target <= tempered(hi) */
        uint32_t mid = lo_k + (hi_k - lo_k) / 2;
        if (tempered(key_float(mid), max, t) >= target) hi_k = mid;
        else lo_k = mid;
    }
    return key_float(hi_k);
}

/*
 * The temperature followed by top-k, with no stage between them and no
 * snapshot of the tempered distribution (the plain generation's path):
 * the temperature's max and its division of every logit by T are two
 * passes over the vocabulary, and top-k then keeps about k of the tokens.
 * Since x -> (x - max) / T never decreases, the k-th largest tempered logit
 * is the tempered k-th largest logit, and the tokens top-k keeps are those
 * whose logit reaches the lowest x that maps onto it; so the heap and the
 * cut run on the logits as they are, the max is the heap's largest, and
 * only the kept tokens get divided.  Same kept set, same values, same cut
 * marks as the two stages one after the other (bench/ and the warp
 * differential test hold it to that).  Returns 0, having changed nothing,
 * where the two stages must run as such.
 */
static int temperature_top_k(sp_candidates *c, int k, float t,
                             int intake_groups) {
    /* a list of the whole vocabulary (dynamic temperature's) is the dense
     * logits: every token a candidate, none cut (sp_stage_top_k) */
    if ((c->listed && c->n != c->vocab) || t == 1.0f || !(t > 0.0f) ||
        k <= 0 || k >= c->vocab)
        return 0;
    float *x = c->logits;
    /* the k-th largest finite logit (kth_largest's, on x itself) and the
     * largest */
    float kth_x, m;
    if (!dense_kth(c->s, x, c->vocab, k, &kth_x, &m, intake_groups))
        return 0; /* at most k candidates: top-k cuts nothing */
    /* the temperature's max is the largest (the same value as sp_max's; a
     * zero could be either sign there, so ask sp_max) */
    if (m == 0.0f) m = sp_max(x, c->vocab);
    /* top-k's candidates are the logits whose tempered value is finite:
     * when one of the k largest is not, the stages must run as such */
    if (kth_x < lowest_reaching(-FLT_MAX, m, t, m)) return 0;
    float kth = tempered(kth_x, m, t);
    float keep_from = lowest_reaching(kth, m, t, kth_x);
    /* top-k's cut, as in sp_stage_top_k, with the kept tokens tempered */
    top_k_cut(c, keep_from, m, t);
    return 1;
}

/* The stage at position i + 1 of the chain (i + 1 < its length). */
static int next_stage(const sp_params *p, int i) {
    return p->n_order ? p->order[i + 1] : i + 1;
}

/* Where the chain's stage at position i is the temperature and the next
 * stage that does anything is top-k: that stage's position, else -1. */
/* Whether a stage after position i of the chain reads the working logits
 * token by token: the temperature (its max, its division), the penalties
 * and DRY (a logit of -inf is one they leave alone).  The others go by the
 * list and the cut marks. */
/* Whether a stage after position i of the chain reads a logit's sign: the
 * repetition penalty (x > 0 ? x / r : x * r).  The temperature before it
 * must then leave x / T (apply_temperature). */
static int sign_later(const sp_params *p, int n_stages, int i) {
    if (p->repetition_penalty == 1.0f) return 0;
    for (int j = i + 1; j < n_stages; j++)
        if ((p->n_order ? p->order[j] : j) == SP_STAGE_PENALTIES) return 1;
    return 0;
}

static int read_later(const sp_params *p, int n_stages, int i) {
    for (int j = i + 1; j < n_stages; j++) {
        int stage = p->n_order ? p->order[j] : j;
        if ((stage == SP_STAGE_TEMPERATURE || stage == SP_STAGE_PENALTIES ||
             stage == SP_STAGE_DRY) &&
            sp_stage_active(p, stage))
            return 1;
    }
    return 0;
}

/* Whether the working logits are the intake's but for the penalties
 * (which keep the intake's group maxima up) before position i: no
 * constraint, no other stage on before it. */
static int only_penalties_before(const sp_candidates *c, const sp_params *p,
                                 int i) {
    if (c->allowed) return 0;
    for (int j = 0; j < i; j++) {
        int stage = p->n_order ? p->order[j] : j;
        if (stage != SP_STAGE_PENALTIES && sp_stage_active(p, stage))
            return 0;
    }
    return 1;
}

static int top_k_follows(const sp_params *p, int n_stages, int i) {
    for (int j = i + 1; j < n_stages; j++) {
        int stage = p->n_order ? p->order[j] : j;
        if (stage == SP_STAGE_TOP_K) return j;
        if (sp_stage_active(p, stage)) return -1;
    }
    return -1;
}

void sp_stage_top_p(sp_candidates *c, const sp_params *p) {
    if (p->top_p >= 1.0f) return;
    sp_cands_list(c);
    if (c->n <= 1) return;
    double z;
    sp_cands_exp(c, &z);
    sp_sel_item *sel = c->s->sel;
    for (int j = 0; j < c->n; j++) {
        sel[j].mass = c->s->cand_exp[j];
        sel[j].key = -c->s->cand_exp[j]; /* most probable first */
        sel[j].id = c->ids[j];
    }
    int m = select_mass_prefix(sel, c->n, (double)p->top_p * z);
    keep_selected(c, m, SP_CUT_TOP_P);
}

void sp_stage_min_p(sp_candidates *c, const sp_params *p) {
    if (p->min_p <= 0.0f) return;
    sp_cands_list(c);
    if (c->n <= 1) return;
    double z;
    sp_cands_exp(c, &z);
    /* p_i / p_max = exp(x_i - max) = cand_exp[j]; the max itself is 1 */
    for (int j = 0; j < c->n; j++)
        if (c->s->cand_exp[j] < p->min_p)
            sp_cands_cut(c, c->ids[j], SP_CUT_MIN_P);
    sp_cands_compact(c);
}

void sp_stage_typical_p(sp_candidates *c, const sp_params *p) {
    /* Meister et al. 2022, "Locally typical sampling": keep the tokens whose
     * surprisal -log p is closest to the entropy H, fewest first, until
     * their mass reaches typical_p */
    if (p->typical_p >= 1.0f) return;
    sp_cands_list(c);
    if (c->n <= 1) return;
    double z;
    float m = sp_cands_exp(c, &z);
    double log_z = sp_log(z);
    const float *cl = c->s->cand_x, *ce = c->s->cand_exp;
    /* H = -sum p log p, with log p_j = (x_j - m) - log z */
    double h = sp_entropy_nats(ce, cl, c->n, z, m, log_z);
    sp_sel_item *sel = c->s->sel;
    for (int j = 0; j < c->n; j++) {
        double surprisal = log_z - ((double)cl[j] - m);
        sel[j].mass = ce[j];
        sel[j].key = (float)fabs(surprisal - h);
        sel[j].id = c->ids[j];
    }
    int kept = select_mass_prefix(sel, c->n, (double)p->typical_p * z);
    keep_selected(c, kept, SP_CUT_TYPICAL_P);
}

/* The stages' functions, by sp_stage: their rows' (sampler.h). */
#define ROW_FN(id, name, cut, label, doc, fn, active) fn,
static const sp_stage_fn STAGES[SP_STAGE_ALL] = {SP_STAGE_ALL_ROWS(ROW_FN)};
#undef ROW_FN

/* The first of the cutoff stages (top-nσ ... XTC) in sp_stage's order:
 * just before the chain's first cutoff the step record takes a snapshot of
 * the distribution the cutoffs see (the nucleus view draws its cumulative
 * curve from it). */
#define FIRST_CUTOFF SP_STAGE_TOP_N_SIGMA

/* The temperature stage at position i of the chain, with its shortcuts:
 * with top-k when top-k is the next stage that does anything and no
 * snapshot is to come (temperature_top_k), or with the snapshot when the
 * chain takes it right after (apply_temperature).  Returns the position of
 * the last stage it ran: i, or top-k's. */
static int run_temperature(sp_candidates *c, const sp_params *p, int n_stages,
                           int i, int *snapped) {
    float t;
    if (!temperature_value(c, p, &t)) return i;
    c->sign_later = sign_later(p, n_stages, i);
    if (*snapped && !c->sign_later) { /* no snapshot to come: top-k may
                                       * run with it */
        int at = top_k_follows(p, n_stages, i);
        c->read_later = at >= 0 && read_later(p, n_stages, at);
        if (at >= 0 && temperature_top_k(c, p->top_k, t,
                                         only_penalties_before(c, p, i)))
            return at;
    }
    int snap_next = !*snapped &&
                    (i + 1 == n_stages || next_stage(p, i) >= FIRST_CUTOFF);
    if (apply_temperature(c, t, snap_next ? c->s->probs_tempered : NULL))
        *snapped = 1;
    return i;
}

/* ------------------------------------------------------------ the step */

static double entropy_bits(float z, double weighted) {
    /* H = log Z - sum p (x - m), in bits; never below 0 from rounding */
    double h = (sp_log((double)z) - weighted) / LN2;
    return h > 0.0 ? h : 0.0;
}

/* The raw softmax of the logits (s->logits, their max m): probs_raw, its
 * log z and entropy; the snapshot's waiting division in the same pass as
 * the exps (the divider is idle under them). */
static void raw_softmax(sp_sampler *s, int v, float m) {
    float z;
    if (s->snap_waits) {
        z = sp_exp_sum_div(s->logits, m, s->probs_raw, s->probs_tempered,
                           s->snap_z, v);
        s->snap_waits = 0;
    } else {
        z = sp_exp_shift_sum(s->logits, m, s->probs_raw, v);
    }
    s->raw_log_z = sp_log((double)z);
    s->entropy_raw_bits = entropy_bits(
        z, sp_div_dot_shift_pos(s->probs_raw, z, s->logits, m, v));
    s->raw_valid = 1;
}

/* probs_tempered: the softmax of the working logits as they stand (every
 * cut left -inf in them, so the dense softmax is it); its division waits
 * (snap_waits).  m: the logits' max (raw_softmax's).  Returns 1. */
static int snapshot(sp_sampler *s, int v, float m) {
    /* Nothing has changed the logits (no bias, no penalty, T = 1): this is
     * the raw softmax, which is computed from the same numbers by the same
     * kernels (the max, the exps, their sum, one division each), so its
     * bits are these.  Comparing costs a read, the softmax a pass of exps
     * and one of divisions. */
    if (!s->reference &&
        memcmp(s->work, s->logits, sizeof(float) * (size_t)v) == 0) {
        if (!s->raw_valid) raw_softmax(s, v, m);
        sp_copy(s->probs_tempered, s->probs_raw, v);
        return 1;
    }
    float tm = sp_max(s->work, v);
    if (tm != -INFINITY) {
        s->snap_z = sp_exp_shift_sum(s->work, tm, s->probs_tempered, v);
        s->snap_waits = 1;
    }
    return 1;
}

int sp_sampler_warp(sp_sampler *s, const float *logits, const int *history,
                    int n_history, const sp_params *p, sp_step *step,
                    char *err) {
    int v = s->vocab;
    int rc = sp_params_check_ranges(p, v, err);
    if (rc != SP_OK) return rc;
    if (n_history < 0 || (n_history > 0 && !history))
        return sp_fail(err, SP_ERR_ARG, "history: bad length %d", n_history);
    /* the penalties' window: the last penalty_last_n tokens (0 = all); no
     * penalty, no window, so a long history costs nothing */
    int window = n_history;
    if (p->penalty_last_n > 0 && p->penalty_last_n < window)
        window = p->penalty_last_n;
    if (p->repetition_penalty == 1.0f && p->frequency_penalty == 0.0f &&
        p->presence_penalty == 0.0f)
        window = 0;
    const int *recent = window ? history + (n_history - window) : NULL;
    /* DRY and no-repeat-ngram read the whole history, the penalties their
     * window: every id they read must be in the vocabulary */
    int whole = p->dry_multiplier != 0.0f || p->no_repeat_ngram_size > 0;
    const int *read = whole ? history : recent;
    for (int i = 0, n = whole ? n_history : window; i < n; i++)
        if (read[i] < 0 || read[i] >= v)
            return sp_fail(err, SP_ERR_ARG, "history token %d is outside the "
                           "vocabulary (0..%d)", read[i], v - 1);
    if (p->dry_multiplier != 0.0f && n_history > s->repeat_cap) {
        int *grown = realloc(s->repeat, sizeof(int) * (size_t)n_history);
        if (!grown) return sp_fail(err, SP_ERR_NOMEM, "sampler: out of memory");
        s->repeat = grown;
        s->repeat_cap = n_history;
    }
    /* The raw distribution depends on the logits alone: a warp of the
     * same logits (the step after its preview, a slider moved) finds it
     * where the last one left it; comparing costs a pass, its exps many. */
    int raw_cached = s->want_raw && s->raw_valid &&
                     memcmp(s->logits, logits, sizeof(float) * (size_t)v) == 0;
    float m = -INFINITY;
    gmax_layout(s, v, p->top_k);
    int bad = intake(s, logits, v, &m);
    if (bad >= 0 || m == -INFINITY) s->raw_valid = 0; /* s->logits written */
    if (bad >= 0)
        return sp_fail(err, SP_ERR_LOGITS, "logits: token %d is %s; the "
                       "model's output is not finite", bad,
                       logits[bad] != logits[bad] ? "NaN" : "+inf");
    if (m == -INFINITY)
        return sp_fail(err, SP_ERR_STATE, "logits: every token is masked "
                       "(-inf)");
    /* the argmax, the first token at the max: in the first group whose
     * maximum reaches it */
    int g0 = 0;
    while (g0 < s->gmax_groups - 1 && !(s->gmax[g0] >= m)) g0++;
    int argmax = sp_scan_ge(logits, m, g0 * s->gmax_size, v);
    for (int i = 0; i < s->n_penalized; i++) s->pen_mark[s->penalized[i]] = 0;
    s->n_penalized = 0;

    memset(step, 0, sizeof *step);
    step->vocab = v;
    step->argmax_raw = argmax;
    step->entropy_raw_bits = NAN;
    step->kept_mass = NAN;
    step->raw_max = m;
    step->raw_log_z = NAN;
    /* the raw softmax waits for the end of the chain (raw_softmax), where
     * the snapshot's division can run beside its exps */
    s->raw_valid = s->want_raw && raw_cached;
    s->snap_waits = 0;

    sp_candidates c = {v,      s->allowed, s->work,   s->cut, s->ids, 0, 0,
                       recent, window,     history,   n_history, s, 1, 0};
    warp_constraint(&c, p);
    int n_stages = p->n_order ? p->n_order : SP_STAGE_COUNT;
    int snapped = !s->want_raw;
    for (int i = 0; i < n_stages; i++) {
        int stage = p->n_order ? p->order[i] : i;
        if (!snapped && stage >= FIRST_CUTOFF) snapped = snapshot(s, v, m);
        if (stage == SP_STAGE_TEMPERATURE && !s->reference) {
            i = run_temperature(&c, p, n_stages, i, &snapped);
            continue;
        }
        c.read_later = read_later(p, n_stages, i);
        c.sign_later = sign_later(p, n_stages, i);
        STAGES[stage](&c, p);
    }
    if (sp_stage_active(p, SP_STAGE_MIROSTAT)) { /* the last word, when on */
        if (!snapped) snapped = snapshot(s, v, m);
        STAGES[SP_STAGE_MIROSTAT](&c, p);
    }
    if (!snapped) snapshot(s, v, m);
    sp_cands_list(&c);
    if (c.n == 0)
        return sp_fail(err, SP_ERR_NO_TOKEN, "no token left: every token is "
                       "banned, masked or ruled out by the constraint");

    /* the final softmax, over the candidates only */
    float *cl = s->cand_logit, *ce = s->cand_exp;
    for (int j = 0; j < c.n; j++) cl[j] = s->work[c.ids[j]];
    float cm = sp_max(cl, c.n);
    float z = sp_exp_shift_sum(cl, cm, ce, c.n);
    /* probs is 0 but at the last warp's kept tokens: clearing those is the
     * memset of the whole vocabulary it used to be */
    for (int j = 0; j < s->n_probs; j++) s->probs[s->probs_ids[j]] = 0.0f;
    for (int j = 0; j < c.n; j++) {
        ce[j] = ce[j] / z;
        s->probs[c.ids[j]] = ce[j];
    }
    memcpy(s->probs_ids, c.ids, sizeof(int) * (size_t)c.n);
    s->n_probs = c.n;
    step->entropy_bits = entropy_bits(z, sp_dot_shift_pos(ce, cl, cm, c.n));
    if (s->want_raw) {
        if (!s->raw_valid) raw_softmax(s, v, m);
        if (s->snap_waits) sp_div_scalar(s->probs_tempered, s->snap_z, v);
        s->snap_waits = 0;
        step->raw_log_z = s->raw_log_z;
        step->entropy_raw_bits = s->entropy_raw_bits;
        double mass = 0.0;
        for (int j = 0; j < c.n; j++) mass += s->probs_raw[c.ids[j]];
        step->kept_mass = mass;
    }
    step->logits = s->logits;
    step->probs_raw = s->want_raw ? s->probs_raw : NULL;
    step->probs_tempered = s->want_raw ? s->probs_tempered : NULL;
    step->probs = s->probs;
    step->cut = s->cut;
    step->kept = s->ids;
    step->n_kept = c.n;
    step->penalized = s->penalized;
    step->n_penalized = s->n_penalized;
    step->token = -1;
    step->p_token = 0.0f;
    step->u = NAN;
    return SP_OK;
}

/* (p desc, id asc): the order of the nucleus */
static int ranks_before(const float *p, int a, int b) {
    return p[a] > p[b] || (p[a] == p[b] && a < b);
}

static void top_sift_down(const float *p, int *h, int n, int i) {
    /* a heap whose root is the lowest-ranked of the n kept so far */
    for (;;) {
        int l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && ranks_before(p, h[m], h[l])) m = l;
        if (r < n && ranks_before(p, h[m], h[r])) m = r;
        if (m == i) return;
        int t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

int sp_step_top(const sp_step *st, int n, int *ids, double *cum) {
    const float *p = st->probs_tempered ? st->probs_tempered : st->probs;
    if (n > st->vocab) n = st->vocab;
    if (n <= 0) return 0;
    /* the n best in one pass (a heap of n), then sort only those */
    for (int i = 0; i < n; i++) ids[i] = i;
    for (int i = n / 2 - 1; i >= 0; i--) top_sift_down(p, ids, n, i);
    for (int i = n; i < st->vocab; i++) {
        if (ranks_before(p, i, ids[0])) {
            ids[0] = i;
            top_sift_down(p, ids, n, 0);
        }
    }
    for (int end = n - 1; end > 0; end--) { /* heapsort, worst rank last */
        int t = ids[0];
        ids[0] = ids[end];
        ids[end] = t;
        top_sift_down(p, ids, end, 0);
    }
    double sum = 0.0;
    for (int i = 0; i < n; i++) {
        sum += p[ids[i]];
        cum[i] = sum;
    }
    return n;
}

double sp_step_sample_counts(const sp_step *st, uint64_t seed, int n,
                             int *counts) {
    sp_step copy = *st; /* draws write token, p_token and u */
    sp_rng rng;
    sp_rng_seed(&rng, seed);
    memset(counts, 0, sizeof(int) * (size_t)st->vocab);
    for (int i = 0; i < n; i++) {
        if (sp_sampler_draw(&copy, sp_rng_uniform(&rng)) != SP_OK) return NAN;
        counts[copy.token]++;
    }
    /* KL(empirical || final) in bits: sum of q log2(q / p) over q > 0 */
    double kl = 0.0;
    for (int j = 0; j < st->n_kept; j++) {
        int id = st->kept[j];
        if (!counts[id]) continue;
        double q = (double)counts[id] / n;
        kl += q * (sp_log(q) - sp_log((double)st->probs[id]));
    }
    return kl / LN2;
}

int sp_sampler_draw(sp_step *step, double u) {
    if (!step->probs || step->n_kept <= 0 || !(u >= 0.0 && u < 1.0))
        return SP_ERR_ARG;
    double total = 0.0;
    for (int j = 0; j < step->n_kept; j++) total += step->probs[step->kept[j]];
    double r = u * total, cum = 0.0;
    int token = -1;
    for (int j = 0; j < step->n_kept; j++) {
        int id = step->kept[j];
        cum += step->probs[id];
        if (r < cum) {
            token = id;
            break;
        }
        if (step->probs[id] > 0.0f) token = id; /* rounding: the last one */
    }
    if (token < 0) return SP_ERR_STATE;
    step->token = token;
    step->p_token = step->probs[token];
    step->u = u;
    return SP_OK;
}
