/*
 * step.c — what a step record answers after a warp: who cut what (the cut
 * codes' names), the tokens the truncating stages rank first, a draw, and
 * many draws against the final distribution.
 */
#include <string.h>

#include "candidates.h"

#define LN2 0.69314718055994530942

#define CUT_NAME(id, name) name,
static const char *const CUT_NAMES[SP_CUT_COUNT] = {SP_CUT_ROWS(CUT_NAME)};
#undef CUT_NAME

const char *sp_cut_name(int cut) {
    return cut >= 0 && cut < SP_CUT_COUNT ? CUT_NAMES[cut] : "unknown";
}

int sp_step_top(const sp_step *st, int n, int *ids, double *cum) {
    const float *p = st->probs_tempered ? st->probs_tempered : st->probs;
    /* (p desc, id asc): the order of the nucleus */
    n = sp_top_ranked(p, NULL, st->vocab, n, ids);
    double sum = 0.0;
    for (int i = 0; i < n; i++) {
        sum += p[ids[i]];
        cum[i] = sum;
    }
    return n;
}

double sp_step_sample_counts(const sp_step *st, uint64_t seed, int n,
                             int *counts) {
    sp_step copy = *st; /* draws write token, p_token and u */
    sp_rng rng;
    sp_rng_seed(&rng, seed);
    memset(counts, 0, sizeof(int) * (size_t)st->vocab);
    for (int i = 0; i < n; i++) {
        if (sp_sampler_draw(&copy, sp_rng_uniform(&rng)) != SP_OK) return NAN;
        counts[copy.token]++;
    }
    /* KL(empirical || final) in bits: sum of q log2(q / p) over q > 0 */
    double kl = 0.0;
    for (int j = 0; j < st->n_kept; j++) {
        int id = st->kept[j];
        if (!counts[id]) continue;
        double q = (double)counts[id] / n;
        kl += q * (sp_log(q) - sp_log((double)st->probs[id]));
    }
    return kl / LN2;
}

int sp_sampler_draw(sp_step *step, double u) {
    if (!step->probs || step->n_kept <= 0 || !(u >= 0.0 && u < 1.0))
        return SP_ERR_ARG;
    double total = 0.0;
    for (int j = 0; j < step->n_kept; j++) total += step->probs[step->kept[j]];
    double r = u * total, cum = 0.0;
    int token = -1;
    for (int j = 0; j < step->n_kept; j++) {
        int id = step->kept[j];
        cum += step->probs[id];
        if (r < cum) {
            token = id;
            break;
        }
        if (step->probs[id] > 0.0f) token = id; /* rounding: the last one */
    }
    if (token < 0) return SP_ERR_STATE;
    step->token = token;
    step->p_token = step->probs[token];
    step->u = u;
    return SP_OK;
}
