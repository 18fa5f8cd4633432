/*
 * cmd_train.c — `sampler train`: a transformer trained on a text file (the
 * engine's trainer, sampler_train.h), its checkpoint and tokenizer written
 * as PREFIX.bin and PREFIX.tokenizer.bin (and a GGUF file on request).
 *
 * stdout, one JSON object per line: the plan ({"vocab", "params", ...}),
 * then each logged step ({"step", "loss", "lr", "grad_norm"}; step 1's
 * loss is the untrained model's, about ln vocab), then the end
 * ({"step", "heldout_loss", "bigram_heldout_loss"}).  Nothing in it
 * depends on the clock: the native and WASM command lines print the same
 * bytes and write the same files.  The files are written at the end, and
 * only when training succeeded (each through a temporary file the host
 * renames: a failed write never leaves half a file in place of a good
 * one).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_shared.h"

typedef struct {
    const char *text, *tokenizer, *out, *gguf, *grads;
    uint64_t seed;
    int log_every, eval_windows;
    sp_train_config c;
} train_request;

/* --preset first, wherever it stands, so that the options beside it
 * change what it set. */
static int read_preset(args *a, sp_train_config *c) {
    char err[SP_ERR_LEN];
    for (a->i = 2; a->i < a->argc; a->i++) {
        if (!cli_is_opt(a, "--preset")) continue;
        const char *v = cli_opt_value(a);
        if (!v) return cli_say_error(EXIT_BAD_ARG, "--preset needs a value");
        if (sp_train_preset(c, v, err) != SP_OK)
            return cli_say_error(EXIT_BAD_ARG, "--preset: %s", err + 7);
    }
    return 0;
}

/* A setting of the engine's table (sampler_train.h) at argv[i]: 1 read,
 * 0 none, -status after saying what is wrong. */
static int setting_option(args *a, sp_train_config *c) {
    for (int k = 0; k < sp_train_setting_count(); k++) {
        const sp_train_setting *s = sp_train_setting_at(k);
        char name[48];
        snprintf(name, sizeof name, "--%s", s->name);
        if (!cli_is_opt(a, name)) continue;
        const char *v = cli_opt_value(a);
        double x;
        char err[SP_ERR_LEN];
        if (!v) return -cli_say_error(EXIT_BAD_ARG, "%s needs a value", name);
        if (!cli_parse_double(v, &x))
            return -cli_say_error(EXIT_BAD_ARG, "%s: '%s' is not a number",
                                  name, v);
        if (sp_train_config_set(c, s->name, x, err) != SP_OK)
            return -cli_say_error(EXIT_BAD_ARG, "%s: %s", name, err + 7);
        return 1;
    }
    return 0;
}

static int read_request(args *a, train_request *r) {
    memset(r, 0, sizeof *r);
    sp_train_config_default(&r->c);
    r->seed = DEFAULT_SEED;
    r->log_every = 10;
    r->eval_windows = 64;
    const char *preset = NULL;
    const cli_opt opts[] = {
        {"--text", NULL, &r->text, NULL, NULL, NULL, NULL, 0},
        {"--tokenizer", NULL, &r->tokenizer, NULL, NULL, NULL, NULL, 0},
        {"-o", "--out", &r->out, NULL, NULL, NULL, NULL, 0},
        {"--gguf", NULL, &r->gguf, NULL, NULL, NULL, NULL, 0},
        {"--grads", NULL, &r->grads, NULL, NULL, NULL, NULL, 0},
        {"--preset", NULL, &preset, NULL, NULL, NULL, NULL, 0},
        {"--seed", NULL, NULL, NULL, &r->seed, cli_read_seed,
         "a seed (a whole number in 0..18446744073709551615)", 0},
        {"--log-every", NULL, NULL, NULL, &r->log_every, cli_read_int,
         "a whole number", 0},
        {"--eval-windows", NULL, NULL, NULL, &r->eval_windows, cli_read_int,
         "a whole number", 0},
        {NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0}};
    int status = read_preset(a, &r->c);
    if (status) return status;
    for (a->i = 2; a->i < a->argc; a->i++) {
        int got = setting_option(a, &r->c);
        if (got == 0) got = cli_table_option(a, opts);
        if (got < 0) return -got;
        if (got == 0)
            return cli_say_error(EXIT_BAD_ARG, "train: unknown option '%s' "
                                 "(see sampler --help)", a->argv[a->i]);
    }
    if (!r->text || !r->out)
        return cli_say_error(EXIT_BAD_ARG, "train: --text FILE and -o PREFIX "
                             "are required");
    if (r->log_every < 1 || r->eval_windows < 0)
        return cli_say_error(EXIT_BAD_ARG, "train: --log-every must be >= 1 "
                             "and --eval-windows >= 0");
    char err[SP_ERR_LEN];
    if (sp_train_config_check(&r->c, err) != SP_OK)
        return cli_say_error(EXIT_BAD_ARG, "%s", err);
    return 0;
}

