/* test_batch.c — the batched forward pass and what is built on it: the
 * batched kernel and sp_forward_batch against single-position calls, bit
 * for bit (and their work counters); a prompt's prefill; speculative
 * decoding's accounting round by round, its identity with greedy decoding
 * at temperature 0 and its output distribution (chi-square) with a draft
 * that shares the target's tokenizer; constrained speculative decoding and
 * beam search against POSIX regexec; the shipped drafts. */
#define _POSIX_C_SOURCE 200809L
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "internal.h"
#include "testutil.h"

static char err[SP_ERR_LEN];

static sp_model *checkpoint(int dim, int hidden, int layers, int heads, int kv,
                            int vocab, uint64_t seed) {
    size_t size;
    uint8_t *data = random_checkpoint(dim, hidden, layers, heads, kv, vocab,
                                      64, seed, 0.4f, -0.2f, &size);
    return sp_model_load(data, size, 1, err);
}

static sp_model *shipped(const char *file, size_t *bytes) {
    char path[1024];
    snprintf(path, sizeof path, "%s/models/%s", test_root, file);
    size_t size;
    uint8_t *data = read_all(path, &size);
    if (bytes) *bytes = size;
    return data ? sp_model_load(data, size, 1, err) : NULL;
}

static sp_tokenizer *shipped_tokenizer(int vocab) {
    char path[1024];
    snprintf(path, sizeof path, "%s/models/transformer_tokenizer.bin", test_root);
    size_t size;
    uint8_t *data = read_all(path, &size);
    sp_tokenizer *t = data ? sp_tokenizer_load(data, size, vocab, err) : NULL;
    free(data);
    return t;
}

/* ---- the kernel --------------------------------------------------------- */

/* sp_matmul_batch against sp_matmul on each input alone, every shape of
 * n (tails of the 16-lane blocks), d (odd: the last row) and nb (tiles). */
static void test_kernel(void) {
    sp_rng r;
    sp_rng_seed(&r, 77);
    int bad = 0, cases = 0;
    for (int n = 1; n <= 70; n += 3) {
        for (int d = 1; d <= 21; d += 4) {
            float *w = malloc(sizeof(float) * (size_t)(n * d));
            float *x = malloc(sizeof(float) * (size_t)(n * 13));
            float *one = malloc(sizeof(float) * (size_t)d);
            float *all = malloc(sizeof(float) * (size_t)(d * 13));
            for (int i = 0; i < n * d; i++) w[i] = (float)sp_rng_uniform(&r) - 0.5f;
            for (int i = 0; i < n * 13; i++) x[i] = (float)sp_rng_uniform(&r) * 3 - 1;
            for (int nb = 1; nb <= 13; nb++) {
                sp_matmul_batch(all, x, w, n, d, nb);
                for (int b = 0; b < nb; b++) {
                    sp_matmul(one, x + (size_t)b * n, w, n, d);
                    bad += memcmp(one, all + (size_t)b * d, sizeof(float) * (size_t)d) != 0;
                    cases++;
                }
            }
            free(w);
            free(x);
            free(one);
            free(all);
        }
    }
    CHECK_EQ_INT(bad, 0);
    fprintf(stderr, "batched kernel: %d products equal sp_matmul's bits\n", cases);
}

/* ---- the forward pass ---------------------------------------------------- */

/* Feeds tokens[0..n) by single calls and, in another state, by batched
 * passes of `batch`; every row of logits must have the same bits, and so
 * must the counters (but for the passes). */
static int same_as_single(const sp_model *m, const int *tokens, int n,
                          int batch) {
    int vocab = sp_model_vocab(m), bad = 0;
    sp_state *a = sp_state_new(m), *b = sp_state_new(m);
    float *want = malloc(sizeof(float) * (size_t)vocab * (size_t)n);
    for (int p = 0; p < n; p++)
        memcpy(want + (size_t)p * vocab, sp_forward(m, a, tokens[p], p),
               sizeof(float) * (size_t)vocab);
    int passes = 0;
    for (int p = 0; p < n; p += batch) {
        int k = n - p < batch ? n - p : batch;
        const float *got = sp_forward_batch(m, b, tokens + p, k, p, 0);
        passes++;
        if (!got || memcmp(got, want + (size_t)p * vocab,
                           sizeof(float) * (size_t)vocab * (size_t)k) != 0)
            bad++;
    }
    sp_counters ca, cb;
    sp_state_counters(a, &ca);
    sp_state_counters(b, &cb);
    CHECK(ca.flops == cb.flops && ca.flops_no_cache == cb.flops_no_cache &&
          ca.tokens == cb.tokens && ca.kv_reused == cb.kv_reused &&
          ca.kv_written == cb.kv_written);
    CHECK_EQ_INT((int)ca.passes, n);
    CHECK_EQ_INT((int)cb.passes, passes);
    /* and the state goes on as after single calls: one more position */
    int next = tokens[0];
    float *la = sp_forward(m, a, next, n), *lb = sp_forward(m, b, next, n);
    if (n < sp_model_seq_len(m) &&
        memcmp(la, lb, sizeof(float) * (size_t)vocab) != 0)
        bad++;
    free(want);
    sp_state_free(a);
    sp_state_free(b);
    return bad;
}

