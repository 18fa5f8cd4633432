/*
 * runner_legacy.c — what check.h asks of a runner, for a test file that
 * still has its own main() (build.sh builds and runs such a file alone):
 * the counters, say() and skip() (under CI=true a skip is a failure).
 * Written as a TEST_SUITE, a file needs none of this (runner.c).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

const char *test_root = ".";
int check_count = 0, check_failures = 0;

void say(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}

void skip(const char *fmt, ...) {
    const char *ci = getenv("CI");
    int in_ci = ci && (!strcmp(ci, "1") || !strcmp(ci, "true") ||
                       !strcmp(ci, "TRUE") || !strcmp(ci, "yes"));
    va_list ap;
    va_start(ap, fmt);
    printf("skipped: ");
    vprintf(fmt, ap);
    printf("%s\n", in_ci ? " (a failure: CI is set)" : "");
    va_end(ap);
    check_count++;
    if (in_ci) check_failures++;
}
