/* test_json_mode.c — JSON mode as llama.cpp's json.gbnf bounds it: runs of
 * whitespace of at most 20 characters, "json-object" an object with at
 * least one member, and a prompt that opens a document continued, not
 * restarted (constrain_util.h: the helpers shared with test_constrain.c). */
#include "constrain_util.h"

/* json.gbnf's whitespace (llama.cpp grammars/json.gbnf):
 *   ws ::= | " " | "\n" [ \t]{0,20}
 * between the tokens of a document, never a longer run */
static void test_json_whitespace_bounded(void) {
    sp_constraint *js = sp_constraint_json(err);
    char text[64];
    CHECK(json_complete(js, "{ \"a\" : 1 , \"b\" : [ 2 ] }"));
    CHECK(json_complete(js, "{\n  \"a\": [\n\t1,\n  2\n ]\n}"));
    CHECK(!json_viable(js, "{  "));      /* two spaces: one is the most */
    CHECK(!json_viable(js, " {"));       /* none before the document */
    CHECK(!json_viable(js, "\n1"));
    CHECK(!json_viable(js, "[\t"));      /* a run starts with " " or "\n" */
    CHECK(!json_viable(js, "[1,\r\n2]")); /* no carriage return */
    CHECK(!json_viable(js, "[1 \n"));    /* " " ends the run */
    CHECK(!json_viable(js, "{\n\n"));    /* one newline a run */
    /* "\n" and 20 spaces or tabs is the longest run; 21 is refused */
    snprintf(text, sizeof text, "[\n%20s1]", "");
    CHECK(json_complete(js, text));
    snprintf(text, sizeof text, "[\n%21s", "");
    CHECK(!json_viable(js, text));
    CHECK(json_viable(js, "[\n \t \t"));
    /* inside a string a space is a character, not whitespace */
    snprintf(text, sizeof text, "\"%30s\"", "");
    CHECK(json_complete(js, text));
    sp_constraint_free(js);
}

/* json-object: an object with at least one member */
static void test_json_object_has_a_member(void) {
    sp_constraint *obj = sp_constraint_json_object(err);
    CHECK(!json_viable(obj, "{}"));
    CHECK(!json_viable(obj, "{ }"));
    CHECK(json_complete(obj, "{\"a\":{}}")); /* inner objects may be empty */
    CHECK(json_complete(obj, "{\"a\":[]}"));
    /* what completing costs, one byte a token: {"":0} is six */
    struct { const char *prefix; int need; } pre[] = {
        {"", 6}, {"{", 5}, {"{\"", 4}, {"{\"a\"", 3}, {"{\"a\":", 2},
        {"{\"a\":1", 1}, {"{\"a\":{", 2},
    };
    for (size_t i = 0; i < sizeof pre / sizeof *pre; i++) {
        sp_cstate s;
        sp_cstate_start(obj, &s);
        CHECK(sp_cstate_feed(obj, &s, pre[i].prefix, (int)strlen(pre[i].prefix)));
        if (need(obj, &s) != pre[i].need)
            fprintf(stderr, "json-object: \"%s\" needs %d, engine says %d\n",
                    pre[i].prefix, pre[i].need, need(obj, &s));
        CHECK_EQ_INT(need(obj, &s), pre[i].need);
    }
    sp_constraint_free(obj);
}

/* A prompt that opens a document is continued: the constraint starts where
 * the prompt leaves it, not at a new document (the prompt's text before
 * its first '{' is prose). */
static void test_json_prompt_continued(void) {
    sp_constraint *obj = sp_constraint_json_object(err);
    sp_constraint *js = sp_constraint_json(err);
    sp_cstate s;
    static const char *open[] = {
        "{\"name\": \"", "Here: {\"a\": [1, ", "{\"a\": {\"b\": tr", "x {y} {\"k\":",
    };
    for (size_t i = 0; i < sizeof open / sizeof *open; i++) {
        sp_cstate_start_after(obj, &s, open[i], (int)strlen(open[i]));
        CHECK(s.depth > 0); /* inside the prompt's object */
    }
    /* a prompt with no open document starts one */
    static const char *closed[] = {"Once upon a time", "{\"a\": 1}", "{oops", ""};
    for (size_t i = 0; i < sizeof closed / sizeof *closed; i++) {
        sp_cstate_start_after(js, &s, closed[i], (int)strlen(closed[i]));
        CHECK_EQ_INT(s.depth, 0);
        CHECK(sp_cstate_feed(js, &s, "[1]", 3) && sp_cstate_accepting(js, &s));
    }
    /* a regex starts at its start whatever the prompt */
    sp_constraint *rx = sp_constraint_regex("[a-z]+", err);
    sp_cstate_start_after(rx, &s, "{\"a\": \"", 7);
    CHECK_EQ_INT(s.mode, 0);
    sp_constraint_free(rx);

    /* generated: the prompt's object is completed */
    ascii_run run = ascii_run_new();
    sp_session *as = run.session;
    CHECK(as != NULL);
    for (int seed = 0; as && seed < 8; seed++) {
        sp_params p;
        sp_params_default(&p);
        int ok;
        const char *prompt = "{\"name\": \"";
        char *text = generate(as, obj, prompt, (uint64_t)seed, &p, 30, &ok);
        char whole[4200];
        snprintf(whole, sizeof whole, "%s%s", prompt, text);
        int good = ok && json_complete(obj, whole);
        if (!good) fprintf(stderr, "continued seed %d: \"%s\" %s\n", seed, whole, ok ? "" : err);
        CHECK(good);
        free(text);
    }
    ascii_run_free(&run);
    sp_constraint_free(js);
    sp_constraint_free(obj);
}

TEST_SUITE(json_mode,
           TEST(test_json_whitespace_bounded),
           TEST(test_json_object_has_a_member),
           TEST(test_json_prompt_continued));
