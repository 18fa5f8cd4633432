/*
 * test_kernels.c — the dense kernels of kernels.c against straightforward
 * references written here: every reduction must give the very bits of the
 * canonical order of vec4.h (16 lanes blockwise, the fixed combining tree,
 * then the tail in index order), on sizes that are not multiples of 16, and
 * the scans and the max must find exactly what a plain loop finds; the
 * sums and quotients in double (sp_sum_finite, sp_entropy_nats) the bits of
 * their one-by-one loops, and the fused passes those of their parts.
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
    say("vec4 backend: %s", SP_VEC4_BACKEND);
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

static uint64_t bits64(double d) {
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
}

/* the sampler's sums and quotients in double, against the loops they
 * stand for (one by one, in index order) */
static void test_double_sums(void) {
    enum { N = 5003 };
    static float x[N], e[N];
    int exact_cases = 0, loop_cases = 0;
    for (int trial = 0; trial < 400; trial++) {
        int n = trial % 7 == 0 ? (int)(next_u32() % 40u) : (int)(next_u32() % N);
        int kind = trial % 5;
        for (int i = 0; i < n; i++) {
            switch (kind) {
            case 0: x[i] = rand_float() * 8.0f; break; /* narrow: exact */
            case 1: x[i] = ldexpf(rand_float(), (int)(next_u32() % 200u) - 100); break;
            case 2: x[i] = (float)(int)(next_u32() % 9u) - 4.0f; break; /* ties, zeros */
            case 3: x[i] = next_u32() % 5u ? rand_float() : -INFINITY; break;
            default: x[i] = next_u32() % 2u ? 0.0f : -0.0f; break;
            }
        }
        if (n > 3 && trial % 11 == 0) x[n / 2] = 1e-30f; /* one tiny term */
        double seq = 0.0;
        int count = 0;
        float top = -INFINITY;
        for (int i = 0; i < n; i++) {
            if (x[i] == -INFINITY) continue;
            seq += x[i];
            count++;
            top = x[i] > top ? x[i] : top;
        }
        int c = -1;
        float m = 0.0f;
        double sum = sp_sum_finite(x, n, &c, &m);
        CHECK_EQ_INT(bits64(sum), bits64(seq));
        CHECK_EQ_INT(c, count);
        CHECK(m == top);
        if (kind == 0) exact_cases++;
        if (kind == 1) loop_cases++;

        /* the entropy of e = exp(x - max) over the finite x */
        int k = 0;
        for (int i = 0; i < n; i++)
            if (x[i] != -INFINITY) x[k++] = x[i];
        if (k == 0) continue;
        float mx = sp_max(x, k);
        sp_exp_shift_sum(x, mx, e, k);
        double z = 0.0;
        for (int i = 0; i < k; i++) z += e[i];
        double log_z = sp_log(z), h = 0.0;
        for (int i = 0; i < k; i++)
            if (e[i] > 0.0f) h -= (e[i] / z) * (((double)x[i] - mx) - log_z);
        CHECK_EQ_INT(bits64(sp_entropy_nats(e, x, k, z, mx, log_z)), bits64(h));
    }
    CHECK(exact_cases > 50 && loop_cases > 50);
}

/* the temperature's division with the snapshot's exps, and group maxima */
static void test_fused_passes(void) {
    enum { N = 3001 };
    static float x[N], a[N], b[N], out[N], ref[N];
    for (int trial = 0; trial < 200; trial++) {
        int n = (int)(next_u32() % N);
        for (int i = 0; i < n; i++)
            x[i] = next_u32() % 9u ? rand_float() * 20.0f : -INFINITY;
        /* the callers' shift: the max (every x - shift <= SP_EXP_HI) */
        float shift = n ? sp_max(x, n) : 0.0f, t = trial % 2 ? 0.7f : 1e-3f;
        memcpy(a, x, sizeof(float) * (size_t)n);
        memcpy(b, x, sizeof(float) * (size_t)n);
        float z = sp_sub_div_exp_sum(a, shift, t, out, n);
        sp_sub_div(b, shift, t, n);
        float zr = sp_exp_shift_sum(b, 0.0f, ref, n);
        CHECK(memcmp(a, b, sizeof(float) * (size_t)n) == 0);
        CHECK(memcmp(out, ref, sizeof(float) * (size_t)n) == 0);
        CHECK_EQ_INT(bits(z), bits(zr));
        /* the raw softmax's exps with the snapshot's division beside them */
        sp_copy(b, a, n);
        CHECK(memcmp(a, b, sizeof(float) * (size_t)n) == 0);
        float zx = sp_exp_sum_div(x, shift, out, a, z, n);
        CHECK_EQ_INT(bits(zx), bits(sp_exp_shift_sum(x, shift, ref, n)));
        CHECK(memcmp(out, ref, sizeof(float) * (size_t)n) == 0);
        sp_div_scalar(b, z, n);
        CHECK(memcmp(a, b, sizeof(float) * (size_t)n) == 0);
        /* group maxima: groups of 16 k, the last to n */
        int size = 16 * (1 + (int)(next_u32() % 6u));
        if (n < size) continue;
        int groups = n / size;
        sp_group_max(x, n, size, groups, out);
        for (int g = 0; g < groups; g++) {
            float m = -INFINITY;
            int end = g == groups - 1 ? n : (g + 1) * size;
            for (int i = g * size; i < end; i++) m = x[i] > m ? x[i] : m;
            CHECK(out[g] == m);
        }
    }
}

TEST_SUITE(kernels,
           TEST(test_dot_and_matmul),
           TEST(test_max_and_scans),
           TEST(test_double_sums),
           TEST(test_fused_passes));
