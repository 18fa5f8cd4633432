/*
 * test_gguf_tokenizer_file.c — a GGUF file's tokenizer written and read
 * back (with llama.cpp's rules: the pre-tokenizer by name, special tokens,
 * the chat template), chat templates, the errors a tokenizer gives, a
 * GGUF tokenizer in a session, and hostile tokenizer metadata.  Toy
 * vocabularies and checks: gguf_tok.h (shared with test_gguf_tokenizer.c).
 */
#include "gguf_tok.h"

/* ---- a GGUF file ------------------------------------------------------------ */

static const char CHATML[] =
    "{% for message in messages %}{{'<|im_start|>' + message['role'] + "
    "'\\n' + message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}";

/* TOY as a GGUF file's tokenizer, with "<|im_end|>" as EOS */
static void toy_gguf(bb_bytes *out, const char *model, const char *pre) {
    gg_file f;
    gg_init(&f);
    gg_str(&f, "general.architecture", "llama");
    gg_str(&f, "tokenizer.ggml.model", model);
    if (pre) gg_str(&f, "tokenizer.ggml.pre", pre);
    const char *tokens[19];
    int32_t types[19];
    for (int i = 0; i < 18; i++) {
        tokens[i] = spell(TOY[i], strlen(TOY[i]));
        types[i] = SP_TT_NORMAL;
    }
    tokens[18] = "<|im_end|>";
    types[18] = SP_TT_CONTROL;
    gg_arr_str(&f, "tokenizer.ggml.tokens", tokens, 19);
    gg_arr(&f, "tokenizer.ggml.token_type", GG_I32, types, 19, 4);
    char *merges[11];
    for (int i = 0; i < 11; i++) merges[i] = spell_merge(TOY_MERGES[i]);
    gg_arr_str(&f, "tokenizer.ggml.merges", (const char *const *)merges, 11);
    gg_u32(&f, "tokenizer.ggml.bos_token_id", 11);
    gg_u32(&f, "tokenizer.ggml.eos_token_id", 18);
    gg_bool(&f, "tokenizer.ggml.add_bos_token", 1);
    gg_str(&f, "tokenizer.chat_template", CHATML);
    gg_finish(&f, 3, out);
    gg_free(&f);
    for (int i = 0; i < 18; i++) free((char *)tokens[i]);
    for (int i = 0; i < 11; i++) free(merges[i]);
}

static void test_gguf_file(void) {
    char err[SP_ERR_LEN];
    bb_bytes file = {0};
    toy_gguf(&file, "gpt2", "gpt-2");
    sp_tokenizer *t = sp_tokenizer_load(file.data, file.len, 0, err);
    CHECK(t != NULL);
    if (t) {
        CHECK_EQ_INT(sp_tokenizer_vocab(t), 19);
        CHECK_IDS(t, "hello world", 1, 0, 11, 11, 16);
        CHECK_IDS(t, "hello<|im_end|>", 0, 0, 11, 18);
        CHECK(sp_tokenizer_is_eog(t, 18));
        CHECK_EQ_INT(sp_tokenizer_chat(t), SP_CHAT_CHATML);
        char *w = sp_chat_wrap(t, "hi", err);
        CHECK(w && strcmp(w, "<|im_start|>user\nhi<|im_end|>\n"
                             "<|im_start|>assistant\n") == 0);
        free(w);
        sp_tokenizer_free(t);
    }
    /* the model's logits must match */
    t = sp_tokenizer_load(file.data, file.len, 32000, err);
    CHECK(t == NULL);
    CHECK_STR_CONTAINS(err, "the file has 19 tokens, the model 32000 logits");
    bb_free(&file);

    toy_gguf(&file, "gpt2", "gemma4");
    CHECK(sp_tokenizer_load(file.data, file.len, 0, err) == NULL);
    CHECK_STR_CONTAINS(err, "pre-tokenizer gemma4 is not supported");
    bb_free(&file);
    toy_gguf(&file, "gpt2", NULL);
    CHECK(sp_tokenizer_load(file.data, file.len, 0, err) == NULL);
    CHECK_STR_CONTAINS(err, "names no pre-tokenizer");
    bb_free(&file);
    toy_gguf(&file, "bert", "gpt-2");
    CHECK(sp_tokenizer_load(file.data, file.len, 0, err) == NULL);
    CHECK_STR_CONTAINS(err, "the tokenizer 'bert' (tokenizer.ggml.model) is "
                            "not supported");
    bb_free(&file);

    gg_file f;
    gg_init(&f);
    gg_str(&f, "general.architecture", "llama");
    gg_finish(&f, 3, &file);
    gg_free(&f);
    CHECK(sp_tokenizer_load(file.data, file.len, 0, err) == NULL);
    CHECK_STR_CONTAINS(err, "the file has no tokenizer");
    bb_free(&file);
}

