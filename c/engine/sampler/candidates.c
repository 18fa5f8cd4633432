/*
 * candidates.c — the candidates a stage sees: the list of the alive tokens
 * (built when a stage first needs it; the dense stages before it work on
 * the logits in place), cutting and compacting it, their exps, and the
 * prefix of a mass (top-p, typical-p) by partitioning, never by sorting
 * the vocabulary.
 */
#include <float.h>
#include <string.h>

#include "candidates.h"

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
            v4_fill16(xb, ninf);
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
int sp_select_mass_prefix(sp_sel_item *it, int n, double target) {
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

/* Keeps the first m items of sel (as chosen by sp_select_mass_prefix) and cuts
 * every other candidate with `stage`. */
void sp_cands_keep_selected(sp_candidates *c, int m, sp_cut stage) {
    sp_sel_item *sel = c->s->sel;
    for (int j = m; j < c->n; j++) sp_cands_cut(c, sel[j].id, stage);
    sp_cands_compact(c);
}
