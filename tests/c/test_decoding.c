/* test_decoding.c — beam search, speculative sampling and text metrics:
 * beam search against brute force and greedy, speculative sampling's
 * output distribution against the target's (chi-square) and its identity
 * with greedy decoding at temperature 0, and the metrics on worked
 * examples. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "internal.h"
#include "testutil.h"

static char err[SP_ERR_LEN];

/* a random character-level llama2.c checkpoint over `vocab` tokens; with
 * poison >= 0, that token's embedding row (= its classifier row) is -3e38
 * and every other weight is positive, so its logit overflows to -inf */
static sp_model *random_model_poisoned(int vocab, uint64_t seed, float scale,
                                       int poison);
static sp_model *random_model(int vocab, uint64_t seed, float scale) {
    return random_model_poisoned(vocab, seed, scale, -1);
}

static sp_model *random_model_poisoned(int vocab, uint64_t seed, float scale,
                                       int poison) {
    int dim = 16;
    size_t size;
    uint8_t *data = random_checkpoint(dim, 32, 2, 2, 1, vocab, 256, seed, scale,
                                      poison >= 0 ? 0.0f : -0.5f * scale, &size);
    if (poison >= 0) {
        float *w = (float *)(data + 28);
        for (int i = 0; i < dim; i++) w[(size_t)poison * dim + i] = -3e38f;
    }
    return sp_model_load(data, size, 1, err);
}

static void test_metrics(void) {
    sp_metrics m;
    int toks[6] = {1, 2, 1, 2, 1, 2};
    sp_token_stat st[6];
    for (int i = 0; i < 6; i++)
        st[i] = (sp_token_stat){0.5f, log(0.5), 1.0f, 2.0f, 2};
    const char *text = "ab ab ab";
    CHECK_EQ_INT(sp_text_metrics(toks, 6, text, 8, st, &m), SP_OK);
    CHECK_NEAR(m.distinct1, 2.0 / 6, 1e-12);
    CHECK_NEAR(m.distinct2, 2.0 / 5, 1e-12); /* 12 21 12 21 12 */
    CHECK_NEAR(m.distinct3, 2.0 / 4, 1e-12); /* 121 212 121 212 */
    CHECK_NEAR(m.type_token_ratio, 1.0 / 3, 1e-12);
    CHECK_EQ_INT(m.longest_repeat, 5); /* "ab ab" twice, overlapping */
    CHECK(strncmp(text + m.longest_repeat_at, "ab ab", 5) == 0);
    CHECK_NEAR(m.perplexity, 2.0, 1e-12); /* every token had p = 1/2 */
    CHECK_NEAR(m.mean_entropy_bits, 1.0, 1e-12);
    CHECK_NEAR(m.mean_nucleus, 2.0, 1e-12);
    const char *abc = "xabcyabcz";
    CHECK_EQ_INT(sp_text_metrics(toks, 0, abc, 9, st, &m), SP_OK);
    CHECK_EQ_INT(m.longest_repeat, 3);
    CHECK(strncmp(abc + m.longest_repeat_at, "abc", 3) == 0);
    CHECK(isnan(m.perplexity)); /* no tokens: nothing to measure */
    CHECK_EQ_INT(sp_text_metrics(toks, 0, "aaaa", 4, st, &m), SP_OK);
    CHECK_EQ_INT(m.longest_repeat, 3);
    CHECK_EQ_INT(sp_text_metrics(toks, 0, "abcd", 4, st, &m), SP_OK);
    CHECK_EQ_INT(m.longest_repeat, 0);
}

/* Time travel is a look, not work: peeking at past steps leaves the text,
 * the pending step and the work counters exactly as a session that never
 * peeked has them. */
