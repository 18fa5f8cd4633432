/*
 * gguf_read.h — what the GGUF reader's tests (test_gguf.c,
 * test_gguf_malformed.c) share: the error buffer, opening a file that must
 * load or must be refused with a one-line message, and a file's worth of
 * metadata of every type.
 */
#ifndef SP_GGUF_READ_H
#define SP_GGUF_READ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fuzz/build_gguf.h"
#include "check.h"
#include "internal.h"
#include "model/gguf.h"

static char err[SP_ERR_LEN];

static inline void check_one_line(const char *msg) {
    CHECK(msg[0] != '\0');
    CHECK(strchr(msg, '\n') == NULL);
    CHECK(strlen(msg) < SP_ERR_LEN);
}

/* Opens b; expects failure with needle in the message. */
static inline void open_fails(const bb_bytes *b, const char *needle) {
    strcpy(err, "(untouched)");
    int code = -7;
    sp_gguf *g = sp_gguf_open(b->data, b->len, &code, err);
    CHECK(g == NULL);
    CHECK_EQ_INT(code, SP_ERR_FORMAT);
    CHECK_STR_CONTAINS(err, needle);
    check_one_line(err);
    sp_gguf_close(g);
}

static inline sp_gguf *open_ok(const bb_bytes *b) {
    err[0] = '\0';
    int code = -7;
    sp_gguf *g = sp_gguf_open(b->data, b->len, &code, err);
    CHECK(g != NULL);
    CHECK_EQ_INT(code, SP_OK);
    if (!g) fprintf(stderr, "open: %s\n", err);
    return g;
}

/* the pieces every_type writes as tokenizer.ggml.tokens */
static const char *const TOKENS[4] = {"<unk>", "\xe2\x96\x81the", "", "<0x0A>"};

/* Metadata of every type (and arrays of numbers and strings) into f. */
static inline void every_type(gg_file *f) {
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

#endif /* SP_GGUF_READ_H */
