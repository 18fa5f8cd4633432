/* test_fastpaths.c — the sampler's shortcuts give the very bits of the
 * long way round.
 *
 *  - The temperature and top-k run as one step when nothing between them
 *    needs the tempered distribution (the reporting off, sp_sampler_set_raw
 *    0): the kept set, the final probabilities and the cut marks must be
 *    those of the two stages one after the other, which the reporting on
 *    still runs (its snapshot comes between them).  On random logits with
 *    ties, masks, huge and tiny values, temperatures down to 1e-6 (where
 *    the tempered logits overflow and top-k has fewer candidates).
 *  - Every step record, the reporting off and on, is the bits of a sampler
 *    that takes no shortcut (sp_sampler_set_reference): the temperature
 *    fused with top-k or with the snapshot, the snapshot copied from the
 *    raw softmax, top-k from group maxima and through a whole-vocabulary
 *    list (dynamic temperature's) the dense way, top-k's cut leaving the
 *    cut logits unwritten when no later stage reads them, top-nσ on the
 *    dense logits; with top-nσ, dynamic temperature, typical-p, DRY, a bias
 *    and other orders (the temperature, the penalties and DRY after top-k)
 *    among the settings.
 *  - A warp of the same logits reuses the raw distribution: every raw
 *    number must be what a fresh sampler computes.
 *  - The intake pass's check and max are sp_find_not_below's and
 *    sp_max's.
 *  - Top-k finds its k-th largest logit from the groups' maxima (no heap
 *    over the whole vocabulary): the very kept set a full sort gives, on
 *    vocabularies large enough for the groups (up to 32 000) with ties,
 *    masks, signed zeros and a k from 1 to a few hundred; and the fused
 *    temperature and top-k there, which take the maxima the intake pass
 *    found and the penalties kept up (they move the largest logits down and
 *    up here), give the bits of the two stages; the argmax found through
 *    the same maxima is the first token at the max. */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "internal.h"
#include "sampler.h"

static sp_rng rng;
static uint32_t below(uint32_t n) { return sp_rng_u32(&rng) % n; }
static float uniform(float lo, float hi) {
    return lo + (hi - lo) * (float)sp_rng_uniform(&rng);
}

static void fill(float *x, int v) {
    int kind = (int)below(5);
    for (int i = 0; i < v; i++) {
        switch (kind) {
        case 0: x[i] = uniform(-10, 10); break;
        case 1: x[i] = (float)below(4) - 2.0f; break; /* ties */
        case 2: x[i] = below(3) ? uniform(-3, 3) : -INFINITY; break;
        case 3: x[i] = uniform(-1, 1) * (below(2) ? 3e38f : 1e4f); break;
        default: x[i] = below(2) ? 0.0f : -0.0f; break;
        }
    }
}

static int same_bits(const void *a, const void *b, size_t n) {
    return memcmp(a, b, n) == 0;
}

static int float_desc(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return (x < y) - (x > y);
}

/* Top-k against a full sort: every finite logit >= the k-th largest finite
 * one stays, every other finite one is cut by top-k; and the fused
 * temperature + top-k (the reporting off) gives the bits of the two
 * stages (on). */
