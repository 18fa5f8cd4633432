/*
 * fuzz_oom.c — allocation failures: the engine is built with failalloc.h,
 * and the input picks which allocation fails (any one of them), what runs
 * (a loader, a session, the warp request parser and pipeline) and the bytes
 * it runs on.  On every error path the engine must report out of memory
 * (or whatever it found first) in one line, free everything it allocated
 * (LeakSanitizer checks each input) and never touch a NULL.
 *
 * Before fuzzing, LLVMFuzzerInitialize sweeps every allocation of each
 * scenario on a valid input, one failure at a time, and runs a leak check.
 *
 * Input: [fail-at, 2 bytes LE][scenario][payload]
 */
#include <sanitizer/lsan_interface.h>

/* this file's own allocations (and the file builders') never fail */
#undef malloc
#undef calloc
#undef realloc

#include "build_files.h"
#include "fuzz_common.h"
#include "warp_request.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

unsigned long fz_alloc_count, fz_fail_at, fz_failed;

static int fail_now(void) {
    if (++fz_alloc_count == fz_fail_at) {
        fz_failed++;
        return 1;
    }
    return 0;
}
void *fz_malloc(size_t n) { return fail_now() ? NULL : malloc(n); }
void *fz_calloc(size_t n, size_t s) { return fail_now() ? NULL : calloc(n, s); }
void *fz_realloc(void *p, size_t n) { return fail_now() ? NULL : realloc(p, n); }

enum { S_MODEL, S_TOKENIZER, S_SESSION, S_WARP, S_COUNT };

/* the valid inputs of the sweep */
static bb_bytes tiny_model, tiny_tok, small_bigram;
static const char tiny_request[] =
    "{\"logits\": [1, 2, \"-inf\", 0.5, 3, -1, 2, 2, 0, 1], "
    "\"history\": [0, 1, 1, 4, 9]}";

/* Runs scenario sc on payload (or the valid default when it is empty). */
static void run(int sc, const uint8_t *payload, size_t n) {
    char err[SP_ERR_LEN];
    err[0] = '\0';
    switch (sc) {
    case S_MODEL: {
        const bb_bytes *def = n && payload[0] % 2 ? &small_bigram : &tiny_model;
        if (n <= 1) {
            payload = def->data;
            n = def->len;
        }
        uint8_t *copy = malloc(n);
        if (!copy) return;
        memcpy(copy, payload, n);
        sp_model *m = sp_model_load(copy, n, 1, err);
        if (!m) {
            fz_check_error(err);
            return;
        }
        sp_state *st = sp_state_new(m);
        if (st) FZ_ASSERT(sp_forward(m, st, 0, 0) != NULL);
        sp_state_free(st);
        if (sp_model_tokenizer(m)) fz_generate(m, NULL, "ab", 1, 4);
        sp_model_free(m);
        break;
    }
    case S_TOKENIZER: {
        if (n == 0) {
            payload = tiny_tok.data;
            n = tiny_tok.len;
        }
        sp_tokenizer *t = sp_tokenizer_load(payload, n, 0, err);
        if (!t) {
            fz_check_error(err);
            return;
        }
        int ids[64];
        int k = sp_encode(t, "abcab\n\xff\xfe", 1, 1, ids, 64, err);
        if (k < 0) fz_check_error(err);
        sp_tokenizer_free(t);
        break;
    }
    case S_SESSION: { /* the tiny model and tokenizer, a generation */
        sp_model *m = sp_model_load(bb_copy(&tiny_model), tiny_model.len, 1,
                                    err);
        sp_tokenizer *t = sp_tokenizer_load(tiny_tok.data, tiny_tok.len, 0,
                                            err);
        char prompt[16] = "ab";
        if (n > 0) {
            size_t k = n < 15 ? n : 15;
            memcpy(prompt, payload, k);
            prompt[k] = '\0';
        }
        if (m && t) fz_generate(m, t, prompt, 7, 6);
        else fz_check_error(err);
        sp_tokenizer_free(t);
        sp_model_free(m);
        break;
    }
    case S_WARP: {
        const char *text = n ? (const char *)payload : tiny_request;
        size_t len = n ? n : strlen(tiny_request);
        float *logits = NULL;
        int *history = NULL, nl = 0, nh = 0;
        sp_params rp;
        sp_params_default(&rp);
        if (sp_parse_warp_request(text, len, &logits, &nl, &history, &nh, &rp,
                                  err) != SP_OK) {
            fz_check_error(err);
            return;
        }
        sp_sampler *s = sp_sampler_new(nl);
        if (s) {
            sp_params p;
            sp_params_default(&p);
            p.repetition_penalty = 1.2f;
            p.top_p = 0.8f;
            sp_step st;
            if (sp_sampler_warp(s, logits, history, nh, &p, &st, err) == SP_OK)
                fz_check_step(&st);
            else
                fz_check_error(err);
            sp_sampler_free(s);
        }
        free(logits);
        free(history);
        break;
    }
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    bb_checkpoint(&tiny_model, BB_TINY, 1, 0.5f);
    bb_tiny_tokenizer(&tiny_tok);
    bb_bigram(&small_bigram, BB_SMALL_BIGRAM_VOCAB, 0, BB_SMALL_BIGRAM_PIECES,
              3);
    /* the sweep: each scenario, each of its allocations failing in turn */
    unsigned long total = 0;
    for (int sc = 0; sc < S_COUNT; sc++) {
        for (int variant = 0; variant < 2; variant++) {
            uint8_t which = (uint8_t)variant;
            for (unsigned long k = 1;; k++) {
                fz_alloc_count = 0;
                fz_fail_at = k;
                fz_failed = 0;
                run(sc, &which, sc == S_MODEL ? 1 : 0);
                fz_fail_at = 0;
                if (!fz_failed) break; /* ran to the end without failing */
                total++;
            }
            if (sc != S_MODEL) break;
        }
    }
    if (__lsan_do_recoverable_leak_check()) {
        fprintf(stderr, "fuzz_oom: the allocation-failure sweep leaked\n");
        abort();
    }
    fprintf(stderr, "fuzz_oom: swept %lu allocation failures, no leak\n",
            total);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 3) return 0;
    fz_alloc_count = 0;
    fz_failed = 0;
    fz_fail_at = (unsigned long)(data[0] | data[1] << 8);
    run(data[2] % S_COUNT, data + 3, size - 3);
    fz_fail_at = 0;
    return 0;
}
