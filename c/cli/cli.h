/*
 * cli.h — the `sampler` command line (cli.c), on top of the engine's
 * sampler.h.  A host runs it: native/ (main.c, host_native.c) as the
 * build/sampler binary, wasm/ (host_wasm.c) for `node build/sampler.mjs`.  Both run this same code, so their output is
 * byte-identical.
 */
#ifndef SP_CLI_H
#define SP_CLI_H

/* The command-line program: argv as given to main.  Output and files go
 * through the host functions (host.h).  Returns the exit status. */
int sp_cli_main(int argc, char **argv);

#endif /* SP_CLI_H */
