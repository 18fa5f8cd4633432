/*
 * test_quant.c — the weight formats and products of quant.h against
 * references written here from its rules: every half float, nearest-even
 * at every tie; each block type dequantized by a straightforward reading
 * of ggml's layout (and worked examples with numbers); every product type
 * (F16, BF16, Q8_0, Q4_0, Q4_K, Q6_K) bit for bit against the canonical
 * order written out with plain loops and libm's roundf / nearbyintf, on
 * many shapes, one input and batches (each batch row the bits of its input
 * alone); how close each type comes to the float product; and the
 * finiteness check.  Natively this holds the SSE2 kernels to the rules;
 * tests/js holds the WASM SIMD and scalar builds to the native bits.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../fuzz/build_gguf.h"
#include "check.h"
#include "internal.h"
#include "kernels/quant.h"
#include "model/gguf.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t next_u32(void) {
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng >> 33);
}
static float uniform(float lo, float hi) {
    return lo + (hi - lo) * (float)(next_u32() >> 8) / 16777216.0f;
}
static uint32_t bits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* ---- half floats ---------------------------------------------------------- */

static double half_value(uint16_t h) {
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v = e ? ldexp(1024 + m, e - 25) : ldexp(m, -24);
    return (h & 0x8000) ? -v : v;
}

static void test_halves(void) {
    int wrong = 0, round_trip = 0;
    for (uint32_t h = 0; h < 65536; h++) {
        if (((h >> 10) & 0x1f) == 0x1f) continue; /* inf, NaN: below */
        float f = sp_f16_to_f32((uint16_t)h);
        if ((double)f != half_value((uint16_t)h) || (signbit(f) != 0) != (h >> 15))
            wrong++;
        if (sp_f32_to_f16(f) != h) round_trip++;
    }
    CHECK_EQ_INT(wrong, 0);
    CHECK_EQ_INT(round_trip, 0);
    CHECK(isinf(sp_f16_to_f32(0x7c00)) && sp_f16_to_f32(0xfc00) < 0);
    CHECK(isnan(sp_f16_to_f32(0x7e00)));
    /* ties between neighbours go to the even one; just off a tie, to the
     * nearer */
    int ties = 0;
    for (uint32_t h = 0; h < 0x7bff; h++) {
        double mid = (half_value((uint16_t)h) + half_value((uint16_t)(h + 1))) / 2;
        float fm = (float)mid; /* exact: a half has 11 bits */
        uint16_t even = (h & 1) ? (uint16_t)(h + 1) : (uint16_t)h;
        if (sp_f32_to_f16(fm) != even) ties++;
        if (sp_f32_to_f16(nextafterf(fm, 0)) != h) ties++;
        if (sp_f32_to_f16(nextafterf(fm, 1e9f)) != h + 1) ties++;
    }
    CHECK_EQ_INT(ties, 0);
    CHECK_EQ_INT(sp_f32_to_f16(65504.0f), 0x7bff);
    CHECK_EQ_INT(sp_f32_to_f16(65519.99f), 0x7bff);
    CHECK_EQ_INT(sp_f32_to_f16(65520.0f), 0x7c00);
    CHECK_EQ_INT(sp_f32_to_f16(-1e30f), 0xfc00);
    CHECK_EQ_INT(sp_f32_to_f16(1e-30f), 0);
    CHECK_EQ_INT(sp_f32_to_f16(0x1p-25f), 0);      /* a tie with 0: even */
    CHECK_EQ_INT(sp_f32_to_f16(0x1.8p-25f), 1);    /* past it */
    CHECK_EQ_INT(sp_f32_to_f16(0x1.ffcp-15f), 0x0400); /* up to the normal */

    /* bfloat16: ggml's rounding (nearest-even on the top 16 bits) */
    CHECK_EQ_INT(sp_f32_to_bf16(1.0f), 0x3f80);
    CHECK(sp_bf16_to_f32(0x3f80) == 1.0f);
    CHECK_EQ_INT(sp_f32_to_bf16(1.00390625f), 0x3f80); /* tie: even */
    CHECK_EQ_INT(sp_f32_to_bf16(1.01171875f), 0x3f82); /* tie: even, up */
    CHECK_EQ_INT(sp_f32_to_bf16(nextafterf(1.00390625f, 2)), 0x3f81);
    int bf_trip = 0;
    for (uint32_t h = 0; h < 65536; h++)
        if (((h >> 7) & 0xff) != 0xff &&
            sp_f32_to_bf16(sp_bf16_to_f32((uint16_t)h)) != h)
            bf_trip++;
    CHECK_EQ_INT(bf_trip, 0);
}

