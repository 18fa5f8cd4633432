/*
 * matmul.c — the forward pass's products on vec4: a dot product, a matrix
 * times a vector two rows at a time, and the batched product that walks
 * each weight matrix once for up to SP_BATCH_MAX positions.
 *
 * Every sum is in the canonical order of vec4.h (16 lanes blockwise, a
 * fixed combining tree, then the tail in index order), so the WASM SIMD,
 * SSE2 and scalar builds compute the same bits.  Loads are unaligned-safe.
 */
#include <string.h>

#include "internal.h"

float sp_dot(const float *a, const float *b, int n) {
    vec4 a0 = v4_splat(0.0f), a1 = a0, a2 = a0, a3 = a0;
    int i = 0;
    for (; i + 16 <= n; i += 16) {
        a0 = v4_add(a0, v4_mul(v4_load(a + i), v4_load(b + i)));
        a1 = v4_add(a1, v4_mul(v4_load(a + i + 4), v4_load(b + i + 4)));
        a2 = v4_add(a2, v4_mul(v4_load(a + i + 8), v4_load(b + i + 8)));
        a3 = v4_add(a3, v4_mul(v4_load(a + i + 12), v4_load(b + i + 12)));
    }
    float sum = v4_reduce16(a0, a1, a2, a3);
    for (; i < n; i++) sum += a[i] * b[i];
    return sum;
}

/* One input against rows i and i + half (two rows at once: x is loaded
 * once for both). */
static void matmul_tile1(float *out, const float *x, const float *w, int n,
                         int i, int half) {
    const float *w0 = w + (size_t)i * n, *w1 = w0 + (size_t)half * n;
    vec4 z = v4_splat(0.0f);
    vec4 a00 = z, a01 = z, a02 = z, a03 = z;
    vec4 a10 = z, a11 = z, a12 = z, a13 = z;
    int j = 0;
    for (; j + 16 <= n; j += 16) {
        vec4 x0 = v4_load(x + j), x1 = v4_load(x + j + 4);
        vec4 x2 = v4_load(x + j + 8), x3 = v4_load(x + j + 12);
        a00 = v4_add(a00, v4_mul(v4_load(w0 + j), x0));
        a01 = v4_add(a01, v4_mul(v4_load(w0 + j + 4), x1));
        a02 = v4_add(a02, v4_mul(v4_load(w0 + j + 8), x2));
        a03 = v4_add(a03, v4_mul(v4_load(w0 + j + 12), x3));
        a10 = v4_add(a10, v4_mul(v4_load(w1 + j), x0));
        a11 = v4_add(a11, v4_mul(v4_load(w1 + j + 4), x1));
        a12 = v4_add(a12, v4_mul(v4_load(w1 + j + 8), x2));
        a13 = v4_add(a13, v4_mul(v4_load(w1 + j + 12), x3));
    }
    float s0 = v4_reduce16(a00, a01, a02, a03);
    float s1 = v4_reduce16(a10, a11, a12, a13);
    for (; j < n; j++) {
        s0 += w0[j] * x[j];
        s1 += w1[j] * x[j];
    }
    out[i] = s0;
    out[i + half] = s1;
}

/* Two rows at a time, row i and row i + d/2: each block of x is loaded once
 * for both, the eight accumulators are eight independent chains of adds,
 * and the weights stream from two contiguous halves of W.  (Neighbouring
 * rows, i and i + 1, measured 2-4x slower on a matrix that does not fit in
 * the caches: the two streams then keep jumping over each other, and the
 * prefetcher loses them.  Four rows spill the sixteen accumulators of an
 * SSE2 or a V8 build to the stack.)  Each row still is exactly sp_dot: its
 * four accumulators see the same products in the same order, and its
 * reduction and tail are sp_dot's, so every build gets the same bits
 * (tests/c/test_kernels.c). */
void sp_matmul(float *out, const float *x, const float *w, int n, int d) {
    const int half = d / 2;
    for (int i = 0; i < half; i++) matmul_tile1(out, x, w, n, i, half);
    if (d % 2) out[d - 1] = sp_dot(w + (size_t)(d - 1) * n, x, n);
}

