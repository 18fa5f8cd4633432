/*
 * gguf.h — the GGUF reader (gguf.c): llama.cpp's file format, versions 2
 * and 3, little-endian.
 *
 *   magic "GGUF", u32 version, u64 tensor count, u64 key/value count
 *   key/values: string key, u32 value type, the value (an array: u32
 *               element type, u64 count, the elements)
 *   tensor infos: string name, u32 n_dims (<= 4), u64 dims[n_dims] (dims[0]
 *               the row length), u32 ggml type, u64 offset (from the data
 *               section, a multiple of the alignment)
 *   padding to general.alignment (default 32), then the data section
 *   (a string is u64 length + bytes, no NUL)
 *
 * sp_gguf_open checks the whole structure once -- every length, count,
 * type and offset against the file's size, duplicate keys and tensor
 * names, the alignment -- and builds an index; nothing is copied: every
 * string, array and tensor the index gives points into the caller's bytes,
 * which must outlive the sp_gguf.  After a successful open no accessor can
 * read out of bounds, whatever the file held.  Allocation is bounded by the
 * file's size (each indexed record takes at least 14 bytes of the file).
 *
 * Lookups are by exact key (binary search over a sorted index).  The typed
 * getters convert what a reader would expect to be convertible (any integer
 * type to an integer in range, f32 and f64 to double) and refuse the rest
 * with a message that names the key and both types.
 */
#ifndef SP_GGUF_H
#define SP_GGUF_H

#include <stddef.h>
#include <stdint.h>

/* The metadata value types (gguf_type in ggml's gguf.h). */
enum {
    SP_GGUF_U8 = 0, SP_GGUF_I8, SP_GGUF_U16, SP_GGUF_I16, SP_GGUF_U32,
    SP_GGUF_I32, SP_GGUF_F32, SP_GGUF_BOOL, SP_GGUF_STRING, SP_GGUF_ARRAY,
    SP_GGUF_U64, SP_GGUF_I64, SP_GGUF_F64, SP_GGUF_TYPE_COUNT
};

/* The tensor types (ggml_type in ggml.h) this engine names; every type
 * ggml defines has a block size (sp_ggml_type_block), so a file holding
 * others still opens -- the model loader refuses them by name. */
enum {
    SP_GGML_F32 = 0, SP_GGML_F16 = 1, SP_GGML_Q4_0 = 2, SP_GGML_Q4_1 = 3,
    SP_GGML_Q5_0 = 6, SP_GGML_Q5_1 = 7, SP_GGML_Q8_0 = 8, SP_GGML_Q8_1 = 9,
    SP_GGML_Q2_K = 10, SP_GGML_Q3_K = 11, SP_GGML_Q4_K = 12, SP_GGML_Q5_K = 13,
    SP_GGML_Q6_K = 14, SP_GGML_Q8_K = 15, SP_GGML_BF16 = 30,
    SP_GGML_TYPE_COUNT = 43
};

/* A string in the file: len bytes at ptr, NOT NUL-terminated. */
typedef struct {
    const char *ptr;
    size_t len;
} sp_gguf_str;

/* An array value: n elements of type `type` (never SP_GGUF_ARRAY), the
 * first at data; fixed-size elements are packed (unaligned: read them with
 * the accessors below), strings follow each other (length, bytes). */
typedef struct {
    uint32_t type;
    uint64_t n;
    const uint8_t *data;
    size_t bytes; /* the elements' bytes in the file */
} sp_gguf_array;

typedef struct {
    sp_gguf_str key;
    uint32_t type;        /* SP_GGUF_*; SP_GGUF_ARRAY: see array */
    const uint8_t *value; /* a scalar's bytes (a string's length first) */
    sp_gguf_array array;  /* when type == SP_GGUF_ARRAY */
} sp_gguf_kv;

typedef struct {
    sp_gguf_str name;
    uint32_t n_dims;      /* 1..4 (0: a scalar, one element) */
    uint64_t ne[4];       /* ne[0] the row length; the missing dims are 1 */
    uint64_t n_elements;
    uint32_t type;        /* SP_GGML_* (any type ggml defines) */
    uint64_t offset;      /* from the start of the data section */
    size_t nbytes;
    const uint8_t *data;  /* its first byte, in the caller's buffer */
} sp_gguf_tensor;

/* A name and the record it names: the sorted indices of the lookups. */
typedef struct {
    sp_gguf_str name;
    uint32_t index;
} sp_gguf_name;

