/* chain_naive.h — the naive chain's list of candidates for
 * test_chain_diff.c: every token's logit in double (-inf when cut), the
 * stage that cut it, whether a decision fell within rounding of its line,
 * and what a definition needs (softmax, entropy, sorting, a mass's prefix).
 * The stages themselves: chain_naive_stages.h and chain_naive_newer.h. */
#ifndef SP_CHAIN_NAIVE_H
#define SP_CHAIN_NAIVE_H

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sampler.h"

enum { MAXV = 3000 };

/* The naive chain's state: every token's logit (double, -inf when cut)
 * and the code of the stage that cut it. */
typedef struct {
    int v;
    double x[MAXV];
    uint8_t cut[MAXV];
    int on_line; /* a decision within rounding of its line */
    /* a reshaping stage that bends the logits (quadratic sampling,
     * adaptive-p) multiplies the rounding its input carries: each token's
     * final probability may move by slack[i] (relative) more */
    double slack[MAXV];
} naive;

/* Where a decision is this close to its line (relatively), float and
 * double may take it either way. */
#define LINE 1e-5

static int near(double a, double b) {
    double scale = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
    return fabs(a - b) <= LINE * (scale > 1e-30 ? scale : 1e-30);
}

static int alive(const naive *n, int i) { return n->x[i] != -INFINITY; }

/* a penalty keeps a logit a finite float (as the engine's do) */
static double finite_float(double x) {
    return x > FLT_MAX ? FLT_MAX : x < -FLT_MAX ? -FLT_MAX : (float)x;
}

static void cut(naive *n, int i, sp_cut stage) {
    n->x[i] = -INFINITY;
    n->cut[i] = (uint8_t)stage;
}

static int n_alive(const naive *n) {
    int k = 0;
    for (int i = 0; i < n->v; i++) k += alive(n, i);
    return k;
}

/* the softmax of the alive tokens; returns the largest logit */
static double softmax(const naive *n, double *p) {
    double m = -INFINITY, z = 0;
    for (int i = 0; i < n->v; i++) m = n->x[i] > m ? n->x[i] : m;
    for (int i = 0; i < n->v; i++) z += p[i] = alive(n, i) ? exp(n->x[i] - m) : 0;
    for (int i = 0; i < n->v; i++) p[i] /= z;
    return m;
}

/* A bending stage left token i's logit e[i] off (its input's rounding times
 * the stage's slope): p_i moves by e_i and by the mean of the e's it is
 * normalized with. */
static void add_slack(naive *n, const double *e) {
    static double pr[MAXV];
    softmax(n, pr);
    double mean = 0;
    for (int i = 0; i < n->v; i++) mean += alive(n, i) ? pr[i] * e[i] : 0;
    for (int i = 0; i < n->v; i++) n->slack[i] += alive(n, i) ? e[i] + mean : 0;
}

static double entropy(const naive *n, const double *p) {
    double h = 0;
    for (int i = 0; i < n->v; i++)
        if (alive(n, i) && p[i] > 0) h -= p[i] * log(p[i]);
    return h;
}

/* sorting the alive tokens by a key, ties by id */
static const double *sort_key;
static int by_key(const void *a, const void *b) {
    int i = *(const int *)a, j = *(const int *)b;
    if (sort_key[i] != sort_key[j]) return sort_key[i] < sort_key[j] ? -1 : 1;
    return i - j;
}

static int sorted_alive(const naive *n, const double *key, int *ids) {
    int k = 0;
    for (int i = 0; i < n->v; i++)
        if (alive(n, i)) ids[k++] = i;
    sort_key = key;
    qsort(ids, (size_t)k, sizeof *ids, by_key);
    return k;
}

/* Keeps the fewest tokens, in key order, whose mass reaches target (at
 * least one); a prefix whose mass is within rounding of the target, or a
 * token left out whose key is within key_tol of the last one kept, is on
 * a line. */
static void keep_mass_prefix(naive *n, const double *key, const double *p,
                             double target, double key_tol, sp_cut stage) {
    static int ids[MAXV];
    int k = sorted_alive(n, key, ids), m = k;
    double acc = 0;
    for (int j = 0; j < k; j++) {
        acc += p[ids[j]];
        if (near(acc, target)) n->on_line = 1;
        if (acc >= target) {
            m = j + 1;
            break;
        }
    }
    /* a token left out whose key is a rounding from the last one kept
     * may come before it in float */
    for (int j = m; j < k && key[ids[j]] - key[ids[m - 1]] <= key_tol; j++)
        if (key[ids[j]] != key[ids[m - 1]]) n->on_line = 1;
    for (int j = m; j < k; j++) cut(n, ids[j], stage);
}


/* Whether a token on one side of rank `at` of ids[0..k) (sorted by logit
 * desc) has a logit a rounding from, but not equal to, the one across. */
static int edge_near(const naive *n, const int *ids, int k, int at) {
    if (at <= 0 || at >= k) return 0;
    double last = n->x[ids[at - 1]], first = n->x[ids[at]];
    for (int j = at; j < k && near(n->x[ids[j]], last); j++)
        if (n->x[ids[j]] != last) return 1;
    for (int j = at - 1; j >= 0 && near(n->x[ids[j]], first); j--)
        if (n->x[ids[j]] != first) return 1;
    return 0;
}

#endif