/* One tile of sp_matmul_batch: rows i and i + half of W against nb inputs
 * (nb <= SP_MATMUL_TILE, a constant where it is inlined).  Each dot product
 * keeps sp_dot's four accumulators -- lanes 0-3, 4-7, 8-11 and 12-15 of
 * every block of 16 -- but fills them one lane group at a time: for group
 * g, the 2 x nb accumulators of both rows and all inputs take the products
 * of block 0, 1, 2, ... in order, exactly the terms, order and zero start
 * of sp_dot's g-th accumulator.  So each weight vector is loaded once for
 * all nb inputs (2 x nb + 3 registers: an SSE2 or a V8 build does not
 * spill them), and every output is sp_dot's bits. */
#define SP_MATMUL_TILE 4

/* A tile's outputs: for each of its nb inputs, rows i and i + half, each
 * the fold of its four lane-group accumulators (sp_dot's v4_reduce16)
 * plus the tail of the row past the last whole block, in sp_dot's order. */
static inline __attribute__((always_inline)) void
tile_store(float *out, const float *x, const float *w0, const float *w1,
           int n, int d, int i, int half, int nb,
           vec4 acc[2][SP_MATMUL_TILE][4]) {
    const int blocks = n / 16;
    for (int b = 0; b < nb; b++) {
        const float *xb = x + (size_t)b * n;
        float s0 = v4_reduce16(acc[0][b][0], acc[0][b][1], acc[0][b][2],
                               acc[0][b][3]);
        float s1 = v4_reduce16(acc[1][b][0], acc[1][b][1], acc[1][b][2],
                               acc[1][b][3]);
        for (int j = blocks * 16; j < n; j++) {
            s0 += w0[j] * xb[j];
            s1 += w1[j] * xb[j];
        }
        out[(size_t)b * d + i] = s0;
        out[(size_t)b * d + i + half] = s1;
    }
}

