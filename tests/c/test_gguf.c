/*
 * test_gguf.c — the GGUF reader (c/engine/model/gguf.c): every metadata
 * type through its getter, arrays of numbers and of strings, tensors and
 * their alignment, versions 2 and 3; and malformed files, each refused with
 * its one-line message (checked word for word), never read out of bounds
 * (this test runs under ASan): every truncation of a good file, counts the
 * file cannot hold, nested arrays, unknown types, bad bools, duplicates,
 * shapes and offsets that overflow or run past the end, misalignment.
 *
 * Usage: test_gguf [repository root]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fuzz/build_gguf.h"
#include "check.h"
#include "internal.h"
#include "model/gguf.h"

static char err[SP_ERR_LEN];

static void check_one_line(const char *msg) {
    CHECK(msg[0] != '\0');
    CHECK(strchr(msg, '\n') == NULL);
    CHECK(strlen(msg) < SP_ERR_LEN);
}

/* Opens b; expects failure with needle in the message. */
static void open_fails(const bb_bytes *b, const char *needle) {
    strcpy(err, "(untouched)");
    int code = -7;
    sp_gguf *g = sp_gguf_open(b->data, b->len, &code, err);
    CHECK(g == NULL);
    CHECK_EQ_INT(code, SP_ERR_FORMAT);
    CHECK_STR_CONTAINS(err, needle);
    check_one_line(err);
    sp_gguf_close(g);
}

static sp_gguf *open_ok(const bb_bytes *b) {
    err[0] = '\0';
    int code = -7;
    sp_gguf *g = sp_gguf_open(b->data, b->len, &code, err);
    CHECK(g != NULL);
    CHECK_EQ_INT(code, SP_OK);
    if (!g) fprintf(stderr, "open: %s\n", err);
    return g;
}

/* ---- a file with every type ---------------------------------------------- */

static const char *const TOKENS[4] = {"<unk>", "\xe2\x96\x81the", "", "<0x0A>"};

static void every_type(gg_file *f) {
    gg_str(f, "general.architecture", "llama");
    gg_u8(f, "t.u8", 200);
    gg_i8(f, "t.i8", -100);
    gg_u16(f, "t.u16", 60000);
    gg_i16(f, "t.i16", -30000);
    gg_u32(f, "t.u32", 4000000000u);
    gg_i32(f, "t.i32", -2000000000);
    gg_f32(f, "t.f32", 1e-5f);
    gg_bool(f, "t.bool", 1);
    gg_u64(f, "t.u64", 1ull << 40);
    gg_i64(f, "t.i64", -(1ll << 40));
    gg_f64(f, "t.f64", 500000.25);
    gg_u64(f, "t.u64max", UINT64_MAX);
    gg_arr_str(f, "tokenizer.ggml.tokens", TOKENS, 4);
    float scores[4] = {0.0f, -1.5f, -2.0f, 3.25f};
    gg_arr(f, "tokenizer.ggml.scores", GG_F32V, scores, 4, 4);
    int32_t types[4] = {2, 1, 1, 6};
    gg_arr(f, "tokenizer.ggml.token_type", GG_I32, types, 4, 4);
    uint8_t flags[3] = {1, 0, 1};
    gg_arr(f, "t.bools", GG_BOOL, flags, 3, 1);
    gg_arr(f, "t.empty", GG_U32, NULL, 0, 4);
}

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

/* ---- malformed files ------------------------------------------------------ */

/* A good small file; *out gets it. */
static void good_file(bb_bytes *out) {
    gg_file f;
    gg_init(&f);
    every_type(&f);
    float w[64];
    for (int i = 0; i < 64; i++) w[i] = (float)i;
    uint64_t ne[2] = {16, 4};
    gg_tensor(&f, "w", GG_F32, ne, 2, w, sizeof w);
    gg_finish(&f, 3, out);
    gg_free(&f);
}

