/*
 * cli.c — the `sampler` command.  The native binary (main.c) and the WASM
 * build (`node build/sampler.mjs`) run this same code; output and files go
 * through the sp_host_* functions, so their output is byte-identical.
 *
 * Exit status: 0 done, 1 a bad or missing file / a runtime failure, 2 a bad
 * argument.  Every error is one line on stderr that names what is wrong.
 */
#include <stdio.h>
#include <string.h>

#include "cli_shared.h"

/* ----------------------------------------------------------------- main */

int sp_cli_main(int argc, char **argv) {
    args a = {argc, 1, argv, NULL, NULL};
    if (argc < 2)
        return cli_say_error(EXIT_BAD_ARG, "a command is required: warp, "
                         "generate, logits or encode (see sampler --help)");
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        cli_print_help();
        return 0;
    }
    if (!strcmp(cmd, "--version")) {
        char v[64];
        int n = snprintf(v, sizeof v, "sampler %s (%s)\n", SP_VERSION,
                         sp_backend());
        sp_host_write(1, v, n);
        return 0;
    }
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            cli_print_help();
            return 0;
        }
    }
    if (!strcmp(cmd, "warp")) return cli_cmd_warp(&a);
    if (!strcmp(cmd, "generate")) return cli_cmd_generate(&a);
    if (!strcmp(cmd, "logits")) return cli_cmd_logits(&a);
    if (!strcmp(cmd, "inspect")) return cli_cmd_inspect(&a);
    if (!strcmp(cmd, "encode")) return cli_cmd_encode(&a);
    if (!strcmp(cmd, "params")) return cli_cmd_params(&a);
    if (!strcmp(cmd, "train-bigram")) return cli_cmd_train_bigram(&a);
    if (!strcmp(cmd, "train")) return cli_cmd_train(&a);
    if (!strcmp(cmd, "detect")) return cli_cmd_detect(&a);
    return cli_say_error(EXIT_BAD_ARG, "unknown command '%s' (warp, generate, "
                     "logits, inspect, encode, params, train, train-bigram or "
                     "detect)", cmd);
}
