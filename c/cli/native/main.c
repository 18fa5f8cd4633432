/* main.c — the native `sampler` binary: the CLI of cli.c. */
#include "../cli.h"

int main(int argc, char **argv) { return sp_cli_main(argc, argv); }