/* Every proper prefix of a good file is refused, with a message. */
static void test_truncations(void) {
    bb_bytes b = {0};
    good_file(&b);
    int refused = 0;
    for (size_t n = 0; n < b.len; n++) {
        uint8_t *copy = malloc(n ? n : 1); /* exactly n: ASan sees overreads */
        if (n) memcpy(copy, b.data, n);
        err[0] = 0;
        sp_gguf *g = sp_gguf_open(copy, n, NULL, err);
        if (!g) {
            refused++;
            check_one_line(err);
        }
        sp_gguf_close(g);
        free(copy);
    }
    /* the tensor data is the file's tail: every prefix cuts something */
    CHECK_EQ_INT(refused, (long long)b.len);
    bb_bytes cut = {0};
    bb_put(&cut, b.data, 415); /* inside the token strings */
    open_fails(&cut, "GGUF: the file ends inside key 'tokenizer.ggml.tokens' "
                     "(");
    bb_free(&cut);
    bb_put(&cut, b.data, b.len - 1);
    open_fails(&cut, "GGUF: tensor 'w' (256 bytes at offset 0) runs past the "
                     "end of the data section (255 bytes)");
    bb_free(&cut);
    bb_free(&b);
}

static void header(bb_bytes *b, uint32_t version, uint64_t n_tensors,
                   uint64_t n_kv) {
    bb_put(b, "GGUF", 4);
    bb_u32(b, version);
    gg_u64_to(b, n_tensors);
    gg_u64_to(b, n_kv);
}

static void test_bad_headers(void) {
    bb_bytes b = {0};
    bb_put(&b, "GGML", 4);
    bb_u32(&b, 3);
    open_fails(&b, "GGUF: the file does not start with the magic \"GGUF\"");
    bb_free(&b);
    bb_put(&b, "GG", 2);
    open_fails(&b, "does not start with the magic");
    bb_free(&b);

    header(&b, 1, 0, 0);
    open_fails(&b, "GGUF: version 1 is not supported (this reader reads "
                   "versions 2 and 3)");
    bb_free(&b);
    header(&b, 4, 0, 0);
    open_fails(&b, "GGUF: version 4 is not supported");
    bb_free(&b);
    header(&b, 0x03000000u, 0, 0);
    open_fails(&b, "GGUF: version field 0x03000000: a big-endian file? only "
                   "little-endian GGUF is supported");
    bb_free(&b);
    bb_put(&b, "GGUF", 4);
    bb_u32(&b, 3);
    bb_u32(&b, 0);
    open_fails(&b, "GGUF: the file ends inside the header");
    bb_free(&b);

    /* counts no file of this size can hold: refused before allocating */
    header(&b, 3, 0, UINT64_MAX);
    open_fails(&b, "GGUF: the header claims 18446744073709551615 key/values "
                   "and 0 tensors; the 0 bytes that follow cannot hold them");
    bb_free(&b);
    header(&b, 3, 1ull << 60, 1);
    for (int i = 0; i < 100; i++) bb_u32(&b, 0);
    open_fails(&b, "GGUF: the header claims 1 key/values and "
                   "1152921504606846976 tensors; the 400 bytes");
    bb_free(&b);

    /* an empty file (no key, no tensor) is a valid one */
    header(&b, 3, 0, 0);
    sp_gguf *g = open_ok(&b);
    CHECK(g && sp_gguf_find(g, "x") == NULL &&
          sp_gguf_tensor_find(g, "x") == NULL);
    sp_gguf_close(g);
    bb_free(&b);
}

/* A file with one key/value whose raw value bytes are given, and padding
 * after it so that no count runs into the end by accident. */
static void one_raw_kv(bb_bytes *b, const char *key, uint32_t type,
                       const void *value, size_t len) {
    gg_file f;
    gg_init(&f);
    gg_raw_kv(&f, key, type, value, len);
    gg_finish(&f, 3, b);
    gg_free(&f);
}