static void test_peek(const sp_model *m, const sp_tokenizer *tok) {
    sp_params p;
    sp_params_default(&p);
    p.top_k = 20;
    sp_session *plain = sp_session_new(m, tok, err);
    sp_session *peeked = sp_session_new(m, tok, err);
    CHECK(plain && peeked);
    if (!plain || !peeked) return;
    CHECK_EQ_INT(sp_session_start(plain, "Ma", 7, err), SP_OK);
    CHECK_EQ_INT(sp_session_start(peeked, "Ma", 7, err), SP_OK);
    float probs[64]; /* the first step's distribution, as drawn */
    int v = sp_session_vocab(plain);
    for (int i = 0; i < 12; i++) {
        CHECK_EQ_INT(sp_session_step(plain, &p, -1, err), SP_OK);
        CHECK_EQ_INT(sp_session_step(peeked, &p, -1, err), SP_OK);
        if (i == 0) memcpy(probs, sp_session_last_step(plain)->probs, sizeof(float) * (size_t)v);
        /* back to the first step, the one just taken, and the pending one */
        CHECK_EQ_INT(sp_session_peek(peeked, 0, &p, err), SP_OK);
        CHECK(memcmp(sp_session_last_step(peeked)->probs, probs, sizeof(float) * (size_t)v) == 0);
        CHECK_EQ_INT(sp_session_peek(peeked, i, &p, err), SP_OK);
        CHECK_EQ_INT(sp_session_peek(peeked, i + 1, &p, err), SP_OK);
        sp_counters a, b;
        sp_session_counters(plain, &a);
        sp_session_counters(peeked, &b);
        CHECK_EQ_INT((long long)b.tokens, (long long)a.tokens);
        CHECK(b.flops == a.flops && b.flops_no_cache == a.flops_no_cache);
        CHECK_EQ_INT((long long)b.kv_reused, (long long)a.kv_reused);
        CHECK_EQ_INT((long long)b.kv_written, (long long)a.kv_written);
    }
    CHECK_EQ_INT(sp_session_step(plain, &p, -1, err), SP_OK);
    CHECK_EQ_INT(sp_session_step(peeked, &p, -1, err), SP_OK);
    const sp_step *x = sp_session_last_step(plain), *y = sp_session_last_step(peeked);
    CHECK(memcmp(x->logits, y->logits, sizeof(float) * (size_t)v) == 0);
    CHECK(memcmp(sp_session_tokens(plain), sp_session_tokens(peeked),
                 sizeof(int) * (size_t)sp_session_n_tokens(plain)) == 0);
    sp_counters a;
    sp_session_counters(plain, &a);
    CHECK_EQ_INT((long long)a.tokens, 2 + 1 + 13); /* BOS, "Ma", 13 steps */
    sp_session_free(plain);
    sp_session_free(peeked);
}

/* models/bigram.bin, its vocabulary, the neutral settings and greedy
 * ones: what both decoders' cases start from. */
typedef struct {
    sp_model *bigram;
    int v;
    sp_params p, greedy;
} bigram_case;

static int bigram_start(bigram_case *bc) {
    bc->bigram = tu_load_model(test_root, "bigram.bin", err);
    CHECK(bc->bigram != NULL);
    if (!bc->bigram) return 0;
    bc->v = sp_model_vocab(bc->bigram);
    sp_params_default(&bc->p);
    bc->greedy = bc->p;
    bc->greedy.temperature = 0;
    return 1;
}

/* Beam search: width 1 is greedy, wider never scores below it, width V
 * over two steps is brute force. */
