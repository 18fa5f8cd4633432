/*
 * build_gguf.h — writes GGUF files in memory for the tests, the fuzz
 * targets and their seed corpus: metadata of every type, tensor infos and
 * aligned data, as llama.cpp's gguf writer lays them out (key/values, tensor
 * infos, zero padding to the alignment, each tensor's data padded to it).
 *
 *   gg_file f;
 *   gg_init(&f);
 *   gg_str(&f, "general.architecture", "llama");
 *   gg_u32(&f, "llama.context_length", 64);
 *   uint64_t ne[2] = {8, 12};
 *   gg_tensor(&f, "token_embd.weight", GG_F32, ne, 2, floats, 8 * 12 * 4);
 *   bb_bytes out = {0};
 *   gg_finish(&f, 3, &out);
 *   gg_free(&f);
 *
 * Header-only, C11, no dependency beyond libc and build_files.h.  Nothing
 * here checks what it writes: the hostile-file tests write broken files
 * with it on purpose (gg_raw_kv, gg_tensor_at).
 */
#ifndef SP_BUILD_GGUF_H
#define SP_BUILD_GGUF_H

#include <math.h>
#include <stdio.h>

#include "build_files.h"

enum { /* metadata value types */
    GG_U8 = 0, GG_I8, GG_U16, GG_I16, GG_U32, GG_I32, GG_F32V, GG_BOOL,
    GG_STRING, GG_ARRAY, GG_U64, GG_I64, GG_F64
};
enum { /* tensor types (ggml_type) */
    GG_F32 = 0, GG_F16 = 1, GG_Q4_0 = 2, GG_Q8_0 = 8, GG_Q4_K = 12,
    GG_Q6_K = 14, GG_BF16 = 30
};

typedef struct {
    bb_bytes kv, infos, data;
    uint64_t n_kv, n_tensors;
    uint32_t alignment; /* of the data; gg_u32(.., "general.alignment", ..)
                         * does not change it: set both */
} gg_file;

static inline void gg_init(gg_file *f) {
    memset(f, 0, sizeof *f);
    f->alignment = 32;
}
static inline void gg_free(gg_file *f) {
    bb_free(&f->kv);
    bb_free(&f->infos);
    bb_free(&f->data);
}

static inline void gg_u64_to(bb_bytes *b, uint64_t v) { bb_put(b, &v, 8); }
static inline void gg_string_to(bb_bytes *b, const char *s, size_t len) {
    gg_u64_to(b, len);
    bb_put(b, s, len);
}

/* a key and its value type; the value follows */
static inline void gg_key(gg_file *f, const char *key, uint32_t type) {
    gg_string_to(&f->kv, key, strlen(key));
    bb_u32(&f->kv, type);
    f->n_kv++;
}

static inline void gg_u8(gg_file *f, const char *key, uint8_t v) {
    gg_key(f, key, GG_U8);
    bb_put(&f->kv, &v, 1);
}
static inline void gg_i8(gg_file *f, const char *key, int8_t v) {
    gg_key(f, key, GG_I8);
    bb_put(&f->kv, &v, 1);
}
static inline void gg_u16(gg_file *f, const char *key, uint16_t v) {
    gg_key(f, key, GG_U16);
    bb_put(&f->kv, &v, 2);
}
static inline void gg_i16(gg_file *f, const char *key, int16_t v) {
    gg_key(f, key, GG_I16);
    bb_put(&f->kv, &v, 2);
}
static inline void gg_u32(gg_file *f, const char *key, uint32_t v) {
    gg_key(f, key, GG_U32);
    bb_u32(&f->kv, v);
}
static inline void gg_i32(gg_file *f, const char *key, int32_t v) {
    gg_key(f, key, GG_I32);
    bb_i32(&f->kv, v);
}
static inline void gg_f32(gg_file *f, const char *key, float v) {
    gg_key(f, key, GG_F32V);
    bb_f32(&f->kv, v);
}
static inline void gg_bool(gg_file *f, const char *key, int v) {
    uint8_t b = (uint8_t)(v != 0);
    gg_key(f, key, GG_BOOL);
    bb_put(&f->kv, &b, 1);
}
static inline void gg_u64(gg_file *f, const char *key, uint64_t v) {
    gg_key(f, key, GG_U64);
    gg_u64_to(&f->kv, v);
}
static inline void gg_i64(gg_file *f, const char *key, int64_t v) {
    gg_key(f, key, GG_I64);
    bb_put(&f->kv, &v, 8);
}
static inline void gg_f64(gg_file *f, const char *key, double v) {
    gg_key(f, key, GG_F64);
    bb_put(&f->kv, &v, 8);
}
static inline void gg_str(gg_file *f, const char *key, const char *s) {
    gg_key(f, key, GG_STRING);
    gg_string_to(&f->kv, s, strlen(s));
}
/* an array of n fixed-size elements of type elem_type, elem_size bytes
 * each, packed at p */
