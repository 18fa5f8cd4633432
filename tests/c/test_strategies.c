/* test_strategies.c — diverse beam search and prompt-lookup decoding:
 * worked numbers on the bigram (the groups' first tokens, their penalized
 * scores), one group is plain beam search, prompt lookup's draft is the
 * continuation of the FIRST earlier match (as Hugging Face's), greedy at
 * temperature 0, and its output distribution is the model's (chi-square). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "internal.h"
#include "testutil.h"

static char err[SP_ERR_LEN];

/* the bigram's log p of every token after prompt, and its four best */
static void log_probs(const sp_model *m, const char *prompt, double *lp,
                      int top[4]) {
    sp_session *s = sp_session_new(m, NULL, err);
    sp_params p;
    sp_params_default(&p);
    sp_session_start(s, prompt, 1, err);
    sp_session_preview(s, &p, err);
    const sp_step *st = sp_session_last_step(s);
    int v = sp_model_vocab(m);
    for (int i = 0; i < v; i++) lp[i] = sp_log((double)st->probs[i]);
    for (int k = 0; k < 4; k++) {
        top[k] = -1;
        for (int i = 0; i < v; i++) {
            int taken = 0;
            for (int j = 0; j < k; j++) taken |= top[j] == i;
            if (!taken && (top[k] < 0 || lp[i] > lp[top[k]])) top[k] = i;
        }
    }
    sp_session_free(s);
}

/* the first generated token, group, score and penalty of each hypothesis */
typedef struct {
    int token, group;
    double score, penalty, logprob;
} first;

static int firsts(sp_beam_search *b, first *out) {
    int n = sp_beam_count(b);
    for (int i = 0; i < n; i++) {
        int len;
        const int *t = sp_beam_tokens(b, i, &len);
        out[i] = (first){t[sp_beam_n_prompt(b)], sp_beam_group(b, i),
                         sp_beam_score(b, i), sp_beam_penalty(b, i),
                         sp_beam_logprob(b, i)};
    }
    return n;
}