static void test_bad_values(void) {
    bb_bytes b = {0};
    uint8_t v[32] = {0};
    one_raw_kv(&b, "x.type", 13, v, 8);
    open_fails(&b, "GGUF: key 'x.type' has an unknown value type 13");
    bb_free(&b);

    v[0] = 2;
    one_raw_kv(&b, "x.flag", GG_BOOL, v, 1);
    open_fails(&b, "GGUF: key 'x.flag': a bool must be 0 or 1 (got 2 at byte");
    bb_free(&b);

    /* arrays: of arrays, of an unknown type, longer than the file */
    uint32_t nested[3] = {GG_ARRAY, 1, 0};
    one_raw_kv(&b, "x.nested", GG_ARRAY, nested, sizeof nested);
    open_fails(&b, "GGUF: key 'x.nested' is an array of arrays, which this "
                   "reader does not support");
    bb_free(&b);
    uint32_t unknown[3] = {77, 1, 0};
    one_raw_kv(&b, "x.arr", GG_ARRAY, unknown, sizeof unknown);
    open_fails(&b, "GGUF: key 'x.arr' is an array of an unknown type 77");
    bb_free(&b);
    struct {
        uint32_t type;
        uint64_t n;
    } __attribute__((packed)) huge = {GG_U32, 1ull << 62};
    one_raw_kv(&b, "x.huge", GG_ARRAY, &huge, sizeof huge);
    open_fails(&b, "GGUF: key 'x.huge' claims 4611686018427387904 elements "
                   "of type u32; the 10 bytes left in the file hold at most 2");
    bb_free(&b);
    /* two strings: "a", then one of 2^60 bytes */
    bb_bytes raw = {0};
    bb_u32(&raw, GG_STRING);
    gg_u64_to(&raw, 2);
    gg_string_to(&raw, "a", 1);
    gg_u64_to(&raw, 1ull << 60);
    one_raw_kv(&b, "x.strs", GG_ARRAY, raw.data, raw.len);
    open_fails(&b, "GGUF: the file ends inside key 'x.strs' "
                   "(1152921504606846976 bytes needed at byte 71");
    bb_free(&b);
    bb_free(&raw);

    /* a string longer than the file, and keys: empty, too long, twice */
    uint64_t len = 1ull << 40;
    one_raw_kv(&b, "x.s", GG_STRING, &len, 8);
    open_fails(&b, "GGUF: the file ends inside key 'x.s' (1099511627776 "
                   "bytes needed");
    bb_free(&b);
    one_raw_kv(&b, "", GG_U8, v, 1);
    open_fails(&b, "GGUF: key/value 0 has an empty key");
    bb_free(&b);
    char *long_key = malloc(70000);
    memset(long_key, 'k', 69999);
    long_key[69999] = 0;
    one_raw_kv(&b, long_key, GG_U8, v, 1);
    open_fails(&b, "GGUF: key/value 0 at byte 24 is 69999 bytes long, more "
                   "than the 65535 allowed");
    bb_free(&b);
    free(long_key);

    gg_file f;
    gg_init(&f);
    gg_u32(&f, "a.b", 1);
    gg_str(&f, "a.c", "x");
    gg_u8(&f, "a.b", 2);
    gg_finish(&f, 3, &b);
    gg_free(&f);
    open_fails(&b, "GGUF: key 'a.b' appears twice");
    bb_free(&b);

    /* a key with a newline and non-ASCII bytes: the message stays one
     * line of printable text */
    gg_init(&f);
    gg_u32(&f, "bad\nkey\xff", 1);
    gg_u32(&f, "bad\nkey\xff", 1);
    gg_finish(&f, 3, &b);
    gg_free(&f);
    open_fails(&b, "GGUF: key 'bad?key?' appears twice");
    bb_free(&b);
}

static void test_bad_alignment(void) {
    bb_bytes b = {0};
    gg_file f;
    gg_init(&f);
    gg_u32(&f, "general.alignment", 48);
    gg_finish(&f, 3, &b);
    gg_free(&f);
    open_fails(&b, "GGUF: general.alignment 48 is not a power of two");
    bb_free(&b);
    gg_init(&f);
    gg_u32(&f, "general.alignment", 0);
    gg_finish(&f, 3, &b);
    gg_free(&f);
    open_fails(&b, "GGUF: general.alignment 0 is not a power of two");
    bb_free(&b);
    gg_init(&f);
    gg_u64(&f, "general.alignment", 32);
    gg_finish(&f, 3, &b);
    gg_free(&f);
    open_fails(&b, "GGUF: key 'general.alignment' is a u64; it must be a u32");
    bb_free(&b);
    /* an alignment so large the data section would start past the end */
    gg_init(&f);
    gg_u32(&f, "general.alignment", 1u << 31);
    uint64_t ne[1] = {4};
    gg_tensor_at(&f, "t", GG_F32, ne, 1, 0);
    gg_finish(&f, 3, &b);
    gg_free(&f);
    open_fails(&b, "GGUF: the data section would start at byte 2147483648 "
                   "(aligned to 2147483648), past the file's end");
    bb_free(&b);
}

/* One tensor info (and 64 bytes of data room), written raw. */
static void one_tensor(bb_bytes *b, const char *name, uint32_t type,
                       const uint64_t *ne, uint32_t n_dims, uint64_t offset) {
    gg_file f;
    gg_init(&f);
    gg_tensor_at(&f, name, type, ne, n_dims, offset);
    uint8_t room[64] = {0};
    bb_put(&f.data, room, sizeof room);
    gg_finish(&f, 3, b);
    gg_free(&f);
}

