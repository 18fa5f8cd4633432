/*
 * host_native.c — the CLI's host functions on a POSIX system: stdout and
 * stderr, files (and "-" for standard input), and the shipped models found
 * beside the binary (build/sampler -> ../models) unless SAMPLER_MODELS says
 * otherwise.
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sampler.h"

#include "../host.h"

void sp_host_write(int fd, const char *bytes, int len) {
    FILE *f = fd == 2 ? stderr : stdout;
    if (fd == 2) fflush(stdout); /* keep the two streams in order */
    fwrite(bytes, 1, (size_t)len, f);
    if (fd == 2) fflush(stderr);
}

uint8_t *sp_host_read_file(const char *path, size_t *size, char *err) {
    int is_stdin = strcmp(path, "-") == 0;
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    if (!f) {
        snprintf(err, SP_ERR_LEN, "%s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    uint8_t *data = malloc(cap + 1);
    while (data) {
        if (n == cap) {
            uint8_t *more = realloc(data, cap * 2 + 1);
            if (!more) {
                free(data);
                data = NULL;
                break;
            }
            data = more;
            cap *= 2;
        }
        size_t got = fread(data + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    int failed = !data || ferror(f);
    if (!is_stdin) fclose(f);
    if (failed) {
        free(data);
        snprintf(err, SP_ERR_LEN, "%s: %s", path,
                 data ? "read error" : "out of memory");
        return NULL;
    }
    data[n] = '\0'; /* text readers may rely on it; size excludes it */
    *size = n;
    return data;
}

/* Written to PATH.tmp, then renamed over PATH: a write that fails half
 * way (a full disk) leaves the file that was there as it was. */
int sp_host_write_file(const char *path, const uint8_t *bytes, size_t size,
                       char *err) {
    char tmp[PATH_MAX];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp) {
        snprintf(err, SP_ERR_LEN, "%s: the path is too long", path);
        return -1;
    }
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        snprintf(err, SP_ERR_LEN, "%s: %s", path, strerror(errno));
        return -1;
    }
    int failed = fwrite(bytes, 1, size, f) != size;
    failed |= fclose(f) != 0;
    if (failed || rename(tmp, path) != 0) {
        snprintf(err, SP_ERR_LEN, "%s: %s", path,
                 failed ? "write error" : strerror(errno));
        remove(tmp);
        return -1;
    }
    return 0;
}

const char *sp_host_models_dir(void) {
    static char dir[PATH_MAX];
    const char *env = getenv("SAMPLER_MODELS");
    if (env && *env) return env;
    if (!dir[0]) {
        char exe[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        if (n > 0) {
            exe[n] = '\0';
            char *slash = strrchr(exe, '/');
            if (slash) *slash = '\0';
            snprintf(dir, sizeof dir, "%.*s/../models", PATH_MAX - 16, exe);
        } else {
            strcpy(dir, "models");
        }
    }
    return dir;
}
