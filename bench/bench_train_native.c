/*
 * bench_train_native.c — the trainer's native speed, for bench/train.mjs:
 *
 *   bench-train-native TEXT PRESET WARMUP STEPS [NAME=VALUE ...]
 *
 * makes a trainer for TEXT with the preset (and the settings after it),
 * runs WARMUP steps untimed and then STEPS steps timed by its own clock
 * (CLOCK_MONOTONIC around sp_train_run, and the CPU time it took), and
 * prints one JSON line: {"seconds", "cpu_seconds", "steps", "tokens",
 * "tokens_per_s", "tokens_per_cpu_s", "backend"}.  Built by
 * bench/run.sh from the engine's sources with build.sh's flags.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sampler.h"

static double clock_s(clockid_t which) {
    struct timespec ts;
    clock_gettime(which, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static unsigned char *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *data = malloc((size_t)n + 1);
    *size = data ? fread(data, 1, (size_t)n, f) : 0;
    fclose(f);
    return data;
}

int main(int argc, char **argv) {
    if (argc < 5) {
        fprintf(stderr, "usage: bench-train-native TEXT PRESET WARMUP STEPS "
                "[NAME=VALUE ...]\n");
        return 2;
    }
    char err[SP_ERR_LEN];
    sp_train_config c;
    sp_train_config_default(&c);
    if (sp_train_preset(&c, argv[2], err) != SP_OK) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    int warmup = atoi(argv[3]), steps = atoi(argv[4]);
    c.steps = warmup + steps;
    for (int i = 5; i < argc; i++) {
        char *eq = strchr(argv[i], '=');
        if (!eq) continue;
        *eq = '\0';
        if (sp_train_config_set(&c, argv[i], atof(eq + 1), err) != SP_OK) {
            fprintf(stderr, "%s\n", err);
            return 2;
        }
    }
    size_t size;
    unsigned char *text = read_file(argv[1], &size);
    if (!text) {
        fprintf(stderr, "cannot read %s\n", argv[1]);
        return 1;
    }
    sp_train *t = sp_train_new(text, size, NULL, 0, &c, 1, err);
    free(text);
    if (!t) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    int done;
    if (sp_train_run(t, warmup, 0, &done, err) != SP_OK) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    double t0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    int rc = sp_train_run(t, steps, 0, &done, err);
    double seconds = clock_s(CLOCK_MONOTONIC) - t0;
    double cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
    if (rc != SP_OK) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    double tokens = (double)done * sp_train_get_plan(t)->tokens_per_step;
    printf("{\"seconds\":%.6f,\"cpu_seconds\":%.6f,\"steps\":%d,\"tokens\":%.0f,"
           "\"tokens_per_s\":%.1f,\"tokens_per_cpu_s\":%.1f,\"backend\":\"%s\"}\n",
           seconds, cpu, done, tokens, tokens / seconds, tokens / cpu, sp_backend());
    sp_train_free(t);
    return 0;
}