static void test_beam_search(void) {
    bigram_case bc;
    if (!bigram_start(&bc)) return;
    sp_model *bigram = bc.bigram;
    int v = bc.v;
    sp_params p = bc.p, greedy = bc.greedy;
    /* width 1 is greedy decoding */
    sp_session *s = sp_session_new(bigram, NULL, err);
    sp_session_start(s, "Ma", 1, err);
    for (int i = 0; i < 30; i++) sp_session_step(s, &greedy, -1, err);
    sp_beam_search *b = sp_beam_new(bigram, NULL, 1, 0, 64, err);
    CHECK_EQ_INT(sp_beam_start(b, "Ma", err), SP_OK);
    for (int i = 0; i < 30; i++) CHECK_EQ_INT(sp_beam_step(b, &p, err), SP_OK);
    int n;
    const int *bt = sp_beam_tokens(b, 0, &n);
    CHECK_EQ_INT(n, sp_session_n_tokens(s));
    CHECK(memcmp(bt, sp_session_tokens(s), sizeof(int) * (size_t)n) == 0);
    double greedy_lp = sp_beam_logprob(b, 0);
    sp_beam_free(b);
    /* a wider beam never scores below greedy (every dropped candidate is
     * below all survivors), and is exactly reproducible */
    double widths_lp[3];
    for (int k = 0; k < 3; k++) {
        b = sp_beam_new(bigram, NULL, 2 + 3 * k, 0, 64, err);
        sp_beam_start(b, "Ma", err);
        for (int i = 0; i < 30; i++) sp_beam_step(b, &p, err);
        widths_lp[k] = sp_beam_logprob(b, 0);
        CHECK(widths_lp[k] >= greedy_lp - 1e-9);
        /* hypotheses come best first */
        for (int i = 1; i < sp_beam_count(b); i++)
            CHECK(sp_beam_score(b, i) <= sp_beam_score(b, i - 1));
        sp_beam_free(b);
    }
    say("greedy log p %.4f, widths 2/5/8: %.4f %.4f %.4f",
            greedy_lp, widths_lp[0], widths_lp[1], widths_lp[2]);
    /* width V over 2 steps is exhaustive: compare with brute force */
    b = sp_beam_new(bigram, NULL, v, 0, 16, err);
    sp_beam_start(b, "", err);
    sp_beam_step(b, &p, err);
    sp_beam_step(b, &p, err);
    sp_state *st = sp_state_new(bigram);
    double best = -INFINITY;
    int best_a = -1, best_c = -1;
    for (int a = 0; a < v; a++) {
        float *l1 = sp_forward(bigram, st, 0, 0); /* after the boundary */
        double m1 = -INFINITY, z1 = 0;
        for (int x = 0; x < v; x++) m1 = fmax(m1, l1[x]);
        for (int x = 0; x < v; x++) z1 += exp(l1[x] - m1);
        double lp1 = l1[a] - m1 - log(z1);
        float *l2 = sp_forward(bigram, st, a, 1);
        double m2 = -INFINITY, z2 = 0;
        for (int x = 0; x < v; x++) m2 = fmax(m2, l2[x]);
        for (int x = 0; x < v; x++) z2 += exp(l2[x] - m2);
        for (int c2 = 0; c2 < v; c2++) {
            double lp = lp1 + l2[c2] - m2 - log(z2);
            if (lp > best) {
                best = lp;
                best_a = a;
                best_c = c2;
            }
        }
    }
    bt = sp_beam_tokens(b, 0, &n);
    CHECK(n == 3 && bt[1] == best_a && bt[2] == best_c);
    CHECK_NEAR(sp_beam_logprob(b, 0), best, 1e-5);
    sp_beam_free(b);
    sp_state_free(st);
    /* bad widths say so */
    CHECK(sp_beam_new(bigram, NULL, 0, 0, 8, err) == NULL);
    CHECK_STR_CONTAINS(err, "beams must be in 1..64");

    sp_session_free(s);
    sp_model_free(bigram);
}

/* Speculative sampling with a random draft: greedy at temperature 0, the
 * target's distribution otherwise (chi-square), and the refusals. */