/* ---- blocks ---------------------------------------------------------------- */

static const uint32_t TYPES[] = {SP_GGML_F16, SP_GGML_BF16, SP_GGML_Q8_0,
                                 SP_GGML_Q4_0, SP_GGML_Q4_K, SP_GGML_Q6_K};

/* a matrix of random weights of a type: its bytes (malloc'd) */
static uint8_t *random_matrix(uint32_t type, int rows, int cols, float scale,
                              sp_qmat *w) {
    size_t rb = gg_type_bytes(type, (uint64_t)cols);
    uint8_t *data = malloc(rb * (size_t)rows + 1);
    float *row = malloc(sizeof(float) * (size_t)cols);
    for (int r = 0; r < rows; r++) {
        for (int j = 0; j < cols; j++) row[j] = uniform(-scale, scale);
        gg_quantize_row(type, row, cols, data + rb * (size_t)r);
    }
    free(row);
    w->data = data;
    w->type = type;
    w->rows = rows;
    w->cols = cols;
    w->row_bytes = rb;
    CHECK_EQ_INT(sp_qtype_row_bytes(type, cols), rb);
    return data;
}

static uint16_t u16_at(const uint8_t *p) {
    uint16_t v;
    memcpy(&v, p, 2);
    return v;
}

/* The weights of a row as the layouts define them, read the long way
 * round (element by element, from the byte that holds it). */
static void reference_row(const sp_qmat *w, int row, float *y) {
    const uint8_t *r = w->data + (size_t)row * w->row_bytes;
    for (int e = 0; e < w->cols; e++) {
        switch (w->type) {
        case SP_GGML_F16: y[e] = (float)half_value(u16_at(r + 2 * e)); break;
        case SP_GGML_BF16: {
            uint32_t u = (uint32_t)u16_at(r + 2 * e) << 16;
            memcpy(&y[e], &u, 4);
            break;
        }
        case SP_GGML_Q8_0: {
            const uint8_t *b = r + 34 * (e / 32);
            y[e] = (float)(int8_t)b[2 + e % 32] * (float)half_value(u16_at(b));
            break;
        }
        case SP_GGML_Q4_0: {
            const uint8_t *b = r + 18 * (e / 32);
            int j = e % 32, q = j < 16 ? b[2 + j] & 0xF : b[2 + j - 16] >> 4;
            y[e] = (float)(q - 8) * (float)half_value(u16_at(b));
            break;
        }
        case SP_GGML_Q4_K: {
            const uint8_t *b = r + 144 * (e / 256), *s = b + 4;
            int i = e % 256, sub = i / 32, c = i / 64, l = i % 32;
            int sc, m;
            if (sub < 4) {
                sc = s[sub] & 63;
                m = s[sub + 4] & 63;
            } else {
                sc = (s[sub + 4] & 0xF) | ((s[sub - 4] >> 6) << 4);
                m = (s[sub + 4] >> 4) | ((s[sub] >> 6) << 4);
            }
            int byte = b[16 + 32 * c + l], q = sub % 2 ? byte >> 4 : byte & 0xF;
            float d = (float)half_value(u16_at(b)) * (float)sc;
            float mn = (float)half_value(u16_at(b + 2)) * (float)m;
            y[e] = d * (float)q - mn;
            break;
        }
        case SP_GGML_Q6_K: {
            const uint8_t *b = r + 210 * (e / 256);
            int i = e % 256, half = i / 128, k = (i % 128) / 32, l = i % 32;
            int low = b[64 * half + l + (k % 2) * 32];
            low = k >= 2 ? low >> 4 : low & 0xF;
            int high = (b[128 + 32 * half + l] >> (2 * k)) & 3;
            int q = (low | high << 4) - 32;
            float d = (float)half_value(u16_at(b + 208));
            y[e] = d * (float)(int8_t)b[192 + i / 16] * (float)q;
            break;
        }
        default: y[e] = NAN;
        }
    }
}

