/*
 * test_gguf.c — the GGUF reader (c/engine/model/gguf.c): every metadata
 * type through its getter, arrays of numbers and of strings, tensors and
 * their alignment, versions 2 and 3, type names, many keys.  Malformed
 * files: test_gguf_malformed.c; what both share: gguf_read.h.
 *
 * Usage: test_gguf [repository root]
 */
#include "gguf_read.h"

/* ---- a file with every type ---------------------------------------------- */

static void test_every_type(void) {
    gg_file f;
    gg_init(&f);
    every_type(&f);
    float w[8 * 3];
    for (int i = 0; i < 24; i++) w[i] = (float)i * 0.5f;
    uint64_t ne[2] = {8, 3};
    gg_tensor(&f, "token_embd.weight", GG_F32, ne, 2, w, sizeof w);
    uint64_t ne1[1] = {8};
    gg_tensor(&f, "output_norm.weight", GG_F32, ne1, 1, w, 32);
    bb_bytes b = {0};
    gg_finish(&f, 3, &b);
    gg_free(&f);

    sp_gguf *g = open_ok(&b);
    if (!g) return;
    CHECK_EQ_INT(g->version, 3);
    CHECK_EQ_INT(g->n_kv, 18);
    CHECK_EQ_INT(g->n_tensors, 2);
    CHECK_EQ_INT(g->alignment, 32);
    CHECK_EQ_INT(g->data_offset % 32, 0);

    int64_t v;
    CHECK_EQ_INT(sp_gguf_get_int(g, "t.u8", 0, 1000, &v, err), SP_OK);
    CHECK_EQ_INT(v, 200);
    CHECK_EQ_INT(sp_gguf_get_int(g, "t.i8", -1000, 0, &v, err), SP_OK);
    CHECK_EQ_INT(v, -100);
    CHECK_EQ_INT(sp_gguf_get_int(g, "t.u16", 0, 70000, &v, err), SP_OK);
    CHECK_EQ_INT(v, 60000);
    CHECK_EQ_INT(sp_gguf_get_int(g, "t.i16", -40000, 0, &v, err), SP_OK);
    CHECK_EQ_INT(v, -30000);
    CHECK_EQ_INT(sp_gguf_get_int(g, "t.u32", 0, INT64_MAX, &v, err), SP_OK);
    CHECK_EQ_INT(v, 4000000000ll);
    CHECK_EQ_INT(sp_gguf_get_int(g, "t.i32", INT32_MIN, 0, &v, err), SP_OK);
    CHECK_EQ_INT(v, -2000000000);
    CHECK_EQ_INT(sp_gguf_get_int(g, "t.u64", 0, INT64_MAX, &v, err), SP_OK);
    CHECK_EQ_INT(v, 1ll << 40);
    CHECK_EQ_INT(sp_gguf_get_int(g, "t.i64", INT64_MIN, 0, &v, err), SP_OK);
    CHECK_EQ_INT(v, -(1ll << 40));
    CHECK_EQ_INT(sp_gguf_get_int(g, "t.bool", 0, 1, &v, err), SP_OK);
    CHECK_EQ_INT(v, 1);

    /* out of range, too large for int64, not an integer, missing */
    CHECK_EQ_INT(sp_gguf_get_int(g, "t.u32", 0, INT32_MAX, &v, err),
                 SP_ERR_FORMAT);
    CHECK_STR_CONTAINS(err, "GGUF: key 't.u32' must be in 0..2147483647 "
                            "(got 4000000000)");
    CHECK_EQ_INT(sp_gguf_get_int(g, "t.u64max", 0, INT64_MAX, &v, err),
                 SP_ERR_FORMAT);
    CHECK_STR_CONTAINS(err, "(got more than 9223372036854775807)");
    CHECK_EQ_INT(sp_gguf_get_int(g, "t.f32", 0, 10, &v, err), SP_ERR_FORMAT);
    CHECK_STR_CONTAINS(err, "GGUF: key 't.f32' is a f32; an integer was "
                            "expected");
    CHECK_EQ_INT(sp_gguf_get_int(g, "tokenizer.ggml.tokens", 0, 10, &v, err),
                 SP_ERR_FORMAT);
    CHECK_STR_CONTAINS(err, "GGUF: key 'tokenizer.ggml.tokens' is an array "
                            "of string; an integer was expected");
    CHECK_EQ_INT(sp_gguf_get_int(g, "llama.context_length", 0, 10, &v, err),
                 SP_GGUF_MISSING);
    CHECK_STR_CONTAINS(err, "GGUF: key 'llama.context_length' is missing");

    double d;
    CHECK_EQ_INT(sp_gguf_get_float(g, "t.f32", &d, err), SP_OK);
    CHECK(d == (double)1e-5f);
    CHECK_EQ_INT(sp_gguf_get_float(g, "t.f64", &d, err), SP_OK);
    CHECK(d == 500000.25);
    CHECK_EQ_INT(sp_gguf_get_float(g, "t.u8", &d, err), SP_ERR_FORMAT);
    CHECK_STR_CONTAINS(err, "is a u8; a float (f32 or f64) was expected");

    int flag = -1;
    CHECK_EQ_INT(sp_gguf_get_bool(g, "t.bool", &flag, err), SP_OK);
    CHECK_EQ_INT(flag, 1);
    CHECK_EQ_INT(sp_gguf_get_bool(g, "t.u8", &flag, err), SP_ERR_FORMAT);

    sp_gguf_str s;
    CHECK_EQ_INT(sp_gguf_get_str(g, "general.architecture", &s, err), SP_OK);
    CHECK(sp_gguf_str_is(s, "llama"));
    CHECK(!sp_gguf_str_is(s, "llam"));
    CHECK(!sp_gguf_str_is(s, "llama2"));
    CHECK_EQ_INT(sp_gguf_get_str(g, "t.i32", &s, err), SP_ERR_FORMAT);
    CHECK_STR_CONTAINS(err, "GGUF: key 't.i32' is a i32; a string was "
                            "expected");

    /* arrays: numbers, strings (iterated and as views), bools, empty */
    sp_gguf_array a;
    CHECK_EQ_INT(sp_gguf_get_array(g, "tokenizer.ggml.scores", SP_GGUF_F32,
                                   &a, err), SP_OK);
    CHECK_EQ_INT(a.n, 4);
    CHECK(sp_gguf_array_float(&a, 1) == -1.5);
    CHECK(sp_gguf_array_float(&a, 3) == 3.25);
    CHECK_EQ_INT(sp_gguf_get_array(g, "tokenizer.ggml.scores", SP_GGUF_I32,
                                   &a, err), SP_ERR_FORMAT);
    CHECK_STR_CONTAINS(err, "GGUF: key 'tokenizer.ggml.scores' is an array "
                            "of f32; an array of i32 was expected");
    CHECK_EQ_INT(sp_gguf_get_array(g, "tokenizer.ggml.token_type",
                                   SP_GGUF_ARRAY, &a, err), SP_OK);
    CHECK_EQ_INT(a.type, SP_GGUF_I32);
    CHECK_EQ_INT(sp_gguf_array_int(&a, 0), 2);
    CHECK_EQ_INT(sp_gguf_array_int(&a, 3), 6);
    CHECK_EQ_INT(sp_gguf_get_array(g, "t.bools", SP_GGUF_BOOL, &a, err), SP_OK);
    CHECK_EQ_INT(sp_gguf_array_int(&a, 0) + 2 * sp_gguf_array_int(&a, 1) +
                     4 * sp_gguf_array_int(&a, 2), 5);
    CHECK_EQ_INT(sp_gguf_get_array(g, "t.empty", SP_GGUF_U32, &a, err), SP_OK);
    CHECK_EQ_INT(a.n, 0);
    CHECK_EQ_INT(sp_gguf_get_array(g, "t.u8", SP_GGUF_ARRAY, &a, err),
                 SP_ERR_FORMAT);
    CHECK_STR_CONTAINS(err, "is a u8; an array of any type was expected");

    CHECK_EQ_INT(sp_gguf_get_array(g, "tokenizer.ggml.tokens", SP_GGUF_STRING,
                                   &a, err), SP_OK);
    CHECK_EQ_INT(a.n, 4);
    const uint8_t *cursor = a.data;
    for (int i = 0; i < 4; i++) {
        sp_gguf_str t = sp_gguf_array_next_str(&cursor);
        CHECK(sp_gguf_str_is(t, TOKENS[i]));
    }
    CHECK(cursor == a.data + a.bytes);
    sp_gguf_str views[4];
    sp_gguf_array_strings(&a, views);
    CHECK(sp_gguf_str_is(views[1], "\xe2\x96\x81the"));
    CHECK_EQ_INT(views[2].len, 0);
    /* a view points into the file: nothing was copied */
    CHECK((const uint8_t *)views[3].ptr > b.data &&
          (const uint8_t *)views[3].ptr < b.data + b.len);

    /* tensors */
    const sp_gguf_tensor *t = sp_gguf_tensor_find(g, "token_embd.weight");
    CHECK(t != NULL);
    if (t) {
        CHECK_EQ_INT(t->n_dims, 2);
        CHECK_EQ_INT(t->ne[0], 8);
        CHECK_EQ_INT(t->ne[1], 3);
        CHECK_EQ_INT(t->ne[2], 1);
        CHECK_EQ_INT(t->n_elements, 24);
        CHECK_EQ_INT(t->type, SP_GGML_F32);
        CHECK_EQ_INT(t->nbytes, 96);
        CHECK_EQ_INT((size_t)(t->data - b.data) % 32, 0);
        CHECK(memcmp(t->data, w, sizeof w) == 0);
    }
    t = sp_gguf_tensor_find(g, "output_norm.weight");
    CHECK(t != NULL && t->offset == 96 && t->nbytes == 32);
    CHECK(sp_gguf_tensor_find(g, "output.weight") == NULL);
    CHECK(sp_gguf_tensor_find(g, "token_embd.weigh") == NULL);
    CHECK(sp_gguf_find(g, "t.f6") == NULL);
    sp_gguf_close(g);
    bb_free(&b);
}

