/*
 * fuzz_warp_request.c — the warp request parser on arbitrary text, then the
 * sampler pipeline on the logits and history it parsed, with parameters
 * taken from the input too (valid, at their limits, or invalid).
 *
 * Input: [16 parameter bytes][bias count][bias bytes: 3 per entry][JSON]
 */
#include <float.h>
#include <limits.h>

#include "fuzz_common.h"
#include "warp_request.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* a float parameter from one byte: mostly a value in a useful range, now
 * and then one at or past the edge */
static float pick_float(uint8_t b, float lo, float hi) {
    static const float edge[16] = {
        0.0f, -0.0f, 1.0f, NAN, INFINITY, -INFINITY, FLT_MIN, 1e-45f,
        FLT_MAX, -FLT_MAX, -1.0f, 2.0f, 1e-30f, 1e30f, 0.999999f, 1.0000001f};
    if (b >= 240) return edge[b - 240];
    return lo + (hi - lo) * (float)b / 239.0f;
}

static int pick_int(uint8_t b, int hi) {
    static const int edge[8] = {0, 1, -1, INT_MAX, INT_MIN, 2, 3, 1000000};
    if (b >= 248) return edge[b - 248];
    return (int)((long)b * hi / 247);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 17) return 0;
    const uint8_t *pb = data;
    sp_params p;
    sp_params_default(&p);
    /* each stage is on about half the time, so that the others' defaults
     * are explored as well */
    if (pb[0] & 1) p.temperature = pick_float(pb[1], 0.0f, 4.0f);
    if (pb[0] & 2) p.top_k = pick_int(pb[2], 8);
    if (pb[0] & 4) p.top_p = pick_float(pb[3], 0.0f, 1.0f);
    if (pb[0] & 8) p.min_p = pick_float(pb[4], 0.0f, 1.0f);
    if (pb[0] & 16) p.typical_p = pick_float(pb[5], 0.0f, 1.0f);
    if (pb[0] & 32) p.repetition_penalty = pick_float(pb[6], 0.0f, 3.0f);
    if (pb[0] & 64) p.frequency_penalty = pick_float(pb[7], -2.0f, 2.0f);
    if (pb[0] & 128) p.presence_penalty = pick_float(pb[8], -2.0f, 2.0f);
    if (pb[9] & 1) p.penalty_last_n = pick_int(pb[10], 8);
    int want_raw = (pb[9] >> 1) & 1;
    double u = (double)(pb[11] | pb[12] << 8) / 65536.0;
    uint64_t seed = pb[13] | (uint64_t)pb[14] << 8;
    int n_bias = pb[16] % 8;
    if (pb[15] == 255) n_bias = SP_MAX_BIAS + 1; /* too many */
    size_t at = 17;
    static const float values[8] = {-INFINITY, -1e30f, -1.0f, 0.5f,
                                    3.0f, 1e30f, FLT_MAX, NAN};
    for (int i = 0; i < n_bias && i < SP_MAX_BIAS; i++) {
        if (at + 3 > size) {
            n_bias = i;
            break;
        }
        int16_t tok;
        memcpy(&tok, data + at, 2);
        p.bias[i].token = tok;
        p.bias[i].value = values[data[at + 2] % 8];
        if (data[at + 2] >= 248) p.bias[i].value = -(float)data[at + 2];
        at += 3;
    }
    p.n_bias = n_bias;

    char err[SP_ERR_LEN];
    float *logits = NULL;
    int *history = NULL, nl = 0, nh = 0;
    err[0] = '\0';
    int rc = sp_parse_warp_request((const char *)data + at, size - at, &logits,
                                   &nl, &history, &nh, &p, err);
    if (rc != SP_OK) {
        fz_check_error(err);
        FZ_ASSERT(logits == NULL && history == NULL);
        return 0;
    }
    FZ_ASSERT(nl >= 1 && nl <= 1000000 && nh >= 0);
    for (int i = 0; i < nl; i++) FZ_ASSERT(logits[i] - logits[i] == 0.0f ||
                                           logits[i] == -INFINITY);
    for (int i = 0; i < nh; i++) FZ_ASSERT(history[i] >= 0 && history[i] < nl);

    sp_sampler *s = sp_sampler_new(nl);
    if (!s) goto done;
    sp_sampler_set_raw(s, want_raw);
    sp_step st;
    rc = sp_sampler_warp(s, logits, history, nh, &p, &st, err);
    int check = sp_params_check(&p, nl, NULL);
    if (rc != SP_OK) {
        fz_check_error(err);
        FZ_ASSERT(rc == SP_ERR_ARG || rc == SP_ERR_STATE);
        FZ_ASSERT((rc == SP_ERR_ARG) == (check != SP_OK));
        goto done;
    }
    FZ_ASSERT(check == SP_OK);
    fz_check_step(&st);
    FZ_ASSERT(st.argmax_raw >= 0 && st.argmax_raw < nl);
    FZ_ASSERT(st.logits[st.argmax_raw] != -INFINITY);
    if (want_raw) {
        FZ_ASSERT(st.probs_raw && st.probs_tempered);
        FZ_ASSERT(st.kept_mass >= 0.0 && st.kept_mass <= 1.0 + 1e-6);
        FZ_ASSERT(st.entropy_raw_bits >= 0.0);
    }
    FZ_ASSERT(st.entropy_bits >= 0.0);
    if (sp_sampler_draw(&st, u) == SP_OK) {
        FZ_ASSERT(st.token >= 0 && st.token < nl && st.probs[st.token] > 0.0f);
        FZ_ASSERT(st.cut[st.token] == SP_CUT_NONE);
    }
    FZ_ASSERT(sp_sampler_draw(&st, 1.0) != SP_OK);
    FZ_ASSERT(sp_sampler_draw(&st, NAN) != SP_OK);
    int ids[8];
    double cum[8];
    int n = sp_step_top(&st, 8, ids, cum);
    FZ_ASSERT(n == (nl < 8 ? nl : 8));
    for (int i = 0; i < n; i++) {
        FZ_ASSERT(ids[i] >= 0 && ids[i] < nl);
        FZ_ASSERT(cum[i] <= 1.0 + 1e-5 && (i == 0 || cum[i] >= cum[i - 1]));
    }
    if (nl <= 4096) {
        int *counts = malloc(sizeof(int) * (size_t)nl);
        if (counts) {
            double kl = sp_step_sample_counts(&st, seed, 16, counts);
            int total = 0;
            for (int i = 0; i < nl; i++) {
                FZ_ASSERT(counts[i] == 0 || st.probs[i] > 0.0f);
                total += counts[i];
            }
            FZ_ASSERT(total == 16 && kl >= -1e-6);
            free(counts);
        }
    }
done:
    sp_sampler_free(s);
    free(logits);
    free(history);
    return 0;
}