static void put_plan(const sp_train_plan *p) {
    sp_buf b;
    sp_buf_init(&b);
    sp_buf_printf(&b, "{\"vocab\":%d,\"params\":%.0f,\"documents\":%d,"
                  "\"heldout_documents\":%d,\"train_tokens\":%.0f,"
                  "\"heldout_tokens\":%.0f,\"tokens_per_step\":%.0f,"
                  "\"flops_per_step\":%.0f,\"bytes\":%.0f}\n", p->vocab,
                  p->params, p->documents, p->heldout_documents,
                  p->train_tokens, p->heldout_tokens, p->tokens_per_step,
                  p->flops_per_step, p->bytes);
    cli_out_buf(&b, 1);
    sp_buf_free(&b);
}

static void put_step(const sp_train *t, int step) {
    sp_buf b;
    sp_buf_init(&b);
    sp_buf_printf(&b, "{\"step\":%d,\"loss\":", step);
    sp_buf_num(&b, sp_train_losses(t)[step - 1]);
    sp_buf_puts(&b, ",\"lr\":");
    sp_buf_num(&b, sp_train_lr_at(t, step - 1));
    sp_buf_puts(&b, ",\"grad_norm\":");
    sp_buf_num(&b, sp_train_grad_norms(t)[step - 1]);
    sp_buf_puts(&b, "}\n");
    cli_out_buf(&b, 1);
    sp_buf_free(&b);
}

/* Writes bytes (malloc'd, freed here) to path; 0 or the exit status. */
static int write_out(const char *path, uint8_t *bytes, size_t size,
                     const char *err_made) {
    char err[SP_ERR_LEN];
    if (!bytes) return cli_say_error(EXIT_BAD_FILE, "%s", err_made);
    int rc = sp_host_write_file(path, bytes, size, err);
    free(bytes);
    if (rc != 0) return cli_say_error(EXIT_BAD_FILE, "%s", err);
    return 0;
}

/* The files of the trained model: PREFIX.bin, PREFIX.tokenizer.bin, the
 * GGUF and the gradients when asked. */
static int write_files(const train_request *r, const sp_train *t) {
    char err[SP_ERR_LEN] = "";
    size_t n = strlen(r->out) + 16, size;
    char *path = malloc(n);
    if (!path) return cli_say_error(EXIT_BAD_FILE, "out of memory");
    snprintf(path, n, "%s.bin", r->out);
    uint8_t *bytes = sp_train_checkpoint(t, &size, err);
    int status = write_out(path, bytes, size, err);
    snprintf(path, n, "%s.tokenizer.bin", r->out);
    if (!status) {
        bytes = sp_train_tokenizer_file(t, &size, err);
        status = write_out(path, bytes, size, err);
    }
    if (!status && r->gguf) {
        bytes = sp_train_gguf(t, &size, err);
        status = write_out(r->gguf, bytes, size, err);
    }
    if (!status && r->grads) {
        const float *g = sp_train_gradients(t, &size);
        if (!g) {
            status = cli_say_error(EXIT_BAD_ARG, "--grads: no step was "
                                   "trained (--steps 0)");
        } else {
            bytes = malloc(4 * size);
            if (bytes) memcpy(bytes, g, 4 * size);
            status = write_out(r->grads, bytes, 4 * size, "out of memory");
        }
    }
    free(path);
    return status;
}

