/*
 * test_hostile_params.c — hostile requests and settings: warp requests (the
 * CLI's JSON) and sampler parameters at and past their limits, each
 * refused with its one-line message.
 *
 * (hostile.h: what the test_hostile*.c files share.)
 */
#include <float.h>
#include <limits.h>

#include "warp_request.h"
#include "hostile.h"

/* ---- warp requests and parameters -------------------------------------------- */

static void request_fails(const char *text, const char *needle) {
    float *logits = NULL;
    int *history = NULL, nl = -1, nh = -1;
    strcpy(err, "(untouched)");
    sp_params rp;
    sp_params_default(&rp);
    int rc = sp_parse_warp_request(text, strlen(text), &logits, &nl, &history,
                                   &nh, &rp, err);
    CHECK_EQ_INT(rc, SP_ERR_FORMAT);
    CHECK_STR_CONTAINS(err, needle);
    check_one_line(err);
    if (rc == SP_OK) {
        free(logits);
        free(history);
    }
}

static void test_requests(void) {
    request_fails("", "request: expected '{' at byte 0");
    request_fails("   ", "request: expected '{' at byte 3");
    request_fails("[1, 2]", "expected '{' at byte 0");
    request_fails("{}", "request: \"logits\" is missing or empty");
    request_fails("{\"logits\": []}", "\"logits\" is missing or empty");
    request_fails("{\"history\": [0]}", "\"logits\" is missing or empty");
    request_fails("{\"logits\": [1], \"histroy\": [0]}",
                  "request: unknown or repeated key \"histroy\" at byte 26");
    request_fails("{\"logits\": [1], \"logits\": [2]}",
                  "unknown or repeated key \"logits\"");
    request_fails("{\"lo\ngits\": [1]}", "unknown or repeated key \"lo\\x0agits\"");
    request_fails("{\"a-very-long-key-that-goes-on-and-on\": 1}",
                  "request: unexpected string at byte");
    request_fails("{\"logits\": [1, 2", "request: expected ',' or ']' at byte "
                  "16");
    request_fails("{\"logits\": [1, 2]", "expected ',' or '}' at byte 17");
    request_fails("{\"logits\": [1, 2]} x", "unexpected text after the object "
                  "at byte 19");
    request_fails("{\"logits\": [1, 2]}{}", "unexpected text after the object");
    request_fails("{\"logits\": [[1]]}", "request: expected a number at byte "
                  "12");
    request_fails("{\"logits\": [{}]}", "expected a number");
    request_fails("{\"logits\": [NaN]}", "expected a number");
    request_fails("{\"logits\": [Infinity]}", "expected a number");
    request_fails("{\"logits\": [\"inf\"]}", "the only string allowed here is "
                  "\"-inf\"");
    request_fails("{\"logits\": [\"-inf]}", "unterminated string");
    request_fails("{\"logits\": [1e39]}", "logits[0] is out of float range");
    request_fails("{\"logits\": [0, -1e39]}", "logits[1] is out of float "
                  "range");
    request_fails("{\"logits\": [1.]}", "request: bad number");
    request_fails("{\"logits\": [1e]}", "bad number");
    request_fails("{\"logits\": [-]}", "expected a number");
    request_fails("{\"logits\": [0.0000000000000000000000000000000000000000000"
                  "00000000000000000001]}", "number too long");
    request_fails("{\"logits\": [1, 2], \"history\": [2]}",
                  "request: history[0] = 2 is not a token id in 0..1");
    request_fails("{\"logits\": [1, 2], \"history\": [-1]}",
                  "history[0] = -1 is not a token id");
    request_fails("{\"logits\": [1, 2], \"history\": [0, 0.5]}",
                  "history[1] = 0.5 is not a token id");
    request_fails("{\"logits\": [1, 2], \"history\": [2147483648]}",
                  "history[0] = 2.14748365e+09 is not a token id");
    request_fails("{\"logits\": [1, 2], \"history\": [\"-inf\"]}",
                  "expected a number");
    request_fails("{\"logits\": [1, 2], \"history\": [null]}",
                  "expected a number");
    /* deeply odd: a thousand brackets, a megabyte of whitespace */
    char *deep = malloc(20000);
    strcpy(deep, "{\"logits\": ");
    for (int i = 0; i < 10000; i++) strcat(deep + 11 + i, "[");
    request_fails(deep, "expected a number at byte 12");
    free(deep);
    size_t ws = 1 << 20;
    char *spaced = malloc(ws + 64);
    memset(spaced, ' ', ws);
    strcpy(spaced + ws, "{\"logits\": [1, \"-inf\", null]}");
    float *logits = NULL;
    int *history = NULL, nl = 0, nh = 0;
    sp_params rp;
    sp_params_default(&rp);
    CHECK_EQ_INT(sp_parse_warp_request(spaced, strlen(spaced), &logits, &nl,
                                       &history, &nh, &rp, err), SP_OK);
    CHECK_EQ_INT(nl, 3);
    CHECK(logits && logits[1] == -INFINITY && logits[2] == -INFINITY);
    free(logits);
    free(history);
    free(spaced);
    /* not NUL-terminated: the length rules */
    CHECK_EQ_INT(sp_parse_warp_request("{\"logits\": [7]}xyz", 15, &logits,
                                       &nl, &history, &nh, &rp, err), SP_OK);
    CHECK_EQ_INT(nl, 1);
    free(logits);
    free(history);
    /* a million items are the most; one more is refused */
    size_t items = 1000001;
    char *many = malloc(items * 2 + 32);
    strcpy(many, "{\"logits\": [");
    char *p = many + strlen(many);
    for (size_t i = 0; i < items; i++) {
        *p++ = '0';
        *p++ = ',';
    }
    p[-1] = ']';
    *p++ = '}';
    *p = '\0';
    request_fails(many, "request: more than 1000000 items");
    free(many);
}

