/*
 * runner.c — the C tests' one runner: every suite (a tests/c/test_*.c and
 * its TEST_SUITE; check.h says how a file names its cases), linked once
 * with the engine, each case run by name with its numbers and checks
 * printed as it goes.
 *
 *   build/tests/c_tests [-j N] [-l] ROOT [PATTERN ...]
 *
 * ROOT is the repository (models/ and ../shared/fixtures are found from
 * it); a PATTERN picks the suites or cases whose "suite.case" name holds
 * it (none: all).  -l lists the cases.  Each suite runs in a child process
 * of its own, N at a time (-j, else $TEST_JOBS, else 2: the machine's two
 * cores), so a crash or a sanitizer's report names its suite; the outputs
 * are printed in the suites' order.  -j 1 runs everything in this process
 * (for a debugger).  Exit status: 0 when every check passed and nothing
 * was skipped under CI=true.
 *
 * The suites' table (build/tests/suites.c) is written by build.sh from the
 * files' names: test_NAME.c holds suite_NAME.
 */
#define _DEFAULT_SOURCE /* fork, wait, strcasecmp */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

extern const test_suite *const test_suites[]; /* build/tests/suites.c */

const char *test_root = ".";
int check_count = 0, check_failures = 0;

static int case_skipped = 0;  /* the running case called skip() */
static char skip_notes[4096]; /* "suite.case: why" lines, for the end */
static const char *running_suite = "", *running_case = "";

static const char *short_name(const char *fn) {
    return strncmp(fn, "test_", 5) ? fn : fn + 5;
}

void say(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("      ", stdout);
    vprintf(fmt, ap);
    fputs("\n", stdout);
    va_end(ap);
    fflush(stdout);
}

