/*
 * words.c — words, not ids: bad words (Hugging Face's
 * NoBadWordsLogitsProcessor, vLLM's bad_words) and sequence biases (HF's
 * SequenceBiasLogitsProcessor).  A learner types a word; the model's
 * tokenizer makes it a sequence of tokens t_1 .. t_n; at a step whose
 * text ends with t_1 .. t_{n-1} (the prompt counts: HF reads input_ids),
 * t_n would complete the word, and the stage cuts it (a bad word) or adds
 * the bias to its logit.  A word of one token is cut or biased at every
 * step.  Nothing else changes: the word can still be written with other
 * tokens ("th" + "e" where " the" is banned) -- the ban is on a sequence
 * of ids, as in both references.
 */
#include <stdlib.h>
#include <string.h>

#include "candidates.h"

/* Whether the text (all[0..n_all)) ends with the word's first n - 1
 * tokens: then its last token would complete it. */
static int completes(const sp_word *w, const int *all, int n_all) {
    int before = w->n - 1;
    if (before > n_all) return 0;
    const int *tail = all + (n_all - before);
    for (int k = 0; k < before; k++)
        if (tail[k] != w->tokens[k]) return 0;
    return 1;
}

/* Sequence bias: each sequence the text is about to complete adds its
 * value to its last token's logit (two sequences with the same last token
 * both add theirs, as HF sums them). */
void sp_stage_sequence_bias(sp_candidates *c, const sp_params *p) {
    for (int i = 0; i < p->n_seq_bias; i++) {
        const sp_word *w = &p->seq_bias[i];
        int id = w->tokens[w->n - 1];
        if (id < 0 || id >= c->vocab || c->cut[id] != SP_CUT_NONE) continue;
        if (!completes(w, c->all, c->n_all)) continue;
        c->logits[id] = sp_clamp_finite(c->logits[id] + w->value);
        sp_cands_penalized(c, id);
    }
}

/* Bad words: the token that would complete a banned word is cut. */
void sp_stage_bad_words(sp_candidates *c, const sp_params *p) {
    int cut = 0;
    for (int i = 0; i < p->n_bad_words; i++) {
        const sp_word *w = &p->bad_words[i];
        int id = w->tokens[w->n - 1];
        if (id < 0 || id >= c->vocab || c->cut[id] != SP_CUT_NONE) continue;
        if (!completes(w, c->all, c->n_all)) continue;
        sp_cands_cut(c, id, SP_CUT_BAD_WORDS);
        cut = 1;
    }
    /* a chain may put it after a cutoff stage: keep its list exact */
    if (cut && c->listed) sp_cands_compact(c);
}

/* ------------------------------------------------------------ settings */

static int add_word(sp_word *list, int *count, const char *what,
                    const int *tokens, int n, float value, char *err) {
    if (*count < 0 || *count >= SP_MAX_WORDS)
        return sp_fail(err, SP_ERR_ARG, "%s: at most %d", what, SP_MAX_WORDS);
    if (n < 1 || n > SP_MAX_WORD_LEN)
        return sp_fail(err, SP_ERR_ARG, "%s: %d tokens (1..%d)", what, n,
                       SP_MAX_WORD_LEN);
    sp_word *w = &list[(*count)++];
    memset(w, 0, sizeof *w);
    w->n = n;
    memcpy(w->tokens, tokens, sizeof(int) * (size_t)n);
    w->value = value;
    return SP_OK;
}

int sp_params_add_bad_word(sp_params *p, const int *tokens, int n,
                           char *err) {
    return add_word(p->bad_words, &p->n_bad_words, "bad-words", tokens, n,
                    -INFINITY, err);
}

int sp_params_add_sequence_bias(sp_params *p, const int *tokens, int n,
                                float value, char *err) {
    return add_word(p->seq_bias, &p->n_seq_bias, "sequence-bias", tokens, n,
                    value, err);
}

static int check_list(const sp_word *list, int count, const char *what,
                      int bad, int vocab, char *err) {
    if (count < 0 || count > SP_MAX_WORDS)
        return sp_fail(err, SP_ERR_ARG, "%s: at most %d (got %d)", what,
                       SP_MAX_WORDS, count);
    for (int i = 0; i < count; i++) {
        const sp_word *w = &list[i];
        if (w->n < 1 || w->n > SP_MAX_WORD_LEN)
            return sp_fail(err, SP_ERR_ARG, "%s %d has %d tokens (1..%d)",
                           what, i + 1, w->n, SP_MAX_WORD_LEN);
        for (int k = 0; k < w->n; k++) {
            int t = w->tokens[k];
            if (t < 0 || (vocab > 0 && t >= vocab))
                return sp_fail(err, SP_ERR_ARG, "%s token %d is outside the "
                               "vocabulary (0..%d)", what, t, vocab - 1);
        }
        if (bad ? w->value != -INFINITY : !(w->value - w->value == 0.0f))
            return sp_fail(err, SP_ERR_ARG, "%s %d: the value must be a "
                           "finite number (got %g)", what, i + 1,
                           (double)w->value);
    }
    return SP_OK;
}

int sp_words_check(const sp_params *p, int vocab, char *err) {
    int rc = check_list(p->bad_words, p->n_bad_words, "bad-words", 1, vocab,
                        err);
    if (rc == SP_OK)
        rc = check_list(p->seq_bias, p->n_seq_bias, "sequence-bias", 0,
                        vocab, err);
    return rc;
}

int sp_params_add_bad_word_text(sp_params *p, const sp_tokenizer *tok,
                                const char *text, char *err) {
    int ids[SP_MAX_WORD_LEN], more[SP_MAX_WORD_LEN];
    int n = sp_text_tokens(tok, "bad-words", text, ids, SP_MAX_WORD_LEN, err);
    if (n < 0) return -n;
    int rc = sp_params_add_bad_word(p, ids, n, err);
    /* vLLM's second form: " " + the text without its leading spaces, kept
     * when it has as many tokens and another first token (a tokenizer
     * whose words carry their space writes the word mid-text so) */
    while (*text == ' ') text++;
    size_t len = strlen(text);
    char *spaced = malloc(len + 2);
    if (!spaced) return sp_fail(err, SP_ERR_NOMEM, "bad-words: out of memory");
    spaced[0] = ' ';
    memcpy(spaced + 1, text, len + 1);
    char quiet[SP_ERR_LEN];
    int m = sp_text_tokens(tok, "bad-words", spaced, more, SP_MAX_WORD_LEN,
                           quiet);
    free(spaced);
    if (rc == SP_OK && m == n && more[0] != ids[0])
        rc = sp_params_add_bad_word(p, more, m, err);
    return rc;
}

int sp_params_add_sequence_bias_text(sp_params *p, const sp_tokenizer *tok,
                                     const char *text, float value,
                                     char *err) {
    int ids[SP_MAX_WORD_LEN];
    int n = sp_text_tokens(tok, "sequence-bias", text, ids, SP_MAX_WORD_LEN,
                           err);
    return n < 0 ? -n : sp_params_add_sequence_bias(p, ids, n, value, err);
}