static void test_top_k_groups(void) {
    char err[SP_ERR_LEN];
    enum { MAXV = 32000 };
    static float x[MAXV], sorted[MAXV], probs[MAXV];
    static uint8_t cut[MAXV];
    static const int sizes[] = {1000, 4000, 7777, 32000};
    int mismatches = 0, unfused = 0, cases = 0;
    for (int trial = 0; trial < 80; trial++) {
        int v = sizes[trial % 4];
        for (int i = 0; i < v; i++) { /* fill()'s kinds, at this size */
            switch (trial % 5) {
            case 0: x[i] = uniform(-10, 10); break;
            case 1: x[i] = (float)below(40) - 20.0f; break; /* ties */
            case 2: x[i] = below(3) ? uniform(-3, 3) : -INFINITY; break;
            case 3: x[i] = uniform(-1, 1) * (below(2) ? 3e38f : 1e4f); break;
            default: x[i] = below(50) ? -(float)below(7) : (below(2) ? 0.0f : -0.0f); break;
            }
        }
        if (trial % 10 == 7) /* the finite ones crowded into a few groups */
            for (int i = 0; i < v; i++) if (i % 997 > 20) x[i] = -INFINITY;
        x[below((uint32_t)v)] = 1.0f;
        sp_params p;
        sp_params_default(&p);
        p.top_k = 1 + (int)below(trial % 3 ? 60 : 400);
        int n = 0;
        for (int i = 0; i < v; i++) if (x[i] != -INFINITY) sorted[n++] = x[i];
        qsort(sorted, (size_t)n, sizeof(float), float_desc);
        float kth = n > p.top_k ? sorted[p.top_k - 1] : -INFINITY;
        sp_sampler *s = sp_sampler_new(v);
        sp_step st;
        int argmax = 0; /* the first at the max (the intake's groups) */
        for (int i = 1; i < v; i++) if (x[i] > x[argmax]) argmax = i;
        for (int raw = 0; raw <= 1; raw++) { /* temperature 1: top-k alone */
            sp_sampler_set_raw(s, raw);
            CHECK_EQ_INT(sp_sampler_warp(s, x, NULL, 0, &p, &st, err), SP_OK);
            CHECK_EQ_INT(st.argmax_raw, argmax);
            for (int i = 0; i < v; i++) {
                int want = x[i] == -INFINITY ? SP_CUT_MASK
                           : x[i] >= kth     ? SP_CUT_NONE
                                             : SP_CUT_TOP_K;
                mismatches += st.cut[i] != want;
            }
        }
        /* the temperature before it: fused (off) and as two stages (on);
         * the penalties move logits down or up (r < 1), their most likely
         * ones among them (the intake's group maxima must follow) */
        p.temperature = trial % 2 ? 0.8f : 3e-3f;
        p.repetition_penalty = trial % 3 ? 1.3f : 0.7f;
        p.frequency_penalty = trial % 4 == 1 ? 0.5f : 0.0f;
        int hist[64];
        for (int i = 0; i < 64; i++) hist[i] = (int)below((uint32_t)v);
        for (int i = 0; i < 16; i++) { /* a few of the largest */
            int best = 0;
            for (int j = 1; j < v; j++)
                if (x[j] > x[best] && (j + i) % 16 == 0) best = j;
            hist[i] = best;
        }
        sp_sampler_set_raw(s, 0);
        CHECK_EQ_INT(sp_sampler_warp(s, x, hist, 64, &p, &st, err), SP_OK);
        memcpy(probs, st.probs, sizeof(float) * (size_t)v);
        memcpy(cut, st.cut, (size_t)v);
        int n_kept = st.n_kept;
        sp_sampler_set_raw(s, 1);
        CHECK_EQ_INT(sp_sampler_warp(s, x, hist, 64, &p, &st, err), SP_OK);
        unfused += n_kept != st.n_kept ||
                   !same_bits(probs, st.probs, sizeof(float) * (size_t)v) ||
                   !same_bits(cut, st.cut, (size_t)v);
        sp_sampler_free(s);
        cases++;
    }
    CHECK_EQ_INT(mismatches, 0);
    CHECK_EQ_INT(unfused, 0);
    printf("top-k by groups: %d vocabularies, %d mismatches against a sort, "
           "%d fused against unfused\n", cases, mismatches, unfused);
}

/* Everything a step record holds, compared to the bit. */
static int same_step(const sp_step *a, const sp_step *b, int v, int raw) {
    int same = a->n_kept == b->n_kept && a->argmax_raw == b->argmax_raw &&
               same_bits(&a->raw_max, &b->raw_max, 4) &&
               same_bits(a->probs, b->probs, sizeof(float) * (size_t)v) &&
               same_bits(a->cut, b->cut, (size_t)v) &&
               same_bits(&a->entropy_bits, &b->entropy_bits, 8);
    if (same)
        same = same_bits(a->kept, b->kept, sizeof(int) * (size_t)a->n_kept) &&
               a->n_penalized == b->n_penalized &&
               same_bits(a->penalized, b->penalized,
                         sizeof(int) * (size_t)a->n_penalized);
    if (same && raw)
        same = same_bits(a->probs_raw, b->probs_raw, sizeof(float) * (size_t)v) &&
               same_bits(a->probs_tempered, b->probs_tempered,
                         sizeof(float) * (size_t)v) &&
               same_bits(&a->entropy_raw_bits, &b->entropy_raw_bits, 8) &&
               same_bits(&a->raw_log_z, &b->raw_log_z, 8) &&
               same_bits(&a->kept_mass, &b->kept_mass, 8);
    return same;
}

enum { MAXV = 3000 };