void skip(const char *fmt, ...) {
    char why[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    case_skipped = 1;
    printf("      skipped: %s\n", why);
    size_t used = strlen(skip_notes);
    snprintf(skip_notes + used, sizeof skip_notes - used, "  %s.%s: %s\n",
             running_suite, short_name(running_case), why);
}

static int in_ci(void) {
    const char *ci = getenv("CI");
    if (!ci) return 0;
    return !strcmp(ci, "1") || !strcasecmp(ci, "true") || !strcasecmp(ci, "yes");
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* Whether "suite.case" is wanted: no pattern, or one it holds. */
static int wanted(const char *suite, const char *fn, char **pats, int n) {
    if (n == 0) return 1;
    char full[256];
    snprintf(full, sizeof full, "%s.%s", suite, short_name(fn));
    for (int i = 0; i < n; i++)
        if (strstr(full, pats[i])) return 1;
    return 0;
}

/* What a suite's run adds up to (a child reports it in its last line). */
typedef struct {
    int cases, checks, failed_cases, failures, skipped;
} totals;

/* Runs the wanted cases of one suite here, printing as it goes. */
static totals run_suite(const test_suite *s, char **pats, int n_pats) {
    totals t = {0, 0, 0, 0, 0};
    running_suite = s->name;
    printf("== %s\n", s->name);
    fflush(stdout);
    for (int i = 0; i < s->n_cases; i++) {
        const test_case *c = &s->cases[i];
        if (!wanted(s->name, c->name, pats, n_pats)) continue;
        running_case = c->name;
        int before = check_count, failed_before = check_failures;
        case_skipped = 0;
        double t0 = now_ms();
        c->run();
        fflush(stderr);
        double ms = now_ms() - t0;
        int checks = check_count - before;
        int failures = check_failures - failed_before;
        t.cases++;
        t.checks += checks;
        t.failures += failures;
        t.failed_cases += failures > 0;
        t.skipped += case_skipped;
        printf("  %-7s %-32s %6d checks %8.0f ms\n",
               failures ? "FAILED" : case_skipped ? "skipped" : "ok",
               short_name(c->name), checks, ms);
        fflush(stdout);
    }
    return t;
}

static void add(totals *sum, const totals *t) {
    sum->cases += t->cases;
    sum->checks += t->checks;
    sum->failed_cases += t->failed_cases;
    sum->failures += t->failures;
    sum->skipped += t->skipped;
}

/* A suite in a child process: its output in a temporary file, its totals
 * in the file's last line. */
typedef struct {
    pid_t pid;
    FILE *out;
    int done, status;
} child;

static void start_child(child *ch, const test_suite *s, char **pats, int n) {
    fflush(stdout);
    fflush(stderr);
    ch->out = tmpfile();
    ch->done = 0;
    if (!ch->out) {
        perror("tmpfile");
        exit(2);
    }
    ch->pid = fork();
    if (ch->pid < 0) {
        perror("fork");
        exit(2);
    }
    if (ch->pid == 0) {
        skip_notes[0] = '\0'; /* (the parent's: printed by the parent) */
        int fd = fileno(ch->out);
        dup2(fd, 1);
        dup2(fd, 2);
        setvbuf(stdout, NULL, _IOLBF, 0);
        totals t = run_suite(s, pats, n);
        printf("@@totals %d %d %d %d %d\n", t.cases, t.checks,
               t.failed_cases, t.failures, t.skipped);
        fputs(skip_notes, stdout);
        fflush(stdout);
        exit(t.failures ? 1 : 0); /* (ASan's leak check runs here) */
    }
}

/* Prints a finished child's output (but its totals) and adds them up;
 * the skip notes it sent go to the end's list. */
static int finish_child(child *ch, const char *suite, totals *sum) {
    int failed = 0, got_totals = 0;
    char line[8192];
    rewind(ch->out);
    while (fgets(line, sizeof line, ch->out)) {
        totals t;
        if (sscanf(line, "@@totals %d %d %d %d %d", &t.cases, &t.checks,
                   &t.failed_cases, &t.failures, &t.skipped) == 5) {
            add(sum, &t);
            got_totals = 1;
            continue;
        }
        if (got_totals) { /* the skip notes */
            size_t used = strlen(skip_notes), n = strlen(line);
            if (used + n < sizeof skip_notes) memcpy(skip_notes + used, line, n + 1);
            continue;
        }
        fputs(line, stdout);
    }
    fclose(ch->out);
    int st = ch->status;
    if (!got_totals || !WIFEXITED(st) || WEXITSTATUS(st) > 1) {
        if (WIFSIGNALED(st))
            printf("FAILED: suite %s died of signal %d\n", suite, WTERMSIG(st));
        else
            printf("FAILED: suite %s exited with %d (a sanitizer's report is "
                   "above)\n", suite, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
        failed = 1;
        sum->failed_cases++;
    }
    fflush(stdout);
    return failed;
}

int main(int argc, char **argv) {
    int jobs = getenv("TEST_JOBS") ? atoi(getenv("TEST_JOBS")) : 2, list = 0;
    char *pats[64];
    int n_pats = 0, have_root = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-j") && i + 1 < argc) jobs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-l")) list = 1;
        else if (!have_root) test_root = argv[i], have_root = 1;
        else if (n_pats < 64) pats[n_pats++] = argv[i];
    }
    if (jobs < 1) jobs = 1;
    int n_suites = 0;
    while (test_suites[n_suites]) n_suites++;
    if (list) {
        for (int i = 0; i < n_suites; i++)
            for (int k = 0; k < test_suites[i]->n_cases; k++)
                if (wanted(test_suites[i]->name, test_suites[i]->cases[k].name,
                           pats, n_pats))
                    printf("%s.%s\n", test_suites[i]->name,
                           short_name(test_suites[i]->cases[k].name));
        return 0;
    }
    /* the suites with a wanted case */
    const test_suite *run[512];
    int n_run = 0;
    for (int i = 0; i < n_suites && n_run < 512; i++)
        for (int k = 0; k < test_suites[i]->n_cases; k++)
            if (wanted(test_suites[i]->name, test_suites[i]->cases[k].name,
                       pats, n_pats)) {
                run[n_run++] = test_suites[i];
                break;
            }
    totals sum = {0, 0, 0, 0, 0};
    double t0 = now_ms();
    int crashed = 0;
    if (jobs == 1) {
        for (int i = 0; i < n_run; i++) {
            totals t = run_suite(run[i], pats, n_pats);
            add(&sum, &t);
        }
    } else {
        child *kids = calloc((size_t)n_run + 1, sizeof *kids);
        int next = 0, printed = 0, running = 0;
        while (printed < n_run) {
            while (running < jobs && next < n_run)
                start_child(&kids[next], run[next], pats, n_pats), next++,
                    running++;
            int st;
            pid_t pid = wait(&st);
            if (pid < 0 && errno == EINTR) continue;
            if (pid < 0) break;
            for (int i = 0; i < next; i++)
                if (kids[i].pid == pid && !kids[i].done) {
                    kids[i].done = 1;
                    kids[i].status = st;
                    running--;
                }
            while (printed < next && kids[printed].done) {
                crashed |= finish_child(&kids[printed], run[printed]->name, &sum);
                printed++;
            }
        }
        free(kids);
    }
    int ci = in_ci();
    printf("\n%d suites, %d cases, %d checks: %d failed (%d cases), %d "
           "skipped; %.1f s\n", n_run, sum.cases, sum.checks, sum.failures,
           sum.failed_cases, sum.skipped, (now_ms() - t0) / 1e3);
    if (sum.skipped)
        printf("skipped%s:\n%s", ci ? " (a failure: CI is set)" : "",
               skip_notes);
    return sum.failures || crashed || (ci && sum.skipped) ? 1 : 0;
}
