/*
 * kernels.c — the training room's products and moves.  Every product is
 * the engine's sp_matmul_batch (kernels/matmul.c: sp_dot's canonical
 * order, the same bits in the SIMD and the scalar builds); what is left
 * here is feeding it inputs that stay in the cache, and the transposes
 * that let the backward pass use it too.
 */
#include "train/train.h"

/* Inputs per call: a chunk of 16 inputs of up to 1024 floats is 64 KiB,
 * read once per row pair of the matrix. */
#define CHUNK 16

void sp_tr_matmul(float *y, const float *x, const float *w, int n, int d,
                  int nb) {
    for (int b = 0; b < nb; b += CHUNK) {
        int k = nb - b < CHUNK ? nb - b : CHUNK;
        sp_matmul_batch(y + (size_t)b * (size_t)d, x + (size_t)b * (size_t)n,
                        w, n, d, k);
    }
}

/* In tiles of 8 x 8, so that both sides stay in the cache. */
void sp_tr_transpose(float *out, const float *in, int rows, int cols) {
    for (int r0 = 0; r0 < rows; r0 += 8) {
        int r1 = r0 + 8 < rows ? r0 + 8 : rows;
        for (int c0 = 0; c0 < cols; c0 += 8) {
            int c1 = c0 + 8 < cols ? c0 + 8 : cols;
            for (int r = r0; r < r1; r++)
                for (int c = c0; c < c1; c++)
                    out[(size_t)c * (size_t)rows + (size_t)r] =
                        in[(size_t)r * (size_t)cols + (size_t)c];
        }
    }
}

void sp_tr_add(float *y, const float *x, size_t n) {
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
        v4_store(y + i, v4_add(v4_load(y + i), v4_load(x + i)));
    for (; i < n; i++) y[i] += x[i];
}

/* y[j] += a * x[j] (each lane its own sum: the same bits as the loop) */
void sp_tr_axpy(float *y, float a, const float *x, int n) {
    vec4 av = v4_splat(a);
    int j = 0;
    for (; j + 4 <= n; j += 4)
        v4_store(y + j, v4_add(v4_load(y + j), v4_mul(av, v4_load(x + j))));
    for (; j < n; j++) y[j] += a * x[j];
}
