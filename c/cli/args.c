/*
 * args.c — what every command shares: its errors on stderr, reading
 * options and their values, and the sampler's options (one per parameter
 * of the engine's registry, sp_param_info).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_shared.h"

/* ------------------------------------------------------------- output */

void cli_out_buf(sp_buf *b, int fd) {
    if (b->len) sp_host_write(fd, b->data, (int)b->len);
    b->len = 0;
    if (b->data) b->data[0] = '\0';
}

int cli_say_error(int status, const char *fmt, ...) {
    char raw[SP_ERR_LEN + 64], line[4 * sizeof raw + 2];
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    if (len < 0) raw[0] = '\0';
    /* one line, whatever a file name or an argument held: control
     * characters are escaped */
    int n = 0;
    for (const char *c = raw; *c; c++) {
        unsigned char u = (unsigned char)*c;
        if (u == '\n' || u == '\r' || u == '\t') {
            line[n++] = '\\';
            line[n++] = u == '\n' ? 'n' : u == '\r' ? 'r' : 't';
        } else if (u < 0x20 || u == 0x7f) {
            n += snprintf(line + n, 5, "\\x%02x", u);
        } else {
            line[n++] = (char)u;
        }
    }
    line[n++] = '\n';
    sp_host_write(2, "sampler: ", 9);
    sp_host_write(2, line, n);
    return status;
}

/* ---------------------------------------------------------- arguments */

/* Does argv[i] name option `name` (as "--name" or "--name=value")? */
int cli_is_opt(args *a, const char *name) {
    const char *arg = a->argv[a->i];
    size_t n = strlen(name);
    if (strncmp(arg, name, n) != 0) return 0;
    if (arg[n] == '\0') {
        a->value = NULL;
    } else if (arg[n] == '=') {
        a->value = arg + n + 1;
    } else {
        return 0;
    }
    a->name = name;
    return 1;
}

/* The option's value, or NULL after printing "needs a value". */
const char *cli_opt_value(args *a) {
    if (a->value) return a->value;
    if (a->i + 1 >= a->argc) return NULL;
    return a->argv[++a->i];
}

int cli_table_option(args *a, const cli_opt *opts) {
    for (const cli_opt *o = opts; o->name; o++) {
        if (!cli_is_opt(a, o->name) && !(o->alias && cli_is_opt(a, o->alias)))
            continue;
        if (!o->text && !o->read) { /* a flag */
            if (a->value && o->what)
                return -cli_say_error(EXIT_BAD_ARG, "%s %s", a->name, o->what);
            if (a->value) continue; /* a flag takes no value */
            *o->flag = 1;
            return 1;
        }
        const char *v = cli_opt_value(a);
        if (!v) return -cli_say_error(EXIT_BAD_ARG, "%s needs a value", a->name);
        if (o->read && !o->read(v, o->value)) {
            char what[160];
            snprintf(what, sizeof what, o->what, o->limit);
            return -cli_say_error(EXIT_BAD_ARG, "%s: '%s' is not %s", a->name,
                                  v, what);
        }
        if (o->text) *o->text = v;
        if (o->flag) *o->flag = 1;
        return 1;
    }
    return 0;
}

int cli_command_options(args *a, const char *cmd, const cli_opt *opts,
                        sp_params *p, sampler_texts *texts) {
    for (a->i = 2; a->i < a->argc; a->i++) {
        int r = p ? cli_sampler_option(a, p, texts) : 0;
        if (r == 0) r = cli_table_option(a, opts);
        if (r < 0) return -r;
        if (r == 0)
            return cli_say_error(EXIT_BAD_ARG, "%s: unknown option '%s' (see "
                                 "sampler --help)", cmd, a->argv[a->i]);
    }
    return 0;
}

int cli_table_options(args *a, const char *cmd, const cli_opt *opts) {
    return cli_command_options(a, cmd, opts, NULL, NULL);
}

int cli_read_seed(const char *text, void *value) {
    return cli_parse_seed(text, value);
}

int cli_read_int(const char *text, void *value) {
    return cli_parse_int(text, value);
}

int cli_parse_double(const char *s, double *out) {
    if (!s || !*s) return 0;
    char *end;
    errno = 0;
    double d = strtod(s, &end);
    if (*end != '\0') return 0;
    /* overflow to inf is reported by the range checks, not here */
    *out = d;
    return 1;
}