static void test_forward(void) {
    /* shapes: GQA, head sizes, dims that are not multiples of 16, odd
     * hidden sizes and vocabularies */
    const int shapes[][6] = {{16, 32, 2, 2, 1, 37}, {24, 50, 1, 4, 2, 41},
                             {48, 96, 2, 6, 3, 99}, {8, 7, 3, 2, 2, 5}};
    int tokens[64];
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        const int *c = shapes[s];
        sp_model *m = checkpoint(c[0], c[1], c[2], c[3], c[4], c[5], 11 + s);
        CHECK(m != NULL);
        if (!m) continue;
        for (int i = 0; i < 64; i++) tokens[i] = (i * 13 + (int)s) % c[5];
        int bad = 0;
        for (int batch = 1; batch <= SP_BATCH_MAX; batch++)
            bad += same_as_single(m, tokens, 40, batch);
        CHECK_EQ_INT(bad, 0);
        /* the last position of the context, in one pass */
        bad = same_as_single(m, tokens, 64, SP_BATCH_MAX);
        CHECK_EQ_INT(bad, 0);
        /* last_only: the last row, and the state's logits are it */
        sp_state *a = sp_state_new(m), *b = sp_state_new(m);
        for (int p = 0; p < 9; p++) sp_forward(m, a, tokens[p], p);
        const float *rows = sp_forward_batch(m, b, tokens, 9, 0, 1);
        CHECK(rows && memcmp(rows + 8 * c[5], sp_state_logits(m, a),
                             sizeof(float) * (size_t)c[5]) == 0);
        CHECK(memcmp(sp_state_logits(m, b), sp_state_logits(m, a),
                     sizeof(float) * (size_t)c[5]) == 0);
        /* out of range: no pass */
        CHECK(sp_forward_batch(m, b, tokens, 0, 0, 0) == NULL);
        CHECK(sp_forward_batch(m, b, tokens, SP_BATCH_MAX + 1, 0, 0) == NULL);
        CHECK(sp_forward_batch(m, b, tokens, 2, 63, 0) == NULL); /* past 64 */
        int badtok[2] = {0, c[5]};
        CHECK(sp_forward_batch(m, b, badtok, 2, 0, 0) == NULL);
        sp_state_free(a);
        sp_state_free(b);
        sp_model_free(m);
    }
    /* the shipped transformer */
    sp_model *t = shipped("transformer.bin", NULL);
    CHECK(t != NULL);
    if (t) {
        for (int i = 0; i < 64; i++) tokens[i] = 5 + i * 7 % 90;
        int bad = 0;
        for (int batch = 1; batch <= 6; batch++)
            bad += same_as_single(t, tokens, 20, batch);
        CHECK_EQ_INT(bad, 0);
        sp_model_free(t);
    }
}

/* A session's prompt goes through batched passes of SP_BATCH_MAX: the
 * pending logits are those of one call per token. */
