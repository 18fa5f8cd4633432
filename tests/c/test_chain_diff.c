/* test_chain_diff.c — the sampler chain against the definitions of its
 * stages, in any order.
 *
 * Random logits (ties, masked -inf tokens, vocabularies from 2 to 3 000),
 * random histories (some repeating themselves, for DRY and the n-grams),
 * random subsets of the stages with random settings, in random orders (not
 * the presets only), a constraint mask now and then, mirostat at the end
 * now and then.  Each case runs three ways:
 *
 *   fast       the sampler as it ships (its shortcuts on, the reporting
 *              on or off at random),
 *   reference  the same sampler with no shortcut (sp_sampler_set_reference),
 *   naive      each stage as its definition says (chain_naive_stages.h,
 *              chain_naive_newer.h), in double, on the alive tokens,
 *              sorting where a definition sorts; the temperature divides
 *              x / T as llama.cpp does.
 *
 * fast and reference must agree to the bit (final probabilities, kept
 * list, cut marks).  naive and reference must keep the same tokens, cut by
 * the same stages, with final probabilities within 1e-6 of each other
 * (relative to the larger, 1e-9 absolute below).  Where a token of the
 * naive chain sits within rounding of a stage's line (a mass that reaches
 * top-p's target to 1e-6, a ratio at min-p's bar, a logit tied with top-k's
 * k-th up to rounding...), float and double may fairly decide it either
 * way: such a case is counted as "on a line" and held to the fast =
 * reference rule only.  Fixed seeds; the counts are printed. */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "internal.h"
#include "sampler.h"

#include "chain_naive.h"
#include "chain_naive_stages.h"
#include "chain_naive_newer.h"

enum { MAXH = 96 };

static sp_rng rng;
static uint32_t below(uint32_t n) { return sp_rng_u32(&rng) % n; }
static double uniform(double lo, double hi) {
    return lo + (hi - lo) * sp_rng_uniform(&rng);
}

/* ------------------------------------------------ the naive chain */

static void naive_chain(naive *n, const float *logits, const uint8_t *mask,
                        const int *h, int nh, const sp_params *p, double xtc_u,
                        double *probs) {
    for (int i = 0; i < n->v; i++) {
        n->x[i] = logits[i];
        n->cut[i] = logits[i] == -INFINITY ? SP_CUT_MASK : SP_CUT_NONE;
        if (mask && !mask[i] && alive(n, i)) cut(n, i, SP_CUT_CONSTRAINT);
    }
    n->on_line = 0;
    memset(n->slack, 0, sizeof n->slack);
    int stages = p->n_order ? p->n_order : SP_STAGE_COUNT;
    for (int j = 0; j < stages; j++) {
        switch (p->n_order ? p->order[j] : j) {
        case SP_STAGE_BIAS: naive_bias(n, p); break;
        case SP_STAGE_PENALTIES: naive_penalties(n, p, h, nh); break;
        case SP_STAGE_DRY: if (p->dry_multiplier > 0) naive_dry(n, p, h, nh); break;
        case SP_STAGE_NO_REPEAT_NGRAM: if (p->no_repeat_ngram_size > 0) naive_no_repeat_ngram(n, p, h, nh); break;
        case SP_STAGE_TEMPERATURE: naive_temperature(n, p); break;
        case SP_STAGE_TOP_N_SIGMA: if (p->top_n_sigma > 0) naive_top_n_sigma(n, p); break;
        case SP_STAGE_TOP_K: naive_top_k(n, p); break;
        case SP_STAGE_TOP_P: if (p->top_p < 1) naive_top_p(n, p); break;
        case SP_STAGE_MIN_P: if (p->min_p > 0) naive_min_p(n, p); break;
        case SP_STAGE_TYPICAL_P: if (p->typical_p < 1) naive_typical_p(n, p); break;
        case SP_STAGE_EPSILON: if (p->epsilon_cutoff > 0) naive_epsilon(n, p); break;
        case SP_STAGE_ETA: if (p->eta_cutoff > 0) naive_eta(n, p); break;
        case SP_STAGE_TOP_A: if (p->top_a > 0) naive_top_a(n, p); break;
        case SP_STAGE_XTC: if (p->xtc_probability > 0 && p->xtc_threshold <= 0.5f) naive_xtc(n, p, xtc_u); break;
        case SP_STAGE_TOP_H: if (p->top_h > 0) naive_top_h(n, p); break;
        case SP_STAGE_P_LESS: if (p->p_less) naive_p_less(n); break;
        case SP_STAGE_TFS: if (p->tfs < 1) naive_tfs(n, p); break;
        case SP_STAGE_QUADRATIC: if (p->smoothing_factor > 0) naive_quadratic(n, p); break;
        case SP_STAGE_MIN_NEW_TOKENS: if (p->min_new_tokens > 0) naive_min_new_tokens(n, p); break;
        case SP_STAGE_EXP_DECAY: if (p->exp_decay_factor != 1.0f) naive_exp_decay(n, p); break;
        case SP_STAGE_SEQUENCE_BIAS: naive_sequence_bias(n, p, h, nh); break;
        case SP_STAGE_BAD_WORDS: naive_bad_words(n, p, h, nh); break;
        case SP_STAGE_WATERMARK: if (p->watermark_delta != 0) naive_watermark(n, p, h, nh); break;
        case SP_STAGE_CFG: if (p->cfg_scale != 1) naive_cfg(n, p); break;
        }
    }
    if (p->mirostat) naive_mirostat(n, p);
    if (p->adaptive_target >= 0) naive_adaptive_p(n, p);
    softmax(n, probs);
}

