/*
 * cmd_detect.c — `sampler detect`: is a text watermarked with this key?
 * (Kirchenbauer et al. 2023; the engine's sp_watermark_detect.)  The text
 * is tokenized by the model's tokenizer, each token judged green or red by
 * the green list of the token before it, and the count's z-score printed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_shared.h"

/* "prompt" + "text", NUL-terminated (malloc'd), or NULL */
static char *joined(const char *prompt, const uint8_t *text, size_t n) {
    size_t np = strlen(prompt);
    char *s = malloc(np + n + 1);
    if (!s) return NULL;
    memcpy(s, prompt, np);
    memcpy(s + np, text, n);
    s[np + n] = '\0';
    return s;
}

/* the ids of text as a session's prompt would be (BOS when the model's
 * texts begin with it), malloc'd into *ids; the count or -1 */
static int encode(const sp_tokenizer *tok, const char *text, int **ids,
                  char *err) {
    int max_ids = sp_encode_bound(tok, strlen(text));
    *ids = malloc(sizeof(int) * (size_t)(max_ids > 0 ? max_ids : 1));
    if (!*ids) {
        snprintf(err, SP_ERR_LEN, "out of memory");
        return -1;
    }
    return sp_encode(tok, text, 1, 0, *ids, max_ids, err);
}

int cli_cmd_detect(args *a) {
    const char *model = NULL, *tok_path = NULL, *text_path = NULL;
    const char *prompt = "";
    sp_params p;
    sp_params_default(&p);
    const cli_opt opts[] = {
        {"--model", NULL, &model, NULL, NULL, NULL, NULL, 0},
        {"--tokenizer", NULL, &tok_path, NULL, NULL, NULL, NULL, 0},
        {"--text", NULL, &text_path, NULL, NULL, NULL, NULL, 0},
        {"--prompt", NULL, &prompt, NULL, NULL, NULL, NULL, 0},
        {NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0}};
    for (a->i = 2; a->i < a->argc; a->i++) {
        /* of the sampler's options, the watermark's alone */
        int r = strncmp(a->argv[a->i], "--watermark-", 12)
                    ? 0 : cli_sampler_option(a, &p, NULL);
        if (r == 0) r = cli_table_option(a, opts);
        if (r < 0) return -r;
        if (r == 0)
            return cli_say_error(EXIT_BAD_ARG, "detect: unknown option '%s' "
                                 "(see sampler --help)", a->argv[a->i]);
    }
    if (!model || !text_path)
        return cli_say_error(EXIT_BAD_ARG, "detect: --model and --text FILE "
                             "are required");
    if (p.watermark_delta != 0.0f)
        return cli_say_error(EXIT_BAD_ARG, "detect: --watermark-delta is the "
                             "generator's; the detector needs only "
                             "--watermark-gamma and --watermark-key");
    if (cli_check_params(&p, 0)) return EXIT_BAD_ARG;
    size_t size;
    uint8_t *text = cli_read_file(text_path, &size);
    if (!text) return EXIT_BAD_FILE;
    if (memchr(text, '\0', size)) {
        free(text);
        return cli_say_error(EXIT_BAD_FILE, "%s: a NUL byte: not a text",
                             text_path);
    }
    loaded l;
    int status = cli_load_model(model, tok_path, 1, &l);
    if (status) {
        free(text);
        return status;
    }
    const sp_tokenizer *tok =
        l.tokenizer ? l.tokenizer : sp_model_tokenizer(l.model);
    char err[SP_ERR_LEN];
    int *ids = NULL, *context = NULL;
    int8_t *per = NULL;
    char *all = joined(prompt, text, size);
    /* the prompt's tokens are context: a generation's first token was
     * chosen after the prompt's last one */
    int n_ctx = all ? encode(tok, prompt, &context, err) : -1;
    int n = n_ctx >= 0 ? encode(tok, all, &ids, err) : -1;
    if (!all) snprintf(err, sizeof err, "out of memory");
    sp_watermark_score sc;
    if (n < 0) {
        status = cli_say_error(EXIT_BAD_ARG, "detect: %s", err);
        goto done;
    }
    per = malloc((size_t)(n > 0 ? n : 1));
    int rc = per ? sp_watermark_detect(sp_model_vocab(l.model),
                                       p.watermark_gamma, p.watermark_key,
                                       ids, n, n_ctx, per, NULL, &sc, err)
                 : SP_ERR_NOMEM;
    if (rc != SP_OK) {
        status = cli_say_error(rc == SP_ERR_ARG ? EXIT_BAD_ARG : EXIT_BAD_FILE,
                               "detect: %s", per ? err : "out of memory");
        goto done;
    }
    sp_buf b;
    sp_buf_init(&b);
    sp_buf_printf(&b, "{\"tokens\":%d,\"green\":%d,\"z\":", sc.tokens,
                  sc.green);
    sp_buf_num(&b, sc.z);
    sp_buf_puts(&b, ",\"p_value\":");
    sp_buf_num(&b, sc.p_value);
    sp_buf_puts(&b, ",\"gamma\":");
    sp_buf_num(&b, p.watermark_gamma);
    sp_buf_printf(&b, ",\"key\":%d,\"context\":%d,\"ids\":[", p.watermark_key,
                  n_ctx < n ? n_ctx : n);
    for (int i = 0; i < n; i++) sp_buf_printf(&b, i ? ",%d" : "%d", ids[i]);
    /* per token: 1 green, 0 red, null the context */
    sp_buf_puts(&b, "],\"per_token\":[");
    for (int i = 0; i < n; i++) {
        if (i) sp_buf_puts(&b, ",");
        if (per[i] < 0) sp_buf_puts(&b, "null");
        else sp_buf_printf(&b, "%d", per[i]);
    }
    sp_buf_puts(&b, "]}\n");
    if (b.failed) status = cli_say_error(EXIT_BAD_FILE, "out of memory");
    else cli_out_buf(&b, 1);
    sp_buf_free(&b);
done:
    free(per);
    free(ids);
    free(context);
    free(all);
    free(text);
    cli_unload(&l);
    return status;
}