static void test_prefill(void) {
    sp_model *m = checkpoint(16, 32, 2, 2, 1, 40, 5);
    const char *pieces[40];
    char text[40][2];
    for (int i = 0; i < 40; i++) {
        text[i][0] = (char)(i == 0 ? '\n' : '!' + i);
        text[i][1] = 0;
        pieces[i] = text[i];
    }
    sp_tokenizer *tok = sp_tokenizer_new_chars(pieces, 40, 0, err);
    sp_session *s = sp_session_new(m, tok, err);
    char prompt[48];
    for (int i = 0; i < 45; i++) prompt[i] = (char)('"' + i % 30);
    prompt[45] = 0;
    CHECK_EQ_INT(sp_session_start(s, prompt, 1, err), SP_OK);
    sp_counters c;
    sp_session_counters(s, &c);
    CHECK_EQ_INT((int)c.tokens, 46); /* the boundary and 45 characters */
    CHECK_EQ_INT((int)c.passes, 2);  /* 32 + 14 */
    sp_state *st = sp_state_new(m);
    const int *t = sp_session_tokens(s);
    float *want = NULL;
    for (int p = 0; p < 46; p++) want = sp_forward(m, st, t[p], p);
    sp_params p;
    sp_params_default(&p);
    CHECK_EQ_INT(sp_session_preview(s, &p, err), SP_OK);
    CHECK(memcmp(sp_session_last_step(s)->logits, want, sizeof(float) * 40) == 0);
    sp_state_free(st);
    sp_session_free(s);
    sp_tokenizer_free(tok);
    sp_model_free(m);
}

/* ---- speculative decoding --------------------------------------------------- */

/* One round's bookkeeping: statuses are accepted..., then one corrected or
 * bonus (or nothing more at the end of the text or the context); a bonus
 * only after every draft was accepted; the rejection is the first draft
 * not accepted; the pass fed the drafts (and the last round's token). */
static int round_ok(const sp_speculator *sp, const sp_session *s, int before,
                    int n_draft) {
    const int *tok, *st, *drafted;
    int n = sp_spec_round_tokens(sp, &tok, &st);
    int nd = sp_spec_round_drafted(sp, &drafted);
    int ok = n >= 1 && nd <= n_draft && n <= nd + 1;
    int accepted = 0;
    while (accepted < n && st[accepted] == SP_SPEC_ACCEPTED) {
        ok &= tok[accepted] == drafted[accepted];
        accepted++;
    }
    int tail = n - accepted;
    ok &= tail <= 1;
    if (tail == 1) {
        ok &= st[n - 1] == (accepted == nd ? SP_SPEC_BONUS : SP_SPEC_CORRECTED);
        if (st[n - 1] == SP_SPEC_CORRECTED) ok &= tok[n - 1] != drafted[accepted];
    }
    int x;
    const float *p, *q, *r;
    int rej = sp_spec_round_rejection(sp, &x, &p, &q, &r);
    ok &= rej == (tail == 1 && st[n - 1] == SP_SPEC_CORRECTED ? accepted : -1);
    if (rej >= 0) {
        ok &= x == drafted[rej];
        ok &= p[x] < q[x]; /* turned down: p/q < 1 */
        ok &= r[x] == 0.0f;
    }
    ok &= sp_session_n_tokens(s) == before + n;
    return ok;
}

/* The shipped transformer and a draft model: 0 (a failed check, neither
 * kept) when either cannot be loaded. */
static int shipped_pair(const char *draft_file, sp_model **t, sp_model **d) {
    *t = shipped("transformer.bin", NULL);
    *d = shipped(draft_file, NULL);
    if (*t && *d) return 1;
    CHECK(*t && *d);
    sp_model_free(*t);
    sp_model_free(*d);
    return 0;
}

