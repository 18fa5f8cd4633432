/*
 * cmd_inspect.c — `sampler inspect`: inside a transformer at one position,
 * the attention weights of every layer and head over the positions before
 * it (the softmax the forward pass computed, as it ran) and the logit lens
 * (the most probable tokens after each layer), as JSON.  The engine's own
 * look (sp_state_set_capture, sp_state_inspect, sp_state_lens): the page's
 * numbers, printed with %.9g, so a float's bits are written exactly.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli_shared.h"

#define DEFAULT_TOP 5

/* "1,5,9" into ids (malloc'd, *n of them): 0, or the exit status after
 * saying which item is wrong */
static int parse_ids(const char *text, int vocab, int **ids, int *n) {
    int count = 1;
    for (const char *c = text; *c; c++) count += *c == ',';
    *ids = malloc(sizeof(int) * (size_t)count);
    if (!*ids) return cli_say_error(EXIT_BAD_FILE, "out of memory");
    const char *at = text;
    for (int i = 0; i < count; i++) {
        char *end;
        errno = 0;
        long id = strtol(at, &end, 10);
        if (end == at || errno == ERANGE || (*end != ',' && *end != '\0') ||
            id < 0 || id >= vocab)
            return cli_say_error(EXIT_BAD_ARG, "--tokens: item %d is not a "
                                 "token id in 0..%d", i, vocab - 1);
        (*ids)[i] = (int)id;
        at = end + 1;
    }
    *n = count;
    return 0;
}

/* the prompt's ids as a session's are (begin token, the model's rules) */
static int encode_prompt(const loaded *l, const char *prompt, int **ids,
                         int *n) {
    const sp_tokenizer *tok =
        l->tokenizer ? l->tokenizer : sp_model_tokenizer(l->model);
    char err[SP_ERR_LEN];
    int max = sp_encode_bound(tok, strlen(prompt));
    *ids = malloc(sizeof(int) * (size_t)(max > 0 ? max : 1));
    if (!*ids) return cli_say_error(EXIT_BAD_FILE, "out of memory");
    *n = sp_encode(tok, prompt, 1, 0, *ids, max, err);
    if (*n < 0) return cli_say_error(EXIT_BAD_ARG, "--prompt: %s", err);
    if (*n == 0)
        return cli_say_error(EXIT_BAD_ARG, "--prompt: it gives no tokens "
                             "(this model adds no begin token)");
    return 0;
}

/* Feeds ids[0..n) in batched passes, as a session's prompt is fed. */
static int feed(const sp_model *m, sp_state *st, const int *ids, int n) {
    for (int at = 0; at < n; at += SP_BATCH_MAX) {
        int chunk = n - at < SP_BATCH_MAX ? n - at : SP_BATCH_MAX;
        if (!sp_forward_batch(m, st, ids + at, chunk, at, 1))
            return cli_say_error(EXIT_BAD_FILE, "out of memory");
    }
    return 0;
}

static void put_report(sp_buf *b, const sp_model *m, sp_state *st,
                       const sp_inspection *in, const int *ids, int top) {
    sp_buf_printf(b, "{\"position\":%d,\"token\":%d,\"tokens\":[", in->pos,
                  in->token);
    for (int i = 0; i <= in->pos; i++)
        sp_buf_printf(b, "%s%d", i ? "," : "", ids[i]);
    sp_buf_printf(b, "],\"layers\":%d,\"heads\":%d,\"kv_heads\":%d,"
                  "\n\"attention\":[", in->n_layers, in->n_heads,
                  in->n_kv_heads);
    for (int l = 0; l < in->n_layers; l++) {
        sp_buf_puts(b, l ? ",\n[" : "[");
        for (int h = 0; h < in->n_heads; h++) {
            const float *w = in->attention +
                             ((size_t)l * (size_t)in->n_heads + (size_t)h) *
                                 (size_t)in->n_keys;
            sp_buf_puts(b, h ? ",[" : "[");
            for (int k = 0; k < in->n_keys; k++) {
                if (k) sp_buf_put(b, ",", 1);
                sp_buf_num(b, w[k]);
            }
            sp_buf_puts(b, "]");
        }
        sp_buf_puts(b, "]");
    }
    sp_buf_puts(b, "],\n\"lens\":[");
    int ids_top[SP_LENS_TOP_MAX];
    float p_top[SP_LENS_TOP_MAX];
    double *entropy = malloc(sizeof(double) * (size_t)in->n_layers);
    if (!entropy) {
        b->failed = 1;
        return;
    }
    for (int l = 0; l < in->n_layers; l++) {
        double h = 0;
        const float *p = sp_state_lens(m, st, l, NULL, &h, NULL);
        int n = p ? sp_probs_top(p, sp_model_vocab(m), top, ids_top, p_top)
                  : 0;
        entropy[l] = h;
        sp_buf_puts(b, l ? ",\n[" : "[");
        for (int i = 0; i < n; i++) {
            sp_buf_printf(b, "%s{\"id\":%d,\"p\":", i ? "," : "", ids_top[i]);
            sp_buf_num(b, p_top[i]);
            sp_buf_puts(b, "}");
        }
        sp_buf_puts(b, "]");
    }
    sp_buf_puts(b, "],\n\"lens_entropy_bits\":[");
    for (int l = 0; l < in->n_layers; l++) {
        if (l) sp_buf_put(b, ",", 1);
        sp_buf_num(b, entropy[l]);
    }
    sp_buf_puts(b, "]}\n");
    free(entropy);
}

