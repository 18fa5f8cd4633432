/*
 * check.h — the C tests' assertions and how a test file names its cases.
 *
 * Every tests/c/test_NAME.c is one suite of named cases, run by one
 * runner (tests/c/runner.c, build/tests/c_tests): it ends with
 *
 *     TEST_SUITE(NAME, TEST(test_first), TEST(test_second), ...);
 *
 * NAME is the file's name without "test_" (build.sh finds the suite by
 * it), and each case is a void function of no arguments.  A case prints
 * the numbers it checks with say() (indented under its name), CHECK*
 * records a failure with file:line and what differed, and skip() (or
 * fixtures_missing()) says why a case could not run: a skip is listed at
 * the end, and under CI=true it is a failure.  `./build.sh test c` runs
 * every suite; `build/tests/c_tests ROOT chain dry` the suites or cases
 * whose names contain "chain" or "dry".
 */
#ifndef SP_CHECK_H
#define SP_CHECK_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the runner's side (runner.c) ---------------------------------------- */

typedef struct {
    const char *name; /* the function's name; "test_" is dropped in print */
    void (*run)(void);
} test_case;

typedef struct {
    const char *name; /* the file's name without test_ and .c */
    const test_case *cases;
    int n_cases;
} test_suite;

#define TEST(fn) {#fn, fn}
#define TEST_SUITE(suite, ...)                                              \
    static const test_case suite##_cases_[] = {__VA_ARGS__};                \
    const test_suite suite_##suite = {                                      \
        #suite, suite##_cases_,                                             \
        (int)(sizeof suite##_cases_ / sizeof suite##_cases_[0])}

/* The repository's root (the runner's argument): models/ and
 * ../shared/fixtures are found from it. */
extern const char *test_root;
/* Every check so far, and the failed ones (the runner reads them around
 * each case). */
extern int check_count, check_failures;

/* A line of the case's numbers, printed under its name. */
void say(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
/* The last line of a file with its own main(), not yet a suite (built and
 * run alone by build.sh, with runner_legacy.c): write it as a TEST_SUITE. */
#define CHECK_DONE()                                                        \
    do {                                                                    \
        fprintf(stderr, "%s: %d checks, %d failed\n", __FILE__,             \
                check_count, check_failures);                               \
        return check_failures ? 1 : 0;                                      \
    } while (0)

#endif
    ;
/* The case could not run, and why (listed at the end; a failure under
 * CI=true). */
void skip(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
/* The last line of a file with its own main(), not yet a suite (built and
 * run alone by build.sh, with runner_legacy.c): write it as a TEST_SUITE. */
#define CHECK_DONE()                                                        \
    do {                                                                    \
        fprintf(stderr, "%s: %d checks, %d failed\n", __FILE__,             \
                check_count, check_failures);                               \
        return check_failures ? 1 : 0;                                      \
    } while (0)

#endif
    ;

/* ---- the checks ------------------------------------------------------------ */

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
 * cannot find them: a skip (a failure under CI=true). */
static inline void fixtures_missing(const char *part) {
    skip("%s: ../shared/fixtures/llama2c not found", part);
}

/* The last line of a file with its own main(), not yet a suite (built and
 * run alone by build.sh, with runner_legacy.c): write it as a TEST_SUITE. */
#define CHECK_DONE()                                                        \
    do {                                                                    \
        fprintf(stderr, "%s: %d checks, %d failed\n", __FILE__,             \
                check_count, check_failures);                               \
        return check_failures ? 1 : 0;                                      \
    } while (0)

#endif
