/*
 * cmd_tools.c — `sampler params`, `logits`, `encode` and `train-bigram`.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_shared.h"

/* ------------------------------------------------------------ params */

static void put_json_text(sp_buf *b, const char *key, const char *value) {
    sp_buf_printf(b, "\"%s\":", key);
    sp_buf_json_str(b, value, strlen(value));
}

/* One stage of `sampler params`: {name, label, doc, cut}, after a comma
 * unless it is the first of its list. */
static void put_stage(sp_buf *b, int s, int first) {
    sp_buf_printf(b, "%s{", first ? "" : ",");
    put_json_text(b, "name", sp_stage_name(s));
    sp_buf_puts(b, ",");
    put_json_text(b, "label", sp_stage_label(s));
    sp_buf_puts(b, ",");
    put_json_text(b, "doc", sp_stage_doc(s));
    sp_buf_printf(b, ",\"cut\":\"%s\"}", sp_cut_name(sp_stage_cut(s)));
}

/* `sampler params`: the engine's registry as JSON, for the page's build
 * and the docs (one object: the stages in their default order, the
 * parameters with every field of their declaration). */
int cli_cmd_params(args *a) {
    if (a->argc > 2)
        return cli_say_error(EXIT_BAD_ARG, "params takes no options (see sampler "
                         "--help)");
    sp_buf b = {0};
    sp_buf_puts(&b, "{\"stages\":[");
    for (int s = 0; s < SP_STAGE_COUNT; s++) {
        put_stage(&b, s, s == 0);
    }
    /* the terminal stages (after the chain, when on: no order moves them) */
    sp_buf_puts(&b, "],\"terminal\":[");
    for (int s = SP_STAGE_COUNT; s < SP_STAGE_ALL; s++) {
        put_stage(&b, s, s == SP_STAGE_COUNT);
    }
    sp_buf_puts(&b, "],\"params\":[");
    for (int i = 0; i < sp_param_count(); i++) {
        const sp_param_info *in = sp_param_at(i);
        sp_buf_puts(&b, i ? ",\n{" : "\n{");
        put_json_text(&b, "name", in->name);
        sp_buf_puts(&b, ",");
        put_json_text(&b, "flag", in->flag);
        sp_buf_puts(&b, ",");
        put_json_text(&b, "code", in->code);
        sp_buf_puts(&b, ",");
        put_json_text(&b, "label", in->label);
        sp_buf_puts(&b, ",");
        put_json_text(&b, "doc", in->doc);
        sp_buf_puts(&b, ",");
        put_json_text(&b, "stage", sp_stage_name(in->stage));
        sp_buf_printf(&b, ",\"type\":\"%s\",\"min\":",
                      in->type == SP_PARAM_INT ? "int" : "float");
        /* +-infinity as JSON's null */
        sp_buf_num(&b, in->min);
        sp_buf_puts(&b, ",\"max\":");
        sp_buf_num(&b, in->max);
        sp_buf_printf(&b, ",\"minOpen\":%s,\"maxOpen\":%s,\"inLink\":%s,"
                      "\"switch\":%s",
                      in->flags & SP_PARAM_MIN_OPEN ? "true" : "false",
                      in->flags & SP_PARAM_MAX_OPEN ? "true" : "false",
                      in->flags & SP_PARAM_IN_LINK ? "true" : "false",
                      in->flags & SP_PARAM_SWITCH ? "true" : "false");
        char range[96];
        sp_param_range_text(i, range, sizeof range);
        sp_buf_puts(&b, ",");
        put_json_text(&b, "range", range);
        sp_buf_puts(&b, ",\"neutral\":");
        sp_buf_num(&b, in->neutral);
        sp_buf_puts(&b, ",\"uiMin\":");
        sp_buf_num(&b, in->ui_min);
        sp_buf_puts(&b, ",\"uiMax\":");
        sp_buf_num(&b, in->ui_max);
        sp_buf_puts(&b, ",\"uiStep\":");
        sp_buf_num(&b, in->ui_step);
        sp_buf_puts(&b, ",\"uiOn\":");
        sp_buf_num(&b, in->ui_on);
        sp_buf_puts(&b, "}");
    }
    /* the order's presets, as the engine spells them out */
    sp_buf_puts(&b, "],\n\"presets\":{");
    for (int k = 0; sp_order_preset(k); k++) {
        sp_params p;
        sp_params_default(&p);
        sp_params_set_order(&p, sp_order_preset(k), NULL);
        char order[512];
        sp_params_order_text(&p, order, sizeof order);
        sp_buf_printf(&b, "%s\"%s\":\"%s\"", k ? "," : "",
                      sp_order_preset(k), order);
    }
    /* the stages beam search applies (the page greys out the others) */
    const uint8_t *beam;
    int n_beam = sp_beam_chain(&beam);
    sp_buf_puts(&b, "},\n\"beamStages\":\"");
    for (int k = 0; k < n_beam; k++)
        sp_buf_printf(&b, "%s%s", k ? "," : "", sp_stage_name(beam[k]));
    sp_buf_puts(&b, "\"}\n");
    cli_out_buf(&b, 1);
    sp_buf_free(&b);
    return 0;
}