int cli_parse_long(const char *s, long long lo, long long hi,
                      long long *out) {
    if (!s || !*s) return 0;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (*end != '\0' || errno == ERANGE || v < lo || v > hi) return 0;
    *out = v;
    return 1;
}

/* A whole number in int range (what it means is the engine's to check). */
int cli_parse_int(const char *s, int *out) {
    long long v;
    if (!cli_parse_long(s, -2147483647LL, 2147483647LL, &v)) return 0;
    *out = (int)v;
    return 1;
}

int cli_parse_seed(const char *s, uint64_t *out) {
    if (!s || *s < '0' || *s > '9') return 0; /* no sign, no space */
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end != '\0' || errno == ERANGE) return 0;
    *out = (uint64_t)v;
    return 1;
}

/* Reads a sampler option at argv[i] if it is one: 1 read, 0 not a sampler
 * option, or -EXIT_BAD_ARG after printing why.  texts: where text options
 * go (NULL: the command has no tokenizer). */
int cli_sampler_option(args *a, sp_params *p, sampler_texts *texts) {
    /* every parameter of the engine's registry, as --flag VALUE */
    for (int k = 0; k < sp_param_count(); k++) {
        const sp_param_info *info = sp_param_at(k);
        char name[48];
        snprintf(name, sizeof name, "--%s", info->flag);
        if (!cli_is_opt(a, name)) continue;
        /* a switch of two values (0 off, 1 on: --p-less) needs none: its
         * value only as --flag=V or a next argument 0 or 1 */
        int two = info->type == SP_PARAM_INT && info->min == 0 &&
                  info->max == 1;
        if (two && !a->value &&
            (a->i + 1 >= a->argc || (strcmp(a->argv[a->i + 1], "0") &&
                                     strcmp(a->argv[a->i + 1], "1")))) {
            sp_params_set(p, k, 1, NULL);
            return 1;
        }
        const char *v = cli_opt_value(a);
        if (!v) return -cli_say_error(EXIT_BAD_ARG, "%s needs a value", a->name);
        double x;
        if (info->type == SP_PARAM_INT) {
            int whole;
            if (!cli_parse_int(v, &whole))
                return -cli_say_error(EXIT_BAD_ARG, "%s: '%s' is not an integer",
                                  a->name, v);
            x = whole;
        } else if (!cli_parse_double(v, &x)) {
            return -cli_say_error(EXIT_BAD_ARG, "%s: '%s' is not a number",
                              a->name, v);
        }
        sp_params_set(p, k, x, NULL); /* the range: cli_check_params */
        return 1;
    }
    if (cli_is_opt(a, "--exp-decay-length-penalty")) {
        /* Hugging Face's pair: --exp-decay-start and --exp-decay-factor */
        const char *v = cli_opt_value(a);
        if (!v) return -cli_say_error(EXIT_BAD_ARG, "%s needs a value", a->name);
        const char *comma = strchr(v, ',');
        char start[32];
        int n;
        double f;
        if (!comma || (size_t)(comma - v) >= sizeof start)
            return -cli_say_error(EXIT_BAD_ARG, "--exp-decay-length-penalty: "
                              "'%s' is not START,FACTOR", v);
        memcpy(start, v, (size_t)(comma - v));
        start[comma - v] = '\0';
        if (!cli_parse_int(start, &n) || !cli_parse_double(comma + 1, &f))
            return -cli_say_error(EXIT_BAD_ARG, "--exp-decay-length-penalty: "
                              "'%s' is not START,FACTOR", v);
        sp_params_set(p, sp_param_find("exp_decay_start"), n, NULL);
        sp_params_set(p, sp_param_find("exp_decay_factor"), f, NULL);
        return 1;
    }
    if (cli_is_opt(a, "--samplers")) {
        const char *v = cli_opt_value(a);
        if (!v) return -cli_say_error(EXIT_BAD_ARG, "%s needs a value", a->name);
        char err[SP_ERR_LEN];
        if (sp_params_set_order(p, v, err) != SP_OK)
            return -cli_say_error(EXIT_BAD_ARG, "--%s", err);
        return 1;
    }
    if (cli_is_opt(a, "--dry-sequence-breaker")) {
        /* text: made tokens once the tokenizer is known (dry_breakers) */
        const char *v = cli_opt_value(a);
        if (!v) return -cli_say_error(EXIT_BAD_ARG, "%s needs a value", a->name);
        if (!texts)
            return -cli_say_error(EXIT_BAD_ARG, "--dry-sequence-breaker needs a "
                              "model's tokenizer; a warp request gives DRY's "
                              "breakers as token ids (\"dry_breakers\")");
        if (texts->n == SP_MAX_DRY_BREAKERS)
            return -cli_say_error(EXIT_BAD_ARG, "--dry-sequence-breaker: at most "
                              "%d", SP_MAX_DRY_BREAKERS);
        texts->breakers[texts->n++] = v;
        return 1;
    }
    if (cli_is_opt(a, "--bad-words") || cli_is_opt(a, "--sequence-bias")) {
        /* text: made tokens once the tokenizer is known (cli_add_words) */
        int bad = !strcmp(a->name, "--bad-words");
        const char *v = cli_opt_value(a);
        if (!v) return -cli_say_error(EXIT_BAD_ARG, "%s needs a value", a->name);
        if (!texts)
            return -cli_say_error(EXIT_BAD_ARG, "%s needs a model's tokenizer; "
                              "a warp request gives them as token ids (\"%s\")",
                              a->name, bad ? "bad_words_ids" : "sequence_bias");
        const char *eq = strrchr(v, '=');
        double value;
        if (!bad && (!eq || eq == v || !cli_parse_double(eq + 1, &value)))
            return -cli_say_error(EXIT_BAD_ARG, "--sequence-bias: '%s' is not "
                              "TEXT=VALUE (VALUE a number)", v);
        int *n = bad ? &texts->n_bad_words : &texts->n_seq_bias;
        if (*n == SP_MAX_WORDS)
            return -cli_say_error(EXIT_BAD_ARG, "%s: at most %d", a->name,
                              SP_MAX_WORDS);
        (bad ? texts->bad_words : texts->seq_bias)[(*n)++] = v;
        return 1;
    }
    if (cli_is_opt(a, "--logit-bias")) {
        const char *v = cli_opt_value(a);
        if (!v) return -cli_say_error(EXIT_BAD_ARG, "%s needs a value", a->name);
        const char *eq = strchr(v, '=');
        char id_text[32];
        long long id;
        double value;
        if (!eq || (size_t)(eq - v) >= sizeof id_text)
            return -cli_say_error(EXIT_BAD_ARG, "--logit-bias: '%s' is not "
                              "ID=VALUE", v);
        memcpy(id_text, v, (size_t)(eq - v));
        id_text[eq - v] = '\0';
        if (!cli_parse_long(id_text, 0, 2147483647LL, &id))
            return -cli_say_error(EXIT_BAD_ARG, "--logit-bias: '%s' is not a "
                              "token id", id_text);
        if (!cli_parse_double(eq + 1, &value))
            return -cli_say_error(EXIT_BAD_ARG, "--logit-bias: '%s' is not a "
                              "number or -inf", eq + 1);
        /* the engine checks the token and the value with the rest
         * (cli_check_params); here, only whether there is room */
        if (sp_params_add_bias(p, (int)id, (float)value, NULL) != SP_OK)
            return -cli_say_error(EXIT_BAD_ARG, "--logit-bias: at most %d",
                              SP_MAX_BIAS);
        return 1;
    }
    return 0;
}

