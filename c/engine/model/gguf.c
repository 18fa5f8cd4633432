/*
 * gguf.c — reads GGUF v2 / v3 (gguf.h): one pass over the header, the
 * key/values and the tensor infos that checks every length against the
 * bytes left, then the tensors against the data section; an index sorted
 * by name for the lookups.  Nothing is copied out of the file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "model/gguf.h"

/* ---- the types ----------------------------------------------------------- */

static const uint8_t value_size[SP_GGUF_TYPE_COUNT] = {
    1, 1, 2, 2, 4, 4, 4, 1, 0 /* string */, 0 /* array */, 8, 8, 8};

static const char *const value_names[SP_GGUF_TYPE_COUNT] = {
    "u8", "i8", "u16", "i16", "u32", "i32", "f32", "bool", "string",
    "array", "u64", "i64", "f64"};

size_t sp_gguf_value_size(uint32_t type) {
    return type < SP_GGUF_TYPE_COUNT ? value_size[type] : 0;
}

const char *sp_gguf_type_name(uint32_t type) {
    return type < SP_GGUF_TYPE_COUNT ? value_names[type] : "?";
}

/* Every tensor type ggml defines (ggml.h, ggml-common.h): its name, the
 * elements of one block and the block's bytes.  The ids ggml has retired
 * (4, 5, 31-33, 36-38) have none. */
static const struct {
    const char *name;
    uint16_t elems, bytes;
} ggml_types[SP_GGML_TYPE_COUNT] = {
    [0] = {"f32", 1, 4},        [1] = {"f16", 1, 2},
    [2] = {"q4_0", 32, 18},     [3] = {"q4_1", 32, 20},
    [6] = {"q5_0", 32, 22},     [7] = {"q5_1", 32, 24},
    [8] = {"q8_0", 32, 34},     [9] = {"q8_1", 32, 36},
    [10] = {"q2_K", 256, 84},   [11] = {"q3_K", 256, 110},
    [12] = {"q4_K", 256, 144},  [13] = {"q5_K", 256, 176},
    [14] = {"q6_K", 256, 210},  [15] = {"q8_K", 256, 292},
    [16] = {"iq2_xxs", 256, 66}, [17] = {"iq2_xs", 256, 74},
    [18] = {"iq3_xxs", 256, 98}, [19] = {"iq1_s", 256, 50},
    [20] = {"iq4_nl", 32, 18},  [21] = {"iq3_s", 256, 110},
    [22] = {"iq2_s", 256, 82},  [23] = {"iq4_xs", 256, 136},
    [24] = {"i8", 1, 1},        [25] = {"i16", 1, 2},
    [26] = {"i32", 1, 4},       [27] = {"i64", 1, 8},
    [28] = {"f64", 1, 8},       [29] = {"iq1_m", 256, 56},
    [30] = {"bf16", 1, 2},      [34] = {"tq1_0", 256, 54},
    [35] = {"tq2_0", 256, 66},  [39] = {"mxfp4", 32, 17},
    [40] = {"nvfp4", 64, 36},   [41] = {"q1_0", 128, 18},
    [42] = {"q2_0", 64, 18},
};

const char *sp_ggml_type_name(uint32_t type) {
    return type < SP_GGML_TYPE_COUNT ? ggml_types[type].name : NULL;
}

int sp_ggml_type_block(uint32_t type, uint32_t *block_elems,
                       uint32_t *block_bytes) {
    if (type >= SP_GGML_TYPE_COUNT || !ggml_types[type].name) return 0;
    *block_elems = ggml_types[type].elems;
    *block_bytes = ggml_types[type].bytes;
    return 1;
}

/* ---- reading ------------------------------------------------------------- */

typedef struct {
    const uint8_t *data;
    size_t size, at;
    char *err;
} reader;

static int truncated(reader *r, uint64_t need, const char *what) {
    return sp_fail(r->err, SP_ERR_FORMAT, "GGUF: the file ends inside %s "
                   "(%llu bytes needed at byte %zu; the file has %zu)", what,
                   (unsigned long long)need, r->at, r->size);
}

static int take(reader *r, void *out, size_t n, const char *what) {
    if (r->size - r->at < n) return truncated(r, n, what);
    memcpy(out, r->data + r->at, n);
    r->at += n;
    return SP_OK;
}

static int skip(reader *r, uint64_t n, const char *what) {
    if ((uint64_t)(r->size - r->at) < n) return truncated(r, n, what);
    r->at += (size_t)n;
    return SP_OK;
}