static void test_rows(void) {
    for (size_t t = 0; t < sizeof TYPES / sizeof *TYPES; t++) {
        sp_qmat w;
        uint8_t *data = random_matrix(TYPES[t], 5, 512, 2.0f, &w);
        float got[512], want[512];
        int same = 1;
        for (int r = 0; r < 5; r++) {
            sp_qrow(&w, r, got);
            reference_row(&w, r, want);
            for (int j = 0; j < 512; j++) same &= bits(got[j]) == bits(want[j]);
        }
        if (!same) fprintf(stderr, "type %s: rows differ\n", sp_ggml_type_name(TYPES[t]));
        CHECK(same);
        free(data);
    }

    /* worked examples: a Q8_0 block with d = 0.5 (f16 0x3800) */
    uint8_t q8[34] = {0x00, 0x38, 1, 0xfe, 127, 0x81};
    sp_qmat w = {q8, SP_GGML_Q8_0, 1, 32, 34};
    float y[256];
    sp_qrow(&w, 0, y);
    CHECK(y[0] == 0.5f && y[1] == -1.0f && y[2] == 63.5f && y[3] == -63.5f &&
          y[4] == 0.0f);
    /* Q4_0, d = -0.25 (0xb400): nibble 0 -> (0 - 8) * -0.25 = 2, 15 -> -1.75 */
    uint8_t q4[18] = {0x00, 0xb4, 0xf0, 0x88};
    sp_qmat w4 = {q4, SP_GGML_Q4_0, 1, 32, 18};
    sp_qrow(&w4, 0, y);
    CHECK(y[0] == 2.0f && y[16] == -1.75f && y[1] == 0.0f && y[17] == 0.0f);
    /* Q4_K: d = 1, dmin = 0.5, sub-block 0 scale 3 min 2, sub-block 5 scale
     * 33 (the high bits in byte 1) min 17 (in byte 5) */
    uint8_t k4[144] = {0x00, 0x3c, 0x00, 0x38};
    int sc[8] = {3, 0, 0, 0, 0, 33, 0, 0}, mn[8] = {2, 0, 0, 0, 0, 17, 0, 0};
    gg_pack_k4(k4 + 4, sc, mn);
    k4[16] = 0x07;             /* weight 0: 7; weight 32: 0 */
    k4[16 + 32 * 2 + 1] = 0xa0; /* weight 64*2+32+1 = 161 (sub-block 5): 10 */
    sp_qmat wk = {k4, SP_GGML_Q4_K, 1, 256, 144};
    sp_qrow(&wk, 0, y);
    CHECK(y[0] == 3.0f * 7 - 1.0f);   /* d*sc*q - dmin*m */
    CHECK(y[1] == -1.0f);
    CHECK(y[161] == 33.0f * 10 - 8.5f);
    CHECK(y[160] == -8.5f);
    /* Q6_K: d = 2 (0x4000), sub-block 0 scale -3, weight 0 = 63 - 32 = 31,
     * weight 96 (k = 3: high nibble of ql[32], bits 6-7 of qh[0]) = 1 - 32 */
    uint8_t k6[210] = {0};
    k6[208] = 0x00;
    k6[209] = 0x40;
    k6[192] = (uint8_t)-3;
    k6[192 + 6] = 5;
    k6[0] = 0x0f;
    k6[128] = 0x03 | 0x00;
    k6[32] = 0x10;
    sp_qmat w6 = {k6, SP_GGML_Q6_K, 1, 256, 210};
    sp_qrow(&w6, 0, y);
    CHECK(y[0] == 2.0f * -3 * 31);
    CHECK(y[96] == 2.0f * 5 * (1 - 32));
    CHECK(y[1] == 2.0f * -3 * -32);
}

/* ---- products ---------------------------------------------------------------- */

