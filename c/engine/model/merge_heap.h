/*
 * merge_heap.h — the candidate merges of SentencePiece (spm.c) and
 * byte-level BPE (bytebpe.c): a binary heap that pops the lowest key first,
 * the leftmost pair on equal keys, as llama.cpp's priority queues do.
 * SentencePiece's key is the merged token's score negated (the best score
 * first: negation is exact), byte-level BPE's the merge rule's rank (an
 * integer below 2^24: exact in a float).
 */
#ifndef SP_MERGE_HEAP_H
#define SP_MERGE_HEAP_H

/* Symbols left and right (left's neighbour when pushed) may merge into
 * string `result`, `size` bytes in all. */
typedef struct {
    float key;
    int left, right, size, result;
} sp_merge_candidate;

static inline int sp_merge_before(const sp_merge_candidate *a,
                                  const sp_merge_candidate *b) {
    return a->key < b->key || (a->key == b->key && a->left < b->left);
}

static inline void sp_merge_push(sp_merge_candidate *h, int *n,
                                 sp_merge_candidate c) {
    int i = (*n)++;
    while (i > 0 && sp_merge_before(&c, &h[(i - 1) / 2])) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = c;
}

/* the first candidate, taken out (n > 0) */
static inline sp_merge_candidate sp_merge_pop(sp_merge_candidate *h, int *n) {
    sp_merge_candidate top = h[0], last = h[--*n];
    int i = 0;
    for (;;) {
        int m = 2 * i + 1;
        if (m >= *n) break;
        if (m + 1 < *n && sp_merge_before(&h[m + 1], &h[m])) m++;
        if (!sp_merge_before(&h[m], &last)) break;
        h[i] = h[m];
        i = m;
    }
    if (*n > 0) h[i] = last;
    return top;
}

#endif /* SP_MERGE_HEAP_H */
