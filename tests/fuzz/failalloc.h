/*
 * failalloc.h — allocation-failure injection for fuzz_oom: tests/fuzz/run.sh
 * compiles the engine with -include failalloc.h, so that every malloc,
 * calloc and realloc in it goes through a counter and the n-th one can be
 * made to fail (return NULL).  fz_fail_at = 0: none fails.
 */
#ifndef SP_FAILALLOC_H
#define SP_FAILALLOC_H

/* stddef.h only: a libc header here would come before the source's own
 * feature macros (_DEFAULT_SOURCE); <stdlib.h>'s declarations of malloc,
 * calloc and realloc, seen later through the macros, declare the fz_
 * functions again, compatibly */
#include <stddef.h>

extern unsigned long fz_alloc_count; /* allocations so far */
extern unsigned long fz_fail_at;     /* the one that fails, 1-based; 0 none */
extern unsigned long fz_failed;      /* how many were made to fail */

void *fz_malloc(size_t n);
void *fz_calloc(size_t n, size_t size);
void *fz_realloc(void *p, size_t n);

#define malloc(n) fz_malloc(n)
#define calloc(n, s) fz_calloc(n, s)
#define realloc(p, n) fz_realloc(p, n)

#endif