/* the input as the rules convert it, with libm's rounding */
typedef struct {
    int q[4096];
    float d[128]; /* per block of 32 (Q8_0) or 256 (Q8_K) */
    float xr[4096];
} ref_act;

static void reference_act(uint32_t type, const float *x, int n, ref_act *a) {
    if (type == SP_GGML_F16 || type == SP_GGML_BF16) {
        for (int j = 0; j < n; j++) {
            if (type == SP_GGML_F16) {
                a->xr[j] = (float)half_value(sp_f32_to_f16(x[j]));
            } else {
                uint32_t u = bits(x[j]);
                u = ((u + 0x7fffu + ((u >> 16) & 1u)) >> 16) << 16;
                memcpy(&a->xr[j], &u, 4);
            }
        }
    } else if (type == SP_GGML_Q8_0 || type == SP_GGML_Q4_0) {
        for (int b = 0; b < n / 32; b++) {
            float amax = 0;
            for (int j = 0; j < 32; j++) amax = fmaxf(amax, fabsf(x[32 * b + j]));
            float d = amax / 127, id = d ? 1.0f / d : 0.0f;
            for (int j = 0; j < 32; j++) a->q[32 * b + j] = (int)roundf(x[32 * b + j] * id);
            a->d[b] = (float)half_value(sp_f32_to_f16(d));
        }
    } else {
        for (int b = 0; b < n / 256; b++) {
            float amax = 0, max = 0;
            for (int j = 0; j < 256; j++)
                if (fabsf(x[256 * b + j]) > amax) amax = fabsf(x[256 * b + j]), max = x[256 * b + j];
            float iscale = amax ? -127.0f / max : 0.0f;
            for (int j = 0; j < 256; j++) {
                int v = (int)nearbyintf(iscale * x[256 * b + j]);
                a->q[256 * b + j] = v > 127 ? 127 : v;
            }
            a->d[b] = amax ? 1.0f / iscale : 0.0f;
        }
    }
}

/* row r of w against the converted input, in quant.h's canonical order */
static float reference_dot(const sp_qmat *w, int r, const ref_act *a) {
    int n = w->cols;
    float y[4096];
    const uint8_t *row = w->data + (size_t)r * w->row_bytes;
    if (w->type == SP_GGML_F16 || w->type == SP_GGML_BF16) {
        reference_row(w, r, y);
        float lane[16] = {0};
        int i = 0;
        for (; i + 16 <= n; i += 16)
            for (int j = 0; j < 16; j++) lane[j] = lane[j] + y[i + j] * a->xr[i + j];
        float q[4];
        for (int k = 0; k < 4; k++)
            q[k] = (lane[k] + lane[4 + k]) + (lane[8 + k] + lane[12 + k]);
        float s = (q[0] + q[1]) + (q[2] + q[3]);
        for (; i < n; i++) s = s + y[i] * a->xr[i];
        return s;
    }
    if (w->type == SP_GGML_Q8_0 || w->type == SP_GGML_Q4_0) {
        int q4 = w->type == SP_GGML_Q4_0, bytes = q4 ? 18 : 34;
        float acc[4] = {0, 0, 0, 0};
        for (int b = 0; b < n / 32; b++) {
            const uint8_t *blk = row + bytes * b;
            int lane[4] = {0, 0, 0, 0};
            for (int j = 0; j < 32; j++) {
                int qw = q4 ? (j < 16 ? blk[2 + j] & 0xF : blk[2 + j - 16] >> 4) - 8
                            : (int8_t)blk[2 + j];
                lane[(j % 8) / 2] += qw * a->q[32 * b + j];
            }
            float s = (float)half_value(u16_at(blk)) * a->d[b];
            for (int l = 0; l < 4; l++) acc[l] = acc[l] + (float)lane[l] * s;
        }
        return (acc[0] + acc[1]) + (acc[2] + acc[3]);
    }
    /* the K types: the integer sums from the dequantized codes */
    float acc = 0;
    for (int b = 0; b < n / 256; b++) {
        const uint8_t *blk = row + (w->type == SP_GGML_Q4_K ? 144 : 210) * b;
        long long s = 0, m = 0;
        if (w->type == SP_GGML_Q4_K) {
            const uint8_t *sc = blk + 4;
            for (int sub = 0; sub < 8; sub++) {
                int scale, mn;
                if (sub < 4) {
                    scale = sc[sub] & 63;
                    mn = sc[sub + 4] & 63;
                } else {
                    scale = (sc[sub + 4] & 0xF) | ((sc[sub - 4] >> 6) << 4);
                    mn = (sc[sub + 4] >> 4) | ((sc[sub] >> 6) << 4);
                }
                long long t = 0, xs = 0;
                for (int l = 0; l < 32; l++) {
                    int byte = blk[16 + 32 * (sub / 2) + l];
                    int q = sub % 2 ? byte >> 4 : byte & 0xF;
                    t += q * a->q[256 * b + 32 * sub + l];
                    xs += a->q[256 * b + 32 * sub + l];
                }
                s += scale * t;
                m += mn * xs;
            }
            float d = (float)half_value(u16_at(blk)) * a->d[b];
            float dmin = (float)half_value(u16_at(blk + 2)) * a->d[b];
            acc = acc + (d * (float)s - dmin * (float)m);
        } else {
            for (int e = 0; e < 256; e++) {
                int half = e / 128, k = (e % 128) / 32, l = e % 32;
                int low = blk[64 * half + l + (k % 2) * 32];
                low = k >= 2 ? low >> 4 : low & 0xF;
                int q = (low | ((blk[128 + 32 * half + l] >> (2 * k)) & 3) << 4) - 32;
                s += (long long)(int8_t)blk[192 + e / 16] * q * a->q[256 * b + e];
            }
            float d = (float)half_value(u16_at(blk + 208)) * a->d[b];
            acc = acc + d * (float)s;
        }
    }
    return acc;
}

