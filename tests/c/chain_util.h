/* chain_util.h — what the chain's tests share (test_chain.c,
 * test_chain_newer.c, test_chain_cases.c): one sampler, the last step it
 * warped, and the final distribution checked against worked numbers. */
#ifndef SP_CHAIN_UTIL_H
#define SP_CHAIN_UTIL_H

#include <math.h>
#include <stdio.h>

#include "check.h"
#include "sampler.h"
#include "testutil.h"

static sp_sampler *sampler;
static sp_step step;
static char err[SP_ERR_LEN];

static inline int warp(const float *logits, int n, const int *hist, int nh,
                       const sp_params *p) {
    return tu_warp(&sampler, logits, n, hist, nh, p, &step, err);
}

/* logits = ln p, as llama.cpp's sampler_tester builds them */
static inline void log_of(const float *probs, int n, float *out) {
    for (int i = 0; i < n; i++) out[i] = logf(probs[i]);
}

/* The final distribution equals want (within 1e-5, as llama.cpp checks). */
static inline void expect_probs(const float *want, int n, const char *what) {
    int ok = 1;
    for (int i = 0; i < n; i++)
        if (fabs((double)step.probs[i] - want[i]) > 1e-5) ok = 0;
    CHECK(ok);
    if (!ok) {
        printf("  %s: got", what);
        for (int i = 0; i < n; i++) printf(" %.6f", (double)step.probs[i]);
        printf("\n");
    }
}

#endif
