/*
 * hostile.h — what the hostile-input tests (test_hostile*.c) share: the
 * error buffer, the one-line check of a message and
 * the loaders that expect a failure.
 */
#ifndef SP_HOSTILE_H
#define SP_HOSTILE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fuzz/build_files.h"
#include "check.h"
#include "internal.h"

static char err[SP_ERR_LEN];


/* Every message is one line of at most SP_ERR_LEN - 1 bytes. */
static inline void check_one_line(const char *msg) {
    CHECK(msg[0] != '\0');
    CHECK(strchr(msg, '\n') == NULL);
    CHECK(strchr(msg, '\r') == NULL);
    CHECK(strlen(msg) < SP_ERR_LEN);
}

/* ---- models: load a copy, expect failure with a message ------------------ */

/* Loads a malloc'd copy of data[0..size) through sp_model_load, both owning
 * it and not; expects failure with `needle` in the message. */
static inline void model_fails(const uint8_t *data, size_t size, const char *needle) {
    for (int own = 0; own < 2; own++) {
        uint8_t *copy = malloc(size ? size : 1);
        if (!copy) abort();
        if (size) memcpy(copy, data, size);
        strcpy(err, "(untouched)");
        sp_model *m = sp_model_load(copy, size, own, err);
        CHECK(m == NULL);
        CHECK_STR_CONTAINS(err, needle);
        check_one_line(err);
        if (m) sp_model_free(m);
        if (!own) free(copy); /* an owned copy is freed by the loader */
    }
}

static inline sp_model *model_ok(const bb_bytes *b) {
    err[0] = '\0';
    sp_model *m = sp_model_load(bb_copy(b), b->len, 1, err);
    CHECK(m != NULL);
    if (!m) fprintf(stderr, "load: %s\n", err);
    return m;
}

/* Loads a tokenizer.bin image; expects failure with `needle` in the message. */
static inline void tokenizer_fails(const uint8_t *data, size_t size, int vocab,
                            const char *needle) {
    strcpy(err, "(untouched)");
    sp_tokenizer *t = sp_tokenizer_load(data, size, vocab, err);
    CHECK(t == NULL);
    CHECK_STR_CONTAINS(err, needle);
    check_one_line(err);
    sp_tokenizer_free(t);
}

#endif /* SP_HOSTILE_H */