static void test_products(void) {
    static const int cols_small[] = {32, 64, 96, 288, 800};
    static const int cols_k[] = {256, 512, 768};
    static const int rows[] = {1, 2, 3, 7, 16};
    static const int batches[] = {1, 2, 3, 5, 32};
    static ref_act ra;
    for (size_t t = 0; t < sizeof TYPES / sizeof *TYPES; t++) {
        uint32_t type = TYPES[t];
        int k = type == SP_GGML_Q4_K || type == SP_GGML_Q6_K;
        const int *cols = k ? cols_k : cols_small;
        int n_cols = k ? 3 : 5, mismatches = 0, batch_mismatches = 0, total = 0;
        for (int c = 0; c < n_cols; c++)
            for (int r = 0; r < 5; r++)
                for (int bi = 0; bi < 5; bi++) {
                    int n = cols[c], d = rows[r], nb = batches[bi];
                    sp_qmat w;
                    uint8_t *data = random_matrix(type, d, n, 1.0f, &w);
                    float *x = malloc(sizeof(float) * (size_t)n * nb);
                    for (int j = 0; j < n * nb; j++)
                        x[j] = ldexpf(uniform(-1, 1), (int)(next_u32() % 9) - 4);
                    if (nb > 1) /* a zero block: its scale is 0 */
                        memset(x + n, 0, sizeof(float) * (size_t)(n < 256 ? n : 256));
                    float *out = malloc(sizeof(float) * (size_t)d * nb);
                    float *one = malloc(sizeof(float) * (size_t)d);
                    void *scratch = malloc(sp_qmatmul_scratch(n, nb));
                    sp_qmatmul(out, x, &w, nb, scratch);
                    for (int b = 0; b < nb; b++) {
                        reference_act(type, x + (size_t)b * n, n, &ra);
                        sp_qmatmul(one, x + (size_t)b * n, &w, 1, scratch);
                        for (int i = 0; i < d; i++) {
                            float want = reference_dot(&w, i, &ra);
                            float got = out[(size_t)b * d + i];
                            if (bits(got) != bits(want)) {
                                if (mismatches < 3)
                                    fprintf(stderr, "%s %dx%d nb %d row %d: %.9g, want %.9g\n",
                                            sp_ggml_type_name(type), d, n, nb, i, got, want);
                                mismatches++;
                            }
                            if (bits(one[i]) != bits(got)) batch_mismatches++;
                            total++;
                        }
                    }
                    free(x);
                    free(out);
                    free(one);
                    free(scratch);
                    free(data);
                }
        CHECK_EQ_INT(mismatches, 0);
        CHECK_EQ_INT(batch_mismatches, 0);
        CHECK(total > 1000);
    }
}

