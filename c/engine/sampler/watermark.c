/*
 * watermark.c — watermarking (Kirchenbauer, Geiping, Wen, Katz, Miers,
 * Goldstein 2023, "A Watermark for Large Language Models"; Hugging Face's
 * WatermarkLogitsProcessor and WatermarkDetector with the "lefthash"
 * seeding, a context of one token).
 *
 * At each step the previous token and a secret key choose a green list: a
 * share gamma of the vocabulary.  The stage adds delta to the green
 * tokens' logits, so a watermarked text holds more green tokens than the
 * gamma a text written without the key holds; a detector who knows the key
 * counts them and reports the z-score of the count.
 *
 * The green list is the first floor(vocab gamma) ids of a permutation of
 * the vocabulary (HF: randperm(vocab)[:gamma vocab]), drawn by a
 * Fisher-Yates shuffle from the engine's own PCG32 seeded with
 * (key << 32) | prev (HF seeds torch's generator with key * prev): integer
 * arithmetic only, so every build draws the same list.  With no previous
 * token (an empty prompt without a begin token) the stage does nothing, as
 * HF's skips a sequence shorter than its context; a session's first step
 * takes the prompt's last token, as HF's does.
 */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "candidates.h"

#define SQRT1_2 0.70710678118654752440

static int green_count(int vocab, float gamma) {
    return (int)floor((double)vocab * (double)gamma);
}

/* An integer uniform in [0, range), range >= 1, without bias (Lemire 2019,
 * "Fast Random Integer Generation in an Interval"): the high word of a
 * 32 x 32-bit product, redrawn when the low word falls in the short
 * stretch that would favour some values. */
static uint32_t uniform_below(sp_rng *r, uint32_t range) {
    uint64_t m = (uint64_t)sp_rng_u32(r) * range;
    uint32_t low = (uint32_t)m;
    if (low < range) {
        uint32_t floor_ = (uint32_t)(0u - range) % range;
        while (low < floor_) {
            m = (uint64_t)sp_rng_u32(r) * range;
            low = (uint32_t)m;
        }
    }
    return (uint32_t)(m >> 32);
}

/* perm[0 .. n): the green list after prev, in the order drawn (the first
 * n steps of a Fisher-Yates shuffle of 0 .. vocab-1; the draws are the
 * list's cost, each needs the last).  green (may be NULL) gets 1 at each id
 * drawn, in the same pass.  token >= 0: stops as soon as token is drawn
 * and returns 1 (0 when it is not). */
static int shuffle(int vocab, int n, int key, int prev, int *perm,
                   uint8_t *green, int token) {
    /* (blocks of 16: a loop of known length, which -O2 vectorizes) */
    int i = 0;
    for (; i + 16 <= vocab; i += 16)
        for (int l = 0; l < 16; l++) perm[i + l] = i + l;
    for (; i < vocab; i++) perm[i] = i;
    sp_rng r;
    sp_rng_seed(&r, (uint64_t)(uint32_t)key << 32 | (uint32_t)prev);
    for (int j = 0; j < n; j++) {
        int k = j + (int)uniform_below(&r, (uint32_t)(vocab - j));
        int t = perm[k];
        perm[k] = perm[j];
        perm[j] = t;
        if (green) green[t] = 1;
        if (t == token) return 1;
    }
    return 0;
}

static int bad_args(int vocab, float gamma, int key, int prev) {
    return vocab <= 0 || !(gamma > 0.0f && gamma < 1.0f) || key < 0 ||
           prev < 0 || prev >= vocab;
}

int sp_watermark_green(int vocab, float gamma, int key, int prev,
                       uint8_t *green, int *perm) {
    if (bad_args(vocab, gamma, key, prev)) return -1;
    int n = green_count(vocab, gamma);
    memset(green, 0, (size_t)vocab);
    shuffle(vocab, n, key, prev, perm, green, -1);
    return n;
}

int sp_watermark_is_green(int vocab, float gamma, int key, int prev,
                          int token, int *perm) {
    if (bad_args(vocab, gamma, key, prev) || token < 0 || token >= vocab)
        return -1;
    return shuffle(vocab, green_count(vocab, gamma), key, prev, perm, NULL,
                   token);
}

/* The sampler's green list for prev (s->wm_green, its ids in
 * s->wm_perm[0 .. wm_n)), drawn again only when prev, the key or the
 * list's size changed: a step after its preview finds it ready. */
static void green_list(sp_sampler *s, const sp_params *p, int prev) {
    int n = green_count(s->vocab, p->watermark_gamma);
    if (s->wm_valid && s->wm_prev == prev && s->wm_key == p->watermark_key &&
        s->wm_n == n)
        return;
    /* the last list's marks off: one by one when they are few, else the
     * whole mask at once (a pass of stores, not a scatter) */
    if (s->wm_valid && s->wm_n < s->vocab / 16)
        for (int j = 0; j < s->wm_n; j++) s->wm_green[s->wm_perm[j]] = 0;
    else if (s->wm_valid)
        memset(s->wm_green, 0, (size_t)s->vocab);
    shuffle(s->vocab, n, p->watermark_key, prev, s->wm_perm, s->wm_green, -1);
    s->wm_n = n;
    s->wm_prev = prev;
    s->wm_key = p->watermark_key;
    s->wm_valid = 1;
}