int cli_cmd_inspect(args *a) {
    const char *model = NULL, *tok_path = NULL, *tokens_text = NULL;
    const char *prompt = NULL;
    int position = -1, given_position = 0, top = DEFAULT_TOP;
    const cli_opt opts[] = {
        {"--model", NULL, &model, NULL, NULL, NULL, NULL, 0},
        {"--tokenizer", NULL, &tok_path, NULL, NULL, NULL, NULL, 0},
        {"--tokens", NULL, &tokens_text, NULL, NULL, NULL, NULL, 0},
        {"--prompt", NULL, &prompt, NULL, NULL, NULL, NULL, 0},
        {"--position", NULL, NULL, &given_position, &position, cli_read_int,
         "a position", 0},
        {"--top", NULL, NULL, NULL, &top, cli_read_int, "a count", 0},
        {NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0}};
    int status = cli_table_options(a, "inspect", opts);
    if (status) return status;
    if (!model || !tokens_text == !prompt)
        return cli_say_error(EXIT_BAD_ARG, "inspect: --model and one of "
                             "--tokens or --prompt are required");
    if (top < 1 || top > SP_LENS_TOP_MAX)
        return cli_say_error(EXIT_BAD_ARG, "--top: %d is outside 1..%d", top,
                             SP_LENS_TOP_MAX);
    loaded l;
    status = cli_load_model(model, tok_path, prompt != NULL, &l);
    if (status) return status;
    int *ids = NULL, n = 0;
    sp_state *st = NULL;
    sp_buf b;
    sp_buf_init(&b);
    char err[SP_ERR_LEN];
    const char *why = sp_model_no_attention(l.model);
    if (why) {
        status = cli_say_error(EXIT_BAD_ARG, "inspect: %s", why);
        goto done;
    }
    status = prompt ? encode_prompt(&l, prompt, &ids, &n)
                    : parse_ids(tokens_text, sp_model_vocab(l.model), &ids, &n);
    if (status) goto done;
    int seq_len = sp_model_seq_len(l.model);
    if (!given_position) position = n - 1;
    if (position < 0 || position >= n) {
        status = cli_say_error(EXIT_BAD_ARG, "--position: %d is outside "
                               "0..%d (the tokens' positions)", position,
                               n - 1);
        goto done;
    }
    if (seq_len > 0 && position >= seq_len) {
        status = cli_say_error(EXIT_BAD_ARG, "--position: %d is past the "
                               "model's context (%d)", position, seq_len);
        goto done;
    }
    st = sp_state_new(l.model);
    if (!st || sp_state_set_capture(l.model, st, 1, err) != SP_OK) {
        status = cli_say_error(EXIT_BAD_FILE, "out of memory");
        goto done;
    }
    /* the query at position attends to 0..position only: later tokens
     * change nothing there */
    status = feed(l.model, st, ids, position + 1);
    if (status) goto done;
    sp_inspection in;
    if (sp_state_inspect(l.model, st, &in, err) != SP_OK) {
        status = cli_say_error(EXIT_BAD_FILE, "inspect: %s", err);
        goto done;
    }
    put_report(&b, l.model, st, &in, ids, top);
    if (b.failed) status = cli_say_error(EXIT_BAD_FILE, "out of memory");
    else cli_out_buf(&b, 1);
done:
    sp_buf_free(&b);
    sp_state_free(st);
    free(ids);
    cli_unload(&l);
    return status;
}