/* How far each type's product is from the float product of the same
 * (dequantized) weights: the input's conversion costs little. */
static void test_accuracy(void) {
    static const float limit[] = {1e-3f, 1e-2f, 1.5e-2f, 1.5e-2f, 1.5e-2f, 1.5e-2f};
    for (size_t t = 0; t < sizeof TYPES / sizeof *TYPES; t++) {
        sp_qmat w;
        int n = 512, d = 64;
        uint8_t *data = random_matrix(TYPES[t], d, n, 1.0f, &w);
        float x[512], out[64], row[512];
        for (int j = 0; j < n; j++) x[j] = uniform(-1, 1);
        void *scratch = malloc(sp_qmatmul_scratch(n, 1));
        sp_qmatmul(out, x, &w, 1, scratch);
        double worst = 0, scale = 0;
        for (int i = 0; i < d; i++) {
            sp_qrow(&w, i, row);
            double exact = 0, norm = 0;
            for (int j = 0; j < n; j++) {
                exact += (double)row[j] * x[j];
                norm += fabs((double)row[j] * x[j]);
            }
            worst = fmax(worst, fabs(out[i] - exact));
            scale = fmax(scale, norm);
        }
        if (!(worst <= limit[t] * scale))
            fprintf(stderr, "%s: error %g of %g\n", sp_ggml_type_name(TYPES[t]), worst, scale);
        CHECK(worst <= limit[t] * scale);
        CHECK(worst > 0 || TYPES[t] == SP_GGML_BF16); /* the conversion shows */
        free(scratch);
        free(data);
    }
}

static void test_finite(void) {
    for (size_t t = 0; t < sizeof TYPES / sizeof *TYPES; t++) {
        sp_qmat w;
        uint8_t *data = random_matrix(TYPES[t], 4, 256, 1.0f, &w);
        int bad = -1;
        CHECK(sp_qmat_finite(&w, &bad));
        /* an infinite scale (or weight) in row 2 */
        uint8_t *row2 = data + 2 * w.row_bytes;
        uint16_t inf = TYPES[t] == SP_GGML_BF16 ? 0x7f80 : 0x7c00;
        size_t at = TYPES[t] == SP_GGML_Q6_K ? 208 : TYPES[t] == SP_GGML_Q4_K ? 2 : 0;
        if (TYPES[t] == SP_GGML_F16 || TYPES[t] == SP_GGML_BF16) at = 2 * 77;
        memcpy(row2 + at + (TYPES[t] <= SP_GGML_F16 ? 0 : 0), &inf, 2);
        CHECK(!sp_qmat_finite(&w, &bad));
        CHECK_EQ_INT(bad, 2);
        free(data);
    }
    float f[4] = {1, 2, NAN, 4};
    sp_qmat w = {(const uint8_t *)f, SP_GGML_F32, 2, 2, 8};
    int bad = -1;
    CHECK(!sp_qmat_finite(&w, &bad));
    CHECK_EQ_INT(bad, 1);
}

static void test_types(void) {
    CHECK(sp_qtype_supported(SP_GGML_Q4_K));
    CHECK(!sp_qtype_supported(SP_GGML_Q5_K));
    CHECK(!sp_qtype_supported(SP_GGML_Q4_1));
    CHECK_EQ_INT(sp_qtype_row_bytes(SP_GGML_Q8_0, 288), 9 * 34);
    CHECK_EQ_INT(sp_qtype_row_bytes(SP_GGML_Q4_K, 288), 0);
    CHECK_EQ_INT(sp_qtype_row_bytes(SP_GGML_F16, 7), 14);
    CHECK_EQ_INT(sp_qtype_row_bytes(SP_GGML_Q5_K, 256), 0);
}

TEST_SUITE(quant,
           TEST(test_halves),
           TEST(test_types),
           TEST(test_rows),
           TEST(test_products),
           TEST(test_accuracy),
           TEST(test_finite));
