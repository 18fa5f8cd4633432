/*
 * gguf_values.c — the metadata's values as C values (gguf.h): typed getters
 * that name the key and the type they found when it is not the one asked
 * for, and the elements of arrays, read in place.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "model/gguf.h"

/* ---- values -------------------------------------------------------------- */

/* An integer of type `type` at p (any integer type or bool); *ok = 0 for a
 * u64 past INT64_MAX or a type that is no integer. */
static int64_t int_at(uint32_t type, const uint8_t *p, int *ok) {
    union { uint8_t u8; int8_t i8; uint16_t u16; int16_t i16; uint32_t u32;
            int32_t i32; uint64_t u64; int64_t i64; } v;
    *ok = 1;
    switch (type) {
    case SP_GGUF_U8: case SP_GGUF_BOOL: memcpy(&v.u8, p, 1); return v.u8;
    case SP_GGUF_I8: memcpy(&v.i8, p, 1); return v.i8;
    case SP_GGUF_U16: memcpy(&v.u16, p, 2); return v.u16;
    case SP_GGUF_I16: memcpy(&v.i16, p, 2); return v.i16;
    case SP_GGUF_U32: memcpy(&v.u32, p, 4); return v.u32;
    case SP_GGUF_I32: memcpy(&v.i32, p, 4); return v.i32;
    case SP_GGUF_I64: memcpy(&v.i64, p, 8); return v.i64;
    case SP_GGUF_U64:
        memcpy(&v.u64, p, 8);
        if (v.u64 <= (uint64_t)INT64_MAX) return (int64_t)v.u64;
        break;
    default: break;
    }
    *ok = 0;
    return 0;
}

static double float_at(uint32_t type, const uint8_t *p) {
    if (type == SP_GGUF_F32) {
        float f;
        memcpy(&f, p, 4);
        return f;
    }
    if (type == SP_GGUF_F64) {
        double d;
        memcpy(&d, p, 8);
        return d;
    }
    return 0.0;
}

static const sp_gguf_kv *find_or_say(const sp_gguf *g, const char *key,
                                     char *err) {
    const sp_gguf_kv *kv = sp_gguf_find(g, key);
    if (!kv) sp_fail(err, SP_ERR_FORMAT, "GGUF: key '%s' is missing", key);
    return kv;
}

static int wrong_type(const sp_gguf_kv *kv, const char *key,
                      const char *expected, char *err) {
    if (kv->type == SP_GGUF_ARRAY)
        return sp_fail(err, SP_ERR_FORMAT, "GGUF: key '%s' is an array of "
                       "%s; %s was expected", key,
                       sp_gguf_type_name(kv->array.type), expected);
    return sp_fail(err, SP_ERR_FORMAT, "GGUF: key '%s' is a %s; %s was "
                   "expected", key, sp_gguf_type_name(kv->type), expected);
}

int sp_gguf_get_int(const sp_gguf *g, const char *key, int64_t min,
                    int64_t max, int64_t *out, char *err) {
    const sp_gguf_kv *kv = find_or_say(g, key, err);
    if (!kv) return SP_GGUF_MISSING;
    int ok = 0;
    int64_t v = kv->type == SP_GGUF_ARRAY ? 0 : int_at(kv->type, kv->value, &ok);
    if (kv->type == SP_GGUF_ARRAY ||
        (!ok && kv->type != SP_GGUF_U64))
        return wrong_type(kv, key, "an integer", err);
    if (!ok || v < min || v > max)
        return sp_fail(err, SP_ERR_FORMAT, "GGUF: key '%s' must be in "
                       "%lld..%lld (got %s%lld)", key, (long long)min,
                       (long long)max, ok ? "" : "more than ",
                       ok ? (long long)v : (long long)INT64_MAX);
    *out = v;
    return SP_OK;
}

int sp_gguf_get_float(const sp_gguf *g, const char *key, double *out,
                      char *err) {
    const sp_gguf_kv *kv = find_or_say(g, key, err);
    if (!kv) return SP_GGUF_MISSING;
    if (kv->type != SP_GGUF_F32 && kv->type != SP_GGUF_F64)
        return wrong_type(kv, key, "a float (f32 or f64)", err);
    *out = float_at(kv->type, kv->value);
    return SP_OK;
}

int sp_gguf_get_bool(const sp_gguf *g, const char *key, int *out, char *err) {
    const sp_gguf_kv *kv = find_or_say(g, key, err);
    if (!kv) return SP_GGUF_MISSING;
    if (kv->type != SP_GGUF_BOOL) return wrong_type(kv, key, "a bool", err);
    *out = kv->value[0];
    return SP_OK;
}

int sp_gguf_get_str(const sp_gguf *g, const char *key, sp_gguf_str *out,
                    char *err) {
    const sp_gguf_kv *kv = find_or_say(g, key, err);
    if (!kv) return SP_GGUF_MISSING;
    if (kv->type != SP_GGUF_STRING)
        return wrong_type(kv, key, "a string", err);
    const uint8_t *cursor = kv->value;
    *out = sp_gguf_array_next_str(&cursor);
    return SP_OK;
}

int sp_gguf_get_array(const sp_gguf *g, const char *key, uint32_t elem_type,
                      sp_gguf_array *out, char *err) {
    const sp_gguf_kv *kv = find_or_say(g, key, err);
    if (!kv) return SP_GGUF_MISSING;
    if (kv->type != SP_GGUF_ARRAY ||
        (elem_type != SP_GGUF_ARRAY && kv->array.type != elem_type)) {
        char expected[40];
        snprintf(expected, sizeof expected, "an array of %s",
                 elem_type == SP_GGUF_ARRAY ? "any type"
                                            : sp_gguf_type_name(elem_type));
        return wrong_type(kv, key, expected, err);
    }
    *out = kv->array;
    return SP_OK;
}

int64_t sp_gguf_array_int(const sp_gguf_array *a, uint64_t i) {
    if (a->type >= SP_GGUF_TYPE_COUNT || !sp_gguf_value_size(a->type)) return 0;
    int ok;
    return int_at(a->type, a->data + (size_t)i * sp_gguf_value_size(a->type), &ok);
}

double sp_gguf_array_float(const sp_gguf_array *a, uint64_t i) {
    if (a->type != SP_GGUF_F32 && a->type != SP_GGUF_F64) return 0.0;
    return float_at(a->type, a->data + (size_t)i * sp_gguf_value_size(a->type));
}

sp_gguf_str sp_gguf_array_next_str(const uint8_t **cursor) {
    uint64_t len;
    memcpy(&len, *cursor, 8);
    sp_gguf_str s = {(const char *)*cursor + 8, (size_t)len};
    *cursor += 8 + (size_t)len;
    return s;
}

void sp_gguf_array_strings(const sp_gguf_array *a, sp_gguf_str *out) {
    const uint8_t *cursor = a->data;
    for (uint64_t i = 0; i < a->n; i++) out[i] = sp_gguf_array_next_str(&cursor);
}