/* ------------------------------------------------- the random cases */

/* The logits' families, by name (a failure names its case's). */
static const char *const FAMILIES[] = {"spread", "ties", "masked", "peaked", "flat-ish"};

static void fill_logits(float *x, int v, int family) {
    for (int i = 0; i < v; i++) {
        switch (family) {
        case 0: x[i] = (float)uniform(-10, 10); break;
        case 1: x[i] = (float)below(5) - 2.0f; break;
        case 2: x[i] = below(3) ? (float)uniform(-4, 4) : -INFINITY; break;
        case 3: x[i] = (float)(-1.5 * log(i + 1.0) + uniform(-0.3, 0.3)); break;
        default: x[i] = (float)uniform(-0.5, 0.5); break;
        }
    }
    if (x[below((uint32_t)v)] == -INFINITY || family == 2) x[below((uint32_t)v)] = 1.0f;
}

/* A random subset of the stages in a random order, each stage's settings
 * away from neutral. */
/* a random word of 1..4 tokens; half of them end as the history does, so
 * that their last token is the one they change */
static void random_word(int *ids, int *n, int v, const int *h, int nh) {
    *n = 1 + (int)below(4);
    int follow = below(2) && *n - 1 <= nh;
    for (int k = 0; k < *n - 1; k++)
        ids[k] = follow ? h[nh - (*n - 1) + k] : (int)below((uint32_t)v);
    ids[*n - 1] = (int)below((uint32_t)v);
}