/* Runs the pipeline on logits[n]; returns the rc, err set. */
static int warp(const float *logits, int n, const int *history, int nh,
                const sp_params *p, sp_step *st) {
    sp_sampler *s = sp_sampler_new(n);
    CHECK(s != NULL);
    if (!s) return -1;
    int rc = sp_sampler_warp(s, logits, history, nh, p, st, err);
    if (rc == SP_OK) {
        double sum = 0;
        for (int i = 0; i < n; i++) {
            CHECK(st->probs[i] >= 0.0f && st->probs[i] <= 1.0f);
            sum += st->probs[i];
        }
        CHECK_NEAR(sum, 1.0, 1e-5);
        CHECK_EQ_INT(sp_sampler_draw(st, 0.999999), SP_OK);
        CHECK(st->token >= 0 && st->token < n && st->probs[st->token] > 0.0f);
        CHECK_EQ_INT(sp_sampler_draw(st, 0.0), SP_OK);
        CHECK(st->probs[st->token] > 0.0f);
        CHECK(sp_sampler_draw(st, 1.0) != SP_OK);
        CHECK(sp_sampler_draw(st, NAN) != SP_OK);
        CHECK(sp_sampler_draw(st, -0.5) != SP_OK);
    } else {
        check_one_line(err);
    }
    sp_sampler_free(s);
    return rc;
}

