/*
 * host.h — what a host provides to the CLI: output, files and where the
 * shipped models are.  native/host_native.c implements it on POSIX,
 * wasm/host_wasm.c with the imports the JS loader provides (env.host_*,
 * web/src/engine/).
 */
#ifndef SP_CLI_HOST_H
#define SP_CLI_HOST_H

#include <stddef.h>
#include <stdint.h>

/* Writes len bytes to standard output (fd 1) or standard error (fd 2). */
void sp_host_write(int fd, const char *bytes, int len);
/* Reads a whole file ("-" = standard input) into malloc'd memory; returns
 * NULL and a message in err (SP_ERR_LEN bytes) when it cannot. */
uint8_t *sp_host_read_file(const char *path, size_t *size, char *err);
/* Writes a whole file (replacing it, only once every byte is written: a
 * temporary file renamed); 0, or -1 and a message in err. */
int sp_host_write_file(const char *path, const uint8_t *bytes, size_t size,
                       char *err);
/* Where the shipped models live ("models"-directory path, no trailing
 * slash). */
const char *sp_host_models_dir(void);

#endif /* SP_CLI_HOST_H */
