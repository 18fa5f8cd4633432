/*
 * util.c — error messages, and which kernels this build runs.
 */
#include <stdio.h>

#include "internal.h"

/* Each error's class and name, indexed by its code (sampler.h). */
#define SP_ERROR_ROW(id, code, name, cls) [code] = {cls, name},
static const struct {
    int cls;
    const char *name;
} ERRORS[SP_ERR_COUNT] = {SP_ERRORS(SP_ERROR_ROW)};
#undef SP_ERROR_ROW

int sp_error_class(int code) {
    return code >= 0 && code < SP_ERR_COUNT ? ERRORS[code].cls : -1;
}

const char *sp_error_name(int code) {
    return code >= 0 && code < SP_ERR_COUNT ? ERRORS[code].name : NULL;
}

/* The message takes err[0 .. SP_ERR_LEN - 2]; its code the last byte. */
int sp_fail(char *err, int code, const char *fmt, ...) {
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, SP_ERR_LEN - 1, fmt, ap);
        va_end(ap);
        err[SP_ERR_LEN - 1] = (char)code;
    }
    return sp_error_class(code);
}

int sp_error_code(int rc, const char *err) {
    int code = err && err[0] ? (unsigned char)err[SP_ERR_LEN - 1] : SP_OK;
    int cls = sp_error_class(code);
    if (rc < 0) return cls >= 0 ? code : SP_OK;
    return cls == rc ? code : rc;
}

const char *sp_backend(void) { return SP_VEC4_BACKEND; }