/* Random chains on random logits: the fused paths (the temperature with
 * top-k, with the snapshot) give the bits of the plain ones, and both the
 * reference path's, the reporting off and on. */
static void test_fused_paths(void) {
    char err[SP_ERR_LEN];
    sp_rng_seed(&rng, 16);
    static float x[MAXV], probs[MAXV];
    static uint8_t cut[MAXV];
    static int kept[MAXV], hist[64];
    static const char *const orders[] = {
        "temperature,top_k", "top_k,temperature,top_p,min_p",
        "penalties,temperature,top_n_sigma,top_k,top_p",
        "top_n_sigma,temperature,top_k,min_p", "bias,temperature",
        "temperature,penalties,top_k", "temperature,top_k,dry,penalties,top_p",
        "temperature,top_k,penalties,min_p"};
    sp_sampler *fast = NULL, *slow = NULL, *ref = NULL;
    int fused_cases = 0, differ = 0, differ_raw = 0;
    for (int trial = 0; trial < 1500; trial++) {
        int v = trial % 50 == 0 ? MAXV : 2 + (int)below(300);
        sp_sampler_free(fast);
        sp_sampler_free(slow);
        sp_sampler_free(ref);
        fast = sp_sampler_new(v);
        slow = sp_sampler_new(v);
        ref = sp_sampler_new(v);
        sp_sampler_set_raw(fast, 0);
        sp_sampler_set_reference(ref, 1);
        fill(x, v);
        if (x[0] == -INFINITY) x[0] = 0.5f; /* something to keep */
        for (int i = 0; i < 64; i++) hist[i] = (int)below((uint32_t)v);
        int repeats = trial % 7 == 3; /* a text that repeats itself: DRY */
        if (repeats)
            for (int i = 0; i < 64; i++) hist[i] = (i * 7 % 11) % v;
        sp_params p;
        sp_params_default(&p);
        float temps[] = {0.8f, 1.7f, 0.05f, 1e-6f, 3e-3f, 40.0f, 1.0f, 0.0f};
        p.temperature = temps[below(trial % 3 ? 6 : 8)];
        p.top_k = 1 + (int)below((uint32_t)v);
        if (below(2)) p.repetition_penalty = 1.3f;
        if (below(3) == 0) p.top_p = 0.9f;
        if (below(3) == 0) p.min_p = 0.05f;
        if (below(5) == 0) p.top_n_sigma = 0.5f + (float)below(3);
        if (below(5) == 0) p.dynatemp_range = 0.5f;
        if (below(6) == 0) p.typical_p = 0.7f;
        if (below(6) == 0) sp_params_add_bias(&p, (int)below((uint32_t)v),
                                              below(2) ? -INFINITY : 2.5f, err);
        if (repeats || below(5) == 0) p.dry_multiplier = 0.8f;
        if (repeats) /* DRY after top-k, which may leave cut logits stale */
            sp_params_set_order(&p, orders[6], err);
        else if (below(4) == 0)
            sp_params_set_order(&p, orders[below(8)], err);
        sp_step a, b;
        int ra = sp_sampler_warp(fast, x, hist, 64, &p, &a, err);
        int rb = sp_sampler_warp(slow, x, hist, 64, &p, &b, err);
        CHECK_EQ_INT(ra, rb);
        if (ra != SP_OK || rb != SP_OK) continue;
        fused_cases += p.top_k < v && p.n_order == 0;
        CHECK_EQ_INT(a.n_kept, b.n_kept);
        if (a.n_kept != b.n_kept) continue;
        memcpy(probs, a.probs, sizeof(float) * (size_t)v);
        memcpy(cut, a.cut, (size_t)v);
        memcpy(kept, a.kept, sizeof(int) * (size_t)a.n_kept);
        CHECK(same_bits(probs, b.probs, sizeof(float) * (size_t)v));
        CHECK(same_bits(cut, b.cut, (size_t)v));
        CHECK(same_bits(kept, b.kept, sizeof(int) * (size_t)a.n_kept));
        CHECK(same_bits(&a.entropy_bits, &b.entropy_bits, sizeof(double)));
        /* both against the long way round, the reporting off and on */
        sp_step r;
        for (int raw = 0; raw <= 1; raw++) {
            sp_sampler *s = raw ? slow : fast;
            sp_sampler_set_raw(ref, raw);
            CHECK_EQ_INT(sp_sampler_warp(s, x, hist, 64, &p, &a, err), SP_OK);
            CHECK_EQ_INT(sp_sampler_warp(ref, x, hist, 64, &p, &r, err), SP_OK);
            if (!same_step(&a, &r, v, raw)) {
                if (raw) differ_raw++;
                else differ++;
            }
        }
    }
    CHECK(fused_cases > 500);
    CHECK_EQ_INT(differ, 0);
    CHECK_EQ_INT(differ_raw, 0);
    sp_sampler_free(ref);
    sp_sampler_free(fast);
    sp_sampler_free(slow);
    say("%d fused cases", fused_cases);
}