/* The green list's mass and the spike entropy of the distribution the
 * stage sees (the softmax of the candidates still alive), for the step
 * record: sums in double, token by token in ascending id order, of the
 * exps e[0 .. n) (token ids[j]; ids NULL: token j) over their sum z.  The
 * pass takes no branch: a red token adds 0 to the mass and a token whose
 * exp is 0 adds 0 to both (z >= 1, the largest exp being 1; the sums are
 * never -0: the same bits as adding nothing), where a branch on the list
 * went the other way at random for a quarter of the vocabulary.  (Its
 * cost is two divisions a token; their results stay bit for bit.) */
static void green_sums(sp_sampler *s, const float *e, const int *ids, int n,
                       double z, double zeta) {
    const uint8_t *green = s->wm_green;
    double mass = 0.0, spike = 0.0;
    for (int j = 0; j < n; j++) {
        double q = (double)e[j] / z;
        mass += green[ids ? ids[j] : j] ? q : 0.0;
        spike += q / (1.0 + zeta * q);
    }
    s->wm_green_mass = mass;
    s->wm_spike = spike;
}

static void green_numbers(sp_candidates *c, const sp_params *p) {
    sp_sampler *s = c->s;
    double e_delta = sp_exp((double)p->watermark_delta) - 1.0;
    double gamma = (double)p->watermark_gamma;
    double zeta = (1.0 - gamma) * e_delta / (1.0 + e_delta * gamma);
    double z;
    if (c->listed) {
        sp_cands_exp(c, &z);
        green_sums(s, s->cand_exp, c->ids, c->n, z, zeta);
    } else {
        float m = sp_max(c->logits, c->vocab);
        z = (double)sp_exp_shift_sum(c->logits, m, s->wm_exp, c->vocab);
        green_sums(s, s->wm_exp, NULL, c->vocab, z, zeta);
    }
}

/* The stage: delta added to the logit of every green token still alive
 * (-inf stays -inf: a banned token stays banned). */
void sp_stage_watermark(sp_candidates *c, const sp_params *p) {
    if (p->watermark_delta == 0.0f || c->n_all < 1) return;
    int prev = c->all[c->n_all - 1];
    sp_sampler *s = c->s;
    green_list(s, p, prev);
    s->wm_on = 1;
    if (s->want_raw) green_numbers(c, p);
    float delta = p->watermark_delta;
    float *logits = c->logits;
    const uint8_t *cut = c->cut;
    const int *ids = s->wm_perm;
    for (int j = 0, n = s->wm_n; j < n; j++) {
        int id = ids[j];
        float x = logits[id];
        if (x == -INFINITY || cut[id] != SP_CUT_NONE) continue;
        x += delta; /* kept finite (sp_clamp_finite, inline here) */
        logits[id] = x > FLT_MAX ? FLT_MAX : x < -FLT_MAX ? -FLT_MAX : x;
    }
}

/* ------------------------------------------------------------ detection */

/* erfc(x) to about 1.2e-7 relative everywhere (the Chebyshev fit of
 * Numerical Recipes' erfcc, Press et al. 1992, section 6.2), with the
 * engine's own exp: the same digits in every build. */
static double erfc_approx(double x) {
    double ax = x < 0.0 ? -x : x;
    double t = 1.0 / (1.0 + 0.5 * ax);
    double poly =
        -ax * ax - 1.26551223 +
        t * (1.00002368 +
             t * (0.37409196 +
                  t * (0.09678418 +
                       t * (-0.18628806 +
                            t * (0.27886807 +
                                 t * (-1.13520398 +
                                      t * (1.48851587 +
                                           t * (-0.82215223 +
                                                t * 0.17087277))))))));
    double r = t * sp_exp(poly);
    return x >= 0.0 ? r : 2.0 - r;
}

/* the paper's z of g green tokens among t */
static double z_score(int g, int t, double gamma) {
    return ((double)g - gamma * t) / sqrt((double)t * gamma * (1.0 - gamma));
}

int sp_watermark_detect(int vocab, float gamma, int key, const int *ids,
                        int n, int first, int8_t *per_token,
                        double *running, sp_watermark_score *out, char *err) {
    if (vocab <= 0 || !(gamma > 0.0f && gamma < 1.0f))
        return sp_fail(err, SP_ERR_ARG, "watermark-gamma must be in (0, 1) "
                       "(got %g)", (double)gamma);
    if (key < 0)
        return sp_fail(err, SP_ERR_ARG, "watermark-key must be >= 0 (got %d)",
                       key);
    if (n < 0 || (n > 0 && !ids) || first < 0)
        return sp_fail(err, SP_ERR_ARG, "watermark: bad token count %d", n);
    for (int i = 0; i < n; i++)
        if (ids[i] < 0 || ids[i] >= vocab)
            return sp_fail(err, SP_ERR_ARG, "watermark: token %d is outside "
                           "the vocabulary (0..%d)", ids[i], vocab - 1);
    int *perm = malloc(sizeof(int) * (size_t)vocab);
    if (!perm) return sp_fail(err, SP_ERR_NOMEM, "watermark: out of memory");
    int start = first > 1 ? first : 1, t = 0, g = 0;
    double gm = (double)gamma;
    for (int i = 0; i < n; i++) {
        if (i < start) {
            if (per_token) per_token[i] = -1;
            if (running) running[i] = NAN;
            continue;
        }
        int green = sp_watermark_is_green(vocab, gamma, key, ids[i - 1],
                                          ids[i], perm);
        if (per_token) per_token[i] = (int8_t)green;
        t++;
        g += green;
        if (running) running[i] = z_score(g, t, gm);
    }
    free(perm);
    out->tokens = t;
    out->green = g;
    out->z = t ? z_score(g, t, gm) : NAN;
    out->p_value = t ? 0.5 * erfc_approx(out->z * SQRT1_2) : NAN;
    return SP_OK;
}