typedef struct sp_gguf {
    const uint8_t *file;
    size_t size;
    uint32_t version;     /* 2 or 3 */
    uint32_t alignment;   /* general.alignment, or 32 */
    size_t data_offset;   /* where the data section starts */
    uint64_t n_kv, n_tensors;
    sp_gguf_kv *kv;           /* [n_kv], in file order */
    sp_gguf_tensor *tensors;  /* [n_tensors], in file order */
    sp_gguf_name *kv_index;     /* the keys, sorted */
    sp_gguf_name *tensor_index; /* the tensors' names, sorted */
} sp_gguf;

#define SP_GGUF_DEFAULT_ALIGNMENT 32
#define SP_GGUF_MAX_DIMS 4
#define SP_GGUF_MAX_NAME 63      /* ggml's GGML_MAX_NAME - 1 */
#define SP_GGUF_MAX_KEY 65535    /* the specification's limit */

/* Returned by the getters when the key is absent (err says so too): the
 * caller chooses between a default and an error. */
#define SP_GGUF_MISSING (-1)

/* Whether data starts with the magic "GGUF". */
int sp_gguf_is(const uint8_t *data, size_t size);

/* Parses and checks the file; NULL with a message ("GGUF: ...") when it is
 * malformed (SP_ERR_FORMAT) or memory is short (*code, when code is not
 * NULL, gets which).  data is borrowed, not copied. */
sp_gguf *sp_gguf_open(const uint8_t *data, size_t size, int *code,
                      char *err);
void sp_gguf_close(sp_gguf *g);

/* The key/value called key, or NULL. */
const sp_gguf_kv *sp_gguf_find(const sp_gguf *g, const char *key);
/* The tensor called name, or NULL. */
const sp_gguf_tensor *sp_gguf_tensor_find(const sp_gguf *g, const char *name);

/* Typed getters: SP_OK and *out; SP_GGUF_MISSING when absent; SP_ERR_FORMAT
 * for another type or a value out of range.  err names the key either way.
 *   int:   any integer type (and bool), in [min, max]
 *   float: f32 or f64 (as a double: an f32 converts exactly)
 *   bool:  bool
 *   str:   string (a view into the file)
 *   array: an array whose elements have type elem_type (SP_GGUF_ARRAY:
 *          any type) */
int sp_gguf_get_int(const sp_gguf *g, const char *key, int64_t min,
                    int64_t max, int64_t *out, char *err);
int sp_gguf_get_float(const sp_gguf *g, const char *key, double *out,
                      char *err);
int sp_gguf_get_bool(const sp_gguf *g, const char *key, int *out, char *err);
int sp_gguf_get_str(const sp_gguf *g, const char *key, sp_gguf_str *out,
                    char *err);
int sp_gguf_get_array(const sp_gguf *g, const char *key, uint32_t elem_type,
                      sp_gguf_array *out, char *err);

/* Element i of an array of fixed-size elements (i < n; unchecked):
 * sp_gguf_array_int for any integer type or bool, sp_gguf_array_float for
 * f32 or f64 (other types give 0). */
int64_t sp_gguf_array_int(const sp_gguf_array *a, uint64_t i);
double sp_gguf_array_float(const sp_gguf_array *a, uint64_t i);
/* The strings of a string array, in order, one at a time: start with
 * *cursor = a->data, then each call returns the next string and moves
 * *cursor past it (call it a->n times; the open checked every length). */
sp_gguf_str sp_gguf_array_next_str(const uint8_t **cursor);
/* Every string of a string array as views into the file: out[a->n]
 * (allocated by the caller; no bytes are copied). */
void sp_gguf_array_strings(const sp_gguf_array *a, sp_gguf_str *out);

/* Whether s holds exactly the NUL-terminated text c. */
int sp_gguf_str_is(sp_gguf_str s, const char *c);

/* A metadata value type's name ("u32", "string", ...; "?" if unknown). */
const char *sp_gguf_type_name(uint32_t type);
/* The bytes of one value of a metadata type; 0 for strings, arrays and
 * types GGUF does not define. */
size_t sp_gguf_value_size(uint32_t type);
/* A tensor type's name as llama.cpp writes it ("f32", "q8_0", "q4_K",
 * "bf16"), or NULL for an id ggml does not define. */
const char *sp_ggml_type_name(uint32_t type);
/* Elements per block and bytes per block of a tensor type; 0 for an id
 * ggml does not define. */
int sp_ggml_type_block(uint32_t type, uint32_t *block_elems,
                       uint32_t *block_bytes);

#endif /* SP_GGUF_H */
