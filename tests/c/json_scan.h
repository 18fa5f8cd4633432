/*
 * json_scan.h — just enough JSON reading for the C tests' golden files.
 *
 * Values are addressed by pointers into the (NUL-terminated) text: js_get
 * finds a member of an object, js_first / js_next walk an array, and
 * js_number / js_bool / js_string read a scalar.  No allocation except the
 * decoded strings (js_string) and js_read_file's buffer.  Malformed input
 * gives NULL results rather than crashes; the tests then fail their checks.
 */
#ifndef SP_JSON_SCAN_H
#define SP_JSON_SCAN_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline const char *js_ws(const char *p) {
    while (p && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) p++;
    return p;
}

/* past the string starting at the quote p, or NULL */
static inline const char *js_skip_string(const char *p) {
    if (!p || *p != '"') return NULL;
    for (p++; *p; p++) {
        if (*p == '\\') {
            if (!p[1]) return NULL;
            p++;
        } else if (*p == '"') {
            return p + 1;
        }
    }
    return NULL;
}

/* past the value at p (after white space), or NULL */
static inline const char *js_skip(const char *p) {
    p = js_ws(p);
    if (!p || !*p) return NULL;
    if (*p == '"') return js_skip_string(p);
    if (*p == '{' || *p == '[') {
        char close = *p == '{' ? '}' : ']';
        p = js_ws(p + 1);
        if (p && *p == close) return p + 1;
        for (;;) {
            if (close == '}') {
                p = js_skip_string(js_ws(p));
                p = js_ws(p);
                if (!p || *p != ':') return NULL;
                p++;
            }
            p = js_ws(js_skip(p));
            if (!p) return NULL;
            if (*p == close) return p + 1;
            if (*p != ',') return NULL;
            p++;
        }
    }
    /* number, true, false, null */
    const char *q = p;
    while (*q && !strchr(" \t\r\n,]}", *q)) q++;
    return q == p ? NULL : q;
}

/* the value of member key of the object at obj, or NULL */
static inline const char *js_get(const char *obj, const char *key) {
    const char *p = js_ws(obj);
    if (!p || *p != '{') return NULL;
    p = js_ws(p + 1);
    size_t klen = strlen(key);
    while (p && *p == '"') {
        const char *end = js_skip_string(p);
        if (!end) return NULL;
        int match = (size_t)(end - p - 2) == klen &&
                    memcmp(p + 1, key, klen) == 0;
        p = js_ws(end);
        if (!p || *p != ':') return NULL;
        p = js_ws(p + 1);
        if (match) return p;
        p = js_ws(js_skip(p));
        if (!p || *p != ',') return NULL;
        p = js_ws(p + 1);
    }
    return NULL;
}

/* the first element of the array at arr, or NULL when empty or not one */
static inline const char *js_first(const char *arr) {
    const char *p = js_ws(arr);
    if (!p || *p != '[') return NULL;
    p = js_ws(p + 1);
    return (p && *p && *p != ']') ? p : NULL;
}

/* the element after the one at elem, or NULL at the end */
static inline const char *js_next(const char *elem) {
    const char *p = js_ws(js_skip(elem));
    if (!p || *p != ',') return NULL;
    return js_ws(p + 1);
}

static inline double js_number(const char *p) {
    return p ? strtod(p, NULL) : NAN;
}

static inline int js_bool(const char *p) { return p && strncmp(p, "true", 4) == 0; }

static inline void js_put_utf8(char **out, unsigned cp) {
    unsigned char *o = (unsigned char *)*out;
    if (cp < 0x80) {
        *o++ = (unsigned char)cp;
    } else if (cp < 0x800) {
        *o++ = (unsigned char)(0xc0 | (cp >> 6));
        *o++ = (unsigned char)(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
        *o++ = (unsigned char)(0xe0 | (cp >> 12));
        *o++ = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
        *o++ = (unsigned char)(0x80 | (cp & 0x3f));
    } else {
        *o++ = (unsigned char)(0xf0 | (cp >> 18));
        *o++ = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
        *o++ = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
        *o++ = (unsigned char)(0x80 | (cp & 0x3f));
    }
    *out = (char *)o;
}

static inline unsigned js_hex4(const char *p) {
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        v = v * 16 + (unsigned)(c >= 'a' ? c - 'a' + 10
                                : c >= 'A' ? c - 'A' + 10 : c - '0');
    }
    return v;
}

/* the decoded string at p, malloc'd and NUL-terminated, or NULL */
static inline char *js_string(const char *p) {
    const char *end = js_skip_string(js_ws(p));
    if (!end) return NULL;
    p = js_ws(p) + 1;
    char *s = malloc((size_t)(end - p) + 1), *o = s;
    if (!s) return NULL;
    while (p < end - 1) {
        if (*p != '\\') {
            *o++ = *p++;
            continue;
        }
        char e = p[1];
        p += 2;
        switch (e) {
        case 'n': *o++ = '\n'; break;
        case 't': *o++ = '\t'; break;
        case 'r': *o++ = '\r'; break;
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'u': {
            if (end - 1 - p < 4) break;
            unsigned cp = js_hex4(p);
            p += 4;
            if (cp >= 0xd800 && cp < 0xdc00 && end - 1 - p >= 6 &&
                p[0] == '\\' && p[1] == 'u') {
                unsigned lo = js_hex4(p + 2);
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                p += 6;
            }
            js_put_utf8(&o, cp);
            break;
        }
        default: *o++ = e; break; /* \" \\ \/ */
        }
    }
    *o = '\0';
    return s;
}

/* a whole file, NUL-terminated, malloc'd; NULL when it cannot be read */
static inline char *js_read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *data = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 65536 + 1 > cap) {
            cap = cap ? cap * 2 : 131072;
            char *grown = realloc(data, cap);
            if (!grown) {
                free(data);
                fclose(f);
                return NULL;
            }
            data = grown;
        }
        size_t got = fread(data + len, 1, 65536, f);
        len += got;
        if (got < 65536) break;
    }
    fclose(f);
    data[len] = '\0';
    if (size) *size = len;
    return data;
}

#endif
