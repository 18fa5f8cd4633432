/*
 * fuzz_common.h — what the fuzz targets share: the invariants every engine
 * error must keep (one line, non-empty, fits the buffer) and a short
 * generation that exercises a loaded model through a session.
 *
 * A broken invariant calls abort(), which libFuzzer reports as a crash with
 * the input that caused it.
 */
#ifndef SP_FUZZ_COMMON_H
#define SP_FUZZ_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define FZ_ASSERT(cond)                                                     \
    do {                                                                    \
        if (!(cond)) {                                                      \
            fprintf(stderr, "%s:%d: invariant broken: %s\n", __FILE__,      \
                    __LINE__, #cond);                                       \
            abort();                                                        \
        }                                                                   \
    } while (0)

/* An error message: non-empty, one line, NUL-terminated inside the buffer,
 * and of the format's "<what>: ..." shape. */
static inline void fz_check_error(const char *err) {
    const char *end = memchr(err, '\0', SP_ERR_LEN);
    size_t n = end ? (size_t)(end - err) : SP_ERR_LEN;
    if (n == 0 || n >= SP_ERR_LEN || memchr(err, '\n', n) ||
        memchr(err, '\r', n)) {
        fprintf(stderr, "bad error message: \"%.*s\"\n", (int)n, err);
        abort();
    }
}

/* A step record's invariants: a distribution over the kept tokens, in
 * ascending order, zero where cut. */
/* The model in data loaded twice, copied (not owned) and read in place
 * (owned: malloc'd data + 28 is 4-aligned), into *m and *m2; both load or
 * neither does, with the same message.  Returns 0 when there is nothing
 * more to check (out of memory, or both refused and their messages
 * checked). */
static inline int fz_load_both(const uint8_t *data, size_t size, sp_model **m,
                               sp_model **m2, char *err, char *err2) {
    *m = *m2 = NULL;
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy) return 0;
    if (size) memcpy(copy, data, size);
    err[0] = '\0';
    *m = sp_model_load(copy, size, 0, err);
    free(copy);
    uint8_t *owned = malloc(size ? size : 1);
    if (!owned) {
        sp_model_free(*m);
        *m = NULL;
        return 0;
    }
    if (size) memcpy(owned, data, size);
    err2[0] = '\0';
    *m2 = sp_model_load(owned, size, 1, err2);
    FZ_ASSERT((*m == NULL) == (*m2 == NULL));
    if (!*m) {
        fz_check_error(err);
        FZ_ASSERT(strcmp(err, err2) == 0);
        return 0;
    }
    return 1;
}

static inline void fz_check_step(const sp_step *st) {
    FZ_ASSERT(st->n_kept >= 1 && st->n_kept <= st->vocab);
    double sum = 0.0;
    for (int j = 0; j < st->n_kept; j++) {
        int id = st->kept[j];
        FZ_ASSERT(id >= 0 && id < st->vocab);
        FZ_ASSERT(j == 0 || id > st->kept[j - 1]);
        FZ_ASSERT(st->cut[id] == SP_CUT_NONE);
    }
    for (int i = 0; i < st->vocab; i++) {
        float p = st->probs[i];
        FZ_ASSERT(p >= 0.0f && p <= 1.0f);
        if (p > 0.0f) FZ_ASSERT(st->cut[i] == SP_CUT_NONE);
        if (st->logits[i] == -INFINITY) FZ_ASSERT(st->cut[i] != SP_CUT_NONE);
        sum += p;
    }
    FZ_ASSERT(sum > 0.999 && sum < 1.001);
    if (st->token >= 0) {
        FZ_ASSERT(st->token < st->vocab);
    }
}

/* Runs a short generation on a loaded model (with tok, or its own): starts
 * with prompt, steps, previews, rewinds.  Errors are allowed (a prompt
 * outside the vocabulary, a full context, overflowing weights) but must be
 * proper one-line errors; nothing may crash or leak. */
