/*
 * topk.c — top-k without sorting the vocabulary: the k-th largest logit
 * from the maxima of about 4k groups of tokens and a k-element heap over
 * the few tokens that can reach it (dense_kth), the cut in blocks of
 * sixteen, and the temperature fused with a top-k that follows it.
 */
#include <float.h>
#include <string.h>

#include "candidates.h"

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
    int size = sp_top_k_group_size(v, k); /* whole blocks of 16 */
    if (size < 32 || s->reference || SP_VEC4_LANES_ARE_SCALAR)
        return sp_scan_kth(s->heap, x, v, k, kth, max);
    int groups = v / size; /* the last one takes the remainder */
    float *gmax = s->cand_exp, *cand = s->cand_logit; /* scratch here */
    if (intake_groups && size == s->gmax_size) {
        /* x is the working logits, changed since the sp_intake by the
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
    if (finite < k) return sp_scan_kth(s->heap, x, v, k, kth, max);
    float tau = sp_heap_kth(s->heap, gmax, groups, k);
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
    *kth = sp_heap_kth(s->heap, cand, n, k);
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
 * stay (tempered when t != 1: sp_temperature_top_k, which never runs at
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
            if (read_later) v4_fill16(xb, ninf);
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
int sp_temperature_top_k(sp_candidates *c, int k, float t,
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