/* Version 2 reads as 3 does; general.alignment moves the data section. */
static void test_version2_and_alignment(void) {
    for (uint32_t align = 1; align <= 256; align *= 4) {
        gg_file f;
        gg_init(&f);
        f.alignment = align;
        gg_u32(&f, "general.alignment", align);
        gg_str(&f, "general.name", "aligned");
        uint8_t bytes[34] = {1, 2, 3};
        uint64_t ne[1] = {32};
        gg_tensor(&f, "a", GG_Q8_0, ne, 1, bytes, 34);
        gg_tensor(&f, "b", GG_Q8_0, ne, 1, bytes, 34);
        bb_bytes b = {0};
        gg_finish(&f, 2, &b);
        gg_free(&f);
        sp_gguf *g = open_ok(&b);
        if (g) {
            CHECK_EQ_INT(g->version, 2);
            CHECK_EQ_INT(g->alignment, align);
            CHECK_EQ_INT(g->data_offset % align, 0);
            const sp_gguf_tensor *t = sp_gguf_tensor_find(g, "b");
            CHECK(t && t->offset % align == 0 && t->offset >= 34);
            CHECK(t && t->data[0] == 1 && t->data[2] == 3);
            sp_gguf_close(g);
        }
        bb_free(&b);
    }
}

