/*
 * bench_native.c — the native side of the benchmark: the workloads of
 * bench_core.c behind a line protocol on stdin/stdout, so that bench.mjs can
 * interleave native batches with the WASM ones.  Each batch is timed here
 * with clock_gettime(CLOCK_MONOTONIC) around the batch alone.
 *
 *   bench-native write-model PATH [VOCAB]  writes the benchmark's model file
 *                                    (VOCAB tokens; default BENCH_VOCAB)
 *   bench-native serve               reads commands, one per line:
 *     sampler_init V | config I | sampler N REPORT | ref N | check |
 *     digest | load PATH | forward N | generate N RAW | recompute T0 T1 | counters |
 *     counters_reset_recompute | gguf_load SLOT PATH |
 *     gguf_forward SLOT N | qmat TYPE COLS MB | qmat_run N | quit
 *   and answers each with one line (times in nanoseconds).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
/* -DBENCH_CLOCK=CLOCK_PROCESS_CPUTIME_ID times CPU time instead: steadier
 * A/B comparisons on a busy machine (bench/run.sh uses wall time) */
#ifndef BENCH_CLOCK
#define BENCH_CLOCK CLOCK_MONOTONIC
#endif

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(BENCH_CLOCK, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static uint8_t *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *data = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (data && fread(data, 1, (size_t)n, f) != (size_t)n) {
        free(data);
        data = NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return data;
}

static int serve(void) {
    char line[1024], arg[1024];
    while (fgets(line, sizeof line, stdin)) {
        int a = 0, b = 0;
        double t0, r;
        if (sscanf(line, "sampler_init %d", &a) == 1) {
            printf("%d\n", bench_sampler_init(a));
        } else if (sscanf(line, "sampler %d %d", &a, &b) == 2) {
            t0 = now_ns();
            r = bench_sampler_steps(a, b);
            printf("%.0f %.17g\n", now_ns() - t0, r);
        } else if (sscanf(line, "config %d", &a) == 1) {
            printf("%d\n", bench_sampler_config(a));
        } else if (sscanf(line, "generate %d %d", &a, &b) == 2) {
            t0 = now_ns();
            r = bench_generate_run(a, b);
            printf("%.0f %.17g\n", now_ns() - t0, r);
        } else if (sscanf(line, "ref %d", &a) == 1) {
            t0 = now_ns();
            r = bench_ref_steps(a);
            printf("%.0f %.17g\n", now_ns() - t0, r);
        } else if (strncmp(line, "check", 5) == 0) {
            int n_kept = 0;
            double max_dp = 0.0;
            int bad = bench_sampler_check(&n_kept, &max_dp);
            printf("%d %d %.17g\n", bad, n_kept, max_dp);
        } else if (strncmp(line, "digest", 6) == 0) {
            printf("%.17g\n", bench_sampler_digest());
        } else if (sscanf(line, "load %1023s", arg) == 1) {
            size_t size = 0;
            uint8_t *data = read_file(arg, &size);
            printf("%d\n", data ? bench_model_load(data, (double)size) : 1);
        } else if (sscanf(line, "forward %d", &a) == 1) {
            t0 = now_ns();
            r = bench_forward_run(a);
            printf("%.0f %.17g\n", now_ns() - t0, r);
        } else if (sscanf(line, "recompute %d %d", &a, &b) == 2) {
            t0 = now_ns();
            r = bench_recompute(a, b);
            printf("%.0f %.17g\n", now_ns() - t0, r);
        } else if (sscanf(line, "gguf_load %d %1023s", &a, arg) == 2) {
            size_t size = 0;
            uint8_t *data = read_file(arg, &size);
            printf("%d\n", data ? bench_gguf_load(a, data, (double)size) : 1);
        } else if (sscanf(line, "gguf_forward %d %d", &a, &b) == 2) {
            t0 = now_ns();
            r = bench_gguf_forward(a, b);
            printf("%.0f %.17g\n", now_ns() - t0, r);
        } else if (sscanf(line, "qmat %d %d %lf", &a, &b, &r) == 3) {
            printf("%.17g\n", bench_qmat_init(a, b, r));
        } else if (sscanf(line, "qmat_run %d", &a) == 1) {
            t0 = now_ns();
            r = bench_qmat_run(a);
            printf("%.0f %.17g\n", now_ns() - t0, r);
        } else if (strncmp(line, "counters_reset_recompute", 24) == 0) {
            bench_counters_reset_recompute();
            printf("0\n");
        } else if (strncmp(line, "counters", 8) == 0) {
            double c[10];
            bench_counters(c);
            for (int i = 0; i < 10; i++) printf(i ? " %.17g" : "%.17g", c[i]);
            printf("\n");
        } else if (strncmp(line, "quit", 4) == 0) {
            return 0;
        } else {
            printf("error unknown command\n");
        }
        fflush(stdout);
    }
    return 0;
}

int main(int argc, char **argv) {
    if ((argc == 3 || argc == 4) && strcmp(argv[1], "write-model") == 0) {
        int vocab = argc == 4 ? atoi(argv[3]) : BENCH_VOCAB;
        if (vocab < 1) {
            fprintf(stderr, "bench-native: the vocabulary must be a whole number >= 1\n");
            return 2;
        }
        size_t size = 0;
        uint8_t *data = bench_model_bytes(vocab, &size);
        FILE *f = data ? fopen(argv[2], "wb") : NULL;
        int ok = f && fwrite(data, 1, size, f) == size;
        if (f && fclose(f) != 0) ok = 0;
        free(data);
        if (!ok) {
            fprintf(stderr, "bench-native: cannot write %s\n", argv[2]);
            return 1;
        }
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "serve") == 0) return serve();
    fprintf(stderr, "usage: bench-native write-model PATH [VOCAB] | serve\n");
    return 2;
}
