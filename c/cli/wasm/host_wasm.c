/*
 * host_wasm.c — the CLI in WASM (cli-*.wasm, for `node build/sampler.mjs`
 * and the tests): its entry point, and its host functions as imports the JS
 * loader provides (web/src/engine/cli.js: env.host_write,
 * env.host_file_size, env.host_file_read, env.host_file_write).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sampler.h"

#include "../cli.h"
#include "../host.h"

#define WASM_IMPORT(name) __attribute__((import_module("env"), import_name(name)))
#define WASM_EXPORT(name) __attribute__((export_name(name)))

WASM_IMPORT("host_write") void js_write(int fd, const char *bytes, int len);
/* size of the file in bytes, -1 if it does not exist, -2 on other errors */
WASM_IMPORT("host_file_size") double js_file_size(const char *path);
/* copies the file into dst (exactly len bytes); 0 on success */
WASM_IMPORT("host_file_read") int js_file_read(const char *path, uint8_t *dst,
                                               double len);

/* writes the file (replacing it); 0 on success */
WASM_IMPORT("host_file_write") int js_file_write(const char *path,
                                                 const uint8_t *bytes,
                                                 double len);

int sp_host_write_file(const char *path, const uint8_t *bytes, size_t size,
                       char *err) {
    if (js_file_write(path, bytes, (double)size) != 0) {
        snprintf(err, SP_ERR_LEN, "%s: cannot be written", path);
        return -1;
    }
    return 0;
}

static char models_dir[1024] = "models";

WASM_EXPORT("sp_host_set_models_dir")
void sp_host_set_models_dir(const char *dir) {
    snprintf(models_dir, sizeof models_dir, "%s", dir);
}

const char *sp_host_models_dir(void) { return models_dir; }

void sp_host_write(int fd, const char *bytes, int len) {
    js_write(fd, bytes, len);
}

uint8_t *sp_host_read_file(const char *path, size_t *size, char *err) {
    double n = js_file_size(path);
    if (n < 0) {
        snprintf(err, SP_ERR_LEN, "%s: %s", path,
                 n == -1 ? "No such file or directory" : "cannot be read");
        return NULL;
    }
    /* a file the memory cannot hold is refused before it is read, with
     * its size and the limit (sp_model_check_size) */
    char why[SP_ERR_LEN] = "too large";
    if (sp_model_check_size(n, why) != SP_OK ||
        n > (double)(SIZE_MAX - 1)) {
        snprintf(err, SP_ERR_LEN, "%s: %s", path,
                 strncmp(why, "model: ", 7) ? why : why + 7);
        return NULL;
    }
    uint8_t *data = malloc((size_t)n + 1);
    if (!data) {
        snprintf(err, SP_ERR_LEN, "%s: out of memory", path);
        return NULL;
    }
    if (js_file_read(path, data, n) != 0) {
        free(data);
        snprintf(err, SP_ERR_LEN, "%s: read error", path);
        return NULL;
    }
    data[(size_t)n] = '\0';
    *size = (size_t)n;
    return data;
}

WASM_EXPORT("api_cli_main") int api_cli_main(int argc, char **argv) {
    return sp_cli_main(argc, argv);
}
