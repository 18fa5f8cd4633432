/* test_constrain.c — constrained decoding: the regex DFA against POSIX
 * regexec (an independent matcher), the JSON automaton against documents,
 * and generation that always matches, whatever the seed and temperature,
 * for a character vocabulary (the bigram) and a BPE one (the Llama 2
 * tokenizer on a random 32 000-token model).
 * JSON mode (bounded whitespace, an object with a member, a prompt that
 * opens one): test_json_mode.c; what both share: constrain_util.h. */
#include "constrain_util.h"

/* The regex DFA agrees with POSIX regexec on every pattern and text of a
 * table; escapes, limits, and the refused patterns with their messages. */
static void test_regex_posix(void) {
    static const char *patterns[] = {
        "ab", "a|b", "(ab|c)+d?", "x{0,3}", "a{2,}", "[A-Z][a-z]{2,5}",
        "[0-9]+(\\.[0-9]{1,2})?", "(a|b)*abb", "[^a-c]x", "(((a)))|b{3}",
        "a.c", "[a-z-]+", "(yes|no|maybe)", "h(a|e)?llo+", "[[:alpha:]]",
        "[[:digit:][:space:]x]+", "[^[:alnum:]]",
    };
    static const char *texts[] = {
        "", "a", "b", "ab", "abab", "abc", "c", "cd", "abcd", "xxx", "xxxx",
        "aa", "aaa", "Abc", "Abcdef", "Abcdefg", "12", "12.5", "12.55",
        "12.555", "1.", "abb", "aabb", "babb", "dx", "ax", "a", "bbb", "a\nc",
        "abc", "a-b", "maybe", "hello", "hllooo", "hallo", ":", "1 2x", "?",
    };
    int disagree = 0, checked = 0;
    for (size_t i = 0; i < sizeof patterns / sizeof *patterns; i++) {
        sp_constraint *c = sp_constraint_regex(patterns[i], err);
        CHECK(c != NULL);
        if (!c) continue;
        for (size_t j = 0; j < sizeof texts / sizeof *texts; j++) {
            /* POSIX's '.' matches a newline; the engine's does not */
            if (strchr(patterns[i], '.') && strchr(texts[j], '\n')) continue;
            int want = posix_matches(patterns[i], texts[j]);
            if (want < 0) continue;
            checked++;
            if (rx_matches(c, texts[j]) != want) {
                disagree++;
                fprintf(stderr, "regex /%s/ on \"%s\": engine %d, POSIX %d\n",
                        patterns[i], texts[j], !want, want);
            }
        }
        sp_constraint_free(c);
    }
    CHECK(checked > 400);
    CHECK_EQ_INT(disagree, 0);
    sp_constraint *c = sp_constraint_regex("a.c", err);
    CHECK(rx_matches(c, "abc") && !rx_matches(c, "a\nc"));
    sp_constraint_free(c);
    /* escapes and limits */
    c = sp_constraint_regex("\\d{3}-\\w+\\s?\\.", err);
    CHECK(c && rx_matches(c, "123-ab_9 .") && !rx_matches(c, "12-ab."));
    sp_constraint_free(c);
    const char *bad[][2] = {
        {"(ab", "missing ')'"}, {"ab)", "unmatched ')'"}, {"*a", "quantifier"},
        {"a{2,1}", "n < m"}, {"a{1001}", "over 1000"}, {"[b-a]", "out of order"},
        {"[ab", "unterminated"}, {"\\q", "unknown escape"}, {"a\\", "ends after"},
        {"(a{1000}){1000}", "too large"}, {"[^\\x00-\\xff]", "unknown escape"},
        {"[[:foo:]]", "unknown character class"},
        {"(\\w|\\d|\\s){1,1000}(\\w|\\d|\\s){1,1000}", "too complex"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        sp_constraint *b = sp_constraint_regex(bad[i][0], err);
        CHECK(b == NULL);
        CHECK_STR_CONTAINS(err, bad[i][1]);
        sp_constraint_free(b);
    }
    c = sp_constraint_regex("[a-z]{2,4}", err);
    sp_cstate cs;
    sp_cstate_start(c, &cs);
    CHECK_EQ_INT(need(c, &cs), 2);
    sp_cstate_feed(c, &cs, "abcd", 4);
    CHECK(sp_cstate_accepting(c, &cs) && !sp_cstate_can_extend(c, &cs));
    sp_constraint_free(c);
}

/* The JSON automaton: valid and invalid documents, viable prefixes and
 * what completing them costs. */
static void test_json(void) {
    sp_constraint *js = sp_constraint_json(err);
    static const char *valid[] = {
        "0", "-12.5e+3", "true", "null", "\"a\\\"b\\u00e9\"", "[]", "{}",
        "[1, [2, {\"k\": [true, false]}], \"x\"]", "{\"a\":{\"b\":{}},\"c\":[]}",
        "{ \"a\" : 1 } ", "1E5", "0.25",
    };
    static const char *invalid[] = {
        "01", "-", "1.", "1e", "tru", "[1,]", "{\"a\"}", "{a:1}", "[1 2]",
        "\"abc", "{\"a\":1,}", "[]]", "\"\\x\"", "\"\\u12g4\"", "+1", ".5",
        "{\"a\" 1}", "[\"\n\"]",
    };
    for (size_t i = 0; i < sizeof valid / sizeof *valid; i++) {
        int ok = json_complete(js, valid[i]);
        if (!ok) fprintf(stderr, "json: rejected valid %s\n", valid[i]);
        CHECK(ok);
    }
    for (size_t i = 0; i < sizeof invalid / sizeof *invalid; i++) {
        int ok = json_complete(js, invalid[i]);
        if (ok) fprintf(stderr, "json: accepted invalid %s\n", invalid[i]);
        CHECK(!ok);
    }
    /* viable prefixes and what completing them costs */
    struct { const char *prefix; int viable, need; } pre[] = {
        {"", 1, 1}, {"{", 1, 1}, {"{\"", 1, 4}, {"{\"ab\"", 1, 3},
        {"{\"ab\":", 1, 2}, {"[", 1, 1}, {"[1,", 1, 2}, {"[[[", 1, 3},
        {"\"ab", 1, 1}, {"\"a\\u00", 1, 3}, {"tr", 1, 2}, {"-", 1, 1},
        {"12", 1, 0}, {"{\"a\":[1,{\"b\":\"", 1, 4}, {"]", 0, 0}, {"{1", 0, 0},
    };
    for (size_t i = 0; i < sizeof pre / sizeof *pre; i++) {
        sp_cstate s;
        sp_cstate_start(js, &s);
        int v = sp_cstate_feed(js, &s, pre[i].prefix, (int)strlen(pre[i].prefix));
        CHECK_EQ_INT(v, pre[i].viable);
        if (v && need(js, &s) != pre[i].need)
            fprintf(stderr, "json: \"%s\" needs %d, engine says %d\n",
                    pre[i].prefix, pre[i].need, need(js, &s));
        if (v) CHECK_EQ_INT(need(js, &s), pre[i].need);
    }
    sp_constraint_free(js);
}

/* "JSON object": the same grammar with an object at the top; generated
 * under it by a random model over printable ASCII, an object every time. */
static void test_json_object(void) {
    sp_constraint *js = sp_constraint_json(err);
    sp_constraint *obj = sp_constraint_json_object(err);
    CHECK(obj != NULL);
    CHECK_STR_CONTAINS(sp_constraint_describe(obj), "json-object");
    static const char *objects[] = {
        "{ \"a\" : 1 } ", "{\"a\":[1,{}],\"b\":\"[\"}", "{\"\":0}\n",
    };
    static const char *not_objects[] = {
        "[]", "1", "true", "null", "\"{}\"", "[{}]", "{} {}", "{", "{}",
    };
    for (size_t i = 0; i < sizeof objects / sizeof *objects; i++) {
        CHECK(json_complete(obj, objects[i]));
        CHECK(json_complete(js, objects[i])); /* every object is JSON */
    }
    for (size_t i = 0; i < sizeof not_objects / sizeof *not_objects; i++)
        CHECK(!json_complete(obj, not_objects[i]));
    struct { const char *prefix; int viable, need; } opre[] = {
        {"", 1, 6}, {" ", 0, 0}, {"{", 1, 5}, {"{\"a\":[", 1, 2},
        {"{\"a\":", 1, 2}, {"[", 0, 0}, {"t", 0, 0}, {"1", 0, 0}, {"\"", 0, 0},
    };
    for (size_t i = 0; i < sizeof opre / sizeof *opre; i++) {
        sp_cstate s;
        sp_cstate_start(obj, &s);
        int v = sp_cstate_feed(obj, &s, opre[i].prefix, (int)strlen(opre[i].prefix));
        CHECK_EQ_INT(v, opre[i].viable);
        if (v) CHECK_EQ_INT(need(obj, &s), opre[i].need);
    }
    /* generated under it: an object every time (a random model over
     * printable ASCII, so every JSON character is a token) */
    {
        ascii_run run = ascii_run_new();
        sp_session *as = run.session;
        CHECK(as != NULL);
        int objects_ok = 0;
        for (int seed = 0; as && seed < 16; seed++) {
            sp_params hot;
            sp_params_default(&hot);
            hot.temperature = 0.5f + 0.25f * (float)(seed % 8);
            int ok;
            char *text = generate(as, obj, "", (uint64_t)seed, &hot, 40, &ok);
            const char *first = text + strspn(text, " \t\n\r");
            int good = ok && json_complete(obj, text) && *first == '{';
            if (!good)
                fprintf(stderr, "json-object seed %d: \"%s\" %s\n", seed, text,
                        ok ? "" : err);
            objects_ok += good;
            free(text);
        }
        CHECK_EQ_INT(objects_ok, 16);
        ascii_run_free(&run);
    }
    sp_constraint_free(obj);
    sp_constraint_free(js);
}

/* Generation always matches: the bigram (characters) under regexes and
 * JSON; the mask in the step record, budgets, unsatisfiable patterns. */
static void test_bigram_generation(void) {
    const char *root = test_root;
    sp_constraint *obj = sp_constraint_json_object(err);
    sp_model *m = tu_load_model(root, "bigram.bin", err);
    CHECK(m != NULL);
    sp_session *s = sp_session_new(m, NULL, err);
    const char *gen_patterns[] = {"[A-Z][a-z]{2,6}", "(Ann?a|Bob+|Eve)",
                                  "[A-Z][a-z]+-[A-Z][a-z]+", "[a-z]{5}x?"};
    int generated = 0, matched = 0;
    for (size_t i = 0; i < 4; i++) {
        sp_constraint *rc = sp_constraint_regex(gen_patterns[i], err);
        for (int seed = 0; seed < 40; seed++) {
            sp_params p;
            sp_params_default(&p);
            p.temperature = (float)(seed % 5) * 0.6f; /* 0 (greedy) .. 2.4 */
            p.top_p = seed % 3 ? 1.0f : 0.8f;
            int ok;
            char *text = generate(s, rc, "", (uint64_t)seed, &p, 24, &ok);
            generated++;
            int good = ok && posix_matches(gen_patterns[i], text) == 1;
            if (!good)
                fprintf(stderr, "bigram /%s/ seed %d: \"%s\" (%s)\n",
                        gen_patterns[i], seed, text, ok ? "no match" : err);
            matched += good;
            free(text);
        }
        sp_session_constrain(s, NULL, 0, err); /* the session borrows it */
        sp_constraint_free(rc);
    }
    CHECK_EQ_INT(matched, generated);
    /* the mask shows in the step record as the "constraint" cut stage */
    sp_constraint *upper = sp_constraint_regex("[A-Z]x", err);
    sp_session_start(s, "", 1, err);
    sp_session_constrain(s, upper, 5, err);
    sp_params p;
    sp_params_default(&p);
    CHECK_EQ_INT(sp_session_preview(s, &p, err), SP_OK);
    const sp_step *st = sp_session_last_step(s);
    int upper_kept = 0, lower_cut = 1;
    const sp_tokenizer *tok = sp_session_tokenizer(s);
    for (int t = 0; t < st->vocab; t++) {
        int len;
        const char *piece = sp_decode(tok, 0, t, &len);
        if (piece[0] >= 'A' && piece[0] <= 'Z') upper_kept += st->cut[t] == 0;
        else lower_cut &= st->cut[t] == SP_CUT_CONSTRAINT;
    }
    CHECK(upper_kept > 20 && lower_cut);
    CHECK_EQ_INT(sp_session_step(s, &p, 30, err), SP_ERR_ARG); /* 'a'? forced */
    /* too small a budget, unsatisfiable patterns, a rewind replays */
    CHECK_EQ_INT(sp_session_constrain(s, upper, 1, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "needs at least 2 tokens");
    sp_constraint *digits = sp_constraint_regex("[0-9]+", err);
    sp_session_start(s, "", 1, err);
    CHECK_EQ_INT(sp_session_constrain(s, digits, 5, err), SP_ERR_UNSATISFIABLE);
    CHECK_STR_CONTAINS(err, "no text this model's vocabulary can write");
    /* JSON with letters only: true, false and null are all it can write,
     * and a '-' (a bigram character) would lead nowhere: never chosen */
    sp_constraint *json_only = sp_constraint_json(err);
    for (int seed = 0; seed < 20; seed++) {
        sp_params hot;
        sp_params_default(&hot);
        hot.temperature = 3.0f;
        int ok;
        char *text = generate(s, json_only, "", (uint64_t)seed, &hot, 12, &ok);
        CHECK(ok && (!strcmp(text, "true") || !strcmp(text, "false") ||
                     !strcmp(text, "null")));
        free(text);
    }
    sp_session_constrain(s, NULL, 0, err); /* the session borrows it */
    sp_constraint_free(json_only);
    /* an object needs '{': the names' characters cannot write one */
    sp_session_start(s, "", 1, err);
    CHECK_EQ_INT(sp_session_constrain(s, obj, 40, err), SP_ERR_UNSATISFIABLE);
    CHECK_STR_CONTAINS(err, "no text this model's vocabulary can write");
    sp_constraint_free(obj);
    sp_session_free(s);
    sp_constraint_free(upper);
    sp_constraint_free(digits);
    sp_model_free(m);
}

/* A BPE vocabulary (the Llama 2 tokenizer, a random model): dates and
 * JSON, whatever the merges. */
static void test_bpe_vocabulary(void) {
    const char *root = test_root;
    sp_constraint *js = sp_constraint_json(err);
    char path[4096];
    size_t size;
    snprintf(path, sizeof path, "%s/../shared/fixtures/llama2c/tokenizer.bin",
             root);
    uint8_t *tdata = read_all(path, &size);
    if (!tdata) {
        fixtures_missing("the BPE part");
        sp_constraint_free(js);
        return;
    }
    sp_tokenizer *bpe = sp_tokenizer_load(tdata, size, 32000, err);
    free(tdata);
    size_t msize;
    uint8_t *mdata = random_checkpoint(8, 16, 1, 2, 1, 32000, 64, 11, 1.0f,
                                       -0.5f, &msize);
    sp_model *m = sp_model_load(mdata, msize, 1, err);
    CHECK(m && bpe);
    sp_session *s = sp_session_new(m, bpe, err);
    sp_constraint *date = sp_constraint_regex(
        "(19|20)[0-9]{2}-(0[1-9]|1[0-2])-[0-3][0-9]", err);
    int bpe_ok = 0, multi_char = 0;
    sp_params p;
    for (int seed = 0; seed < 12; seed++) {
        sp_params_default(&p);
        p.temperature = 1.0f + (float)(seed % 3);
        int ok;
        char *text = generate(s, date, "Date:", (uint64_t)seed, &p, 12, &ok);
        bpe_ok += ok && posix_matches("(19|20)[0-9]{2}-(0[1-9]|1[0-2])-[0-3][0-9]",
                                      text) == 1;
        if (!ok || posix_matches("(19|20)[0-9]{2}-(0[1-9]|1[0-2])-[0-3][0-9]", text) != 1)
            fprintf(stderr, "bpe date seed %d: \"%s\" %s\n", seed, text, ok ? "" : err);
        free(text);
        multi_char += sp_session_n_generated(s) < 10; /* merged digits */
    }
    CHECK_EQ_INT(bpe_ok, 12);
    int json_ok = 0;
    for (int seed = 0; seed < 8; seed++) {
        sp_params_default(&p);
        p.temperature = 0.7f + 0.3f * (float)seed;
        int ok;
        char *text = generate(s, js, "", (uint64_t)seed, &p, 40, &ok);
        json_ok += ok && json_complete(js, text);
        if (!(ok && json_complete(js, text)))
            fprintf(stderr, "bpe json seed %d: \"%s\" %s\n", seed, text, ok ? "" : err);
        free(text);
    }
    CHECK_EQ_INT(json_ok, 8);
    (void)multi_char;
    sp_constraint_free(date);
    sp_session_free(s);
    sp_tokenizer_free(bpe);
    sp_model_free(m);
    sp_constraint_free(js);
}

TEST_SUITE(constrain,
           TEST(test_regex_posix),
           TEST(test_json),
           TEST(test_json_object),
           TEST(test_bigram_generation),
           TEST(test_bpe_vocabulary));
