/*
 * buf.h — a growable text buffer: the CLI builds each line of output in one
 * and hands it to the host whole.
 */
#ifndef SP_CLI_BUF_H
#define SP_CLI_BUF_H

#include <stddef.h>

typedef struct {
    char *data;
    size_t len, cap;
    int failed; /* an allocation failed; the text is incomplete */
} sp_buf;

void sp_buf_init(sp_buf *b);
void sp_buf_free(sp_buf *b);
void sp_buf_put(sp_buf *b, const char *s, size_t n);
void sp_buf_puts(sp_buf *b, const char *s);
void sp_buf_printf(sp_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void sp_buf_num(sp_buf *b, double x);          /* %.9g; null if not finite */
void sp_buf_json_str(sp_buf *b, const char *s, size_t n); /* quoted, escaped */

#endif /* SP_CLI_BUF_H */
