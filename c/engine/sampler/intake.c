/*
 * sp_intake.c — a warp's first pass over the model's logits: the copies, the
 * check for NaN and +inf, the max and the maxima of groups of tokens (the
 * raw argmax's, and top-k's threshold: topk.c), which the penalties keep
 * up as they move logits.
 */
#include <string.h>

#include "candidates.h"

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
int sp_intake(sp_sampler *s, const float *logits, int v, float *max) {
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

/* The groups of the sp_intake's maxima: top-k's (dense_kth) when top-k is on
 * and they are large enough, else 256 tokens (for the argmax); one group
 * in the scalar build, where a float max is a branch and per-group maxima
 * change often. */
int sp_top_k_group_size(int v, int k) {
    return k > 0 && k < v ? (v / (4 * k)) & ~15 : 0;
}

void sp_gmax_layout(sp_sampler *s, int v, int k) {
    int size = sp_top_k_group_size(v, k);
    if (size < 32) size = 256;
    if (SP_VEC4_LANES_ARE_SCALAR || size > v) size = v;
    s->gmax_size = size;
    s->gmax_groups = v / size; /* >= 1: the last runs on to v */
}

/* A stage changed token id's working logit from old to new: the sp_intake's
 * group maxima follow it (a group whose maximum went down is recomputed
 * before top-k reads it). */
void sp_gmax_moved(sp_sampler *s, int id, float old, float new_) {
    int g = id / s->gmax_size;
    if (g >= s->gmax_groups) g = s->gmax_groups - 1;
    if (new_ > s->gmax[g]) s->gmax[g] = new_;
    else if (old == s->gmax[g] && new_ < old) s->gmax_stale[g] = 1;
}
