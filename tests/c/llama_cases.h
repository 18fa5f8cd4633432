/*
 * llama_cases.h — what the tests of llama.cpp's cases (test_llama_cases.c,
 * test_llama_queue.c) share: one sampler, its step record and error, the
 * count of cases, the neutral settings, and a warp through the chain's
 * shortcuts or its reference path.
 */
#ifndef SP_LLAMA_CASES_H
#define SP_LLAMA_CASES_H

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "internal.h"
#include "sampler.h"
#include "testutil.h"

static sp_sampler *sampler;
static sp_step step;
static char err[SP_ERR_LEN];
static int n_cases = 0;

static inline sp_params params(void) {
    sp_params p;
    sp_params_default(&p);
    return p;
}

/* Warps logits[n] after history; reference: the chain's reference path. */
static inline int warp(const float *logits, int n, const int *hist, int nh,
                       const sp_params *p, int reference) {
    sampler = tu_sampler_for(sampler, n);
    sp_sampler_set_reference(sampler, reference);
    int rc = tu_warp(&sampler, logits, n, hist, nh, p, &step, err);
    sp_sampler_set_reference(sampler, 0);
    return rc;
}

#endif /* SP_LLAMA_CASES_H */