int cli_add_words(const sampler_texts *texts, const sp_tokenizer *tok,
                  sp_params *p) {
    char err[SP_ERR_LEN];
    for (int i = 0; i < texts->n_bad_words; i++)
        if (sp_params_add_bad_word_text(p, tok, texts->bad_words[i], err))
            return cli_say_error(EXIT_BAD_ARG, "--%s", err);
    for (int i = 0; i < texts->n_seq_bias; i++) {
        const char *v = texts->seq_bias[i], *eq = strrchr(v, '=');
        double value = 0;
        cli_parse_double(eq + 1, &value); /* read when it was given */
        size_t len = (size_t)(eq - v);
        char *text = malloc(len + 1);
        if (!text) return cli_say_error(EXIT_BAD_ARG, "out of memory");
        memcpy(text, v, len);
        text[len] = '\0';
        int rc = sp_params_add_sequence_bias_text(p, tok, text, (float)value,
                                                  err);
        free(text);
        if (rc) return cli_say_error(EXIT_BAD_ARG, "--%s", err);
    }
    return 0;
}

/* Checks the parameters against the vocabulary: status 2 on failure. */
int cli_check_params(const sp_params *p, int vocab) {
    char err[SP_ERR_LEN];
    if (sp_params_check(p, vocab, err) != SP_OK)
        return cli_say_error(EXIT_BAD_ARG, "--%s", err);
    return 0;
}