int cli_cmd_train(args *a) {
    train_request r;
    int status = read_request(a, &r);
    if (status) return status;
    size_t text_size, tok_size = 0;
    uint8_t *text = cli_read_file(r.text, &text_size), *tok = NULL;
    if (!text) return EXIT_BAD_FILE;
    if (r.tokenizer && !(tok = cli_read_file(r.tokenizer, &tok_size))) {
        free(text);
        return EXIT_BAD_FILE;
    }
    char err[SP_ERR_LEN];
    sp_train *t = sp_train_new(text, text_size, tok, tok_size, &r.c, r.seed,
                               err);
    free(text);
    free(tok);
    if (!t) {
        int code = sp_error_code(-1, err);
        return cli_say_error(sp_error_class(code) == SP_ERR_ARG ? EXIT_BAD_ARG
                             : EXIT_BAD_FILE, "%s: %s", r.text, err);
    }
    put_plan(sp_train_get_plan(t));
    for (int step = 1; step <= r.c.steps && !status; step++) {
        int done;
        if (sp_train_run(t, 1, 0, &done, err) != SP_OK)
            status = cli_say_error(EXIT_BAD_FILE, "%s (nothing written)", err);
        else if (step == 1 || step % r.log_every == 0 || step == r.c.steps)
            put_step(t, step);
    }
    if (!status) {
        double held, bigram;
        sp_buf b;
        sp_buf_init(&b);
        sp_buf_printf(&b, "{\"step\":%d,\"heldout_loss\":", r.c.steps);
        if (sp_train_eval(t, r.eval_windows, &held, &bigram, err) == SP_OK) {
            sp_buf_num(&b, held);
            sp_buf_puts(&b, ",\"bigram_heldout_loss\":");
            sp_buf_num(&b, bigram);
        } else {
            sp_buf_puts(&b, "null,\"bigram_heldout_loss\":null");
        }
        sp_buf_puts(&b, "}\n");
        cli_out_buf(&b, 1);
        sp_buf_free(&b);
        status = write_files(&r, t);
    }
    if (!status) {
        sp_buf b;
        sp_buf_init(&b);
        sp_buf_printf(&b, "train: wrote %s.bin and %s.tokenizer.bin (%.0f "
                      "weights, vocab %d)\n", r.out, r.out,
                      sp_train_get_plan(t)->params,
                      sp_train_get_plan(t)->vocab);
        cli_out_buf(&b, 2);
        sp_buf_free(&b);
    }
    sp_train_free(t);
    return status;
}

void cli_put_train_help(sp_buf *b) {
    sp_buf_puts(b, "TRAIN OPTIONS (sampler train; the engine's settings):\n");
    for (int k = 0; k < sp_train_setting_count(); k++) {
        const sp_train_setting *s = sp_train_setting_at(k);
        char opt[64];
        snprintf(opt, sizeof opt, "--%s %s", s->name, s->is_int ? "N" : "X");
        sp_buf_printf(b, "  %-23s %s (default %g)\n", opt, s->doc, s->def);
    }
    sp_buf_puts(b, "  --preset NAME           ");
    for (int i = 0; sp_train_preset_name(i); i++)
        sp_buf_printf(b, "%s%s: %s", i ? ";\n                          " : "",
                      sp_train_preset_name(i), sp_train_preset_doc(i));
    sp_buf_puts(b, "\n");
}