static inline __attribute__((always_inline)) void
matmul_tile(float *out, const float *x, const float *w, int n, int d, int i,
            int half, int nb) {
    const float *w0 = w + (size_t)i * n, *w1 = w0 + (size_t)half * n;
    const int blocks = n / 16;
    vec4 acc[2][SP_MATMUL_TILE][4];
    /* one named accumulator per row and input, so that they live in
     * registers; nb is a constant here, so the ifs fold away */
#define SP_TILE_INPUTS(F) F(0) F(1) F(2) F(3)
#define SP_TILE_ZERO(b)                                                   \
    vec4 r0_##b = v4_splat(0.0f), r1_##b = r0_##b;                        \
    const float *x_##b = x + 4 * g + (size_t)(nb > b ? b : 0) * n;
#define SP_TILE_STEP(b)                                                   \
    if (nb > b) {                                                         \
        vec4 xv = v4_load(x_##b);                                         \
        x_##b += 16;                                                      \
        r0_##b = v4_add(r0_##b, v4_mul(wa, xv));                          \
        r1_##b = v4_add(r1_##b, v4_mul(wb, xv));                          \
    }
#define SP_TILE_SAVE(b)                                                   \
    if (nb > b) {                                                         \
        acc[0][b][g] = r0_##b;                                            \
        acc[1][b][g] = r1_##b;                                            \
    }
    for (int g = 0; g < 4; g++) {
        SP_TILE_INPUTS(SP_TILE_ZERO)
        const float *p0 = w0 + 4 * g, *p1 = w1 + 4 * g;
        for (int k = 0; k < blocks; k++) {
            vec4 wa = v4_load(p0), wb = v4_load(p1);
            p0 += 16;
            p1 += 16;
            SP_TILE_INPUTS(SP_TILE_STEP)
        }
        SP_TILE_INPUTS(SP_TILE_SAVE)
    }
#undef SP_TILE_INPUTS
#undef SP_TILE_ZERO
#undef SP_TILE_STEP
#undef SP_TILE_SAVE
    tile_store(out, x, w0, w1, n, d, i, half, nb, acc);
}

/* Two inputs against rows i and i + half: sp_dot's accumulators of lane
 * groups g and g + 1 at once (8 of them: as many independent chains of
 * adds as sp_matmul keeps, which a one-group tile of two inputs would
 * halve), then groups 2 and 3.  Same terms, order and start as sp_dot. */
static void matmul_tile2(float *out, const float *x, const float *w, int n,
                         int d, int i, int half) {
    const float *w0 = w + (size_t)i * n, *w1 = w0 + (size_t)half * n;
    const float *x0 = x, *x1 = x + n;
    const int blocks = n / 16;
    vec4 acc[2][SP_MATMUL_TILE][4]; /* [row][input][group] */
    for (int g = 0; g < 4; g += 2) {
        vec4 z = v4_splat(0.0f);
        vec4 a0g0 = z, a0g1 = z, a1g0 = z, a1g1 = z; /* row 0, input 0/1 */
        vec4 b0g0 = z, b0g1 = z, b1g0 = z, b1g1 = z; /* row 1 */
        const float *p0 = w0 + 4 * g, *p1 = w1 + 4 * g;
        const float *q0 = x0 + 4 * g, *q1 = x1 + 4 * g;
        for (int k = 0; k < blocks; k++) {
            vec4 wa0 = v4_load(p0), wa1 = v4_load(p0 + 4);
            vec4 wb0 = v4_load(p1), wb1 = v4_load(p1 + 4);
            vec4 xa = v4_load(q0), xb = v4_load(q0 + 4);
            a0g0 = v4_add(a0g0, v4_mul(wa0, xa));
            a0g1 = v4_add(a0g1, v4_mul(wa1, xb));
            b0g0 = v4_add(b0g0, v4_mul(wb0, xa));
            b0g1 = v4_add(b0g1, v4_mul(wb1, xb));
            xa = v4_load(q1);
            xb = v4_load(q1 + 4);
            a1g0 = v4_add(a1g0, v4_mul(wa0, xa));
            a1g1 = v4_add(a1g1, v4_mul(wa1, xb));
            b1g0 = v4_add(b1g0, v4_mul(wb0, xa));
            b1g1 = v4_add(b1g1, v4_mul(wb1, xb));
            p0 += 16;
            p1 += 16;
            q0 += 16;
            q1 += 16;
        }
        acc[0][0][g] = a0g0;
        acc[0][0][g + 1] = a0g1;
        acc[0][1][g] = a1g0;
        acc[0][1][g + 1] = a1g1;
        acc[1][0][g] = b0g0;
        acc[1][0][g + 1] = b0g1;
        acc[1][1][g] = b1g0;
        acc[1][1][g + 1] = b1g1;
    }
    tile_store(out, x, w0, w1, n, d, i, half, 2, acc);
}


void sp_matmul_batch(float *out, const float *x, const float *w, int n, int d,
                     int nb) {
    if (nb == 1) {
        sp_matmul(out, x, w, n, d);
        return;
    }
    /* row pair by row pair; for each, the inputs in tiles of 4 while more
     * than 5 are left, then 5 as 3 + 2, or 4, 3, 2 or 1 (the sizes that
     * measured fastest per input: 6 or 8 accumulators, independent chains
     * of adds).  The first tile reads the pair's weights from memory, the
     * others find them in the cache. */
    const int half = d / 2;
    for (int i = 0; i < half; i++) {
        int b = 0;
        for (; nb - b > 5; b += 4)
            matmul_tile(out + (size_t)b * d, x + (size_t)b * n, w, n, d, i,
                        half, 4);
        int left = nb - b;
        if (left == 4) {
            matmul_tile(out + (size_t)b * d, x + (size_t)b * n, w, n, d, i,
                        half, 4);
            continue;
        }
        if (left >= 3) { /* 3, or 5 = 3 + 2 */
            matmul_tile(out + (size_t)b * d, x + (size_t)b * n, w, n, d, i,
                        half, 3);
            b += 3;
            left -= 3;
        }
        if (left == 2)
            matmul_tile2(out + (size_t)b * d, x + (size_t)b * n, w, n, d, i,
                         half);
        else if (left == 1)
            matmul_tile1(out + (size_t)b * d, x + (size_t)b * n, w, n, i,
                         half);
    }
    if (d % 2)
        for (int b = 0; b < nb; b++)
            out[(size_t)b * d + d - 1] =
                sp_dot(w + (size_t)(d - 1) * n, x + (size_t)b * n, n);
}

/* the one-accumulator fold: (x > acc) ? x : acc, so NaN never wins */
