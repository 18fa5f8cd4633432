/* test_words.c — words, not ids: bad words (HF NoBadWordsLogitsProcessor,
 * vLLM bad_words) and sequence biases (HF SequenceBiasLogitsProcessor),
 * on chosen logits with worked numbers, as text through the shipped
 * models' tokenizers, and over generated texts. */
#include "check.h"
#include "sampler.h"
#include "testutil.h"
#include "warp_request.h"

static char err[SP_ERR_LEN];

/* logits 2, 1, 0, -1 after the history 0, 1 */
static const float LOGITS[4] = {2, 1, 0, -1};
static const int HIST[2] = {0, 1};

static void warp(sp_sampler *s, const sp_params *p, sp_step *st) {
    CHECK_EQ_INT(sp_sampler_warp(s, LOGITS, HIST, 2, p, st, err), SP_OK);
}

/* The worked cases of docs/samplers.md. */
static void test_worked(void) {
    sp_sampler *s = sp_sampler_new(4);
    sp_step st;
    /* bad word [1, 2]: the text ends with 1, so 2 is cut:
     * softmax(2, 1, -1) = 0.705385, 0.259496, 0.035119 */
    sp_params p = tu_params();
    int w12[2] = {1, 2};
    CHECK_EQ_INT(sp_params_add_bad_word(&p, w12, 2, err), SP_OK);
    warp(s, &p, &st);
    CHECK_EQ_INT(st.cut[2], SP_CUT_BAD_WORDS);
    CHECK_NEAR(st.probs[0], 0.705384552, 1e-7);
    CHECK_NEAR(st.probs[1], 0.25949648, 1e-7);
    CHECK_NEAR(st.probs[3], 0.0351190269, 1e-7);
    CHECK_EQ_INT(st.n_kept, 3);
    /* [0, 2] and [3, 0] do not match the end of the text: nothing; a
     * word longer than the text neither */
    p = tu_params();
    int w02[2] = {0, 2}, w30[2] = {3, 0}, w0012[4] = {0, 0, 1, 2};
    sp_params_add_bad_word(&p, w02, 2, err);
    sp_params_add_bad_word(&p, w30, 2, err);
    sp_params_add_bad_word(&p, w0012, 4, err);
    warp(s, &p, &st);
    CHECK_EQ_INT(st.n_kept, 4);
    CHECK_NEAR(st.probs[2], 0.0871443227, 1e-7);
    /* [0, 1, 2] matches: the whole text is its prefix */
    int w012[3] = {0, 1, 2};
    sp_params_add_bad_word(&p, w012, 3, err);
    warp(s, &p, &st);
    CHECK_EQ_INT(st.cut[2], SP_CUT_BAD_WORDS);
    /* a word of one token is cut at every step */
    p = tu_params();
    int w1 = 1;
    sp_params_add_bad_word(&p, &w1, 1, err);
    CHECK_EQ_INT(sp_sampler_warp(s, LOGITS, NULL, 0, &p, &st, err), SP_OK);
    CHECK_EQ_INT(st.cut[1], SP_CUT_BAD_WORDS);

    /* sequence bias [1, 2] +2.5 and [3] +1: logits 2, 1, 2.5, 0:
     * 0.317265, 0.116715, 0.523082, 0.042937 */
    p = tu_params();
    int w3 = 3;
    CHECK_EQ_INT(sp_params_add_sequence_bias(&p, w12, 2, 2.5f, err), SP_OK);
    CHECK_EQ_INT(sp_params_add_sequence_bias(&p, &w3, 1, 1.0f, err), SP_OK);
    warp(s, &p, &st);
    CHECK_NEAR(st.probs[0], 0.317265302, 1e-7);
    CHECK_NEAR(st.probs[1], 0.116715387, 1e-7);
    CHECK_NEAR(st.probs[2], 0.523082078, 1e-7);
    CHECK_NEAR(st.probs[3], 0.0429371893, 1e-7);
    CHECK_EQ_INT(st.n_penalized, 2);
    /* two sequences ending in the same token both add theirs (HF sums):
     * [1, 2] +2.5 and [2] -2.5 leave 2's logit as it was */
    int w2 = 2;
    sp_params_add_sequence_bias(&p, &w2, 1, -2.5f, err);
    warp(s, &p, &st);
    CHECK_NEAR(st.probs[2], 0.0871443227 / (0.0871443227 + 0.643914282 +
                                             0.236882836 + 0.0320586041 *
                                             2.718281828), 1e-6);

    /* the checks: a token outside the vocabulary, a value that is not
     * finite, a word of no token, too many, an order that leaves them out */
    p = tu_params();
    int w9[2] = {1, 9};
    sp_params_add_bad_word(&p, w9, 2, err);
    CHECK_EQ_INT(sp_params_check(&p, 4, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "bad-words token 9 is outside the vocabulary");
    p = tu_params();
    sp_params_add_sequence_bias(&p, w12, 2, INFINITY, err);
    CHECK_EQ_INT(sp_params_check(&p, 4, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "sequence-bias 1: the value must be a finite");
    CHECK_EQ_INT(sp_params_add_bad_word(&p, w12, 0, err), SP_ERR_ARG);
    CHECK_EQ_INT(sp_params_add_bad_word(&p, w12, SP_MAX_WORD_LEN + 1, err),
                 SP_ERR_ARG);
    p = tu_params();
    for (int i = 0; i < SP_MAX_WORDS; i++)
        CHECK_EQ_INT(sp_params_add_bad_word(&p, &w1, 1, err), SP_OK);
    CHECK_EQ_INT(sp_params_add_bad_word(&p, &w1, 1, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "bad-words: at most 32");
    CHECK_EQ_INT(sp_params_set_order(&p, "llama.cpp", err), SP_OK);
    CHECK_EQ_INT(sp_params_check(&p, 4, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "bad-words is set but the samplers' order leaves "
                            "out bad_words");
    /* the hf preset has both, as Hugging Face's processors */
    CHECK_EQ_INT(sp_params_set_order(&p, "hf", err), SP_OK);
    CHECK_EQ_INT(sp_params_check(&p, 4, err), SP_OK);
    sp_sampler_free(s);
}

/* Text through the shipped models' tokenizers. */
static void test_text(void) {
    const char *root = test_root;
    sp_model *bigram = tu_load_model(root, "bigram.bin", err);
    CHECK(bigram != NULL);
    if (!bigram) return;
    const sp_tokenizer *chars = sp_model_tokenizer(bigram);
    sp_params p = tu_params();
    /* the bigram's characters: "the" is t, h, e; " the" has a character
     * the model does not know (no second form) */
    CHECK_EQ_INT(sp_params_add_bad_word_text(&p, chars, "the", err), SP_OK);
    CHECK_EQ_INT(p.n_bad_words, 1);
    CHECK_EQ_INT(p.bad_words[0].n, 3);
    CHECK_EQ_INT(sp_params_add_bad_word_text(&p, chars, "", err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "bad-words: \"\" is no token");
    CHECK_EQ_INT(sp_params_add_sequence_bias_text(&p, chars, "the=1", 1.0f,
                                                  err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "sequence-bias: \"the=1\":");
    CHECK_EQ_INT(sp_params_add_bad_word_text(&p, chars, "abcdefghijklmnopq",
                                             err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "is more than 16 tokens");
    CHECK_EQ_INT(p.n_bad_words, 1);

    char path[4096];
    size_t size;
    snprintf(path, sizeof path, "%s/models/transformer_tokenizer.bin", root);
    uint8_t *tfile = read_all(path, &size);
    CHECK(tfile != NULL);
    sp_tokenizer *tok = tfile ? sp_tokenizer_load(tfile, size, 0, err) : NULL;
    free(tfile);
    CHECK(tok != NULL);
    if (tok) {
        /* llama2.c's dummy prefix: "the" is " the" (4 tokens); vLLM's
         * second form "  the" has 5 tokens and is not added */
        p = tu_params();
        CHECK_EQ_INT(sp_params_add_bad_word_text(&p, tok, "the", err), SP_OK);
        CHECK_EQ_INT(p.n_bad_words, 1);
        CHECK_EQ_INT(p.bad_words[0].n, 4);
        int ids[8];
        int n = sp_encode(tok, " the", 0, 0, ids, 8, err);
        CHECK(n == 5); /* dummy prefix, space, t, h, e */
        CHECK_EQ_INT(sp_params_add_sequence_bias_text(&p, tok, "them", 3.0f,
                                                      err), SP_OK);
        CHECK_EQ_INT(p.n_seq_bias, 1);
        CHECK_EQ_INT(p.seq_bias[0].n, 5);
        CHECK(p.seq_bias[0].value == 3.0f);
        sp_tokenizer_free(tok);
    }
    sp_model_free(bigram);
}

/* The generated text of model (with tok) from prompt, seed, steps. */
static char *generate(const sp_model *m, const sp_tokenizer *tok,
                      const char *prompt, uint64_t seed, int steps,
                      const sp_params *p) {
    sp_session *s = sp_session_new(m, tok, err);
    CHECK(s != NULL);
    if (!s) return NULL;
    CHECK_EQ_INT(sp_session_start(s, prompt, seed, err), SP_OK);
    for (int i = 0; i < steps && !sp_session_finished(s); i++)
        if (sp_session_step(s, p, -1, err) != SP_OK) break;
    int len;
    char *text = sp_session_text(s, &len);
    sp_session_free(s);
    return text;
}

static int count(const char *text, const char *word) {
    int n = 0;
    for (const char *at = text; (at = strstr(at, word)); at++) n++;
    return n;
}

/* Over seeds 1-20: a banned word never appears (and does without the
 * ban); a bias moves a word's frequency. */
static void test_texts(void) {
    const char *root = test_root;
    sp_model *bigram = tu_load_model(root, "bigram.bin", err);
    sp_model *tf = tu_load_model(root, "transformer.bin", err);
    CHECK(bigram != NULL && tf != NULL);
    char path[4096];
    size_t size;
    snprintf(path, sizeof path, "%s/models/transformer_tokenizer.bin", root);
    uint8_t *tfile = read_all(path, &size);
    sp_tokenizer *tok = tfile && tf ? sp_tokenizer_load(tfile, size,
                                                        sp_model_vocab(tf),
                                                        err) : NULL;
    free(tfile);
    CHECK(tok != NULL);
    if (!bigram || !tf || !tok) {
        sp_model_free(bigram), sp_model_free(tf), sp_tokenizer_free(tok);
        return;
    }
    const sp_tokenizer *chars = sp_model_tokenizer(bigram);
    sp_params off = tu_params(), ban_b = tu_params(), ban_t = tu_params();
    sp_params_add_bad_word_text(&ban_b, chars, "the", err);
    sp_params_add_bad_word_text(&ban_t, tok, "the", err);
    sp_params them[3] = {tu_params(), tu_params(), tu_params()};
    sp_params ann[3] = {tu_params(), tu_params(), tu_params()};
    const float values[3] = {-3, 0, 3};
    for (int k = 0; k < 3; k++) {
        sp_params_add_sequence_bias_text(&them[k], tok, "them", values[k], err);
        sp_params_add_sequence_bias_text(&ann[k], chars, "ann", values[k], err);
    }
    int the_b[2] = {0}, the_t[2] = {0}, n_them[3] = {0}, n_ann[3] = {0};
    for (uint64_t seed = 1; seed <= 20; seed++) {
        const char *prompt = "In the beginning";
        char *t;
        t = generate(bigram, NULL, "", seed, 300, &off);
        the_b[0] += t ? count(t, "the") : 0, free(t);
        t = generate(bigram, NULL, "", seed, 300, &ban_b);
        the_b[1] += t ? count(t, "the") : 0, free(t);
        t = generate(tf, tok, prompt, seed, 200, &off);
        the_t[0] += t ? count(t, " the") : 0, free(t);
        t = generate(tf, tok, prompt, seed, 200, &ban_t);
        the_t[1] += t ? count(t, " the") : 0, free(t);
        for (int k = 0; k < 3; k++) {
            t = generate(tf, tok, prompt, seed, 200, &them[k]);
            n_them[k] += t ? count(t, " them") : 0, free(t);
            t = generate(bigram, NULL, "", seed, 300, &ann[k]);
            n_ann[k] += t ? count(t, "ann") : 0, free(t);
        }
    }
    printf("  seeds 1-20: bigram \"the\" %d -> %d banned; transformer \" the\" "
           "%d -> %d banned\n", the_b[0], the_b[1], the_t[0], the_t[1]);
    printf("  \" them\" with bias -3 / 0 / +3: %d / %d / %d; bigram \"ann\": "
           "%d / %d / %d\n", n_them[0], n_them[1], n_them[2], n_ann[0],
           n_ann[1], n_ann[2]);
    /* measured when written: bigram 4 -> 0, transformer 47 -> 0;
     * " them" 0 / 6 / 21, "ann" 0 / 6 / 62 */
    CHECK(the_b[0] > 0);
    CHECK_EQ_INT(the_b[1], 0);
    CHECK(the_t[0] > 10);
    CHECK_EQ_INT(the_t[1], 0);
    CHECK(n_them[2] > 2 * n_them[1] && n_them[1] > n_them[0]);
    CHECK(n_ann[2] > 5 * n_ann[1] && n_ann[1] > n_ann[0]);
    sp_tokenizer_free(tok);
    sp_model_free(bigram);
    sp_model_free(tf);
}

/* A warp request gives the words as token ids (it has no tokenizer). */
static void test_request(void) {
    const char *ok = "{\"logits\": [2, 1, 0, -1], \"history\": [0, 1], "
                     "\"bad_words_ids\": [[1, 2], [3]], "
                     "\"sequence_bias\": [[[0, 1, 2], -1.5], [[3], 1]]}";
    float *logits = NULL;
    int *hist = NULL, nl = 0, nh = 0;
    sp_params p = tu_params();
    CHECK_EQ_INT(sp_parse_warp_request(ok, strlen(ok), &logits, &nl, &hist,
                                       &nh, &p, err), SP_OK);
    CHECK_EQ_INT(p.n_bad_words, 2);
    CHECK_EQ_INT(p.bad_words[0].n, 2);
    CHECK_EQ_INT(p.bad_words[0].tokens[1], 2);
    CHECK_EQ_INT(p.n_seq_bias, 2);
    CHECK_EQ_INT(p.seq_bias[0].n, 3);
    CHECK(p.seq_bias[0].value == -1.5f && p.seq_bias[1].value == 1.0f);
    free(logits);
    free(hist);
    static const struct {
        const char *text, *says;
    } bad[] = {
        {"{\"logits\": [1, 2], \"bad_words_ids\": [[1, 2.5]]}",
         "bad_words_ids[0][1] = 2.5 is not a token id"},
        {"{\"logits\": [1, 2], \"bad_words_ids\": [[]]}",
         "bad_words_ids[0] has 0 tokens (1..16)"},
        {"{\"logits\": [1, 2], \"bad_words_ids\": [1]}", "expected '['"},
        {"{\"logits\": [1, 2], \"sequence_bias\": [[[1]]]}", "expected ','"},
        {"{\"logits\": [1, 2], \"sequence_bias\": [[[1], 1e39]]}",
         "out of float range"},
        {"{\"logits\": [1, 2], \"bad_words_ids\": [], \"bad_words_ids\": []}",
         "repeated key"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        p = tu_params();
        logits = NULL, hist = NULL;
        CHECK(sp_parse_warp_request(bad[i].text, strlen(bad[i].text), &logits,
                                    &nl, &hist, &nh, &p, err) != SP_OK);
        CHECK_STR_CONTAINS(err, bad[i].says);
        free(logits);
        free(hist);
    }
}

TEST_SUITE(words,
           TEST(test_worked),
           TEST(test_request),
           TEST(test_text),
           TEST(test_texts));
