/*
 * buf.c — the growable text buffer the CLI prints from (buf.h).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"

void sp_buf_init(sp_buf *b) { memset(b, 0, sizeof *b); }

void sp_buf_free(sp_buf *b) {
    free(b->data);
    sp_buf_init(b);
}

static int buf_reserve(sp_buf *b, size_t extra) {
    if (b->failed) return 0;
    if (b->len + extra + 1 <= b->cap) return 1;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1) cap *= 2;
    char *data = realloc(b->data, cap);
    if (!data) {
        b->failed = 1;
        return 0;
    }
    b->data = data;
    b->cap = cap;
    return 1;
}

void sp_buf_put(sp_buf *b, const char *s, size_t n) {
    if (!buf_reserve(b, n)) return;
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void sp_buf_puts(sp_buf *b, const char *s) { sp_buf_put(b, s, strlen(s)); }

void sp_buf_printf(sp_buf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char small[256];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof small) {
        sp_buf_put(b, small, (size_t)n);
        return;
    }
    if (!buf_reserve(b, (size_t)n)) return;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void sp_buf_num(sp_buf *b, double x) {
    /* JSON has no inf or NaN: those print as null */
    if (x != x || x == INFINITY || x == -INFINITY) {
        sp_buf_puts(b, "null");
        return;
    }
    sp_buf_printf(b, "%.9g", x);
}

void sp_buf_json_str(sp_buf *b, const char *s, size_t n) {
    static const char hex[] = "0123456789abcdef";
    sp_buf_put(b, "\"", 1);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            char esc[2] = {'\\', (char)c};
            sp_buf_put(b, esc, 2);
        } else if (c == '\n') {
            sp_buf_put(b, "\\n", 2);
        } else if (c == '\t') {
            sp_buf_put(b, "\\t", 2);
        } else if (c == '\r') {
            sp_buf_put(b, "\\r", 2);
        } else if (c < 0x20 || c == 0x7f) {
            char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            sp_buf_put(b, esc, 6);
        } else {
            sp_buf_put(b, (const char *)&c, 1);
        }
    }
    sp_buf_put(b, "\"", 1);
}