/* The raw distribution of the same logits, warped again, comes from the
 * cache with the bits of a fresh sampler's. */
static void test_raw_cache(void) {
    char err[SP_ERR_LEN];
    static float x[MAXV];
    sp_sampler *fast = NULL, *slow = NULL;
    sp_rng_seed(&rng, 17);
    /* the raw distribution of the same logits, warped again */
    for (int trial = 0; trial < 200; trial++) {
        int v = 2 + (int)below(500);
        sp_sampler_free(fast);
        sp_sampler_free(slow);
        fast = sp_sampler_new(v);
        float y[MAXV];
        fill(x, v);
        fill(y, v);
        x[0] = y[0] = 1.0f;
        sp_params p;
        sp_params_default(&p);
        p.temperature = 0.7f;
        sp_step a, b;
        /* x, then y with the reporting off (the cache must not survive it),
         * then x twice, then y: each against a fresh sampler */
        const float *seq[5] = {x, y, x, x, y};
        for (int i = 0; i < 5; i++) {
            sp_sampler_set_raw(fast, i != 1);
            int ra = sp_sampler_warp(fast, seq[i], NULL, 0, &p, &a, err);
            slow = sp_sampler_new(v);
            int rb = sp_sampler_warp(slow, seq[i], NULL, 0, &p, &b, err);
            CHECK_EQ_INT(ra, rb);
            if (ra == SP_OK && i != 1) {
                CHECK(same_bits(a.probs_raw, b.probs_raw, sizeof(float) * (size_t)v));
                CHECK(same_bits(&a.entropy_raw_bits, &b.entropy_raw_bits, 8));
                CHECK(same_bits(&a.raw_log_z, &b.raw_log_z, 8));
                CHECK(same_bits(&a.kept_mass, &b.kept_mass, 8));
            }
            sp_sampler_free(slow);
            slow = NULL;
        }
    }
    sp_sampler_free(fast);
}

/* The intake pass's check and max against sp_find_not_below, sp_max and
 * a scan for the argmax. */
static void test_intake(void) {
    char err[SP_ERR_LEN];
    static float x[MAXV];
    sp_rng_seed(&rng, 18);
    /* the intake pass's check and max against sp_find_not_below, sp_max
     * and a scan for the argmax */
    for (int trial = 0; trial < 500; trial++) {
        int n = 1 + (int)below(300);
        fill(x, n);
        if (below(4) == 0) x[below((uint32_t)n)] = below(2) ? NAN : INFINITY;
        if (below(8) == 0) x[below((uint32_t)n)] = 0.0f; /* a zero max */
        int bad = sp_find_not_below(x, INFINITY, n);
        float want_max = sp_max(x, n);
        sp_sampler *s = sp_sampler_new(n);
        sp_sampler_set_raw(s, (int)below(2));
        sp_params p;
        sp_params_default(&p);
        sp_step st;
        int rc = sp_sampler_warp(s, x, NULL, 0, &p, &st, err);
        if (bad >= 0) {
            char want[64];
            snprintf(want, sizeof want, "logits: token %d is %s", bad,
                     x[bad] != x[bad] ? "NaN" : "+inf");
            CHECK_EQ_INT(rc, SP_ERR_FORMAT);
            CHECK(strstr(err, want) != NULL);
        } else if (want_max == -INFINITY) {
            CHECK_EQ_INT(rc, SP_ERR_STATE);
        } else {
            CHECK_EQ_INT(rc, SP_OK);
            CHECK(same_bits(&st.raw_max, &want_max, 4));
            CHECK_EQ_INT(st.argmax_raw, sp_scan_ge(x, want_max, 0, n));
        }
        sp_sampler_free(s);
    }
}

TEST_SUITE(fastpaths,
           TEST(test_fused_paths),
           TEST(test_raw_cache),
           TEST(test_intake),
           TEST(test_top_k_groups));