/* ---- chat templates, errors --------------------------------------------------- */

static sp_tokenizer *with_template(const char *tmpl, char *err) {
    static const char *const tokens[] = {"a", "b", "<|eot_id|>"};
    sp_gguf_vocab_spec spec;
    sp_gguf_vocab_spec_init(&spec);
    spec.model = "gpt2";
    spec.pre = "llama-bpe";
    spec.n_tokens = 3;
    spec.tokens = tokens;
    spec.merges = tokens; /* none used: n_merges 0 */
    spec.special[SP_SPECIAL_BOS] = 0;
    spec.chat_template = tmpl;
    return sp_tokenizer_new_gguf(&spec, err);
}

static void test_chat_templates(void) {
    char err[SP_ERR_LEN];
    sp_tokenizer *t = with_template(
        "{{- bos_token }}{% for m in messages %}{{ '<|start_header_id|>' + "
        "m['role'] + '<|end_header_id|>\\n\\n' + m['content'] | trim + "
        "'<|eot_id|>' }}{% endfor %}", err);
    CHECK(t && sp_tokenizer_chat(t) == SP_CHAT_LLAMA3);
    char *w = t ? sp_chat_wrap(t, "  What is 2+2?\n", err) : NULL;
    CHECK(w && strcmp(w, "<|start_header_id|>user<|end_header_id|>\n\n"
                         "What is 2+2?<|eot_id|><|start_header_id|>assistant"
                         "<|end_header_id|>\n\n") == 0);
    free(w);
    CHECK(t && sp_tokenizer_is_eog(t, 2)); /* <|eot_id|> by its text */
    sp_tokenizer_free(t);

    t = with_template("{% for m in messages %}[INST] {{ m['content'] }} "
                      "[/INST]{% endfor %}", err);
    CHECK(t && sp_tokenizer_chat(t) == SP_CHAT_OTHER);
    CHECK(t && sp_chat_wrap(t, "hi", err) == NULL);
    CHECK_STR_CONTAINS(err, "neither ChatML-style nor Llama 3-style");
    sp_tokenizer_free(t);

    t = with_template(NULL, err);
    CHECK(t && sp_tokenizer_chat(t) == SP_CHAT_NONE);
    CHECK(t && sp_chat_wrap(t, "hi", err) == NULL);
    CHECK_STR_CONTAINS(err, "has no chat template");
    sp_tokenizer_free(t);
    CHECK_EQ_INT(sp_chat_detect("chatml"), SP_CHAT_CHATML);
    CHECK_EQ_INT(sp_chat_detect("<|im_start|><|im_sep|>"), SP_CHAT_OTHER);
}

static void test_errors(void) {
    char err[SP_ERR_LEN];
    static const char *const dup[] = {"a", "b", "a"};
    sp_gguf_vocab_spec spec;
    sp_gguf_vocab_spec_init(&spec);
    spec.model = "llama";
    spec.n_tokens = 3;
    spec.tokens = dup;
    CHECK(sp_tokenizer_new_gguf(&spec, err) == NULL);
    CHECK_STR_CONTAINS(err, "duplicate token in the vocabulary: 'a' has ids "
                            "0 and 2");
    static const char *const ok[] = {"a", "b", "c"};
    spec.tokens = ok;
    float nan_scores[3] = {0, NAN, 0};
    spec.scores = nan_scores;
    CHECK(sp_tokenizer_new_gguf(&spec, err) == NULL);
    CHECK_STR_CONTAINS(err, "token 1's score is not a number");
    /* SentencePiece adds BOS (id 1 by default); a file may say it has none */
    spec.scores = NULL;
    spec.special[SP_SPECIAL_BOS] = 7; /* out of range: the default stays */
    sp_tokenizer *t = sp_tokenizer_new_gguf(&spec, err);
    CHECK(t && sp_tokenizer_bos(t) == 1);
    sp_tokenizer_free(t);
    spec.model = "gpt2";
    spec.pre = "qwen2";
    spec.merges = ok;
    spec.add_bos = 1; /* BOS defaults to 11: none in 3 tokens */
    CHECK(sp_tokenizer_new_gguf(&spec, err) == NULL);
    CHECK_STR_CONTAINS(err, "add_bos_token is true, but "
                            "tokenizer.ggml.bos_token_id is not set");
    spec.add_bos = -1;
    spec.merges = NULL;
    CHECK(sp_tokenizer_new_gguf(&spec, err) == NULL);
    CHECK_STR_CONTAINS(err, "needs its merges");
    /* invalid UTF-8 past U+10FFFF: llama.cpp cannot go on, nor do we */
    spec.merges = ok;
    t = sp_tokenizer_new_gguf(&spec, err);
    int ids[16];
    CHECK(t && sp_encode(t, "ab\xf7\xbf\xbf\xbf", 0, 0, ids, 16, err) < 0);
    CHECK_STR_CONTAINS(err, "invalid UTF-8 at byte offset 2");
    /* too many ids for the buffer */
    CHECK(t && sp_encode(t, "abcabc", 0, 0, ids, 2, err) < 0);
    CHECK_STR_CONTAINS(err, "more than 2 tokens");
    sp_tokenizer_free(t);
}

