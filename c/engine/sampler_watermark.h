/*
 * sampler_watermark.h — watermarking (Kirchenbauer et al. 2023): the
 * green lists and the detector.  The stage itself is a row of the chain
 * (sampler_rows.h); its settings are parameters (sampler_params.h).
 * Part of the engine's public API: include sampler.h, which includes
 * this file where its declarations belong.
 */
#ifndef SAMPLER_WATERMARK_H
#define SAMPLER_WATERMARK_H
#ifndef SAMPLER_H
#error "include sampler.h (the engine's public API), not sampler_watermark.h"
#endif

/* Watermarking (Kirchenbauer et al. 2023, "A Watermark for Large Language
 * Models"; watermark.c).  The green list after token prev is the first
 * floor(vocab gamma) ids of a permutation of the vocabulary drawn by a
 * Fisher-Yates shuffle from PCG32 seeded with (key << 32) | prev: integer
 * arithmetic only, the same list in every build.  green[vocab] gets 1 on
 * the list and 0 elsewhere (perm[vocab]: scratch); returns the list's size.
 * gamma outside (0, 1), a prev or key < 0: -1. */
int sp_watermark_green(int vocab, float gamma, int key, int prev,
                       uint8_t *green, int *perm);
/* Whether token is on the green list after prev (perm[vocab]: scratch);
 * -1 for bad arguments. */
int sp_watermark_is_green(int vocab, float gamma, int key, int prev,
                          int token, int *perm);

/* Detection: the tokens ids[first .. n) are each judged green or red by
 * the green list of the token before it (first >= 1: ids[0 .. first) are
 * context, e.g. the prompt; first 0 counts from ids[1]).  T tokens, G
 * green, z = (G - gamma T) / sqrt(T gamma (1 - gamma)) (the paper's plain
 * count: repeated pairs count every time), p_value the normal upper tail
 * of z (0.5 erfc(z / sqrt 2), to about 1e-7 relative).  per_token[n]
 * (may be NULL): 1 green, 0 red, -1 not judged (context); running[n] (may
 * be NULL): the z of the tokens scored up to and with token i (NaN for the
 * context).  SP_ERR_ARG for a token outside the vocabulary or a bad gamma
 * or key. */
typedef struct {
    int tokens, green;
    double z, p_value;
} sp_watermark_score;
int sp_watermark_detect(int vocab, float gamma, int key, const int *ids,
                        int n, int first, int8_t *per_token,
                        double *running, sp_watermark_score *out, char *err);

#endif /* SAMPLER_WATERMARK_H */