/* ------------------------------------------------------ logits, encode */

int cli_cmd_logits(args *a) {
    const char *model = NULL, *tokens_text = NULL;
    const cli_opt opts[] = {
        {"--model", NULL, &model, NULL, NULL, NULL, NULL, 0},
        {"--tokens", NULL, &tokens_text, NULL, NULL, NULL, NULL, 0},
        {NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0}};
    int bad = cli_table_options(a, "logits", opts);
    if (bad) return bad;
    if (!model || !tokens_text)
        return cli_say_error(EXIT_BAD_ARG, "logits: --model and --tokens are "
                         "required");
    loaded l;
    int status = cli_load_model(model, NULL, 0, &l);
    if (status) return status;
    int vocab = sp_model_vocab(l.model), seq_len = sp_model_seq_len(l.model);
    sp_state *st = sp_state_new(l.model);
    sp_buf b;
    sp_buf_init(&b);
    if (!st) {
        status = cli_say_error(EXIT_BAD_FILE, "out of memory");
        goto done;
    }
    sp_buf_puts(&b, "{\"logits\":[");
    const char *at = tokens_text;
    for (int pos = 0;; pos++) {
        char *end;
        errno = 0;
        long id = strtol(at, &end, 10);
        if (end == at || errno == ERANGE || (*end != ',' && *end != '\0') ||
            id < 0 || id >= vocab) {
            status = cli_say_error(EXIT_BAD_ARG, "--tokens: item %d is not a "
                               "token id in 0..%d", pos, vocab - 1);
            goto done;
        }
        if (seq_len > 0 && pos >= seq_len) {
            status = cli_say_error(EXIT_BAD_ARG, "--tokens: more than the model's "
                               "seq_len (%d)", seq_len);
            goto done;
        }
        const float *logits = sp_forward(l.model, st, (int)id, pos);
        sp_buf_puts(&b, pos ? ",[" : "[");
        for (int i = 0; i < vocab; i++) {
            if (i) sp_buf_put(&b, ",", 1);
            sp_buf_num(&b, logits[i]);
        }
        sp_buf_puts(&b, "]");
        if (*end == '\0') break;
        at = end + 1;
    }
    sp_buf_puts(&b, "]}\n");
    if (b.failed) status = cli_say_error(EXIT_BAD_FILE, "out of memory");
    else cli_out_buf(&b, 1);
done:
    sp_buf_free(&b);
    sp_state_free(st);
    cli_unload(&l);
    return status;
}

