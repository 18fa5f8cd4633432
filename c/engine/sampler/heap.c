/*
 * heap.c — the sampler's heaps, each written once: the k-th largest of a
 * set of values (a min-heap of the k largest seen: top-k, mirostat v1),
 * and the m best items by rank, best first (the nucleus view's ranks,
 * mirostat v1's top masses).
 */
#include "candidates.h"

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
float sp_heap_kth(float *heap, const float *vals, int n, int k) {
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
int sp_scan_kth(float *heap, const float *x, int v, int k, float *kth,
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

/* (val desc, tie asc): item a ranks before item b (tie NULL: the index) */
static int ranks_before(const float *val, const int *tie, int a, int b) {
    return val[a] > val[b] ||
           (val[a] == val[b] && (tie ? tie[a] < tie[b] : a < b));
}

/* a heap of item indices whose root is the lowest-ranked of those kept */
static void rank_sift_down(const float *val, const int *tie, int *h, int n,
                           int i) {
    for (;;) {
        int l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && ranks_before(val, tie, h[m], h[l])) m = l;
        if (r < n && ranks_before(val, tie, h[m], h[r])) m = r;
        if (m == i) return;
        int t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

int sp_top_ranked(const float *val, const int *tie, int n, int m, int *out) {
    if (m > n) m = n;
    if (m <= 0) return 0;
    /* the m best in one pass (a heap of m), then sort only those */
    for (int i = 0; i < m; i++) out[i] = i;
    for (int i = m / 2 - 1; i >= 0; i--) rank_sift_down(val, tie, out, m, i);
    for (int i = m; i < n; i++) {
        if (ranks_before(val, tie, i, out[0])) {
            out[0] = i;
            rank_sift_down(val, tie, out, m, 0);
        }
    }
    for (int end = m - 1; end > 0; end--) { /* heapsort, worst rank last */
        int t = out[0];
        out[0] = out[end];
        out[end] = t;
        rank_sift_down(val, tie, out, end, 0);
    }
    return m;
}