static inline void gg_arr(gg_file *f, const char *key, uint32_t elem_type,
                          const void *p, uint64_t n, size_t elem_size) {
    gg_key(f, key, GG_ARRAY);
    bb_u32(&f->kv, elem_type);
    gg_u64_to(&f->kv, n);
    bb_put(&f->kv, p, (size_t)n * elem_size);
}
static inline void gg_arr_str(gg_file *f, const char *key,
                              const char *const *s, uint64_t n) {
    gg_key(f, key, GG_ARRAY);
    bb_u32(&f->kv, GG_STRING);
    gg_u64_to(&f->kv, n);
    for (uint64_t i = 0; i < n; i++) gg_string_to(&f->kv, s[i], strlen(s[i]));
}
/* a key with whatever value bytes follow (hostile files) */
static inline void gg_raw_kv(gg_file *f, const char *key, uint32_t type,
                             const void *value, size_t len) {
    gg_key(f, key, type);
    bb_put(&f->kv, value, len);
}

/* the bytes of one block of each tensor type; 0 for others */
static inline size_t gg_type_bytes(uint32_t type, uint64_t elems) {
    switch (type) {
    case GG_F32: return (size_t)elems * 4;
    case GG_F16: case GG_BF16: return (size_t)elems * 2;
    case GG_Q8_0: return (size_t)elems / 32 * 34;
    case GG_Q4_0: return (size_t)elems / 32 * 18;
    case GG_Q4_K: return (size_t)elems / 256 * 144;
    case GG_Q6_K: return (size_t)elems / 256 * 210;
    default: return 0;
    }
}

/* A tensor info naming data at `offset` of the data section (as given:
 * nothing is written to the data section). */
static inline void gg_tensor_at(gg_file *f, const char *name, uint32_t type,
                                const uint64_t *ne, uint32_t n_dims,
                                uint64_t offset) {
    gg_string_to(&f->infos, name, strlen(name));
    bb_u32(&f->infos, n_dims);
    for (uint32_t d = 0; d < n_dims; d++) gg_u64_to(&f->infos, ne[d]);
    bb_u32(&f->infos, type);
    gg_u64_to(&f->infos, offset);
    f->n_tensors++;
}

/* A tensor and its bytes, appended to the data section at the next
 * aligned offset. */
static inline void gg_tensor(gg_file *f, const char *name, uint32_t type,
                             const uint64_t *ne, uint32_t n_dims,
                             const void *bytes, size_t nbytes) {
    static const uint8_t zeros[64] = {0};
    while (f->data.len % f->alignment)
        bb_put(&f->data, zeros,
               f->alignment - f->data.len % f->alignment > 64
                   ? 64
                   : f->alignment - f->data.len % f->alignment);
    gg_tensor_at(f, name, type, ne, n_dims, f->data.len);
    bb_put(&f->data, bytes, nbytes);
}

/* The file: header, key/values, tensor infos, padding, data. */
static inline void gg_finish(gg_file *f, uint32_t version, bb_bytes *out) {
    static const uint8_t zeros[64] = {0};
    bb_put(out, "GGUF", 4);
    bb_u32(out, version);
    gg_u64_to(out, f->n_tensors);
    gg_u64_to(out, f->n_kv);
    bb_put(out, f->kv.data, f->kv.len);
    bb_put(out, f->infos.data, f->infos.len);
    while (out->len % f->alignment)
        bb_put(out, zeros,
               f->alignment - out->len % f->alignment > 64
                   ? 64
                   : f->alignment - out->len % f->alignment);
    bb_put(out, f->data.data, f->data.len);
}

/* the quantizers and whole models: */
#include "build_gguf_quant.h"
#include "build_gguf_model.h"

#endif