/* ---- in a session ------------------------------------------------------------ */

/* TOY's GGUF tokenizer driving a random transformer of its 19 tokens: the
 * prompt through the chat template, a generation that ends at an end of
 * generation token, a constraint that never lets a control token through */
static void test_session(void) {
    char err[SP_ERR_LEN];
    bb_bytes file = {0}, ckpt = {0};
    toy_gguf(&file, "gpt2", "gpt-2");
    sp_tokenizer *t = sp_tokenizer_load(file.data, file.len, 0, err);
    bb_free(&file);
    bb_config c = {8, 16, 1, 2, 2, 19, 32};
    bb_checkpoint(&ckpt, c, 7, 1.0f);
    sp_model *m = sp_model_load(ckpt.data, ckpt.len, 0, err);
    CHECK(t && m);
    if (!t || !m) {
        fprintf(stderr, "%s\n", err);
        goto done;
    }
    sp_session *s = sp_session_new(m, t, err);
    CHECK(s != NULL);
    if (!s) goto done;
    char *prompt = sp_chat_wrap(t, "hello", err);
    CHECK(prompt != NULL);
    /* the file adds BOS (11); the template's specials are single tokens,
     * "user" and "assistant" have no tokens in TOY and are dropped */
    CHECK(sp_session_start(s, prompt ? prompt : "", 1, err) == SP_OK);
    free(prompt);
    sp_params p;
    sp_params_default(&p);
    CHECK(sp_session_step(s, &p, 16, err) == SP_OK); /* " world" */
    CHECK(!sp_session_finished(s));
    CHECK(sp_session_step(s, &p, 18, err) == SP_OK); /* <|im_end|>: EOS */
    CHECK(sp_session_finished(s));
    CHECK(sp_session_is_end(s, 18));
    CHECK(!sp_session_is_end(s, 16));
    /* a constraint: the text "hello" or "hello world", then an end; the
     * end (EOS, here <|im_end|>) only once the text matches, never
     * another special's text */
    sp_constraint *re = sp_constraint_regex("hello( world)?", err);
    CHECK(re && sp_session_start(s, "", 1, err) == SP_OK);
    CHECK(re && sp_session_constrain(s, re, 8, err) == SP_OK);
    CHECK(sp_session_preview(s, &p, err) == SP_OK);
    const sp_step *st = sp_session_last_step(s);
    int hello = 0, end = 0;
    for (int i = 0; st && i < st->n_kept; i++) {
        hello |= st->kept[i] == 11;
        end |= st->kept[i] == 18;
    }
    CHECK(hello && !end); /* "hello" may start it; the end may not yet */
    CHECK(sp_session_step(s, &p, 11, err) == SP_OK);
    CHECK(sp_session_preview(s, &p, err) == SP_OK);
    st = sp_session_last_step(s);
    int world = 0;
    end = 0;
    for (int i = 0; st && i < st->n_kept; i++) {
        world |= st->kept[i] == 16;
        end |= st->kept[i] == 18;
        int k = st->kept[i]; /* " ", " w", " wor", " worl", " world", the end */
        CHECK(k == 4 || k == 12 || k == 14 || k == 15 || k == 16 || k == 18);
    }
    CHECK(world && end); /* " world", or the end: "hello" matches */
    sp_constraint_free(re);
    sp_session_free(s);
done:
    sp_model_free(m);
    sp_tokenizer_free(t);
    bb_free(&ckpt);
}

/* ---- hostile files ------------------------------------------------------------ */

/* A GGUF with tokenizer.ggml.model "gpt2" and what `bad` writes: loading it
 * must fail with a message containing want. */
static void check_bad_file(int line, void (*bad)(gg_file *), const char *want) {
    gg_file f;
    gg_init(&f);
    gg_str(&f, "tokenizer.ggml.model", "gpt2");
    gg_str(&f, "tokenizer.ggml.pre", "gpt-2");
    bad(&f);
    bb_bytes file = {0};
    gg_finish(&f, 3, &file);
    gg_free(&f);
    char err[SP_ERR_LEN] = "";
    sp_tokenizer *t = sp_tokenizer_load(file.data, file.len, 0, err);
    bb_free(&file);
    check_count++;
    if (t || !strstr(err, want)) {
        check_failures++;
        fprintf(stderr, "line %d: %s, expected an error containing \"%s\"\n",
                line, t ? "loaded" : err, want);
    }
    sp_tokenizer_free(t);
}