static void test_spec_accounting(const char *draft_file, double min_accept) {
    sp_model *t, *d;
    if (!shipped_pair(draft_file, &t, &d)) return;
    sp_tokenizer *tok = shipped_tokenizer(sp_model_vocab(t));
    sp_session *s = sp_session_new(t, tok, err);
    sp_session *plain = sp_session_new(t, tok, err);
    sp_speculator *sp = sp_spec_new(s, d, tok, 4, err);
    CHECK(sp && sp_spec_matched(sp));
    sp_params greedy;
    sp_params_default(&greedy);
    greedy.temperature = 0;
    for (int k = 0; k < 2; k++) {
        sp_params p = greedy;
        if (k) p.temperature = 1;
        sp_counters c0;
        sp_session_counters(s, &c0);
        CHECK_EQ_INT(sp_spec_start(sp, "And God said", 3, err), SP_OK);
        int rounds = 0, bad = 0, rc = SP_OK;
        long long fed_sum = 0;
        while (rc == SP_OK && !sp_session_finished(s)) {
            int before = sp_session_n_tokens(s);
            rc = sp_spec_round(sp, &p, err);
            if (rc != SP_OK) break;
            rounds++;
            fed_sum += sp_spec_round_fed(sp);
            bad += !round_ok(sp, s, before, 4);
        }
        CHECK(rc == SP_OK || rc == SP_ERR_STATE); /* the end of the context */
        CHECK_EQ_INT(bad, 0);
        /* a round that meets the end of the context drafts, and fails */
        int failed = rc == SP_ERR_STATE;
        long long drafted, accepted, nr, positions, passes, fed;
        sp_spec_totals(sp, &drafted, &accepted, &nr, &positions);
        sp_spec_work(sp, &passes, &fed);
        int n = sp_session_n_generated(s);
        CHECK_EQ_INT((int)nr, rounds + failed);
        CHECK_EQ_INT((int)positions, n);
        CHECK(accepted <= drafted && passes >= rounds && passes <= rounds + failed);
        CHECK(fed >= fed_sum && fed <= fed_sum + 5 * failed);
        /* each round appends its accepted drafts and one more token */
        CHECK(n <= accepted + rounds && n >= accepted + rounds - 1);
        /* the target's own counters: the prompt's prefill and one pass a
         * round; the drafts it fed, rejected ones included */
        sp_counters c;
        sp_session_counters(s, &c);
        CHECK_EQ_INT((int)(c.passes - c0.passes), (int)passes + 1);
        CHECK_EQ_INT((int)(c.tokens - c0.tokens), sp_session_n_prompt(s) + (int)fed);
        double rate = (double)accepted / (double)drafted;
        fprintf(stderr, "speculative, %s, T %d, k 4: %lld of %lld drafts "
                "accepted (%.1f%%), %d tokens in %d passes (%.2f a pass)\n",
                draft_file, k, accepted, drafted, 100 * rate, n, rounds,
                (double)n / rounds);
        if (k == 0) {
            CHECK(rate >= min_accept);
            /* greedy: the very text of plain greedy decoding */
            sp_session_start(plain, "And God said", 3, err);
            while (sp_session_step(plain, &greedy, -1, err) == SP_OK &&
                   !sp_session_finished(plain)) {
            }
            CHECK_EQ_INT(sp_session_n_tokens(plain), sp_session_n_tokens(s));
            CHECK(memcmp(sp_session_tokens(plain), sp_session_tokens(s),
                         sizeof(int) * (size_t)sp_session_n_tokens(s)) == 0);
        }
    }
    sp_spec_free(sp);
    sp_session_free(s);
    sp_session_free(plain);
    sp_tokenizer_free(tok);
    sp_model_free(t);
    sp_model_free(d);
}

/* A draft that shares the target's tokenizer: ids as they are, end tokens
 * included; the first two tokens follow the target's distribution. */
