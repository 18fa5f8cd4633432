/*
 * test_kernels.c — the dense kernels of kernels.c against straightforward
 * references written here: every reduction must give the very bits of the
 * canonical order of vec4.h (16 lanes blockwise, the fixed combining tree,
 * then the tail in index order), on sizes that are not multiples of 16, and
 * the scans and the max must find exactly what a plain loop finds.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "internal.h"

static uint64_t lcg_state = 0x9e3779b97f4a7c15ull;
static uint32_t next_u32(void) {
    lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(lcg_state >> 33);
}
/* values of mixed magnitudes, so that a different order of the additions
 * would round differently */
static float rand_float(void) {
    float mant = (float)(next_u32() % 2000001u) / 1000000.0f - 1.0f;
    int e = (int)(next_u32() % 17u) - 8;
    return ldexpf(mant, e);
}

static uint32_t bits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* the canonical sum of a[i] * b[i], written out lane by lane */
static float canonical_dot(const float *a, const float *b, int n) {
    float lane[16] = {0};
    int i = 0;
    for (; i + 16 <= n; i += 16)
        for (int j = 0; j < 16; j++) lane[j] = lane[j] + a[i + j] * b[i + j];
    float q[4];
    for (int k = 0; k < 4; k++)
        q[k] = (lane[k] + lane[4 + k]) + (lane[8 + k] + lane[12 + k]);
    float sum = (q[0] + q[1]) + (q[2] + q[3]);
    for (; i < n; i++) sum = sum + a[i] * b[i];
    return sum;
}

static float sequential_dot(const float *a, const float *b, int n) {
    float sum = 0.0f;
    for (int i = 0; i < n; i++) sum = sum + a[i] * b[i];
    return sum;
}

static void test_dot_and_matmul(void) {
    static const int sizes[] = {0,  1,  2,  3,  5,  7,  8,  15, 16, 17, 31,
                                32, 33, 47, 48, 63, 64, 65, 100, 288, 771};
    static const int rows[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 13};
    int order_matters = 0;
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        int n = sizes[si];
        for (size_t ri = 0; ri < sizeof rows / sizeof rows[0]; ri++) {
            int d = rows[ri];
            /* +1: an offset start, so the loads are unaligned */
            float *w = malloc(sizeof(float) * ((size_t)n * d + 1));
            float *x = malloc(sizeof(float) * ((size_t)n + 1));
            float *out = malloc(sizeof(float) * ((size_t)d + 2));
            if (!w || !x || !out) abort();
            for (int i = 0; i < n * d + 1; i++) w[i] = rand_float();
            for (int i = 0; i < n + 1; i++) x[i] = rand_float();
            for (int shift = 0; shift <= 1; shift++) {
                const float *ws = w + shift, *xs = x + shift;
                out[d] = out[d + 1] = 12345.0f; /* must stay untouched */
                sp_matmul(out, xs, ws, n, d);
                int same = 1;
                for (int r = 0; r < d; r++) {
                    const float *row = ws + (size_t)r * n;
                    float ref = canonical_dot(row, xs, n);
                    if (bits(out[r]) != bits(ref)) {
                        same = 0;
                        fprintf(stderr, "sp_matmul n %d d %d row %d: %.9g, "
                                "canonical %.9g\n", n, d, r, out[r], ref);
                    }
                    if (bits(sp_dot(row, xs, n)) != bits(ref)) {
                        same = 0;
                        fprintf(stderr, "sp_dot n %d: %.9g, canonical %.9g\n",
                                n, sp_dot(row, xs, n), ref);
                    }
                    if (bits(ref) != bits(sequential_dot(row, xs, n)))
                        order_matters = 1;
                }
                CHECK(same);
                CHECK(out[d] == 12345.0f && out[d + 1] == 12345.0f);
            }
            free(w);
            free(x);
            free(out);
        }
    }
    /* the data are such that the order of the sum shows in the bits, so
     * the comparisons above can tell the canonical order from another */
    CHECK(order_matters);
}

