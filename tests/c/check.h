/*
 * check.h — the C tests' few assertions.  Each failure prints file:line and
 * what differed; main() returns the failure count via CHECK_DONE().
 */
#ifndef SP_CHECK_H
#define SP_CHECK_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_failures = 0;
static int check_count = 0;

#define CHECK(cond)                                                         \
    do {                                                                    \
        check_count++;                                                      \
        if (!(cond)) {                                                      \
            check_failures++;                                               \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__,          \
                    __LINE__, #cond);                                       \
        }                                                                   \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                  \
    do {                                                                    \
        long long check_a_ = (long long)(a), check_b_ = (long long)(b);     \
        check_count++;                                                      \
        if (check_a_ != check_b_) {                                         \
            check_failures++;                                               \
            fprintf(stderr, "%s:%d: %s == %lld, expected %s == %lld\n",     \
                    __FILE__, __LINE__, #a, check_a_, #b, check_b_);        \
        }                                                                   \
    } while (0)

#define CHECK_NEAR(a, b, tol)                                               \
    do {                                                                    \
        double check_a_ = (double)(a), check_b_ = (double)(b);              \
        check_count++;                                                      \
        if (!(fabs(check_a_ - check_b_) <= (tol))) {                        \
            check_failures++;                                               \
            fprintf(stderr, "%s:%d: %s == %.9g, expected %.9g (tol %g)\n",  \
                    __FILE__, __LINE__, #a, check_a_, check_b_,             \
                    (double)(tol));                                         \
        }                                                                   \
    } while (0)

#define CHECK_STR_CONTAINS(hay, needle)                                     \
    do {                                                                    \
        check_count++;                                                      \
        if (!strstr((hay), (needle))) {                                     \
            check_failures++;                                               \
            fprintf(stderr, "%s:%d: \"%s\" does not contain \"%s\"\n",      \
                    __FILE__, __LINE__, (hay), (needle));                   \
        }                                                                   \
    } while (0)

/* A part that needs the llama2.c fixtures (../shared/fixtures/llama2c) and
 * cannot find them: skipped with a message, except under CI=true, where a
 * missing fixture is a failure. */
static inline void fixtures_missing(const char *part) {
    const char *ci = getenv("CI");
    char v[8] = "";
    for (int i = 0; ci && ci[i] && i < 7; i++)
        v[i] = (char)(ci[i] >= 'A' && ci[i] <= 'Z' ? ci[i] + 32 : ci[i]);
    int in_ci = !strcmp(v, "1") || !strcmp(v, "true") || !strcmp(v, "yes");
    check_count++;
    if (in_ci) {
        check_failures++;
        fprintf(stderr, "%s: the llama2.c fixtures (../shared/fixtures/"
                "llama2c) are missing, and CI is set\n", part);
    } else {
        printf("skipped: %s: ../shared/fixtures/llama2c not found\n", part);
    }
}

#define CHECK_DONE()                                                        \
    do {                                                                    \
        fprintf(stderr, "%s: %d checks, %d failed\n", __FILE__,             \
                check_count, check_failures);                               \
        return check_failures ? 1 : 0;                                      \
    } while (0)

#endif