int cli_cmd_encode(args *a) {
    const char *tok_path = NULL, *model = NULL, *text = NULL;
    int bos = 0, eos = 0, chat = 0;
    const cli_opt opts[] = {
        {"--tokenizer", NULL, &tok_path, NULL, NULL, NULL, NULL, 0},
        {"--model", NULL, &model, NULL, NULL, NULL, NULL, 0},
        {"--text", NULL, &text, NULL, NULL, NULL, NULL, 0},
        {"--bos", NULL, NULL, &bos, NULL, NULL, NULL, 0},
        {"--eos", NULL, NULL, &eos, NULL, NULL, NULL, 0},
        {"--chat", NULL, NULL, &chat, NULL, NULL, NULL, 0},
        {NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0}};
    int bad = cli_table_options(a, "encode", opts);
    if (bad) return bad;
    if ((!tok_path && !model) || !text)
        return cli_say_error(EXIT_BAD_ARG, "encode: --text and --tokenizer (or "
                         "--model) are required");
    loaded l = {NULL, NULL};
    const sp_tokenizer *tok;
    char err[SP_ERR_LEN];
    if (model) {
        int status = cli_load_model(model, tok_path, 1, &l);
        if (status) return status;
        tok = l.tokenizer ? l.tokenizer : sp_model_tokenizer(l.model);
    } else {
        size_t size;
        uint8_t *data = cli_read_file(tok_path, &size);
        if (!data) return EXIT_BAD_FILE;
        l.tokenizer = sp_tokenizer_load(data, size, 0, err);
        free(data);
        if (!l.tokenizer)
            return cli_say_error(EXIT_BAD_FILE, "%s: %s", tok_path, err);
        tok = l.tokenizer;
    }
    char *wrapped = chat ? cli_chat_prompt(&l, text) : NULL;
    if (wrapped) text = wrapped;
    int max_ids = sp_encode_bound(tok, strlen(text));
    int *ids = malloc(sizeof(int) * (size_t)max_ids);
    int n = ids ? sp_encode(tok, text, bos, eos, ids, max_ids, err) : -1;
    int status = 0;
    if (n < 0) {
        status = cli_say_error(EXIT_BAD_ARG, "%s", ids ? err : "out of memory");
    } else {
        sp_buf b;
        sp_buf_init(&b);
        sp_buf_puts(&b, "{\"ids\":[");
        for (int i = 0; i < n; i++) sp_buf_printf(&b, i ? ",%d" : "%d", ids[i]);
        sp_buf_puts(&b, "]");
        if (wrapped) {
            sp_buf_puts(&b, ",\"text\":");
            sp_buf_json_str(&b, wrapped, strlen(wrapped));
        }
        sp_buf_puts(&b, "}\n");
        cli_out_buf(&b, 1);
        sp_buf_free(&b);
    }
    free(ids);
    free(wrapped);
    cli_unload(&l);
    return status;
}

/* --------------------------------------------------------- train-bigram */

int cli_cmd_train_bigram(args *a) {
    const char *text_path = NULL, *out_path = NULL;
    double alpha = 0.1;
    char err[SP_ERR_LEN];
    const cli_opt opts[] = {
        {"--text", NULL, &text_path, NULL, NULL, NULL, NULL, 0},
        {"-o", "--out", &out_path, NULL, NULL, NULL, NULL, 0},
        {NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0}};
    for (a->i = 2; a->i < a->argc; a->i++) {
        int r = cli_table_option(a, opts);
        if (r < 0) return -r;
        if (r > 0) continue;
        if (cli_is_opt(a, "--alpha")) {
            NEED_VALUE(a, v);
            if (!cli_parse_double(v, &alpha) || !(alpha > 0 && alpha <= 100))
                return cli_say_error(EXIT_BAD_ARG, "--alpha must be a number in "
                                 "(0, 100] (got '%s')", v);
        } else {
            return cli_say_error(EXIT_BAD_ARG, "train-bigram: unknown option "
                             "'%s' (see sampler --help)", a->argv[a->i]);
        }
    }
    if (!text_path || !out_path)
        return cli_say_error(EXIT_BAD_ARG, "train-bigram: --text FILE and -o OUT "
                         "are required");
    size_t size;
    uint8_t *text = cli_read_file(text_path, &size);
    if (!text) return EXIT_BAD_FILE;
    sp_trainer *t = sp_trainer_new(err);
    uint8_t *model = NULL;
    size_t model_size = 0;
    int rc = t ? sp_trainer_feed(t, text, size, err) : SP_ERR_NOMEM;
    if (rc == SP_OK) rc = sp_trainer_finish(t, alpha, &model, &model_size, err);
    int chars = t ? sp_trainer_chars(t) : 0;
    sp_trainer_free(t);
    free(text);
    if (rc != SP_OK)
        return cli_say_error(EXIT_BAD_FILE, "%s: %s", text_path, err);
    int status = 0;
    if (sp_host_write_file(out_path, model, model_size, err) != 0) {
        status = cli_say_error(EXIT_BAD_FILE, "%s", err);
    } else {
        sp_buf b;
        sp_buf_init(&b);
        sp_buf_printf(&b, "train-bigram: vocab %d (the boundary and %d "
                      "characters), alpha %g, wrote %s (%zu bytes)\n",
                      chars + 1, chars, alpha, out_path, model_size);
        cli_out_buf(&b, 2);
        sp_buf_free(&b);
    }
    free(model);
    return status;
}