/* sp_max's reference: the one-accumulator fold of four lanes,
 * (x > acc) ? x : acc, lanes combined in order, then the tail */
static float reference_max(const float *x, int n) {
    float lane[4] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY};
    int i = 0;
    for (; i + 4 <= n; i += 4)
        for (int l = 0; l < 4; l++) lane[l] = x[i + l] > lane[l] ? x[i + l] : lane[l];
    float m = -INFINITY;
    for (int l = 0; l < 4; l++) m = lane[l] > m ? lane[l] : m;
    for (; i < n; i++) m = x[i] > m ? x[i] : m;
    return m;
}

static void fill_special(float *x, int n, int kind) {
    for (int i = 0; i < n; i++) {
        uint32_t r = next_u32() % 100u;
        switch (kind) {
        case 0: x[i] = rand_float(); break;
        case 1: x[i] = r < 50 ? 0.0f : -0.0f; break;      /* zero ties */
        case 2: x[i] = r < 10 ? NAN : rand_float(); break;
        case 3: x[i] = r < 30 ? -INFINITY : (r < 40 ? NAN : -1.0f); break;
        case 4: x[i] = r < 5 ? 0.0f : (r < 10 ? -0.0f : -rand_float() * rand_float() - 1.0f); break;
        default: x[i] = (float)(r % 4); break;            /* many ties */
        }
    }
}

static void test_max_and_scans(void) {
    static const int sizes[] = {0, 1, 3, 4, 5, 15, 16, 17, 31, 63, 64, 65,
                                100, 257, 1000, 4099};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        int n = sizes[si];
        float *x = malloc(sizeof(float) * ((size_t)n + 1));
        if (!x) abort();
        for (int kind = 0; kind < 6; kind++) {
            for (int trial = 0; trial < 4; trial++) {
                fill_special(x, n, kind);
                /* max: the same bits, the sign of a zero maximum included */
                CHECK_EQ_INT(bits(sp_max(x, n)), bits(reference_max(x, n)));
                /* the scans: the first index a plain loop finds */
                float t = n > 0 ? x[next_u32() % (uint32_t)n] : 0.0f;
                if (t != t) t = 0.5f;
                int from = n > 0 ? (int)(next_u32() % (uint32_t)n) : 0;
                int gt = n, ge = n, nb = -1;
                for (int i = from; i < n; i++)
                    if (x[i] > t) { gt = i; break; }
                for (int i = from; i < n; i++)
                    if (x[i] >= t) { ge = i; break; }
                for (int i = 0; i < n; i++)
                    if (!(x[i] < t)) { nb = i; break; }
                CHECK_EQ_INT(sp_scan_gt(x, t, from, n), gt);
                CHECK_EQ_INT(sp_scan_ge(x, t, from, n), ge);
                CHECK_EQ_INT(sp_find_not_below(x, t, n), nb);
                int inf_at = -1;
                for (int i = 0; i < n; i++)
                    if (!(x[i] < INFINITY)) { inf_at = i; break; }
                CHECK_EQ_INT(sp_find_not_below(x, INFINITY, n), inf_at);
            }
        }
        free(x);
    }
    /* a zero maximum whose sign depends on which zero comes first */
    float z[80];
    for (int i = 0; i < 80; i++) z[i] = -1.0f;
    z[70] = 0.0f;  /* in the last accumulator, but ... */
    z[5] = -0.0f;  /* ... the fold meets this one first */
    CHECK_EQ_INT(bits(sp_max(z, 80)), bits(reference_max(z, 80)));
    z[5] = 0.0f;
    z[70] = -0.0f;
    CHECK_EQ_INT(bits(sp_max(z, 80)), bits(reference_max(z, 80)));
}

int main(void) {
    fprintf(stderr, "vec4 backend: %s\n", SP_VEC4_BACKEND);
    test_dot_and_matmul();
    test_max_and_scans();
    CHECK_DONE();
}