static void diverse_beams(const sp_model *bigram) {
    sp_params p;
    sp_params_default(&p);
    double lp[64];
    int top[4];
    log_probs(bigram, "Ma", lp, top);
    const sp_tokenizer *tok = sp_model_tokenizer(bigram);
    int len;
    fprintf(stderr, "diverse beams: after \"Ma\" the four best are");
    for (int k = 0; k < 4; k++)
        fprintf(stderr, " '%s' %.4f", sp_decode(tok, -1, top[k], &len),
                lp[top[k]]);
    fprintf(stderr, "\n");
    /* worked numbers (bigram.bin): after "Ma" the best are 'n' -1.5061,
     * 'r' -1.7750, '\n' (the end of a name) -1.8191, 'l' -2.8910 (log p) */
    CHECK_NEAR(lp[top[0]], -1.5061, 1e-4);
    CHECK_NEAR(lp[top[1]], -1.7750, 1e-4);
    CHECK_NEAR(lp[top[2]], -1.8191, 1e-4);
    CHECK_NEAR(lp[top[3]], -2.8910, 1e-4);
    int nn = top[0], rr = top[1], nl = top[2], ll = top[3];

    /* B = 4, G = 2, F = 100: group 0 takes the two best (n, r), group 1
     * loses 100 on those and takes the next two ('\n', l); nobody pays */
    sp_beam_search *b = sp_beam_new(bigram, NULL, 4, 0, 32, err);
    CHECK_EQ_INT(sp_beam_set_groups(b, 2, 100.0f, err), SP_OK);
    CHECK_EQ_INT(sp_beam_start(b, "Ma", err), SP_OK);
    CHECK_EQ_INT(sp_beam_step(b, &p, err), SP_OK);
    first f[8];
    CHECK_EQ_INT(firsts(b, f), 4);
    {
        int tok_[4] = {nn, rr, nl, ll}, group_[4] = {0, 0, 1, 1};
        double score_[4] = {-1.5061, -1.7750, -1.8191, -2.8910};
        for (int i = 0; i < 4; i++) {
            CHECK_EQ_INT(f[i].token, tok_[i]);
            CHECK_EQ_INT(f[i].group, group_[i]);
            CHECK_NEAR(f[i].score, score_[i], 1e-4);
            CHECK(f[i].penalty == 0.0);
        }
    }
    sp_beam_free(b);

    /* F = 0.5: group 1's candidates are n -1.5061 - 0.5 = -2.0061, r
     * -1.7750 - 0.5 = -2.2750, '\n' -1.8191, l -2.8910: it takes '\n'
     * and the penalized n */
    b = sp_beam_new(bigram, NULL, 4, 0, 32, err);
    sp_beam_set_groups(b, 2, 0.5f, err);
    sp_beam_start(b, "Ma", err);
    sp_beam_step(b, &p, err);
    firsts(b, f);
    {
        int tok_[4] = {nn, rr, nl, nn}, group_[4] = {0, 0, 1, 1};
        double score_[4] = {-1.5061, -1.7750, -1.8191, -2.0061};
        double pen_[4] = {0, 0, 0, 0.5};
        for (int i = 0; i < 4; i++) {
            CHECK_EQ_INT(f[i].token, tok_[i]);
            CHECK_EQ_INT(f[i].group, group_[i]);
            CHECK_NEAR(f[i].score, score_[i], 1e-4);
            CHECK_NEAR(f[i].penalty, pen_[i], 1e-9);
            CHECK_NEAR(f[i].score, f[i].logprob - f[i].penalty, 1e-12);
        }
    }
    sp_beam_free(b);
    /* F = 0.2: n -1.7061 and r -1.9750 against '\n' -1.8191: group 1
     * takes n (penalized) first, then '\n'; best first overall:
     * n (0) -1.5061, n (1) -1.7061, r (0) -1.7750, '\n' (1) -1.8191 */
    b = sp_beam_new(bigram, NULL, 4, 0, 32, err);
    sp_beam_set_groups(b, 2, 0.2f, err);
    sp_beam_start(b, "Ma", err);
    sp_beam_step(b, &p, err);
    firsts(b, f);
    {
        int tok_[4] = {nn, nn, rr, nl}, group_[4] = {0, 1, 0, 1};
        double score_[4] = {-1.5061, -1.7061, -1.7750, -1.8191};
        for (int i = 0; i < 4; i++) {
            CHECK_EQ_INT(f[i].token, tok_[i]);
            CHECK_EQ_INT(f[i].group, group_[i]);
            CHECK_NEAR(f[i].score, score_[i], 1e-4);
        }
    }
    (void)ll;
    sp_beam_free(b);

    /* one group is plain beam search, bit for bit, whatever F; G groups
     * with F = 0 are G copies of the width-B/G search */
    sp_beam_search *plain = sp_beam_new(bigram, NULL, 4, 0.7f, 64, err);
    sp_beam_search *one = sp_beam_new(bigram, NULL, 4, 0.7f, 64, err);
    sp_beam_search *half = sp_beam_new(bigram, NULL, 2, 0, 64, err);
    sp_beam_search *copies = sp_beam_new(bigram, NULL, 4, 0, 64, err);
    CHECK_EQ_INT(sp_beam_set_groups(one, 1, 7.0f, err), SP_OK);
    CHECK_EQ_INT(sp_beam_set_groups(copies, 2, 0.0f, err), SP_OK);
    sp_beam_search *all[4] = {plain, one, half, copies};
    for (int k = 0; k < 4; k++) {
        sp_beam_start(all[k], "Jo", err);
        for (int i = 0; i < 25; i++) sp_beam_step(all[k], &p, err);
    }
    CHECK_EQ_INT(sp_beam_count(plain), sp_beam_count(one));
    for (int i = 0; i < sp_beam_count(plain); i++) {
        int n1_, n2_;
        const int *t1 = sp_beam_tokens(plain, i, &n1_);
        const int *t2 = sp_beam_tokens(one, i, &n2_);
        CHECK(n1_ == n2_ && memcmp(t1, t2, sizeof(int) * (size_t)n1_) == 0);
        CHECK(sp_beam_score(plain, i) == sp_beam_score(one, i));
        CHECK(sp_beam_logprob(plain, i) == sp_beam_logprob(one, i));
    }
    CHECK_EQ_INT(sp_beam_count(copies), 2 * sp_beam_count(half));
    for (int i = 0; i < sp_beam_count(copies); i++) {
        int nh, nc;
        const int *th = sp_beam_tokens(half, i / 2, &nh);
        const int *tc = sp_beam_tokens(copies, i, &nc);
        CHECK(nh == nc && memcmp(th, tc, sizeof(int) * (size_t)nh) == 0);
        CHECK(sp_beam_score(copies, i) == sp_beam_score(half, i / 2));
    }
    for (int k = 0; k < 4; k++) sp_beam_free(all[k]);

    /* a score is (log p - penalties) / length^alpha, at every step */
    b = sp_beam_new(bigram, NULL, 6, 0, 64, err);
    sp_beam_set_groups(b, 3, 0.8f, err);
    sp_beam_start(b, "Ka", err);
    for (int i = 0; i < 12; i++) sp_beam_step(b, &p, err);
    int penalized = 0;
    for (int i = 0; i < sp_beam_count(b); i++) {
        CHECK_NEAR(sp_beam_score(b, i),
                   sp_beam_logprob(b, i) - sp_beam_penalty(b, i), 1e-9);
        penalized += sp_beam_penalty(b, i) > 0;
        if (i) CHECK(sp_beam_score(b, i) <= sp_beam_score(b, i - 1));
    }
    CHECK(penalized > 0);
    CHECK_EQ_INT(sp_beam_groups(b), 3);
    sp_beam_free(b);

    /* bad settings say so */
    b = sp_beam_new(bigram, NULL, 6, 0, 8, err);
    CHECK_EQ_INT(sp_beam_set_groups(b, 4, 1.0f, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "6 beams do not split into 4 groups");
    CHECK_EQ_INT(sp_beam_set_groups(b, 2, -1.0f, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "diversity-penalty must be in [0, 100]");
    CHECK_EQ_INT(sp_beam_set_groups(b, 0, 1.0f, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "num-beam-groups must be in 1..64");
    sp_beam_free(b);
}

/* one round of prompt lookup at temperature 0 after prompt: its draft as
 * text (into out) and where it was copied from */
static int lookup_once(const sp_model *m, const char *prompt, int n, int ngram,
                       char *out, int *match, int *m_out) {
    sp_session *s = sp_session_new(m, NULL, err);
    sp_speculator *sp = sp_spec_new_lookup(s, n, ngram, err);
    sp_params p;
    sp_params_default(&p);
    p.temperature = 0;
    sp_spec_start(sp, prompt, 1, err);
    sp_spec_round(sp, &p, err);
    const int *d;
    int nd = sp_spec_round_drafted(sp, &d);
    const sp_tokenizer *tok = sp_session_tokenizer(s);
    out[0] = 0;
    for (int i = 0; i < nd; i++) {
        int len;
        const char *piece = sp_decode(tok, -1, d[i], &len);
        strncat(out, piece, (size_t)len);
    }
    *match = sp_spec_round_match(sp, m_out);
    sp_spec_free(sp);
    sp_session_free(s);
    return nd;
}

static void prompt_lookup(const sp_model *bigram) {
    char out[64];
    int at, m;
    /* "xabqabzab": the last two tokens "ab" first occur after "x" (HF
     * takes the first match, not the most recent): the draft is "qab";
     * the text's token 0 is the boundary, so that "q" is token 4 */
    CHECK_EQ_INT(lookup_once(bigram, "xabqabzab", 3, 2, out, &at, &m), 3);
    CHECK(strcmp(out, "qab") == 0);
    CHECK_EQ_INT(at, 4);
    CHECK_EQ_INT(m, 2);
    /* the draft never runs past the text: "qab" is all there is after the
     * first "ab" of "abqab", however many are asked for */
    CHECK_EQ_INT(lookup_once(bigram, "abqab", 10, 2, out, &at, &m), 3);
    CHECK(strcmp(out, "qab") == 0);
    /* no earlier "Xb": the 1-gram "b" first occurs after "a" */
    CHECK_EQ_INT(lookup_once(bigram, "abxb", 4, 2, out, &at, &m), 2);
    CHECK(strcmp(out, "xb") == 0);
    CHECK_EQ_INT(m, 1);
    /* nothing repeats: no draft, the round is one ordinary step */
    CHECK_EQ_INT(lookup_once(bigram, "abc", 4, 3, out, &at, &m), 0);
    CHECK_EQ_INT(at, -1);

    /* temperature 0: exactly greedy decoding */
    sp_params p;
    sp_params_default(&p);
    sp_params greedy = p;
    greedy.temperature = 0;
    sp_session *plain = sp_session_new(bigram, NULL, err);
    sp_session_start(plain, "Jo", 5, err);
    for (int i = 0; i < 80; i++) sp_session_step(plain, &greedy, -1, err);
    sp_session *s = sp_session_new(bigram, NULL, err);
    sp_speculator *sp = sp_spec_new_lookup(s, 5, 3, err);
    CHECK(sp != NULL);
    CHECK_EQ_INT(sp_spec_lookup(sp), 3);
    CHECK(tu_spec_is_greedy(sp, s, plain, &greedy, err));
    long long drafted, accepted, rounds, positions;
    sp_spec_totals(sp, &drafted, &accepted, &rounds, &positions);
    fprintf(stderr, "prompt lookup (greedy, 80 tokens): %lld of %lld drafted "
            "accepted in %lld rounds\n", accepted, drafted, rounds);
    CHECK(accepted > 0 && rounds < 80); /* greedy text loops: drafts pay */
    sp_spec_free(sp);

    /* temperature 1 and 0.8 with top-k 12: the first two tokens follow the
     * model's own distribution (chi-square over seeded runs); the prompt
     * repeats, so every round drafts */
    int v = sp_model_vocab(bigram);
    sp_params settings[2] = {p, p};
    settings[1].temperature = 0.8f;
    settings[1].top_k = 12;
    const char *prompt = "Ka\nKa";
    sp = sp_spec_new_lookup(s, 4, 2, err);
    for (int k = 0; k < 2; k++) {
        const sp_params *ps = &settings[k];
        double p1[64], p2[64];
        tu_two_token_probs(plain, prompt, ps, v, p1, p2, err);
        long c1[64] = {0}, c2[64] = {0};
        const long runs = 6000;
        int n0 = 0;
        for (long r = 0; r < runs; r++) {
            sp_spec_start(sp, prompt, (uint64_t)r, err);
            n0 = sp_session_n_tokens(s);
            while (sp_session_n_generated(s) < 2) sp_spec_round(sp, ps, err);
            const int *t = sp_session_tokens(s);
            c1[t[n0]]++;
            c2[t[n0 + 1]]++;
        }
        sp_spec_totals(sp, &drafted, &accepted, &rounds, &positions);
        int df1, df2;
        double s1 = chi_square(c1, p1, v, runs, &df1);
        double s2 = chi_square(c2, p2, v, runs, &df2);
        fprintf(stderr, "prompt lookup (T %.1f, top-k %d): token 1 "
                "chi-square %.1f (%d df, critical %.1f), token 2 %.1f (%d "
                "df, critical %.1f); last run: %lld of %lld drafts "
                "accepted\n", (double)ps->temperature, ps->top_k, s1, df1,
                chi_square_critical(df1), s2, df2, chi_square_critical(df2),
                accepted, drafted);
        CHECK(s1 < chi_square_critical(df1));
        CHECK(s2 < chi_square_critical(df2));
    }
    /* over many runs both fates happen: accepted and corrected drafts */
    long acc_total = 0, cor_total = 0;
    for (long r = 0; r < 2000; r++) {
        sp_spec_start(sp, prompt, (uint64_t)r, err);
        sp_spec_round(sp, &p, err);
        const int *rt, *rs;
        int mm = sp_spec_round_tokens(sp, &rt, &rs);
        for (int i = 0; i < mm; i++) {
            acc_total += rs[i] == SP_SPEC_ACCEPTED;
            cor_total += rs[i] == SP_SPEC_CORRECTED;
        }
    }
    fprintf(stderr, "prompt lookup (T 1, \"%s\", first round of 2000 runs): "
            "%ld accepted, %ld corrected\n", "Ka\\nKa", acc_total, cor_total);
    CHECK(acc_total > 100 && cor_total > 100);
    sp_spec_free(sp);

    /* bad settings say so */
    CHECK(sp_spec_new_lookup(s, 0, 2, err) == NULL);
    CHECK_STR_CONTAINS(err, "prompt-lookup must be in 1..16");
    CHECK(sp_spec_new_lookup(s, 4, 9, err) == NULL);
    CHECK_STR_CONTAINS(err, "prompt-lookup-ngram must be in 1..8");
    sp_session_free(s);
    sp_session_free(plain);
}

/* A case on models/bigram.bin. */
static void on_bigram(void (*run)(const sp_model *)) {
    sp_model *bigram = tu_load_model(test_root, "bigram.bin", err);
    CHECK(bigram != NULL);
    if (bigram) run(bigram);
    sp_model_free(bigram);
}

static void test_diverse_beams(void) { on_bigram(diverse_beams); }
static void test_prompt_lookup(void) { on_bigram(prompt_lookup); }

TEST_SUITE(strategies,
           TEST(test_diverse_beams),
           TEST(test_prompt_lookup));