static void test_speculative(void) {
    bigram_case bc;
    if (!bigram_start(&bc)) return;
    sp_model *bigram = bc.bigram;
    int v = bc.v;
    sp_params p = bc.p, greedy = bc.greedy;
    const sp_tokenizer *btok = sp_model_tokenizer(bigram);
    sp_session *s = sp_session_new(bigram, NULL, err);
    /* the draft: a random transformer over the bigram's characters */
    const char *pieces[64];
    for (int i = 0; i < v; i++) {
        int len;
        pieces[i] = sp_decode(btok, -1, i, &len);
    }
    sp_tokenizer *dtok = sp_tokenizer_new_chars(pieces, v, 0, err);
    sp_model *draft = random_model(v, 3, 2.0f);
    CHECK(draft && dtok);
    sp_speculator *sp = sp_spec_new(s, draft, dtok, 4, err);
    CHECK(sp != NULL);
    /* temperature 0: exactly greedy decoding */
    sp_session *plain = sp_session_new(bigram, NULL, err);
    sp_session_start(plain, "Jo", 5, err);
    for (int i = 0; i < 80; i++) sp_session_step(plain, &greedy, -1, err);
    CHECK(tu_spec_is_greedy(sp, s, plain, &greedy, err));
    long long drafted, accepted, rounds, positions;
    sp_spec_totals(sp, &drafted, &accepted, &rounds, &positions);
    CHECK(drafted > 0 && accepted < drafted); /* the draft is a poor one */
    /* temperature 1 and 0.8 with top-k: the first two tokens follow the
     * target's distribution (chi-square over many seeded runs) */
    sp_params settings[2] = {p, p};
    settings[1].temperature = 0.8f;
    settings[1].top_k = 12;
    for (int k = 0; k < 2; k++) {
        const sp_params *ps = &settings[k];
        /* the exact distributions of token 1 and of token 2 */
        double p1[64], p2[64];
        tu_two_token_probs(plain, "Ka", ps, v, p1, p2, err);
        long c1[64] = {0}, c2[64] = {0};
        const long runs = 6000;
        long corrected = 0, acc = 0;
        for (long r = 0; r < runs; r++) {
            sp_spec_start(sp, "Ka", (uint64_t)r, err);
            while (sp_session_n_generated(s) < 2) sp_spec_round(sp, ps, err);
            const int *t = sp_session_tokens(s);
            c1[t[3]]++;
            c2[t[4]]++;
            const int *rt, *rs;
            int m = sp_spec_round_tokens(sp, &rt, &rs);
            for (int i = 0; i < m; i++) {
                corrected += rs[i] == SP_SPEC_CORRECTED;
                acc += rs[i] == SP_SPEC_ACCEPTED;
            }
        }
        int df1, df2;
        double s1 = chi_square(c1, p1, v, runs, &df1);
        double s2 = chi_square(c2, p2, v, runs, &df2);
        say("T %.1f, top-k %d): token 1 chi-square "
                "%.1f (%d df, critical %.1f), token 2 %.1f (%d df, critical "
                "%.1f); last rounds: %ld accepted, %ld corrected",
                (double)ps->temperature, ps->top_k, s1, df1,
                chi_square_critical(df1), s2, df2, chi_square_critical(df2),
                acc, corrected);
        CHECK(s1 < chi_square_critical(df1));
        CHECK(s2 < chi_square_critical(df2));
        CHECK(corrected > 100 && acc > 100); /* both paths were taken */
    }
    sp_spec_free(sp);
    test_peek(draft, dtok);
    /* a transformer whose arithmetic overflows to -inf is reported, never
     * sampled from, and the session says so until restarted */
    sp_model *bad = random_model_poisoned(v, 5, 2.0f, 7);
    sp_session *bs = sp_session_new(bad, dtok, err);
    CHECK_EQ_INT(sp_session_start(bs, "Al", 1, err), SP_ERR_FORMAT);
    CHECK_STR_CONTAINS(err, "logits: token 7 is -inf");
    CHECK_EQ_INT(sp_session_step(bs, &p, -1, err), SP_ERR_STATE);
    sp_session_free(bs);
    sp_model_free(bad);
    CHECK(sp_spec_new(s, draft, dtok, 0, err) == NULL);
    CHECK_STR_CONTAINS(err, "speculate must be in 1..16");
    sp_session_free(plain);
    sp_session_free(s);
    sp_model_free(draft);
    sp_tokenizer_free(dtok);
    sp_model_free(bigram);
}

TEST_SUITE(decoding,
           TEST(test_metrics),
           TEST(test_beam_search),
           TEST(test_speculative));
