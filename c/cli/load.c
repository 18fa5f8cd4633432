/*
 * load.c — files and models: --model NAME|PATH [--tokenizer PATH].
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_shared.h"

/* ------------------------------------------------------ files and models */

uint8_t *cli_read_file(const char *path, size_t *size) {
    char err[SP_ERR_LEN];
    uint8_t *data = sp_host_read_file(path, size, err);
    if (!data) cli_say_error(EXIT_BAD_FILE, "%s", err);
    return data;
}

void cli_unload(loaded *l) {
    sp_tokenizer_free(l->tokenizer);
    sp_model_free(l->model);
}

char *cli_dup_str(const char *s) {
    char *d = malloc(strlen(s) + 1);
    if (d) strcpy(d, s);
    return d;
}

char *cli_join_path(const char *dir, const char *name) {
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p) snprintf(p, n, "%s/%s", dir, name);
    return p;
}

/* --model NAME|PATH [--tokenizer PATH]: the shipped names resolve in the
 * models directory; a llama2.c checkpoint takes --tokenizer, else the
 * tokenizer.bin beside it.  need_tokenizer 0: the caller wants logits only. */
int cli_load_model(const char *name, const char *tokenizer_path,
                      int need_tokenizer, loaded *out) {
    memset(out, 0, sizeof *out);
    char *model_path = NULL, *tok_path = NULL;
    if (!strncmp(name, "logits:", 7) || !strncmp(name, "probs:", 6)) {
        char err[SP_ERR_LEN];
        out->model = sp_model_handmade(name, err);
        return out->model ? 0 : cli_say_error(EXIT_BAD_ARG, "--model: %s", err);
    }
    const sp_shipped *shipped = sp_manifest_find(name);
    if (shipped) { /* models/manifest.json: its file and tokenizer */
        model_path = cli_join_path(sp_host_models_dir(), shipped->file);
        if (!tokenizer_path && shipped->tokenizer[0])
            tok_path = cli_join_path(sp_host_models_dir(), shipped->tokenizer);
    } else {
        model_path = cli_dup_str(name);
    }
    if (tokenizer_path) tok_path = cli_dup_str(tokenizer_path);
    int status = 0;
    size_t size;
    char err[SP_ERR_LEN];
    uint8_t *data = model_path ? cli_read_file(model_path, &size) : NULL;
    if (!data) {
        status = EXIT_BAD_FILE;
        goto done;
    }
    out->model = sp_model_load(data, size, 1, err);
    if (!out->model) {
        status = cli_say_error(EXIT_BAD_FILE, "%s: %s", model_path, err);
        goto done;
    }
    if (sp_model_tokenizer(out->model) || !need_tokenizer) goto done;
    if (!tok_path) {
        /* the tokenizer.bin next to the checkpoint */
        const char *slash = strrchr(model_path, '/');
        size_t dir = slash ? (size_t)(slash - model_path) : 0;
        tok_path = malloc(dir + sizeof "/tokenizer.bin");
        if (tok_path) {
            memcpy(tok_path, model_path, dir);
            strcpy(tok_path + dir, dir ? "/tokenizer.bin" : "tokenizer.bin");
        }
    }
    uint8_t *tdata = tok_path ? cli_read_file(tok_path, &size) : NULL;
    if (!tdata) {
        status = cli_say_error(EXIT_BAD_FILE, "--tokenizer: give the model's "
                           "tokenizer.bin");
        goto done;
    }
    out->tokenizer =
        sp_tokenizer_load(tdata, size, sp_model_vocab(out->model), err);
    free(tdata);
    if (!out->tokenizer) status = cli_say_error(EXIT_BAD_FILE, "%s: %s", tok_path, err);
done:
    free(model_path);
    free(tok_path);
    if (status) {
        cli_unload(out);
        memset(out, 0, sizeof *out);
    }
    return status;
}