static void random_chain(sp_params *p, int v, const int *h, int nh) {
    sp_params_default(p);
    uint8_t all[SP_STAGE_COUNT];
    for (int i = 0; i < SP_STAGE_COUNT; i++) all[i] = (uint8_t)i;
    for (int i = SP_STAGE_COUNT - 1; i > 0; i--) { /* shuffle */
        int j = (int)below((uint32_t)i + 1);
        uint8_t t = all[i];
        all[i] = all[j];
        all[j] = t;
    }
    int n = 1 + (int)below(SP_STAGE_COUNT);
    if (below(4) == 0) n = 2 + (int)below(3); /* short chains: pairs, triples */
    p->n_order = n;
    memcpy(p->order, all, (size_t)n);
    char err[SP_ERR_LEN];
    for (int i = 0; i < n; i++) {
        switch (all[i]) {
        case SP_STAGE_BIAS:
            for (int b = 1 + (int)below(4); b > 0; b--)
                sp_params_add_bias(p, (int)below((uint32_t)v),
                                   below(4) ? (float)uniform(-3, 3) : -INFINITY, err);
            break;
        case SP_STAGE_PENALTIES:
            if (below(4)) p->repetition_penalty = (float)uniform(0.5, 2.5);
            if (below(2)) p->frequency_penalty = (float)uniform(-1, 1);
            if (below(2)) p->presence_penalty = (float)uniform(-1, 1);
            if (below(3) == 0) p->penalty_last_n = (int)below((uint32_t)nh + 2);
            break;
        case SP_STAGE_DRY:
            p->dry_multiplier = (float)uniform(0.1, 2);
            p->dry_base = (float)uniform(1, 3);
            p->dry_allowed_length = 1 + (int)below(4);
            if (below(3) == 0) p->dry_penalty_last_n = (int)below((uint32_t)nh + 2);
            if (below(3) == 0) {
                int t = (int)below((uint32_t)v);
                sp_params_add_dry_breaker(p, &t, 1, err);
            }
            break;
        case SP_STAGE_NO_REPEAT_NGRAM: p->no_repeat_ngram_size = 1 + (int)below(4); break;
        case SP_STAGE_TEMPERATURE:
            p->temperature = below(8) == 0 ? 0.0f : (float)uniform(0.1, 2.5);
            if (below(4) == 0) {
                p->dynatemp_range = (float)uniform(0.1, 1.5);
                p->dynatemp_exp = (float)uniform(0.5, 2);
            }
            break;
        case SP_STAGE_TOP_N_SIGMA: p->top_n_sigma = (float)uniform(0.2, 3); break;
        case SP_STAGE_TOP_K: p->top_k = 1 + (int)below(below(2) ? (uint32_t)v : 50); break;
        case SP_STAGE_TOP_P: p->top_p = (float)uniform(0.05, 0.99); break;
        case SP_STAGE_MIN_P: p->min_p = (float)uniform(0.001, 0.5); break;
        case SP_STAGE_TYPICAL_P: p->typical_p = (float)uniform(0.05, 0.99); break;
        case SP_STAGE_EPSILON: p->epsilon_cutoff = (float)uniform(0.0001, 0.05); break;
        case SP_STAGE_ETA: p->eta_cutoff = (float)uniform(0.0001, 0.05); break;
        case SP_STAGE_TOP_A: p->top_a = (float)uniform(0.01, 2); break;
        case SP_STAGE_XTC:
            p->xtc_probability = (float)uniform(0.2, 1);
            p->xtc_threshold = (float)uniform(0.01, 0.5);
            break;
        case SP_STAGE_TOP_H: p->top_h = (float)uniform(0.05, 1); break;
        case SP_STAGE_P_LESS: p->p_less = 1; break;
        case SP_STAGE_TFS: p->tfs = (float)uniform(0.3, 0.99); break;
        case SP_STAGE_MIN_NEW_TOKENS: p->min_new_tokens = 1 + (int)below(20); break;
        case SP_STAGE_EXP_DECAY:
            p->exp_decay_start = (int)below(10);
            p->exp_decay_factor = (float)uniform(0.5, 2);
            break;
        case SP_STAGE_SEQUENCE_BIAS:
        case SP_STAGE_BAD_WORDS:
            for (int w = 1 + (int)below(4); w > 0; w--) {
                int ids[4], len;
                random_word(ids, &len, v, h, nh);
                if (all[i] == SP_STAGE_BAD_WORDS) sp_params_add_bad_word(p, ids, len, err);
                else sp_params_add_sequence_bias(p, ids, len, (float)uniform(-4, 4), err);
            }
            break;
        case SP_STAGE_WATERMARK:
            p->watermark_gamma = (float)uniform(0.05, 0.95);
            p->watermark_delta = (float)uniform(0.1, 5);
            p->watermark_key = (int)below(1000000);
            break;
        case SP_STAGE_CFG: p->cfg_scale = (float)uniform(0, 4); break;
        case SP_STAGE_QUADRATIC:
            p->smoothing_factor = (float)uniform(0.05, 3);
            if (below(2)) p->smoothing_curve = (float)uniform(1, 4);
            break;
        }
    }
    if (below(8) == 0) {
        p->mirostat = 1 + (int)below(2);
        p->mirostat_tau = (float)uniform(0.5, 8);
    } else if (below(8) == 0) {
        p->adaptive_target = (float)uniform(0, 1);
        p->adaptive_decay = (float)uniform(0, 0.99);
    }
}