static const char *const AB[] = {"a", "b"};
static void tokens_ab(gg_file *f) { gg_arr_str(f, "tokenizer.ggml.tokens", AB, 2); }
static void no_tokens(gg_file *f) { gg_arr_str(f, "tokenizer.ggml.merges", AB, 0); }
static void int_tokens(gg_file *f) {
    int32_t v[2] = {1, 2};
    gg_arr(f, "tokenizer.ggml.tokens", GG_I32, v, 2, 4);
}
static void empty_tokens(gg_file *f) { gg_arr_str(f, "tokenizer.ggml.tokens", AB, 0); }
static void string_scores(gg_file *f) {
    tokens_ab(f);
    gg_arr_str(f, "tokenizer.ggml.scores", AB, 2);
}
static void few_scores(gg_file *f) {
    tokens_ab(f);
    float v[1] = {0};
    gg_arr(f, "tokenizer.ggml.scores", GG_F32V, v, 1, 4);
}
static void u8_types(gg_file *f) {
    tokens_ab(f);
    uint8_t v[2] = {1, 1};
    gg_arr(f, "tokenizer.ggml.token_type", GG_U8, v, 2, 1);
}
static void few_types(gg_file *f) {
    tokens_ab(f);
    int32_t v[1] = {1};
    gg_arr(f, "tokenizer.ggml.token_type", GG_I32, v, 1, 4);
}
static void int_merges(gg_file *f) {
    tokens_ab(f);
    int32_t v[1] = {1};
    gg_arr(f, "tokenizer.ggml.merges", GG_I32, v, 1, 4);
}
static void no_merges(gg_file *f) { tokens_ab(f); }
static void string_bos(gg_file *f) {
    tokens_ab(f);
    gg_arr_str(f, "tokenizer.ggml.merges", AB, 0);
    gg_str(f, "tokenizer.ggml.bos_token_id", "1");
}
static void int_add_bos(gg_file *f) {
    tokens_ab(f);
    gg_arr_str(f, "tokenizer.ggml.merges", AB, 0);
    gg_u32(f, "tokenizer.ggml.add_bos_token", 1);
}
static void int_template(gg_file *f) {
    tokens_ab(f);
    gg_arr_str(f, "tokenizer.ggml.merges", AB, 0);
    gg_u32(f, "tokenizer.chat_template", 1);
}
static void nan_score(gg_file *f) {
    tokens_ab(f);
    gg_arr_str(f, "tokenizer.ggml.merges", AB, 0);
    float v[2] = {0, NAN};
    gg_arr(f, "tokenizer.ggml.scores", GG_F32V, v, 2, 4);
}

static void test_hostile_files(void) {
    check_bad_file(__LINE__, no_tokens, "tokenizer.ggml.tokens");
    check_bad_file(__LINE__, int_tokens, "tokenizer.ggml.tokens");
    check_bad_file(__LINE__, empty_tokens, "has 0 tokens");
    check_bad_file(__LINE__, string_scores, "holds string, not f32 or i32");
    check_bad_file(__LINE__, few_scores, "1 scores for 2 tokens");
    check_bad_file(__LINE__, u8_types, "tokenizer.ggml.token_type");
    check_bad_file(__LINE__, few_types, "1 token types for 2 tokens");
    check_bad_file(__LINE__, int_merges, "tokenizer.ggml.merges");
    check_bad_file(__LINE__, no_merges, "needs its merges");
    check_bad_file(__LINE__, string_bos, "tokenizer.ggml.bos_token_id");
    check_bad_file(__LINE__, int_add_bos, "tokenizer.ggml.add_bos_token");
    check_bad_file(__LINE__, int_template, "tokenizer.chat_template");
    check_bad_file(__LINE__, nan_score, "token 1's score is not a number");
    /* and a truncated file: the reader's message */
    char err[SP_ERR_LEN];
    bb_bytes file = {0};
    toy_gguf(&file, "gpt2", "gpt-2");
    for (size_t cut = 0; cut < file.len; cut += 97) {
        sp_tokenizer *t = sp_tokenizer_load(file.data, cut, 0, err);
        CHECK(t == NULL);
        sp_tokenizer_free(t);
    }
    bb_free(&file);
}

TEST_SUITE(gguf_tokenizer_file,
           TEST(test_gguf_file),
           TEST(test_chat_templates),
           TEST(test_errors),
           TEST(test_session),
           TEST(test_hostile_files));