/* a string: u64 length, then its bytes, at most max of them */
static int read_str(reader *r, sp_gguf_str *s, uint64_t max,
                    const char *what) {
    uint64_t len = 0;
    int rc = take(r, &len, 8, what);
    if (rc) return rc;
    if (len > max)
        return sp_fail(r->err, SP_ERR_FORMAT, "GGUF: %s at byte %zu is %llu "
                       "bytes long, more than the %llu allowed", what,
                       r->at - 8, (unsigned long long)len,
                       (unsigned long long)max);
    s->ptr = (const char *)r->data + r->at;
    s->len = (size_t)len; /* fits: checked by skip against the size */
    return skip(r, len, what);
}

/* A name from the file as a message may show it: its first 60 bytes, each
 * byte outside printable ASCII as '?' (a message is one line of text),
 * "..." when it is longer; buf has at least 64 bytes. */
static const char *printable(sp_gguf_str s, char *buf, size_t size) {
    size_t n = s.len > 60 ? 60 : s.len, i = 0;
    for (; i < n && i + 4 < size; i++) {
        unsigned char c = (unsigned char)s.ptr[i];
        buf[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
    }
    if (s.len > i) {
        memcpy(buf + i, "...", 3);
        i += 3;
    }
    buf[i] = 0;
    return buf;
}

/* "key 'general.name'": how messages name a key */
static const char *key_label(sp_gguf_str key, char *buf, size_t size) {
    char name[72];
    snprintf(buf, size, "key '%s'", printable(key, name, sizeof name));
    return buf;
}

/* One value of type `type` (not an array) at the reader: checked and
 * skipped. */
static int read_value(reader *r, uint32_t type, const char *what) {
    if (type == SP_GGUF_STRING) {
        sp_gguf_str s;
        return read_str(r, &s, (uint64_t)-1, what);
    }
    if (type == SP_GGUF_BOOL) {
        uint8_t b;
        int rc = take(r, &b, 1, what);
        if (rc) return rc;
        if (b > 1)
            return sp_fail(r->err, SP_ERR_FORMAT, "GGUF: %s: a bool must be 0 "
                           "or 1 (got %u at byte %zu)", what, b, r->at - 1);
        return SP_OK;
    }
    return skip(r, value_size[type], what);
}

static int read_kv(reader *r, sp_gguf_kv *kv, uint64_t index) {
    char what[96], label[80];
    snprintf(what, sizeof what, "key/value %llu", (unsigned long long)index);
    int rc = read_str(r, &kv->key, SP_GGUF_MAX_KEY, what);
    if (rc) return rc;
    if (kv->key.len == 0)
        return sp_fail(r->err, SP_ERR_FORMAT, "GGUF: key/value %llu has an "
                       "empty key", (unsigned long long)index);
    key_label(kv->key, label, sizeof label);
    if ((rc = take(r, &kv->type, 4, label))) return rc;
    if (kv->type >= SP_GGUF_TYPE_COUNT)
        return sp_fail(r->err, SP_ERR_FORMAT, "GGUF: %s has an unknown value "
                       "type %u", label, kv->type);
    kv->value = r->data + r->at;
    if (kv->type != SP_GGUF_ARRAY) return read_value(r, kv->type, label);

    sp_gguf_array *a = &kv->array;
    if ((rc = take(r, &a->type, 4, label)) || (rc = take(r, &a->n, 8, label)))
        return rc;
    if (a->type == SP_GGUF_ARRAY)
        return sp_fail(r->err, SP_ERR_FORMAT, "GGUF: %s is an array of "
                       "arrays, which this reader does not support", label);
    if (a->type >= SP_GGUF_TYPE_COUNT)
        return sp_fail(r->err, SP_ERR_FORMAT, "GGUF: %s is an array of an "
                       "unknown type %u", label, a->type);
    a->data = r->data + r->at;
    size_t start = r->at, left = r->size - r->at;
    /* every element takes at least one byte (a string eight): a count the
     * rest of the file cannot hold is refused before any loop */
    uint64_t least = a->type == SP_GGUF_STRING ? 8 : value_size[a->type];
    if (a->n > left / least)
        return sp_fail(r->err, SP_ERR_FORMAT, "GGUF: %s claims %llu elements "
                       "of type %s; the %zu bytes left in the file hold at "
                       "most %llu", label, (unsigned long long)a->n,
                       value_names[a->type], left,
                       (unsigned long long)(left / least));
    if (a->type == SP_GGUF_STRING || a->type == SP_GGUF_BOOL) {
        for (uint64_t i = 0; i < a->n; i++)
            if ((rc = read_value(r, a->type, label))) return rc;
    } else {
        r->at += (size_t)(a->n * least);
    }
    a->bytes = r->at - start;
    return SP_OK;
}

static int read_tensor(reader *r, sp_gguf_tensor *t, uint64_t index) {
    char what[96], label[96];
    snprintf(what, sizeof what, "the name of tensor %llu",
             (unsigned long long)index);
    int rc = read_str(r, &t->name, SP_GGUF_MAX_NAME, what);
    if (rc) return rc;
    char name[72];
    snprintf(label, sizeof label, "tensor '%s'",
             printable(t->name, name, sizeof name));
    if ((rc = take(r, &t->n_dims, 4, label))) return rc;
    if (t->n_dims > SP_GGUF_MAX_DIMS)
        return sp_fail(r->err, SP_ERR_FORMAT, "GGUF: %s has %u dimensions; "
                       "at most %d are allowed", label, t->n_dims,
                       SP_GGUF_MAX_DIMS);
    t->n_elements = 1;
    for (int d = 0; d < SP_GGUF_MAX_DIMS; d++) {
        t->ne[d] = 1;
        if ((uint32_t)d < t->n_dims && (rc = take(r, &t->ne[d], 8, label)))
            return rc;
        /* no tensor of this engine comes near 2^48 elements: any product
         * past it is a broken file, and nothing below can overflow */
        if (t->ne[d] > ((uint64_t)1 << 48) ||
            (t->ne[d] && t->n_elements > ((uint64_t)1 << 48) / t->ne[d]))
            return sp_fail(r->err, SP_ERR_FORMAT, "GGUF: %s is too large "
                           "(dimension %d is %llu)", label, d,
                           (unsigned long long)t->ne[d]);
        t->n_elements *= t->ne[d];
    }
    if ((rc = take(r, &t->type, 4, label))) return rc;
    uint32_t elems, bytes;
    if (!sp_ggml_type_block(t->type, &elems, &bytes))
        return sp_fail(r->err, SP_ERR_FORMAT, "GGUF: %s has an unknown tensor "
                       "type %u", label, t->type);
    if (t->ne[0] % elems)
        return sp_fail(r->err, SP_ERR_FORMAT, "GGUF: %s has rows of %llu "
                       "elements, not a multiple of %s's block of %u", label,
                       (unsigned long long)t->ne[0], ggml_types[t->type].name,
                       elems);
    uint64_t nbytes = t->n_elements / elems * bytes; /* < 2^48 * 292 / 32 */
    if (nbytes > (uint64_t)r->size)
        return sp_fail(r->err, SP_ERR_FORMAT, "GGUF: %s needs %llu bytes; the "
                       "whole file has %zu", label,
                       (unsigned long long)nbytes, r->size);
    t->nbytes = (size_t)nbytes;
    return take(r, &t->offset, 8, label);
}

/* ---- the index ----------------------------------------------------------- */

static int str_cmp(sp_gguf_str a, sp_gguf_str b) {
    size_t n = a.len < b.len ? a.len : b.len;
    int c = memcmp(a.ptr, b.ptr, n);
    return c ? c : (a.len > b.len) - (a.len < b.len);
}

static int compare_names(const void *a, const void *b) {
    const sp_gguf_name *x = a, *y = b;
    int c = str_cmp(x->name, y->name);
    return c ? c : (x->index > y->index) - (x->index < y->index);
}

/* idx[0..n): the names of n records (the first at first, the others stride
 * bytes apart), sorted; -1, or the index of a name that appears twice */
static int64_t sort_names(sp_gguf_name *idx, uint64_t n,
                          const sp_gguf_str *first, size_t stride) {
    for (uint64_t i = 0; i < n; i++) {
        idx[i].name = *(const sp_gguf_str *)(const void *)(
            (const char *)first + (size_t)i * stride);
        idx[i].index = (uint32_t)i;
    }
    qsort(idx, (size_t)n, sizeof *idx, compare_names);
    for (uint64_t i = 1; i < n; i++)
        if (str_cmp(idx[i - 1].name, idx[i].name) == 0) return idx[i].index;
    return -1;
}

static int64_t search(const sp_gguf_name *idx, uint64_t n, const char *name) {
    sp_gguf_str key = {name, strlen(name)};
    uint64_t lo = 0, hi = n;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        int c = str_cmp(idx[mid].name, key);
        if (c == 0) return idx[mid].index;
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return -1;
}

/* ---- open / close -------------------------------------------------------- */

int sp_gguf_is(const uint8_t *data, size_t size) {
    return size >= 4 && memcmp(data, "GGUF", 4) == 0;
}

static int parse_header(reader *r, sp_gguf *g) {
    if (!sp_gguf_is(r->data, r->size))
        return sp_fail(r->err, SP_ERR_FORMAT, "GGUF: the file does not start "
                       "with the magic \"GGUF\"");
    r->at = 4;
    int rc;
    if ((rc = take(r, &g->version, 4, "the header"))) return rc;
    if ((g->version & 0xFFFFu) == 0)
        return sp_fail(r->err, SP_ERR_FORMAT, "GGUF: version field 0x%08x: a "
                       "big-endian file? only little-endian GGUF is "
                       "supported", g->version);
    if (g->version < 2 || g->version > 3)
        return sp_fail(r->err, SP_ERR_FORMAT, "GGUF: version %u is not "
                       "supported (this reader reads versions 2 and 3)",
                       g->version);
    if ((rc = take(r, &g->n_tensors, 8, "the header")) ||
        (rc = take(r, &g->n_kv, 8, "the header")))
        return rc;
    /* a key/value takes at least 14 bytes (a 1-byte key, a u8), a tensor
     * info 25 (a 1-byte name, no dims): counts beyond what the file can
     * hold are refused before anything is allocated for them */
    size_t left = r->size - r->at;
    if (g->n_kv > left / 14 || g->n_tensors > left / 25 ||
        g->n_kv > INT32_MAX || g->n_tensors > INT32_MAX ||
        g->n_kv * 14 + g->n_tensors * 25 > left)
        return sp_fail(r->err, SP_ERR_FORMAT, "GGUF: the header claims %llu "
                       "key/values and %llu tensors; the %zu bytes that "
                       "follow cannot hold them",
                       (unsigned long long)g->n_kv,
                       (unsigned long long)g->n_tensors, left);
    return SP_OK;
}

static int read_alignment(sp_gguf *g, char *err) {
    g->alignment = SP_GGUF_DEFAULT_ALIGNMENT;
    const sp_gguf_kv *kv = sp_gguf_find(g, "general.alignment");
    if (!kv) return SP_OK;
    if (kv->type != SP_GGUF_U32)
        return sp_fail(err, SP_ERR_FORMAT, "GGUF: key 'general.alignment' "
                       "is a %s; it must be a u32", value_names[kv->type]);
    memcpy(&g->alignment, kv->value, 4);
    if (g->alignment == 0 || (g->alignment & (g->alignment - 1)))
        return sp_fail(err, SP_ERR_FORMAT, "GGUF: general.alignment %u is "
                       "not a power of two", g->alignment);
    return SP_OK;
}

typedef struct {
    uint64_t start, end;
    uint32_t index;
} span;

static int compare_spans(const void *a, const void *b) {
    const span *x = a, *y = b;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

/* No two tensors share a byte (llama.cpp's writer lays them out one after
 * the other): so the tensors' sizes add up to at most the file's, and
 * everything a loader derives from them stays proportional to it. */
static int check_overlaps(sp_gguf *g, char *err) {
    if (g->n_tensors < 2) return SP_OK;
    span *s = malloc(sizeof *s * (size_t)g->n_tensors);
    if (!s) return sp_fail(err, SP_ERR_NOMEM, "GGUF: out of memory");
    for (uint64_t i = 0; i < g->n_tensors; i++) {
        s[i].start = g->tensors[i].offset;
        s[i].end = g->tensors[i].offset + g->tensors[i].nbytes;
        s[i].index = (uint32_t)i;
    }
    qsort(s, (size_t)g->n_tensors, sizeof *s, compare_spans);
    int rc = SP_OK;
    uint64_t last = 0; /* the span reaching furthest so far */
    for (uint64_t i = 1; i < g->n_tensors && rc == SP_OK; i++) {
        if (s[i].start < s[last].end && s[i].start < s[i].end) {
            char a[72], b[72];
            rc = sp_fail(err, SP_ERR_FORMAT, "GGUF: tensors '%s' and '%s' "
                         "share bytes of the data section (from offset "
                         "%llu)", printable(g->tensors[s[last].index].name,
                                            a, sizeof a),
                         printable(g->tensors[s[i].index].name, b, sizeof b),
                         (unsigned long long)s[i].start);
        }
        if (s[i].end > s[last].end) last = i;
    }
    free(s);
    return rc;
}

/* The data section and every tensor in it. */
static int place_tensors(sp_gguf *g, size_t end_of_infos, char *err) {
    uint64_t a = g->alignment;
    uint64_t start = ((uint64_t)end_of_infos + a - 1) / a * a;
    if (g->n_tensors > 0 && start > (uint64_t)g->size)
        return sp_fail(err, SP_ERR_FORMAT, "GGUF: the data section would "
                       "start at byte %llu (aligned to %u), past the file's "
                       "end (%zu bytes)", (unsigned long long)start,
                       g->alignment, g->size);
    g->data_offset = start > g->size ? g->size : (size_t)start;
    uint64_t room = (uint64_t)(g->size - g->data_offset);
    for (uint64_t i = 0; i < g->n_tensors; i++) {
        sp_gguf_tensor *t = &g->tensors[i];
        char name[72];
        printable(t->name, name, sizeof name);
        if (t->offset % a)
            return sp_fail(err, SP_ERR_FORMAT, "GGUF: tensor '%s' starts at "
                           "offset %llu, not a multiple of the alignment %u",
                           name, (unsigned long long)t->offset, g->alignment);
        if (t->offset > room || t->nbytes > room - t->offset)
            return sp_fail(err, SP_ERR_FORMAT, "GGUF: tensor '%s' (%zu bytes "
                           "at offset %llu) runs past the end of the data "
                           "section (%llu bytes)", name,
                           t->nbytes, (unsigned long long)t->offset,
                           (unsigned long long)room);
        t->data = g->file + g->data_offset + (size_t)t->offset;
    }
    return check_overlaps(g, err);
}

static int build_index(sp_gguf *g, char *err) {
    char label[80];
    int64_t dup = sort_names(g->kv_index, g->n_kv, &g->kv[0].key,
                             sizeof *g->kv);
    if (dup >= 0)
        return sp_fail(err, SP_ERR_FORMAT, "GGUF: %s appears twice",
                       key_label(g->kv[dup].key, label, sizeof label));
    dup = sort_names(g->tensor_index, g->n_tensors, &g->tensors[0].name,
                     sizeof *g->tensors);
    if (dup >= 0)
        return sp_fail(err, SP_ERR_FORMAT, "GGUF: two tensors are called "
                       "'%s'", printable(g->tensors[dup].name, label,
                                         sizeof label));
    return SP_OK;
}

sp_gguf *sp_gguf_open(const uint8_t *data, size_t size, int *code,
                      char *err) {
    reader r = {data, size, 0, err};
    sp_gguf *g = calloc(1, sizeof *g);
    int rc = SP_ERR_NOMEM;
    if (!g) goto fail_nomem;
    g->file = data;
    g->size = size;
    if ((rc = parse_header(&r, g))) goto fail;
    /* one block each for the records and their sorted indices; the counts
     * are bounded by the file's size (parse_header) */
    g->kv = calloc((size_t)g->n_kv + 1, sizeof *g->kv);
    g->tensors = calloc((size_t)g->n_tensors + 1, sizeof *g->tensors);
    g->kv_index = calloc((size_t)g->n_kv + 1, sizeof *g->kv_index);
    g->tensor_index = calloc((size_t)g->n_tensors + 1,
                             sizeof *g->tensor_index);
    if (!g->kv || !g->tensors || !g->kv_index || !g->tensor_index) {
        rc = SP_ERR_NOMEM;
        goto fail_nomem;
    }
    for (uint64_t i = 0; i < g->n_kv; i++)
        if ((rc = read_kv(&r, &g->kv[i], i))) goto fail;
    for (uint64_t i = 0; i < g->n_tensors; i++)
        if ((rc = read_tensor(&r, &g->tensors[i], i))) goto fail;
    if ((rc = build_index(g, err)) || (rc = read_alignment(g, err)) ||
        (rc = place_tensors(g, r.at, err)))
        goto fail;
    if (code) *code = SP_OK;
    return g;
fail_nomem:
    sp_fail(err, SP_ERR_NOMEM, "GGUF: out of memory");
fail:
    if (code) *code = rc;
    sp_gguf_close(g);
    return NULL;
}

void sp_gguf_close(sp_gguf *g) {
    if (!g) return;
    free(g->kv);
    free(g->tensors);
    free(g->kv_index);
    free(g->tensor_index);
    free(g);
}

/* ---- lookups ------------------------------------------------------------- */

const sp_gguf_kv *sp_gguf_find(const sp_gguf *g, const char *key) {
    if (g->n_kv == 0) return NULL;
    int64_t i = search(g->kv_index, g->n_kv, key);
    return i < 0 ? NULL : &g->kv[i];
}

const sp_gguf_tensor *sp_gguf_tensor_find(const sp_gguf *g,
                                          const char *name) {
    if (g->n_tensors == 0) return NULL;
    int64_t i = search(g->tensor_index, g->n_tensors, name);
    return i < 0 ? NULL : &g->tensors[i];
}

int sp_gguf_str_is(sp_gguf_str s, const char *c) {
    size_t n = strlen(c);
    return s.len == n && memcmp(s.ptr, c, n) == 0;
}