static void test_type_names(void) {
    uint32_t e, by;
    CHECK(!strcmp(sp_ggml_type_name(SP_GGML_Q4_K), "q4_K"));
    CHECK(!strcmp(sp_ggml_type_name(SP_GGML_BF16), "bf16"));
    CHECK(!strcmp(sp_ggml_type_name(SP_GGML_Q8_0), "q8_0"));
    CHECK(sp_ggml_type_name(4) == NULL);
    CHECK(sp_ggml_type_name(31) == NULL);
    CHECK(sp_ggml_type_name(9999) == NULL);
    CHECK(sp_ggml_type_block(SP_GGML_Q6_K, &e, &by) && e == 256 && by == 210);
    CHECK(sp_ggml_type_block(SP_GGML_Q4_0, &e, &by) && e == 32 && by == 18);
    CHECK(!sp_ggml_type_block(5, &e, &by));
    CHECK(!strcmp(sp_gguf_type_name(SP_GGUF_STRING), "string"));
    CHECK(!strcmp(sp_gguf_type_name(99), "?"));
}

/* Many keys: lookups stay right (a sorted index, binary search). */
static void test_many_keys(void) {
    gg_file f;
    gg_init(&f);
    char key[32];
    for (int i = 0; i < 3000; i++) {
        snprintf(key, sizeof key, "k.%d", (i * 7919) % 3000);
        gg_u32(&f, key, (uint32_t)((i * 7919) % 3000));
    }
    bb_bytes b = {0};
    gg_finish(&f, 3, &b);
    gg_free(&f);
    sp_gguf *g = open_ok(&b);
    int right = 0;
    for (int i = 0; g && i < 3000; i++) {
        snprintf(key, sizeof key, "k.%d", i);
        int64_t v = -1;
        if (sp_gguf_get_int(g, key, 0, 5000, &v, err) == SP_OK && v == i)
            right++;
    }
    CHECK_EQ_INT(right, 3000);
    CHECK(g && sp_gguf_find(g, "k.3000") == NULL);
    sp_gguf_close(g);
    bb_free(&b);
}

TEST_SUITE(gguf,
           TEST(test_every_type),
           TEST(test_version2_and_alignment),
           TEST(test_type_names),
           TEST(test_many_keys));