static void describe(const char *name, int index, int v, int family,
                     const sp_params *p, int nh) {
    char order[256];
    sp_params_order_text(p, order, sizeof order);
    printf("  %s case %d: V %d, %s logits, history %d, chain %s%s\n", name,
           index, v, FAMILIES[family], nh, order,
           p->mirostat ? (p->mirostat == 1 ? " + mirostat v1" : " + mirostat v2")
           : p->adaptive_target >= 0 ? " + adaptive-p" : "");
}

/* fast and reference, to the bit */
static int same_result(const sp_step *a, const sp_step *b, int v) {
    return a->n_kept == b->n_kept &&
           !memcmp(a->probs, b->probs, sizeof(float) * (size_t)v) &&
           !memcmp(a->cut, b->cut, (size_t)v) &&
           !memcmp(a->kept, b->kept, sizeof(int) * (size_t)a->n_kept);
}

/* The relative tolerance of token i's final probability: 1e-6, and the
 * engine's float rounding of its logit and the largest (a few ulps each:
 * a temperature of 0.1 makes logits of 100, whose ulp moves p by 1e-5). */
static double tolerance(const naive *n, int i, double top) {
    if (!alive(n, i)) return 0;
    return 1e-6 + 4 * FLT_EPSILON * (fabs(n->x[i]) + fabs(top)) + n->slack[i];
}

/* naive and reference: the same kept tokens, cut by the same stages,
 * probabilities within 1e-6 relative (1e-9 absolute) */
static int close_result(const naive *n, const double *want, const sp_step *st,
                        double *worst) {
    int ok = 1;
    double top = -INFINITY;
    for (int i = 0; i < n->v; i++) top = n->x[i] > top ? n->x[i] : top;
    for (int i = 0; i < n->v; i++) {
        if (n->cut[i] != st->cut[i]) ok = 0;
        double got = st->probs[i], d = fabs(got - want[i]);
        if (d > tolerance(n, i, top) * fmax(want[i], got) + 1e-9) ok = 0;
        double rel = want[i] > 1e-3 ? d / want[i] : 0;
        if (rel > *worst) *worst = rel;
    }
    return ok;
}

/* One family of cases: `count` random chains on vocabularies up to maxv.
 * Returns the cases that fell on a line. */
