/*
 * f32_only.c — the lesson engine's weights: F32 only (see no_gguf.c).
 *
 * Quantized and half-precision weights come only from GGUF files, which
 * the lesson engine does not read, so every matrix it meets is F32 and
 * these three stand in for kernels/qdot.c and quant.c: the same calls the
 * full engine makes for an F32 matrix (sp_matmul_batch, a row copied),
 * hence the same bits.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "kernels/quant.h"
#include "model/gguf.h"

void sp_qrow(const sp_qmat *w, int row, float *out) {
    if (w->type != SP_GGML_F32) __builtin_trap(); /* no GGUF: cannot happen */
    memcpy(out, w->data + (size_t)row * w->row_bytes,
           sizeof(float) * (size_t)w->cols);
}

size_t sp_qmatmul_scratch(int cols, int nb) {
    (void)cols, (void)nb;
    return 0; /* an F32 product converts nothing */
}

void sp_qmatmul(float *out, const float *x, const sp_qmat *w, int nb,
                void *scratch) {
    (void)scratch;
    if (w->type != SP_GGML_F32) __builtin_trap(); /* no GGUF: cannot happen */
    sp_matmul_batch(out, x, (const float *)(const void *)w->data, w->cols,
                    w->rows, nb);
}