static inline void fz_generate(const sp_model *m, const sp_tokenizer *tok,
                               const char *prompt, uint64_t seed, int steps) {
    char err[SP_ERR_LEN];
    sp_session *s = sp_session_new(m, tok, err);
    if (!s) {
        fz_check_error(err);
        return;
    }
    int rc = sp_session_start(s, prompt, seed, err);
    if (rc != SP_OK) {
        fz_check_error(err);
        if (rc == SP_ERR_ARG || rc == SP_ERR_NOMEM) {
            rc = sp_session_start(s, "", seed, err); /* the empty prompt */
            if (rc != SP_OK) fz_check_error(err);
        }
    }
    if (rc == SP_OK) {
        sp_params p;
        sp_params_default(&p);
        const sp_tokenizer *t = sp_session_tokenizer(s);
        int vocab = sp_session_vocab(s);
        for (int i = 0; i < steps; i++) {
            if (i == 2) p.top_p = 0.9f;
            if (i == 3) p.repetition_penalty = 1.3f;
            rc = sp_session_step(s, &p, -1, err);
            if (rc != SP_OK) {
                fz_check_error(err);
                break;
            }
            const sp_step *st = sp_session_last_step(s);
            FZ_ASSERT(st != NULL);
            fz_check_step(st);
            int n = sp_session_n_tokens(s);
            const int *tokens = sp_session_tokens(s);
            FZ_ASSERT(tokens[n - 1] >= 0 && tokens[n - 1] < vocab);
            int len = -1;
            const char *piece = sp_decode(t, tokens[n - 2], tokens[n - 1], &len);
            FZ_ASSERT(piece != NULL && len >= 0);
            volatile char sink = 0;
            for (int k = 0; k < len; k++) sink ^= piece[k];
            (void)sink;
            int seq_len = sp_model_seq_len(m);
            FZ_ASSERT(seq_len == 0 || n <= seq_len);
            if (sp_session_finished(s)) break;
        }
        if (sp_session_preview(s, &p, err) != SP_OK) fz_check_error(err);
        int gen = sp_session_n_generated(s);
        if (sp_session_rewind(s, gen / 2, err) != SP_OK) fz_check_error(err);
        FZ_ASSERT(sp_session_rewind(s, gen + 1, err) == SP_ERR_ARG);
        fz_check_error(err);
        if (sp_session_step(s, &p, vocab - 1, err) != SP_OK) fz_check_error(err);
    }
    sp_session_free(s);
}

/* The two loads of one model (fz_load_both) compute the same logits, bit
 * for bit, at its first positions (up to max_positions, tokens taken from
 * the input's bytes), and sp_forward refuses a token or a position out of
 * range. */
static inline void fz_same_logits(const sp_model *m, const sp_model *m2,
                                  const uint8_t *data, size_t size,
                                  int max_positions) {
    int vocab = sp_model_vocab(m), seq_len = sp_model_seq_len(m);
    sp_state *a = sp_state_new(m), *b = sp_state_new(m2);
    if (a && b) {
        int positions = seq_len > 0 && seq_len < max_positions ? seq_len
                                                                 : max_positions;
        for (int pos = 0; pos < positions; pos++) {
            int token = size ? (int)(data[(size_t)pos * 131 % size] %
                                     (unsigned)vocab)
                             : 0;
            float *la = sp_forward(m, a, token, pos);
            float *lb = sp_forward(m2, b, token, pos);
            FZ_ASSERT(la && lb);
            FZ_ASSERT(memcmp(la, lb, sizeof(float) * (size_t)vocab) == 0);
        }
        FZ_ASSERT(sp_forward(m, a, vocab, 0) == NULL);
        FZ_ASSERT(sp_forward(m, a, -1, 0) == NULL);
        FZ_ASSERT(sp_forward(m, a, 0, -1) == NULL);
        if (seq_len > 0) FZ_ASSERT(sp_forward(m, a, 0, seq_len) == NULL);
    }
    sp_state_free(a);
    sp_state_free(b);
}

#endif