static int run_cases(const char *name, uint64_t seed, int count, int maxv) {
    static float x[MAXV];
    static uint8_t mask[MAXV];
    static int hist[MAXH];
    static naive nv;
    static double want[MAXV];
    static float ux[MAXV];
    char err[SP_ERR_LEN];
    sp_rng_seed(&rng, seed);
    int lines = 0, differ = 0, wrong = 0, failed = 0;
    double worst = 0;
    for (int c = 0; c < count; c++) {
        int v = 2 + (int)below((uint32_t)maxv - 1);
        int family = (int)below(5);
        fill_logits(x, v, family);
        int nh = (int)below(MAXH + 1);
        int alphabet = 1 + (int)below(v < 12 ? (uint32_t)v : 12u);
        for (int i = 0; i < nh; i++) hist[i] = (int)below((uint32_t)alphabet);
        if (nh > 8 && below(3) == 0) /* a text that repeats itself */
            for (int i = nh / 2; i < nh; i++) hist[i] = hist[i - nh / 2 + (int)below(2)];
        const uint8_t *m = NULL;
        if (below(8) == 0) {
            for (int i = 0; i < v; i++) mask[i] = below(4) != 0;
            m = mask;
        }
        sp_params p;
        random_chain(&p, v, hist, nh);
        double xtc_u = sp_rng_uniform(&rng);
        len_at = (int)below(20);
        len_end = (int)below((uint32_t)v);
        sp_sampler_state state = {xtc_u, NAN, len_at, &len_end, 1, NAN, NAN, NULL};
        if (p.cfg_scale != 1.0f) { /* the second run's logits */
            fill_logits(ux, v, (int)below(2) ? 0 : 3);
            state.cfg_uncond = naive_uncond = ux;
        }

        sp_sampler *fast = sp_sampler_new(v), *ref = sp_sampler_new(v);
        sp_sampler_set_raw(fast, (int)below(2));
        sp_sampler_set_reference(ref, 1);
        sp_sampler_set_state(fast, &state);
        sp_sampler_set_state(ref, &state);
        sp_sampler_set_mask(fast, m);
        sp_sampler_set_mask(ref, m);
        sp_step a, b;
        int ra = sp_sampler_warp(fast, x, hist, nh, &p, &a, err);
        int rb = sp_sampler_warp(ref, x, hist, nh, &p, &b, err);
        nv.v = v;
        naive_chain(&nv, x, m, hist, nh, &p, xtc_u, want);
        int none = n_alive(&nv) == 0;
        int ok = 1;
        /* on a line, a stage's float and the naive double may leave
         * different tokens alive: there only fast and reference agree */
        if (ra != rb || ((ra != SP_OK) != none && !nv.on_line)) {
            ok = 0;
            printf("  returns: fast %d, reference %d (%s), naive %s\n", ra, rb,
                   err, none ? "nothing left" : "ok");
        } else if (ra == SP_OK) {
            if (!same_result(&a, &b, v)) {
                ok = 0;
                differ++;
                printf("  fast and reference differ\n");
            }
            if (nv.on_line) {
                lines++;
            } else if (!close_result(&nv, want, &b, &worst)) {
                ok = 0;
                wrong++;
                for (int i = 0, shown = 0; i < v && shown < 6; i++)
                    if (nv.cut[i] != b.cut[i] || fabs(b.probs[i] - want[i]) > 1e-6 * want[i] + 1e-9) {
                        /* the first few that differ (within tolerance or not) */
                        printf("    token %d: engine %.9g (%s), naive %.9g (%s)\n", i,
                               (double)b.probs[i], sp_cut_name(b.cut[i]), want[i],
                               sp_cut_name(nv.cut[i]));
                        shown++;
                    }
            }
        }
        if (!ok) {
            failed++;
            describe(name, c, v, family, &p, nh);
        }
        CHECK(ok);
        sp_sampler_free(fast);
        sp_sampler_free(ref);
    }
    say("%s: %d cases, %d on a line (fast = reference only), %d fast != "
        "reference, %d != definitions, largest relative difference of a "
        "p > 0.001: %.2g", name, count, lines, differ, wrong, worst);
    return failed;
}

/* The defect that made this test: a stage after the temperature is
 * applied where the chain puts it.  A named case of its own. */
static void test_penalty_after_temperature_case(void) {
    static naive nv;
    double want[3];
    const float x[3] = {2, 1, 0};
    const int h[1] = {0};
    sp_params p;
    sp_params_default(&p);
    p.repetition_penalty = 2.0f;
    p.temperature = 0.5f;
    char err[SP_ERR_LEN];
    CHECK_EQ_INT(sp_params_set_order(&p, "temperature;penalties", err), SP_OK);
    nv.v = 3;
    naive_chain(&nv, x, NULL, h, 1, &p, 0, want);
    CHECK_NEAR(want[0], 0.468310535, 1e-8);
    CHECK_NEAR(want[2], 0.0633789375, 1e-8);
    sp_sampler *s = sp_sampler_new(3);
    sp_step st;
    CHECK_EQ_INT(sp_sampler_warp(s, x, h, 1, &p, &st, err), SP_OK);
    for (int i = 0; i < 3; i++) CHECK_NEAR(st.probs[i], want[i], 1e-6);
    sp_sampler_free(s);
}

/* The three families: many small vocabularies (every stage's corner
 * cases), fewer medium ones, a few large ones (the heaps' and groups'
 * paths); each seeded, so a failing case is found again. */
static void test_small_vocabularies(void) {
    run_cases("small vocabularies", 24, 6000, 40);
}
static void test_medium_vocabularies(void) {
    run_cases("medium vocabularies", 2024, 3000, 400);
}
static void test_large_vocabularies(void) {
    run_cases("large vocabularies", 11, 400, MAXV);
}

TEST_SUITE(chain_diff,
           TEST(test_penalty_after_temperature_case),
           TEST(test_small_vocabularies),
           TEST(test_medium_vocabularies),
           TEST(test_large_vocabularies));
