/*
 * fuzz_generate.c — sessions driven by the input: a tiny model built from
 * its first bytes (a llama2.c checkpoint of up to 2 layers, or a bigram),
 * its weights and the tokenizer's scores from the bytes after, then a
 * sequence of operations (start with a prompt and seed, step with one of a
 * few parameter sets and maybe a forced token, preview, rewind anywhere,
 * switch the raw distribution off) until the input runs out.
 *
 * Whatever the operations, a session never crashes, never writes past its
 * context, never returns a token outside the vocabulary, and every error is
 * a proper one-line message.
 */
#include <float.h>
#include <limits.h>

#include "build_files.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct {
    const uint8_t *data;
    size_t size, at;
} reader;

static int next(reader *r) {
    return r->at < r->size ? r->data[r->at++] : -1;
}

static void params_from(int b, sp_params *p, int vocab) {
    sp_params_default(p);
    switch (b % 12) {
    case 0: break;
    case 1: p->temperature = 0.0f; break;
    case 2: p->top_k = 2; p->temperature = 0.7f; break;
    case 3: p->top_p = 0.5f; break;
    case 4: p->min_p = 0.3f; p->typical_p = 0.6f; break;
    case 5: p->repetition_penalty = 1.8f; p->penalty_last_n = 2; break;
    case 6: p->frequency_penalty = 2.0f; p->presence_penalty = -1.0f; break;
    case 7: p->temperature = 1e-30f; break;
    case 8: p->temperature = 1e30f; p->top_k = INT_MAX; break;
    case 9: /* every token banned */
        for (int i = 0; i < vocab && i < SP_MAX_BIAS; i++)
            p->bias[p->n_bias++] = (sp_bias){i, -INFINITY};
        break;
    case 10: /* the specials banned, one token pushed */
        p->bias[p->n_bias++] = (sp_bias){1 % vocab, -INFINITY};
        p->bias[p->n_bias++] = (sp_bias){2 % vocab, -INFINITY};
        p->bias[p->n_bias++] = (sp_bias){(b / 12) % vocab, FLT_MAX};
        break;
    case 11: p->top_p = NAN; break; /* refused */
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    reader r = {data, size, 0};
    int kind = next(&r);
    if (kind < 0) return 0;
    bb_bytes file = {0}, tokfile = {0};
    sp_tokenizer *tok = NULL;
    char err[SP_ERR_LEN];
    /* the weights: bytes after the description, as int8 / 128 x scale */
    static const float scales[8] = {0.01f, 0.3f, 1.0f, 3.0f,
                                    100.0f, 1e10f, 1e19f, 3e38f};
    if (kind % 2 == 0) {
        int a = next(&r), b = next(&r), c = next(&r), d = next(&r);
        if (d < 0) return 0;
        bb_config cfg;
        cfg.n_heads = 1 + a % 2;
        cfg.n_kv_heads = (a >> 1) % 2 ? cfg.n_heads : 1;
        cfg.dim = cfg.n_heads * 2 * (1 + (a >> 2) % 2);
        cfg.hidden_dim = 1 + b % 8;
        cfg.n_layers = 1 + (b >> 3) % 2;
        cfg.seq_len = 1 + c % 12;
        cfg.vocab_size = (c >> 4) % 2 ? -BB_TINY_VOCAB : BB_TINY_VOCAB;
        float scale = scales[d % 8];
        size_t wbytes = r.size - r.at < 64 ? r.size - r.at : 64;
        const uint8_t *w = data + r.at;
        r.at += wbytes;
        bb_put(&file, &cfg, sizeof cfg);
        uint64_t n = bb_checkpoint_floats(cfg);
        for (uint64_t i = 0; i < n; i++) {
            float x = wbytes ? (float)(int8_t)w[i % wbytes] / 128.0f * scale
                             : 0.0f;
            bb_f32(&file, x);
        }
        /* the tokenizer: the tiny one, with scores from the input */
        float scores[BB_TINY_VOCAB];
        for (int i = 0; i < BB_TINY_VOCAB; i++) {
            int s = next(&r);
            scores[i] = s < 0 ? BB_TINY_SCORES[i] : (float)(s - 128) / 16.0f;
        }
        bb_tokenizer(&tokfile, 6, BB_TINY_VOCAB, BB_TINY_PIECES, scores);
        tok = sp_tokenizer_load(tokfile.data, tokfile.len, 0, err);
        FZ_ASSERT(tok != NULL);
    } else {
        int a = next(&r);
        if (a < 0) return 0;
        uint32_t vocab = 2 + (uint32_t)a % (BB_SMALL_BIGRAM_VOCAB - 1);
        uint32_t boundary = (uint32_t)(a >> 4) % vocab;
        bb_bigram(&file, vocab, boundary, BB_SMALL_BIGRAM_PIECES, 1);
        /* logits from the input: row-major, as int8 / 8 */
        size_t first = file.len - 4 * (size_t)vocab * vocab;
        for (size_t i = 0; i < (size_t)vocab * vocab; i++) {
            int v = next(&r);
            if (v < 0) break;
            float x = (float)(int8_t)v / 8.0f;
            memcpy(file.data + first + 4 * i, &x, 4);
        }
    }
    err[0] = '\0';
    sp_model *m = sp_model_load(bb_copy(&file), file.len, 1, err);
    bb_free(&file);
    bb_free(&tokfile);
    if (!m) { /* only a non-finite weight scale can do that */
        fz_check_error(err);
        sp_tokenizer_free(tok);
        return 0;
    }
    sp_session *s = sp_session_new(m, tok, err);
    FZ_ASSERT(s != NULL);
    int vocab = sp_model_vocab(m), seq_len = sp_model_seq_len(m);
    const sp_tokenizer *t = sp_session_tokenizer(s);
    sp_params p;
    int op, started = 0;
    while ((op = next(&r)) >= 0) {
        int rc = SP_OK;
        switch (op % 8) {
        case 0: { /* start: prompt of up to 15 bytes, then an 8-byte seed */
            char prompt[16];
            int len = op / 8 % 16, i;
            for (i = 0; i < len; i++) {
                int ch = next(&r);
                if (ch < 0) break;
                prompt[i] = (char)ch;
            }
            prompt[i] = '\0';
            uint64_t seed = 0;
            for (int k = 0; k < 8; k++) seed = seed << 8 | (uint64_t)(next(&r) & 255);
            rc = sp_session_start(s, prompt, seed, err);
            started = rc == SP_OK;
            if (started) {
                FZ_ASSERT(sp_session_n_prompt(s) >= 1);
                FZ_ASSERT(seq_len == 0 || sp_session_n_tokens(s) < seq_len);
            }
            break;
        }
        case 1: case 2: case 3: { /* steps */
            params_from(next(&r) & 255, &p, vocab);
            int force = op / 8 % 4 == 0 ? (next(&r) & 255) % (vocab + 2) - 1
                                        : -1;
            int before = sp_session_n_tokens(s);
            rc = sp_session_step(s, &p, force, err);
            if (rc == SP_OK) {
                const sp_step *st = sp_session_last_step(s);
                fz_check_step(st);
                int n = sp_session_n_tokens(s);
                FZ_ASSERT(n == before + 1);
                const int *tokens = sp_session_tokens(s);
                FZ_ASSERT(tokens[n - 1] >= 0 && tokens[n - 1] < vocab);
                if (force >= 0) FZ_ASSERT(tokens[n - 1] == force);
                int len;
                const char *piece = sp_decode(t, tokens[n - 2], tokens[n - 1], &len);
                FZ_ASSERT(piece && len >= 0);
            } else {
                FZ_ASSERT(sp_session_n_tokens(s) == before);
            }
            break;
        }
        case 4: /* preview */
            params_from(next(&r) & 255, &p, vocab);
            rc = sp_session_preview(s, &p, err);
            if (rc == SP_OK) fz_check_step(sp_session_last_step(s));
            break;
        case 5: { /* rewind, in range or not */
            int gen = sp_session_n_generated(s);
            int n = (next(&r) & 255) - 8;
            rc = sp_session_rewind(s, n, err);
            if (rc == SP_OK) {
                FZ_ASSERT(n >= 0 && n <= gen);
                FZ_ASSERT(sp_session_n_generated(s) == n);
            } else if (started) {
                FZ_ASSERT(rc != SP_ERR_ARG || n < 0 || n > gen);
            }
            break;
        }
        case 6: /* many greedy-ish steps: run into the end of the context */
            params_from(op / 8, &p, vocab);
            for (int i = 0; i < 16 && rc == SP_OK; i++)
                rc = sp_session_step(s, &p, -1, err);
            break;
        case 7:
            sp_sampler_set_raw(sp_session_sampler(s), op / 8 % 2);
            break;
        }
        if (rc != SP_OK) fz_check_error(err);
        FZ_ASSERT(seq_len == 0 || sp_session_n_tokens(s) <= seq_len);
    }
    sp_session_free(s);
    sp_model_free(m);
    sp_tokenizer_free(tok);
    return 0;
}