static void test_spec_matched_distribution(void) {
    const int v = 12;
    const char *pieces[12] = {"\n", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"};
    sp_tokenizer *tok = sp_tokenizer_new_chars(pieces, v, 0, err);
    sp_model *target = checkpoint(16, 32, 2, 2, 1, v, 21);
    sp_model *draft = checkpoint(8, 16, 1, 2, 1, v, 22);
    sp_session *s = sp_session_new(target, tok, err);
    sp_session *plain = sp_session_new(target, tok, err);
    sp_speculator *sp = sp_spec_new(s, draft, tok, 3, err);
    CHECK(sp && sp_spec_matched(sp));
    sp_params p;
    sp_params_default(&p);
    double p1[12] = {0}, p2[12] = {0};
    sp_session_start(plain, "ab", 1, err);
    sp_session_preview(plain, &p, err);
    for (int a = 0; a < v; a++) p1[a] = sp_session_last_step(plain)->probs[a];
    for (int a = 0; a < v; a++) {
        sp_session_rewind(plain, 0, err);
        sp_session_step(plain, &p, a, err);
        sp_session_preview(plain, &p, err);
        for (int c = 0; c < v; c++) p2[c] += p1[a] * sp_session_last_step(plain)->probs[c];
    }
    long c1[12] = {0}, c2[12] = {0};
    const long runs = 6000;
    for (long r = 0; r < runs; r++) {
        sp_spec_start(sp, "ab", (uint64_t)r, err);
        while (sp_session_n_generated(s) < 2) sp_spec_round(sp, &p, err);
        const int *t = sp_session_tokens(s);
        c1[t[3]]++;
        c2[t[4]]++;
    }
    int df1, df2;
    double s1 = chi_square(c1, p1, v, runs, &df1);
    double s2 = chi_square(c2, p2, v, runs, &df2);
    fprintf(stderr, "speculative, matched draft: token 1 chi-square %.1f (%d df, "
            "critical %.1f), token 2 %.1f (%d df, critical %.1f)\n", s1, df1,
            chi_square_critical(df1), s2, df2, chi_square_critical(df2));
    CHECK(s1 < chi_square_critical(df1));
    CHECK(s2 < chi_square_critical(df2));
    sp_spec_free(sp);
    sp_session_free(s);
    sp_session_free(plain);
    sp_model_free(target);
    sp_model_free(draft);
    sp_tokenizer_free(tok);
}

/* The generated text of a session (end tokens left out). */
static char *text_of(const sp_session *s) {
    int len;
    return sp_session_text(s, &len);
}

static int regex_matches(const char *pattern, const char *text) {
    char anchored[256];
    snprintf(anchored, sizeof anchored, "^(%s)$", pattern);
    regex_t re;
    if (regcomp(&re, anchored, REG_EXTENDED | REG_NOSUB) != 0) return 0;
    int m = regexec(&re, text, 0, NULL, 0) == 0;
    regfree(&re);
    return m;
}

/* Constrained speculative decoding: the drafts are masked by the
 * constraint too, and the text matches it (POSIX regexec); at T = 0 it is
 * constrained greedy decoding's text. */
static void test_spec_constrained(void) {
    sp_model *t, *d;
    if (!shipped_pair("bible_bigram.bin", &t, &d)) return;
    sp_tokenizer *tok = shipped_tokenizer(sp_model_vocab(t));
    const char *patterns[] = {"(God|the LORD) (said|spake)[a-z ,]*\\.",
                              "[A-Z][a-z]+ [0-9]{1,3}:[0-9]{1,2}",
                              "(yea|nay)( (yea|nay)){2,4}"};
    int bad = 0, runs = 0;
    for (size_t i = 0; i < sizeof patterns / sizeof patterns[0]; i++) {
        sp_constraint *c = sp_constraint_regex(patterns[i], err);
        CHECK(c != NULL);
        for (int seed = 0; seed < 4; seed++) {
            sp_session *s = sp_session_new(t, tok, err);
            sp_params p;
            sp_params_default(&p);
            p.temperature = seed == 0 ? 0.0f : 1.0f;
            CHECK_EQ_INT(sp_session_constrain(s, c, 60, err), SP_OK);
            sp_speculator *sp = sp_spec_new(s, d, tok, 4, err);
            int rc = sp_spec_start(sp, "And ", (uint64_t)seed, err);
            while (rc == SP_OK && !sp_session_finished(s))
                rc = sp_spec_round(sp, &p, err);
            char *text = text_of(s);
            runs++;
            if (rc != SP_OK || !regex_matches(patterns[i], text)) {
                bad++;
                fprintf(stderr, "constrained speculative: '%s' does not "
                        "match %s (%s)\n", text, patterns[i], err);
            }
            if (seed == 0) { /* greedy: as constrained plain decoding */
                sp_session *g = sp_session_new(t, tok, err);
                sp_session_constrain(g, c, 60, err);
                sp_session_start(g, "And ", 0, err);
                while (!sp_session_finished(g) &&
                       sp_session_step(g, &p, -1, err) == SP_OK) {
                }
                char *gt = text_of(g);
                CHECK(strcmp(gt, text) == 0);
                free(gt);
                sp_session_free(g);
            }
            free(text);
            sp_spec_free(sp);
            sp_session_free(s);
        }
        sp_constraint_free(c);
    }
    CHECK_EQ_INT(bad, 0);
    fprintf(stderr, "constrained speculative decoding: %d texts match their "
            "regex (regexec)\n", runs - bad);
    sp_tokenizer_free(tok);
    sp_model_free(t);
    sp_model_free(d);
}

/* speculative decoding's accounting with each draft (the goal at
 * T = 0 for the tiny transformer: 0.60) */
static void test_spec_accounting_bigram(void) {
    test_spec_accounting("bible_bigram.bin", 0.10);
}
static void test_spec_accounting_tiny(void) {
    test_spec_accounting("bible_tiny.bin", 0.60);
}

TEST_SUITE(batch,
           TEST(test_kernel),
           TEST(test_forward),
           TEST(test_prefill),
           TEST(test_spec_accounting_bigram),
           TEST(test_spec_accounting_tiny),
           TEST(test_spec_matched_distribution),
           TEST(test_spec_constrained));