static void test_bad_tensors(void) {
    bb_bytes b = {0};
    uint64_t ne[5] = {4, 2, 1, 1, 1};
    one_tensor(&b, "t", GG_F32, ne, 5, 0);
    open_fails(&b, "GGUF: tensor 't' has 5 dimensions; at most 4 are allowed");
    bb_free(&b);
    one_tensor(&b, "t", 4, ne, 2, 0);
    open_fails(&b, "GGUF: tensor 't' has an unknown tensor type 4");
    bb_free(&b);
    one_tensor(&b, "t", 99, ne, 2, 0);
    open_fails(&b, "GGUF: tensor 't' has an unknown tensor type 99");
    bb_free(&b);
    one_tensor(&b, "t", GG_Q8_0, ne, 2, 0);
    open_fails(&b, "GGUF: tensor 't' has rows of 4 elements, not a multiple "
                   "of q8_0's block of 32");
    bb_free(&b);
    uint64_t big[2] = {1ull << 40, 1ull << 20};
    one_tensor(&b, "t", GG_F32, big, 2, 0);
    open_fails(&b, "GGUF: tensor 't' is too large (dimension 1 is 1048576)");
    bb_free(&b);
    uint64_t wraps[2] = {1ull << 63, 2};
    one_tensor(&b, "t", GG_F32, wraps, 2, 0);
    open_fails(&b, "GGUF: tensor 't' is too large (dimension 0 is "
                   "9223372036854775808)");
    bb_free(&b);
    uint64_t many[2] = {1024, 1024};
    one_tensor(&b, "t", GG_F32, many, 2, 0);
    open_fails(&b, "GGUF: tensor 't' needs 4194304 bytes; the whole file has");
    bb_free(&b);
    one_tensor(&b, "t", GG_F32, ne, 2, 16);
    open_fails(&b, "GGUF: tensor 't' starts at offset 16, not a multiple of "
                   "the alignment 32");
    bb_free(&b);
    one_tensor(&b, "t", GG_F32, ne, 2, 64);
    open_fails(&b, "GGUF: tensor 't' (32 bytes at offset 64) runs past the "
                   "end of the data section (64 bytes)");
    bb_free(&b);
    one_tensor(&b, "t", GG_F32, ne, 2, UINT64_MAX - 31);
    open_fails(&b, "GGUF: tensor 't' (32 bytes at offset "
                   "18446744073709551584) runs past the end");
    bb_free(&b);
    char name[80];
    memset(name, 'n', 64);
    name[64] = 0;
    one_tensor(&b, name, GG_F32, ne, 2, 0);
    open_fails(&b, "GGUF: the name of tensor 0 at byte 24 is 64 bytes long, "
                   "more than the 63 allowed");
    bb_free(&b);

    /* the same name twice */
    gg_file f;
    gg_init(&f);
    float w[8] = {0};
    gg_tensor(&f, "blk.0.attn_q.weight", GG_F32, ne, 2, w, sizeof w);
    gg_tensor(&f, "blk.0.attn_k.weight", GG_F32, ne, 2, w, sizeof w);
    gg_tensor(&f, "blk.0.attn_q.weight", GG_F32, ne, 2, w, sizeof w);
    gg_finish(&f, 3, &b);
    gg_free(&f);
    open_fails(&b, "GGUF: two tensors are called 'blk.0.attn_q.weight'");
    bb_free(&b);

    /* a zero-element tensor and a scalar (no dims) open */
    uint64_t zero[2] = {0, 5};
    one_tensor(&b, "z", GG_F32, zero, 2, 0);
    sp_gguf *g = open_ok(&b);
    CHECK(g && g->tensors[0].n_elements == 0 && g->tensors[0].nbytes == 0);
    sp_gguf_close(g);
    bb_free(&b);
    one_tensor(&b, "s", GG_F32, NULL, 0, 0);
    g = open_ok(&b);
    CHECK(g && g->tensors[0].n_elements == 1 && g->tensors[0].nbytes == 4);
    sp_gguf_close(g);
    bb_free(&b);
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

int main(int argc, char **argv) {
    (void)argc;
    (void)argv;
    test_every_type();
    test_version2_and_alignment();
    test_type_names();
    test_truncations();
    test_bad_headers();
    test_bad_values();
    test_bad_alignment();
    test_bad_tensors();
    test_many_keys();
    CHECK_DONE();
}
