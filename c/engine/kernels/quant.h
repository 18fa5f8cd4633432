/*
 * quant.h — weights that stay in the form a GGUF file stores them (F32,
 * F16, BF16, and ggml's blocks Q8_0, Q4_0, Q4_K, Q6_K), read in place, and
 * the matrix products on them (quant.c: the formats; qdot.c: the products).
 *
 * THE BLOCKS (ggml-common.h's layouts; every scale an IEEE half, "f16"):
 *   Q8_0  32 weights in 34 bytes: f16 d, int8 q[32];   w = q * d
 *   Q4_0  32 weights in 18 bytes: f16 d, uint8 qs[16]; weight j < 16 is
 *         the low nibble of qs[j], weight j + 16 its high one; w = (q - 8) d
 *   Q4_K  256 weights in 144 bytes: f16 d, f16 dmin, 12 bytes of eight
 *         6-bit scales and mins, uint8 qs[128]; sub-block s (32 weights)
 *         has scale sc_s and min m_s; the 64 weights 64c.. are the low
 *         nibbles (sub-block 2c) and the high nibbles (2c + 1) of
 *         qs[32c .. 32c + 32); w = (d sc_s) q - (dmin m_s)
 *   Q6_K  256 weights in 210 bytes: uint8 ql[128] (low 4 bits), uint8
 *         qh[64] (high 2 bits), int8 scales[16], f16 d; sub-block s (16
 *         weights) has scale sc_s; w = (d sc_s) (q - 32)
 * sp_qrow dequantizes a row exactly as ggml's dequantize_row_* does (the
 * same float operations in the same order): the token embedding's rows.
 *
 * THE PRODUCTS, and their canonical order.  A matrix-vector product on
 * quantized weights does what llama.cpp's CPU backend does: it converts the
 * input vector x to the weights' "dot type" first, and multiplies those:
 *   F32        x as it is: sp_matmul (vec4.h's canonical order); the bits
 *              of a llama2.c checkpoint's forward pass
 *   F16, BF16  x rounded to F16 (BF16), nearest-even; the products (exact
 *              in float: 11 x 11 or 8 x 8 significant bits) summed in
 *              vec4.h's canonical order, as sp_dot does
 *   Q8_0, Q4_0 x quantized to Q8_0 blocks (ggml's quantize_row_q8_0_ref:
 *              d = amax / 127, q = round(x / d) half away from zero, d kept
 *              as an f16); per block b the 32 products q_w q_x, exact
 *              integers, summed into four lanes (lane l holds elements
 *              8k + 2l and 8k + 2l + 1, k = 0..3: what pairwise
 *              multiply-adds give), then lane by lane
 *              acc_l = acc_l + float(isum_l) * (d_w d_x), block after
 *              block; the result (acc_0 + acc_1) + (acc_2 + acc_3)
 *   Q4_K, Q6_K x quantized to Q8_K blocks of 256 (ggml's
 *              quantize_row_q8_K_ref: the element of largest magnitude m,
 *              q = nearest-even(x (-127 / m)) capped at 127, d = 1 / that
 *              scale, a float); per super-block the exact integers
 *              S = sum_s sc_s sum(q_w q_x) (and, for Q4_K, M = sum_s m_s
 *              sum(q_x)), then acc = acc + ((d_w d_x) float(S)
 *              - (dmin_w d_x) float(M)), super-block after super-block
 * Integer sums are exact, so the SIMD and scalar builds can only differ
 * in the float steps, which are written out above and done lane by lane
 * in that order everywhere: WASM SIMD, SSE2 and plain C give the same
 * bits (tests/c/test_quant.c holds each kernel to a reference written
 * from these rules).  Quantizing the input is what makes llama.cpp's
 * quantized logits differ from those of the dequantized weights (by about
 * 1e-3 of a logit's range for Q8_0): following it keeps ours close to its.
 */
#ifndef SP_QUANT_H
#define SP_QUANT_H

#include <stddef.h>
#include <stdint.h>

/* A matrix as the file stores it: rows x cols weights of type `type`
 * (SP_GGML_*), row r at data + r * row_bytes; y = W x has `rows` outputs
 * and takes `cols` inputs. */
typedef struct {
    const uint8_t *data;
    uint32_t type;
    int rows, cols;
    size_t row_bytes;
} sp_qmat;

/* Whether the kernels read weights of this type. */
int sp_qtype_supported(uint32_t type);
/* Bytes of one row of cols weights (0 if cols is no multiple of the
 * type's block, or the type is not supported). */
size_t sp_qtype_row_bytes(uint32_t type, int cols);

float sp_f16_to_f32(uint16_t h);   /* exact */
uint16_t sp_f32_to_f16(float f);   /* nearest-even; overflow to inf */
float sp_bf16_to_f32(uint16_t h);  /* exact */
uint16_t sp_f32_to_bf16(float f);  /* nearest-even (ggml's; NaN quieted) */

/* out[cols] = row `row` of w, dequantized (ggml's dequantize_row_*). */
void sp_qrow(const sp_qmat *w, int row, float *out);

/* Whether every weight of w is finite (F32, F16, BF16) and every block's
 * scales are (Q8_0, Q4_0: d; Q4_K: d, dmin; Q6_K: d); when not, *bad_row
 * gets the first row holding one. */
int sp_qmat_finite(const sp_qmat *w, int *bad_row);

/* Scratch bytes sp_qmatmul needs for nb inputs of cols floats. */
size_t sp_qmatmul_scratch(int cols, int nb);
/* out[b * rows + i] = row i of w . x[b * cols ..] for b in [0, nb): the
 * canonical products above; every output has the bits the same input
 * alone gives (nb = 1).  scratch: sp_qmatmul_scratch(w->cols, nb) bytes,
 * 16-aligned. */
void sp_qmatmul(float *out, const float *x, const sp_qmat *w, int nb,
                void *scratch);

/* ---- the input, converted (quant.c, for qdot.c) ------------------------- */

/* x[n] as a product with weights of type `type` reads it: Q8_0 blocks
 * (q widened to int16, d), Q8_K blocks (q, d, and the sum of q over each
 * 32), or x rounded to F16 / BF16 (xr). */
typedef struct {
    int16_t *q;     /* [n] */
    float *d;       /* [n / 32] (Q8_0) or [n / 256] (Q8_K) */
    int32_t *sum32; /* [n / 32] (Q8_K) */
    float *xr;      /* [n] (F16, BF16) */
} sp_qact;

/* Fills a (its arrays carved out of mem, at most sp_qmatmul_scratch(n, 1)
 * bytes) with x[n] converted for weights of type `type`. */
void sp_qact_make(sp_qact *a, uint32_t type, const float *x, int n,
                  void *mem);

#endif /* SP_QUANT_H */
