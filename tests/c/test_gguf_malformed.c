/*
 * test_gguf_malformed.c — malformed GGUF files, each refused by the reader
 * (c/engine/model/gguf.c) with its one-line message (checked word for
 * word), never read out of bounds (this test runs under ASan): every
 * truncation of a good file, counts the file cannot hold, nested arrays,
 * unknown types, bad bools, duplicates, shapes and offsets that overflow
 * or run past the end, misalignment.
 */
#include "gguf_read.h"

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

TEST_SUITE(gguf_malformed,
           TEST(test_truncations),
           TEST(test_bad_headers),
           TEST(test_bad_values),
           TEST(test_bad_alignment),
           TEST(test_bad_tensors));