static void params_fail(const sp_params *p, const char *needle) {
    strcpy(err, "(untouched)");
    CHECK_EQ_INT(sp_params_check(p, 4, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, needle);
    check_one_line(err);
}

static void test_params(void) {
    sp_params p;
    sp_step st;
    float logits[4] = {1, 2, 3, 4};
    float inf = INFINITY, nan = NAN;

#define BAD(field, value, needle)                                          \
    do {                                                                   \
        sp_params_default(&p);                                             \
        p.field = value;                                                   \
        params_fail(&p, needle);                                           \
        CHECK_EQ_INT(warp(logits, 4, NULL, 0, &p, &st), SP_ERR_ARG);       \
    } while (0)
    BAD(temperature, nan, "temperature must be a finite number >= 0 (got "
                          "nan)");
    BAD(temperature, inf, "temperature must be a finite number >= 0 (got "
                          "inf)");
    BAD(temperature, -1e-30f, "temperature must be");
    BAD(top_k, -1, "top-k must be >= 0 (got -1)");
    BAD(top_k, INT_MIN, "top-k must be >= 0 (got -2147483648)");
    BAD(top_p, 0.0f, "top-p must be in (0, 1] (got 0)");
    BAD(top_p, nan, "top-p must be in (0, 1] (got nan)");
    BAD(top_p, 1.0000001f, "top-p must be in (0, 1]");
    BAD(min_p, -0.1f, "min-p must be in [0, 1] (got -0.1");
    BAD(min_p, nan, "min-p must be in [0, 1] (got nan)");
    BAD(typical_p, 0.0f, "typical-p must be in (0, 1] (got 0)");
    BAD(typical_p, -inf, "typical-p must be in (0, 1] (got -inf)");
    BAD(repetition_penalty, 0.0f, "repetition-penalty must be a finite number "
                                  "> 0 (got 0)");
    BAD(repetition_penalty, inf, "repetition-penalty must be");
    BAD(repetition_penalty, nan, "repetition-penalty must be");
    BAD(frequency_penalty, nan, "frequency-penalty must be a finite number "
                                "(got nan)");
    BAD(presence_penalty, -inf, "presence-penalty must be a finite number "
                                "(got -inf)");
    BAD(penalty_last_n, -1, "penalty-last-n must be >= 0 (got -1)");
    BAD(n_bias, -1, "logit-bias: at most 256 entries (got -1)");
    BAD(n_bias, SP_MAX_BIAS + 1, "logit-bias: at most 256 entries (got 257)");
#undef BAD
    sp_params_default(&p);
    p.n_bias = 1;
    p.bias[0].token = INT_MAX;
    p.bias[0].value = 1.0f;
    params_fail(&p, "logit-bias token 2147483647 is outside the vocabulary "
                "(0..3)");
    p.bias[0].token = -1;
    params_fail(&p, "logit-bias token -1 is outside the vocabulary (0..3)");
    p.bias[0].token = 2;
    p.bias[0].value = nan;
    params_fail(&p, "logit-bias value for token 2 must be a finite number or "
                "-inf (got nan)");
    p.bias[0].value = inf;
    params_fail(&p, "logit-bias value for token 2 must be a finite number or "
                "-inf (got inf)");
    /* the front-ends append through the engine, which says when it is full */
    sp_params_default(&p);
    for (int i = 0; i < SP_MAX_BIAS; i++)
        CHECK_EQ_INT(sp_params_add_bias(&p, i % 4, 1.0f, err), SP_OK);
    CHECK_EQ_INT(sp_params_add_bias(&p, 0, 1.0f, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "logit-bias: at most 256 entries");
    CHECK_EQ_INT(p.n_bias, SP_MAX_BIAS);
    CHECK_EQ_INT(sp_params_check(&p, 4, err), SP_OK);
    /* so do the decoding strategies' settings, before any model is there */
    CHECK_EQ_INT(sp_beam_check_width(0, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "beams must be in 1..64 (got 0)");
    CHECK_EQ_INT(sp_beam_check_width(64, err), SP_OK);
    CHECK_EQ_INT(sp_beam_check_length_penalty(10.000001, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "length-penalty must be in [0, 10] (got 10)");
    CHECK_EQ_INT(sp_beam_check_length_penalty(nan, err), SP_ERR_ARG);
    CHECK_EQ_INT(sp_beam_check_length_penalty(0, err), SP_OK);
    CHECK_EQ_INT(sp_spec_check_draft(17, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "speculate must be in 1..16 (got 17)");
    CHECK_EQ_INT(sp_spec_check_draft(16, err), SP_OK);

    /* at their limits: still a distribution, never NaN */
    static const struct {
        float t, rep, freq, pres, top_p, min_p, typ;
        int top_k, last_n;
    } edge[] = {
        {FLT_MIN, 1, 0, 0, 1, 0, 1, 0, 0},
        {1e-45f, 1, 0, 0, 1, 0, 1, 0, 0},
        {FLT_MAX, 1, 0, 0, 1, 0, 1, 0, 0},
        {0, FLT_MAX, FLT_MAX, FLT_MAX, 1e-45f, 1, 1e-45f, INT_MAX, INT_MAX},
        {1, 1e-45f, -FLT_MAX, -FLT_MAX, 1, 0, 1, 1, 1},
        {1e-30f, FLT_MIN, FLT_MAX, -FLT_MAX, 0.5f, 0.5f, 0.5f, 3, 2},
        {1e30f, 1, 0, 0, 1e-45f, 1e-45f, 1, 2, 0},
    };
    int history[6] = {3, 3, 2, 0, 3, 1};
    float extreme[4] = {FLT_MAX, -FLT_MAX, 0, FLT_MAX};
    float masked[4] = {-INFINITY, 5, -INFINITY, -FLT_MAX};
    for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++) {
        sp_params_default(&p);
        p.temperature = edge[i].t;
        p.repetition_penalty = edge[i].rep;
        p.frequency_penalty = edge[i].freq;
        p.presence_penalty = edge[i].pres;
        p.top_p = edge[i].top_p;
        p.min_p = edge[i].min_p;
        p.typical_p = edge[i].typ;
        p.top_k = edge[i].top_k;
        p.penalty_last_n = edge[i].last_n;
        p.n_bias = 2;
        p.bias[0] = (sp_bias){1, FLT_MAX};
        p.bias[1] = (sp_bias){3, -FLT_MAX};
        CHECK_EQ_INT(warp(logits, 4, history, 6, &p, &st), SP_OK);
        CHECK_EQ_INT(warp(extreme, 4, history, 6, &p, &st), SP_OK);
        CHECK_EQ_INT(warp(masked, 4, history, 6, &p, &st), SP_OK);
    }

    /* non-finite logits: reported, never sampled */
    sp_params_default(&p);
    float with_nan[4] = {1, NAN, 2, 3}, with_inf[4] = {1, 2, INFINITY, 3};
    CHECK_EQ_INT(warp(with_nan, 4, NULL, 0, &p, &st), SP_ERR_FORMAT);
    CHECK_STR_CONTAINS(err, "logits: token 1 is NaN; the model's output is "
                       "not finite");
    CHECK_EQ_INT(warp(with_inf, 4, NULL, 0, &p, &st), SP_ERR_FORMAT);
    CHECK_STR_CONTAINS(err, "logits: token 2 is +inf");
    /* all masked */
    float none[4] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY};
    CHECK_EQ_INT(warp(none, 4, NULL, 0, &p, &st), SP_ERR_STATE);
    CHECK_STR_CONTAINS(err, "logits: every token is masked (-inf)");
    /* every token banned */
    p.n_bias = 4;
    for (int i = 0; i < 4; i++) p.bias[i] = (sp_bias){i, -INFINITY};
    CHECK_EQ_INT(warp(logits, 4, NULL, 0, &p, &st), SP_ERR_STATE);
    CHECK_STR_CONTAINS(err, "no token left: every token is banned");
    /* history ids out of range, seen by the penalties */
    sp_params_default(&p);
    p.repetition_penalty = 1.5f;
    int bad_history[3] = {0, 4, 1};
    CHECK_EQ_INT(warp(logits, 4, bad_history, 3, &p, &st), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "history token 4 is outside the vocabulary (0..3)");
    bad_history[1] = INT_MIN;
    CHECK_EQ_INT(warp(logits, 4, bad_history, 3, &p, &st), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "history token -2147483648 is outside");
    /* ... outside the penalty window they are not read */
    p.penalty_last_n = 1;
    CHECK_EQ_INT(warp(logits, 4, bad_history, 3, &p, &st), SP_OK);
    CHECK_EQ_INT(warp(logits, 4, bad_history, -1, &p, &st), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "history: bad length -1");
    CHECK(sp_sampler_new(0) == NULL);
    CHECK(sp_sampler_new(-5) == NULL);
}

/* One value alone, asked as a link's is (sp_param_refusal): the reason,
 * and the message sp_params_check gives for it; a value taken is a value
 * sp_params_set then sp_params_check take. */
static void refusal_is(const char *name, double v, int reason,
                       const char *needle) {
    int i = sp_param_find(name);
    CHECK(i >= 0);
    strcpy(err, "(untouched)");
    CHECK_EQ_INT(sp_param_refusal(i, v, err), reason);
    if (reason != SP_PARAM_TAKEN) {
        CHECK_STR_CONTAINS(err, needle);
        check_one_line(err);
    }
    sp_params p;
    sp_params_default(&p);
    int taken = sp_params_set(&p, i, v, NULL) == SP_OK &&
                sp_params_check(&p, 0, NULL) == SP_OK;
    CHECK_EQ_INT(taken, reason == SP_PARAM_TAKEN);
}

static void test_refusals(void) {
    /* 1e308 is a finite double but infinity as the engine's float: the
     * value a link once passed and the engine then refused at the start */
    refusal_is("temperature", 1e308, SP_PARAM_NOT_FINITE,
               "temperature must be a finite number >= 0 (got inf)");
    refusal_is("temperature", INFINITY, SP_PARAM_NOT_FINITE, "temperature");
    refusal_is("temperature", -INFINITY, SP_PARAM_NOT_FINITE, "temperature");
    refusal_is("temperature", NAN, SP_PARAM_NOT_NUMBER,
               "temperature must be a number (got nan)");
    refusal_is("temperature", -0.0, SP_PARAM_TAKEN, "");
    refusal_is("temperature", 3e38, SP_PARAM_TAKEN, "");
    refusal_is("temperature", -1e-3, SP_PARAM_OUTSIDE, "temperature");
    refusal_is("top_p", 7, SP_PARAM_OUTSIDE, "top-p must be in (0, 1] (got 7)");
    /* below the smallest float: 0 as the engine holds it, outside (0, 1] */
    refusal_is("top_p", 1e-50, SP_PARAM_OUTSIDE, "(got 0)");
    refusal_is("top_k", -5, SP_PARAM_OUTSIDE, "top-k");
    refusal_is("top_k", 2.5, SP_PARAM_FRACTION, "top-k must be an integer");
    refusal_is("top_k", 1e20, SP_PARAM_OUTSIDE, "top-k");
    refusal_is("top_k", 2147483647, SP_PARAM_TAKEN, "");
    refusal_is("top_k", INFINITY, SP_PARAM_NOT_FINITE, "top-k");
    refusal_is("top_k", -0.0, SP_PARAM_TAKEN, "");
    CHECK_EQ_INT(sp_param_refusal(-1, 1, err), SP_PARAM_OUTSIDE);
    CHECK_EQ_INT(sp_param_refusal(sp_param_count(), 1, err), SP_PARAM_OUTSIDE);

    char text[96];
    sp_param_range_text(sp_param_find("top_p"), text, sizeof text);
    CHECK(!strcmp(text, "(0, 1]"));
    sp_param_range_text(sp_param_find("temperature"), text, sizeof text);
    CHECK(!strcmp(text, "[0, \xe2\x88\x9e)"));
    sp_param_range_text(sp_param_find("top_k"), text, sizeof text);
    CHECK(!strcmp(text, "[0, 2147483647]"));
    sp_param_range_text(-1, text, sizeof text);
    CHECK(!strcmp(text, ""));
    /* every parameter: its neutral value taken, NaN refused */
    for (int i = 0; i < sp_param_count(); i++) {
        CHECK_EQ_INT(sp_param_refusal(i, sp_param_at(i)->neutral, err),
                     SP_PARAM_TAKEN);
        CHECK_EQ_INT(sp_param_refusal(i, NAN, err), SP_PARAM_NOT_NUMBER);
        sp_param_range_text(i, text, sizeof text);
        CHECK(strlen(text) >= 6);
    }
}

TEST_SUITE(hostile_params,
           TEST(test_requests),
           TEST(test_params),
           TEST(test_refusals));
