/*
 * util.c — error messages, and which kernels this build runs.
 */
#include <stdio.h>

#include "internal.h"

int sp_fail(char *err, int code, const char *fmt, ...) {
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, SP_ERR_LEN, fmt, ap);
        va_end(ap);
    }
    return code;
}

const char *sp_backend(void) { return SP_VEC4_BACKEND; }
