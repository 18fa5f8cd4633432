/*
 * cli.c — the `sampler` command.  The native binary (main.c) and the WASM
 * build (`node build/sampler.mjs`) run this same code; output and files go
 * through the sp_host_* functions, so their output is byte-identical.
 *
 * Exit status: 0 done, 1 a bad or missing file / a runtime failure, 2 a bad
 * argument.  Every error is one line on stderr that names what is wrong.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sampler.h"

#include "buf.h"
#include "cli.h"
#include "host.h"
#include "manifest.h"
#include "warp_request.h"

#define EXIT_BAD_FILE 1
#define EXIT_BAD_ARG 2
#define DEFAULT_SEED 42u
#define DEFAULT_STEPS 64

static const char USAGE[] =
    "usage:\n"
    "  sampler warp [SAMPLER OPTIONS] [--seed S] < request.json\n"
    "      request {\"logits\": [...], \"history\": [ids...]} (history "
    "optional;\n"
    "      a masked logit may be \"-inf\"); prints the final distribution and "
    "the\n"
    "      step's report as one JSON object; with --seed also draws a token\n"
    "  sampler generate --model PATH|%MODELS%\n"
    "      [--tokenizer PATH]\n"
    "      [--prompt TEXT [--chat]] [--steps N] [--seed S] [SAMPLER OPTIONS]\n"
    "      [--json]\n"
    "      [--regex PATTERN | --grammar json|json-object] [--metrics]\n"
    "      [--beams B [--length-penalty A]]\n"
    "      [--draft MODEL [--draft-tokenizer PATH] --speculate N] [--work]\n"
    "      prints the prompt and the generated text; --chat wraps the prompt\n"
    "      in the chat template of the model's GGUF file (one user message)\n"
    "      and prints it so; --json prints one JSON\n"
    "      object per step instead; --regex / --grammar constrain the\n"
    "      generated text to match (within --steps tokens): json is any JSON\n"
    "      document, json-object one whose top value is an object; --metrics\n"
    "      adds a last line {\"metrics\": {distinct-n, perplexity, ...}};\n"
    "      --beams B runs a deterministic beam search of width B instead of\n"
    "      sampling (score = log p / length^A) and prints the best\n"
    "      hypothesis; --draft samples speculatively: MODEL drafts N tokens a\n"
    "      round, the model verifies them in one batched pass (acceptance\n"
    "      rate on stderr); %DRAFTS% are the default\n"
    "      transformer's drafts; --work prints the forward passes the models\n"
    "      ran (a batched pass counts once) and the tokens per pass\n"
    "  sampler logits --model PATH --tokens 1,5,9\n"
    "      prints {\"logits\": [[...position 0...], ...]} (one KV-cache pass)\n"
    "  sampler encode --tokenizer PATH|--model PATH --text TEXT [--bos] "
    "[--eos]\n"
    "      [--chat]\n"
    "      prints {\"ids\": [...]} (--chat: also \"text\", the text wrapped\n"
    "      in the chat template); PATH: a tokenizer.bin or a GGUF file\n"
    "  sampler train-bigram --text FILE -o OUT [--alpha A]\n"
    "      trains a character bigram on FILE (UTF-8; one word per line) as\n"
    "      models/train_bigram.py does, byte for byte (alpha 0.1)\n"
    "  sampler params\n"
    "      prints the sampler's registry: every stage and parameter, as JSON\n"
    "SAMPLER OPTIONS (the chain's stages in their default order):\n";

static const char USAGE_END[] =
    "  --samplers LIST         the chain's order: stage names joined by ,\n"
    "                          or ; (a stage left out must stay off), or\n"
    "                          default, hf or llama.cpp\n"
    "  --logit-bias ID=VALUE   add VALUE to a logit; -inf bans (repeatable)\n"
    "  --dry-sequence-breaker TEXT  DRY: TEXT's tokens end a repeat "
    "(repeatable)\n"
    "Defaults: --seed 42, --steps 64.  Models: %MAIN% "
    "name\n"
    "the shipped ones; `logits:2,1,0`, `logits:a=2,b=1,c=0` or\n"
    "`probs:0.5,0.3,0.2` is a hand-made model (the same distribution every "
    "step).\n";

/* The usage, with every sampler option from the engine's registry: its
 * flag, its stage, and its one line of doc. */
/* The usage text with its placeholders filled from models/manifest.json:
 * %MODELS% the shipped names (the models, then the drafts by name), %DRAFTS%
 * the drafts ("a and b"), %MAIN% the models that are not drafts ("`a` and
 * `b`"). */
static void put_usage(sp_buf *b, const char *text) {
    int n;
    const sp_shipped *m = sp_manifest(&n);
    int order[SP_SHIPPED_MAX], k = 0;
    for (int i = 0; i < n; i++)
        if (!m[i].draft_of[0]) order[k++] = i;
    int first_draft = k;
    for (int i = 0; i < n; i++) {
        if (!m[i].draft_of[0]) continue;
        int at = k++;
        while (at > first_draft && strcmp(m[order[at - 1]].name, m[i].name) > 0) {
            order[at] = order[at - 1];
            at--;
        }
        order[at] = i;
    }
    for (const char *p = text; *p;) {
        const char *mark = strchr(p, '%');
        const char *end = mark ? strchr(mark + 1, '%') : NULL;
        if (!end) {
            sp_buf_puts(b, p);
            break;
        }
        sp_buf_printf(b, "%.*s", (int)(mark - p), p);
        size_t len = (size_t)(end - mark - 1);
        int from = 0, to = k;
        const char *sep = "|", *last = "|", *quote = "";
        if (!strncmp(mark + 1, "DRAFTS", len)) {
            from = first_draft;
            sep = ", ";
            last = " and ";
        } else if (!strncmp(mark + 1, "MAIN", len)) {
            to = first_draft;
            sep = ", ";
            last = " and ";
            quote = "`";
        }
        for (int i = from; i < to; i++)
            sp_buf_printf(b, "%s%s%s%s", i == from ? "" : i == to - 1 ? last : sep,
                          quote, m[order[i]].name, quote);
        p = end + 1;
    }
}

static void print_help(void) {
    sp_buf b = {0};
    put_usage(&b, USAGE);
    for (int st = 0; st <= SP_STAGE_COUNT; st++) {
        /* the stages in order, then the settings of no stage (mirostat) */
        for (int k = 0; k < sp_param_count(); k++) {
            const sp_param_info *in = sp_param_at(k);
            if (in->stage != (st == SP_STAGE_COUNT ? -1 : st)) continue;
            char opt[64];
            snprintf(opt, sizeof opt, "--%s %s", in->flag,
                     in->type == SP_PARAM_INT ? "N" : "X");
            sp_buf_printf(&b, "  %-23s [%s] %s\n", opt,
                          st == SP_STAGE_COUNT ? "mirostat" : sp_stage_name(st),
                          in->doc);
        }
    }
    put_usage(&b, USAGE_END);
    if (b.len) sp_host_write(1, b.data, (int)b.len);
    sp_buf_free(&b);
}

/* ------------------------------------------------------------- output */

static void out_buf(sp_buf *b, int fd) {
    if (b->len) sp_host_write(fd, b->data, (int)b->len);
    b->len = 0;
    if (b->data) b->data[0] = '\0';
}

static int say_error(int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static int say_error(int status, const char *fmt, ...) {
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

typedef struct {
    int argc, i;
    char **argv;
    const char *name;  /* the option being read, e.g. "--top-p" */
    const char *value; /* its value when given as --name=value */
} args;

/* Does argv[i] name option `name` (as "--name" or "--name=value")? */
static int is_opt(args *a, const char *name) {
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
static const char *opt_value(args *a) {
    if (a->value) return a->value;
    if (a->i + 1 >= a->argc) return NULL;
    return a->argv[++a->i];
}

static int parse_double(const char *s, double *out) {
    if (!s || !*s) return 0;
    char *end;
    errno = 0;
    double d = strtod(s, &end);
    if (*end != '\0') return 0;
    /* overflow to inf is reported by the range checks, not here */
    *out = d;
    return 1;
}

static int parse_long(const char *s, long long lo, long long hi,
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
static int parse_int(const char *s, int *out) {
    long long v;
    if (!parse_long(s, -2147483647LL, 2147483647LL, &v)) return 0;
    *out = (int)v;
    return 1;
}

static int parse_seed(const char *s, uint64_t *out) {
    if (!s || *s < '0' || *s > '9') return 0; /* no sign, no space */
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end != '\0' || errno == ERANGE) return 0;
    *out = (uint64_t)v;
    return 1;
}

#define NEED_VALUE(a, v)                                                    \
    const char *v = opt_value(a);                                           \
    if (!v) return say_error(EXIT_BAD_ARG, "%s needs a value", (a)->name)

/* Options whose value is text the model's tokenizer turns into tokens. */
typedef struct {
    const char *breakers[SP_MAX_DRY_BREAKERS]; /* --dry-sequence-breaker */
    int n;
} sampler_texts;

/* Reads a sampler option at argv[i] if it is one: 1 read, 0 not a sampler
 * option, or -EXIT_BAD_ARG after printing why.  texts: where text options
 * go (NULL: the command has no tokenizer). */
static int sampler_option(args *a, sp_params *p, sampler_texts *texts) {
    /* every parameter of the engine's registry, as --flag VALUE */
    for (int k = 0; k < sp_param_count(); k++) {
        const sp_param_info *info = sp_param_at(k);
        char name[48];
        snprintf(name, sizeof name, "--%s", info->flag);
        if (!is_opt(a, name)) continue;
        const char *v = opt_value(a);
        if (!v) return -say_error(EXIT_BAD_ARG, "%s needs a value", a->name);
        double x;
        if (info->type == SP_PARAM_INT) {
            int whole;
            if (!parse_int(v, &whole))
                return -say_error(EXIT_BAD_ARG, "%s: '%s' is not an integer",
                                  a->name, v);
            x = whole;
        } else if (!parse_double(v, &x)) {
            return -say_error(EXIT_BAD_ARG, "%s: '%s' is not a number",
                              a->name, v);
        }
        sp_params_set(p, k, x, NULL); /* the range: check_params */
        return 1;
    }
    if (is_opt(a, "--samplers")) {
        const char *v = opt_value(a);
        if (!v) return -say_error(EXIT_BAD_ARG, "%s needs a value", a->name);
        char err[SP_ERR_LEN];
        if (sp_params_set_order(p, v, err) != SP_OK)
            return -say_error(EXIT_BAD_ARG, "--%s", err);
        return 1;
    }
    if (is_opt(a, "--dry-sequence-breaker")) {
        /* text: made tokens once the tokenizer is known (dry_breakers) */
        const char *v = opt_value(a);
        if (!v) return -say_error(EXIT_BAD_ARG, "%s needs a value", a->name);
        if (!texts)
            return -say_error(EXIT_BAD_ARG, "--dry-sequence-breaker needs a "
                              "model's tokenizer; a warp request gives DRY's "
                              "breakers as token ids (\"dry_breakers\")");
        if (texts->n == SP_MAX_DRY_BREAKERS)
            return -say_error(EXIT_BAD_ARG, "--dry-sequence-breaker: at most "
                              "%d", SP_MAX_DRY_BREAKERS);
        texts->breakers[texts->n++] = v;
        return 1;
    }
    if (is_opt(a, "--logit-bias")) {
        const char *v = opt_value(a);
        if (!v) return -say_error(EXIT_BAD_ARG, "%s needs a value", a->name);
        const char *eq = strchr(v, '=');
        char id_text[32];
        long long id;
        double value;
        if (!eq || (size_t)(eq - v) >= sizeof id_text)
            return -say_error(EXIT_BAD_ARG, "--logit-bias: '%s' is not "
                              "ID=VALUE", v);
        memcpy(id_text, v, (size_t)(eq - v));
        id_text[eq - v] = '\0';
        if (!parse_long(id_text, 0, 2147483647LL, &id))
            return -say_error(EXIT_BAD_ARG, "--logit-bias: '%s' is not a "
                              "token id", id_text);
        if (!parse_double(eq + 1, &value))
            return -say_error(EXIT_BAD_ARG, "--logit-bias: '%s' is not a "
                              "number or -inf", eq + 1);
        /* the engine checks the token and the value with the rest
         * (check_params); here, only whether there is room */
        if (sp_params_add_bias(p, (int)id, (float)value, NULL) != SP_OK)
            return -say_error(EXIT_BAD_ARG, "--logit-bias: at most %d",
                              SP_MAX_BIAS);
        return 1;
    }
    return 0;
}

/* Checks the parameters against the vocabulary: status 2 on failure. */
static int check_params(const sp_params *p, int vocab) {
    char err[SP_ERR_LEN];
    if (sp_params_check(p, vocab, err) != SP_OK)
        return say_error(EXIT_BAD_ARG, "--%s", err);
    return 0;
}

/* ------------------------------------------------------ files and models */

static uint8_t *read_file(const char *path, size_t *size) {
    char err[SP_ERR_LEN];
    uint8_t *data = sp_host_read_file(path, size, err);
    if (!data) say_error(EXIT_BAD_FILE, "%s", err);
    return data;
}

typedef struct {
    sp_model *model;
    sp_tokenizer *tokenizer; /* loaded separately (llama2.c); may be NULL */
} loaded;

static void unload(loaded *l) {
    sp_tokenizer_free(l->tokenizer);
    sp_model_free(l->model);
}

static char *dup_str(const char *s) {
    char *d = malloc(strlen(s) + 1);
    if (d) strcpy(d, s);
    return d;
}

static char *join_path(const char *dir, const char *name) {
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p) snprintf(p, n, "%s/%s", dir, name);
    return p;
}

/* --model NAME|PATH [--tokenizer PATH]: the shipped names resolve in the
 * models directory; a llama2.c checkpoint takes --tokenizer, else the
 * tokenizer.bin beside it.  need_tokenizer 0: the caller wants logits only. */
static int load_model(const char *name, const char *tokenizer_path,
                      int need_tokenizer, loaded *out) {
    memset(out, 0, sizeof *out);
    char *model_path = NULL, *tok_path = NULL;
    if (!strncmp(name, "logits:", 7) || !strncmp(name, "probs:", 6)) {
        char err[SP_ERR_LEN];
        out->model = sp_model_handmade(name, err);
        return out->model ? 0 : say_error(EXIT_BAD_ARG, "--model: %s", err);
    }
    const sp_shipped *shipped = sp_manifest_find(name);
    if (shipped) { /* models/manifest.json: its file and tokenizer */
        model_path = join_path(sp_host_models_dir(), shipped->file);
        if (!tokenizer_path && shipped->tokenizer[0])
            tok_path = join_path(sp_host_models_dir(), shipped->tokenizer);
    } else {
        model_path = dup_str(name);
    }
    if (tokenizer_path) tok_path = dup_str(tokenizer_path);
    int status = 0;
    size_t size;
    char err[SP_ERR_LEN];
    uint8_t *data = model_path ? read_file(model_path, &size) : NULL;
    if (!data) {
        status = EXIT_BAD_FILE;
        goto done;
    }
    out->model = sp_model_load(data, size, 1, err);
    if (!out->model) {
        status = say_error(EXIT_BAD_FILE, "%s: %s", model_path, err);
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
    uint8_t *tdata = tok_path ? read_file(tok_path, &size) : NULL;
    if (!tdata) {
        status = say_error(EXIT_BAD_FILE, "--tokenizer: give the model's "
                           "tokenizer.bin");
        goto done;
    }
    out->tokenizer =
        sp_tokenizer_load(tdata, size, sp_model_vocab(out->model), err);
    free(tdata);
    if (!out->tokenizer) status = say_error(EXIT_BAD_FILE, "%s: %s", tok_path, err);
done:
    free(model_path);
    free(tok_path);
    if (status) {
        unload(out);
        memset(out, 0, sizeof *out);
    }
    return status;
}

/* -------------------------------------------------------------- warp */

static void put_step_report(sp_buf *b, const sp_step *st) {
    sp_buf_puts(b, "\"kept\":");
    sp_buf_printf(b, "%d", st->n_kept);
    sp_buf_puts(b, ",\"kept_mass\":");
    sp_buf_num(b, st->kept_mass);
    sp_buf_puts(b, ",\"entropy_bits\":");
    sp_buf_num(b, st->entropy_bits);
    sp_buf_puts(b, ",\"entropy_raw_bits\":");
    sp_buf_num(b, st->entropy_raw_bits);
    sp_buf_printf(b, ",\"argmax_raw\":%d", st->argmax_raw);
}

static int cmd_warp(args *a) {
    sp_params p;
    sp_params_default(&p);
    uint64_t seed = 0;
    int draw = 0;
    for (a->i = 2; a->i < a->argc; a->i++) {
        int r = sampler_option(a, &p, NULL);
        if (r < 0) return -r;
        if (r > 0) continue;
        if (is_opt(a, "--seed")) {
            NEED_VALUE(a, v);
            if (!parse_seed(v, &seed))
                return say_error(EXIT_BAD_ARG, "--seed: '%s' is not an "
                                 "integer in 0..18446744073709551615", v);
            draw = 1;
            continue;
        }
        return say_error(EXIT_BAD_ARG, "warp: unknown option '%s' (see "
                         "sampler --help)", a->argv[a->i]);
    }
    if (check_params(&p, 0)) return EXIT_BAD_ARG;
    size_t size;
    uint8_t *text = read_file("-", &size);
    if (!text) return EXIT_BAD_FILE;
    float *logits = NULL;
    int *history = NULL, n_logits = 0, n_history = 0;
    char err[SP_ERR_LEN];
    int status = 0;
    sp_sampler *s = NULL;
    if (sp_parse_warp_request((const char *)text, size, &logits, &n_logits,
                              &history, &n_history, &p, err) != SP_OK) {
        status = say_error(EXIT_BAD_FILE, "%s", err);
        goto done;
    }
    if (check_params(&p, n_logits)) {
        status = EXIT_BAD_ARG;
        goto done;
    }
    s = sp_sampler_new(n_logits);
    if (!s) {
        status = say_error(EXIT_BAD_FILE, "out of memory");
        goto done;
    }
    sp_step st;
    /* with a seed, XTC draws as a session's first step would */
    sp_sampler_state state = {draw ? sp_xtc_uniform(seed, 0) : 0.0, NAN};
    sp_sampler_set_state(s, &state);
    int rc = sp_sampler_warp(s, logits, history, n_history, &p, &st, err);
    if (rc != SP_OK) {
        status = say_error(rc == SP_ERR_ARG ? EXIT_BAD_ARG : EXIT_BAD_FILE,
                           "%s", err);
        goto done;
    }
    if (draw) {
        sp_rng rng;
        sp_rng_seed(&rng, seed);
        sp_sampler_draw(&st, sp_rng_uniform(&rng));
    }
    sp_buf b;
    sp_buf_init(&b);
    sp_buf_puts(&b, "{\"probs\":[");
    for (int i = 0; i < n_logits; i++) {
        if (i) sp_buf_put(&b, ",", 1);
        sp_buf_num(&b, st.probs[i]);
    }
    sp_buf_puts(&b, "],\"probs_raw\":[");
    for (int i = 0; i < n_logits; i++) {
        if (i) sp_buf_put(&b, ",", 1);
        sp_buf_num(&b, st.probs_raw[i]);
    }
    sp_buf_puts(&b, "],\"cut\":[");
    for (int i = 0; i < n_logits; i++) {
        if (i) sp_buf_put(&b, ",", 1);
        sp_buf_printf(&b, "\"%s\"", sp_cut_name(st.cut[i]));
    }
    sp_buf_puts(&b, "],");
    put_step_report(&b, &st);
    /* who cut what, in the chain's order */
    const char *names[SP_STAGE_COUNT + 3];
    int counts[SP_STAGE_COUNT + 3];
    int n_cuts = sp_step_cuts(&st, &p, names, counts);
    sp_buf_puts(&b, ",\"stages\":[");
    for (int i = 0; i < n_cuts; i++)
        sp_buf_printf(&b, "%s{\"stage\":\"%s\",\"cut\":%d}", i ? "," : "",
                      names[i], counts[i]);
    sp_buf_puts(&b, "]");
    if (draw) {
        sp_buf_printf(&b, ",\"token\":%d,\"p\":", st.token);
        sp_buf_num(&b, st.p_token);
        sp_buf_puts(&b, ",\"u\":");
        sp_buf_num(&b, st.u);
    }
    sp_buf_puts(&b, "}\n");
    if (b.failed) status = say_error(EXIT_BAD_FILE, "out of memory");
    else out_buf(&b, 1);
    sp_buf_free(&b);
done:
    sp_sampler_free(s);
    free(text);
    free(logits);
    free(history);
    return status;
}

/* ----------------------------------------------------------- generate */

/* What `generate` was asked to do. */
typedef struct {
    sp_params params;
    const char *model, *tokenizer, *prompt;
    uint64_t seed;
    long long steps;
    int json, metrics;
    int chat;            /* --chat: the prompt in the model's chat template */
    int work;            /* --work: the model's work on stderr */
    const char *regex;   /* --regex PATTERN, or NULL */
    const char *grammar; /* --grammar NAME (one of GRAMMARS), or NULL */
    int beams;           /* --beams B: beam search; 0: sampling */
    double length_penalty;
    const char *draft, *draft_tokenizer; /* --draft MODEL, or NULL */
    int speculate;       /* --speculate N (with --draft) */
    sampler_texts texts; /* --dry-sequence-breaker TEXT... */
} gen_request;

/* The grammars --grammar names, and the engine's constraint for each. */
typedef sp_constraint *(*grammar_fn)(char *err);
static const struct {
    const char *name;
    grammar_fn make;
} GRAMMARS[] = {
    {"json", sp_constraint_json},
    {"json-object", sp_constraint_json_object},
};
#define N_GRAMMARS (sizeof GRAMMARS / sizeof GRAMMARS[0])

static grammar_fn grammar_named(const char *name) {
    for (size_t k = 0; k < N_GRAMMARS; k++)
        if (strcmp(name, GRAMMARS[k].name) == 0) return GRAMMARS[k].make;
    return NULL;
}

/* Reads generate's options into g: 0, or the exit status after saying what
 * is wrong with one. */
static int parse_generate(args *a, gen_request *g) {
    memset(g, 0, sizeof *g);
    sp_params_default(&g->params);
    g->prompt = "";
    g->seed = DEFAULT_SEED;
    g->steps = DEFAULT_STEPS;
    for (a->i = 2; a->i < a->argc; a->i++) {
        int r = sampler_option(a, &g->params, &g->texts);
        if (r < 0) return -r;
        if (r > 0) continue;
        if (is_opt(a, "--metrics") && !a->value) {
            g->metrics = 1;
        } else if (is_opt(a, "--chat") && !a->value) {
            g->chat = 1;
        } else if (is_opt(a, "--work") && !a->value) {
            g->work = 1;
        } else if (is_opt(a, "--beams")) {
            NEED_VALUE(a, v);
            if (!parse_int(v, &g->beams) ||
                sp_beam_check_width(g->beams, NULL) != SP_OK)
                return say_error(EXIT_BAD_ARG, "--beams: '%s' is not an "
                                 "integer in 1..%d", v, SP_BEAM_MAX_WIDTH);
        } else if (is_opt(a, "--draft")) {
            NEED_VALUE(a, v);
            g->draft = v;
        } else if (is_opt(a, "--draft-tokenizer")) {
            NEED_VALUE(a, v);
            g->draft_tokenizer = v;
        } else if (is_opt(a, "--speculate")) {
            NEED_VALUE(a, v);
            if (!parse_int(v, &g->speculate) ||
                sp_spec_check_draft(g->speculate, NULL) != SP_OK)
                return say_error(EXIT_BAD_ARG, "--speculate: '%s' is not an "
                                 "integer in 1..%d", v, SP_SPEC_MAX_DRAFT);
        } else if (is_opt(a, "--length-penalty")) {
            NEED_VALUE(a, v);
            if (!parse_double(v, &g->length_penalty) ||
                sp_beam_check_length_penalty(g->length_penalty, NULL) != SP_OK)
                return say_error(EXIT_BAD_ARG, "--length-penalty: '%s' is not "
                                 "a number in [0, %d]", v,
                                 SP_BEAM_MAX_LENGTH_PENALTY);
        } else if (is_opt(a, "--model")) {
            NEED_VALUE(a, v);
            g->model = v;
        } else if (is_opt(a, "--tokenizer")) {
            NEED_VALUE(a, v);
            g->tokenizer = v;
        } else if (is_opt(a, "--prompt")) {
            NEED_VALUE(a, v);
            g->prompt = v;
        } else if (is_opt(a, "--steps")) {
            NEED_VALUE(a, v);
            if (!parse_long(v, 0, 100000000LL, &g->steps))
                return say_error(EXIT_BAD_ARG, "--steps: '%s' is not an "
                                 "integer in 0..100000000", v);
        } else if (is_opt(a, "--seed")) {
            NEED_VALUE(a, v);
            if (!parse_seed(v, &g->seed))
                return say_error(EXIT_BAD_ARG, "--seed: '%s' is not an "
                                 "integer in 0..18446744073709551615", v);
        } else if (is_opt(a, "--json")) {
            if (a->value)
                return say_error(EXIT_BAD_ARG, "--json takes no value");
            g->json = 1;
        } else if (is_opt(a, "--regex")) {
            NEED_VALUE(a, v);
            g->regex = v;
        } else if (is_opt(a, "--grammar")) {
            NEED_VALUE(a, v);
            if (!grammar_named(v)) {
                char known[128] = "";
                for (size_t k = 0; k < N_GRAMMARS; k++)
                    snprintf(known + strlen(known), sizeof known - strlen(known),
                             "%s%s", k ? ", " : "", GRAMMARS[k].name);
                return say_error(EXIT_BAD_ARG, "--grammar: '%s' is not a "
                                 "grammar this engine knows (%s)", v, known);
            }
            g->grammar = v;
        } else {
            return say_error(EXIT_BAD_ARG, "generate: unknown option '%s' "
                             "(see sampler --help)", a->argv[a->i]);
        }
    }
    return 0;
}

/* What generate cannot do together: 0, or status 2 after saying why. */
static int check_generate(const gen_request *g) {
    if (!g->model)
        return say_error(EXIT_BAD_ARG, "generate: --model is required "
                         "(bigram, transformer or a path)");
    if (g->regex && g->grammar)
        return say_error(EXIT_BAD_ARG, "--regex and --grammar cannot be "
                         "combined");
    if (g->beams && (g->metrics || g->draft))
        return say_error(EXIT_BAD_ARG, "--beams cannot be combined with "
                         "--metrics or --draft");
    if (!g->draft != !g->speculate)
        return say_error(EXIT_BAD_ARG, "--draft and --speculate go together");
    return check_params(&g->params, 0);
}

/* ---- sampling */

/* The text token `at` of the session adds after the one before it; none
 * for an end-of-text token, whose piece is not text. */
static const char *token_text(const sp_session *s, int at, int *len) {
    const int *tokens = sp_session_tokens(s);
    const char *piece = sp_decode(sp_session_tokenizer(s), tokens[at - 1],
                                  tokens[at], len);
    if (sp_session_is_end(s, tokens[at])) *len = 0;
    return piece;
}

/* Step i's token: its text, or with --json the step's record as one line. */
static void put_step(sp_buf *b, const sp_session *s, long long i, int json) {
    int len;
    const char *piece = token_text(s, sp_session_n_tokens(s) - 1, &len);
    if (!json) {
        sp_buf_put(b, piece, (size_t)len);
        return;
    }
    const sp_step *st = sp_session_last_step(s);
    sp_buf_printf(b, "{\"step\":%lld,\"token\":%d,\"piece\":", i, st->token);
    sp_buf_json_str(b, piece, (size_t)len);
    if (sp_session_is_end(s, st->token)) sp_buf_puts(b, ",\"end\":true");
    sp_buf_puts(b, ",\"p\":");
    sp_buf_num(b, st->p_token);
    sp_buf_puts(b, ",\"p_raw\":");
    sp_buf_num(b, st->probs_raw[st->token]);
    sp_buf_puts(b, ",");
    put_step_report(b, st);
    sp_buf_puts(b, ",\"u\":");
    sp_buf_num(b, st->u);
    sp_buf_puts(b, "}\n");
}

static void put_metrics(sp_buf *b, const sp_session *s) {
    sp_metrics m;
    if (sp_session_metrics(s, &m) != SP_OK) return;
    sp_buf_printf(b, "{\"metrics\":{\"tokens\":%d,\"bytes\":%d", m.tokens,
                  m.bytes);
    const struct { const char *name; double value; } nums[] = {
        {"distinct1", m.distinct1}, {"distinct2", m.distinct2},
        {"distinct3", m.distinct3}, {"type_token_ratio", m.type_token_ratio},
        {"mean_entropy_bits", m.mean_entropy_bits},
        {"mean_entropy_raw_bits", m.mean_entropy_raw_bits},
        {"mean_nucleus", m.mean_nucleus}, {"perplexity", m.perplexity},
    };
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
        sp_buf_printf(b, ",\"%s\":", nums[i].name);
        sp_buf_num(b, nums[i].value);
    }
    int len;
    char *text = sp_session_text(s, &len);
    sp_buf_printf(b, ",\"longest_repeat\":%d,\"longest_repeat_text\":",
                  m.longest_repeat);
    if (text) sp_buf_json_str(b, text + m.longest_repeat_at, (size_t)m.longest_repeat);
    else sp_buf_puts(b, "\"\"");
    free(text);
    sp_buf_puts(b, "}}\n");
}

/* Says why step i could not be taken, and returns the exit status.  The
 * text so far ends its line when the text stops: at the end of the model's
 * context (a normal end, status 0), when every token is banned by the
 * options (2) or masked by the model (1), or when no token can continue the
 * constraint (1).  Anything else is an error of its own. */
static int report_stop(int rc, const char *err, long long i, int json,
                       int context_full) {
    if (rc != SP_ERR_STATE && rc != SP_ERR_UNSATISFIABLE)
        return say_error(rc == SP_ERR_ARG ? EXIT_BAD_ARG : EXIT_BAD_FILE, "%s",
                         err);
    if (!json) sp_host_write(1, "\n", 1);
    int status = EXIT_BAD_FILE;
    if (rc == SP_ERR_STATE && context_full)
        status = 0;
    else if (sp_error_code(rc, err) == SP_ERR_NO_TOKEN)
        status = EXIT_BAD_ARG;
    return say_error(status, "stopped after %lld steps: %s", i, err);
}

/* The generation loop of a started session: each token printed as it
 * comes, then a newline (without --json) and the metrics (--metrics). */
static int sample_steps(sp_session *s, const gen_request *g, int seq_len) {
    char err[SP_ERR_LEN];
    sp_buf b;
    sp_buf_init(&b);
    if (!g->json) {
        sp_buf_puts(&b, g->prompt);
        out_buf(&b, 1);
    }
    for (long long i = 0; i < g->steps; i++) {
        int rc = sp_session_step(s, &g->params, -1, err);
        if (rc != SP_OK) {
            sp_buf_free(&b);
            int full = seq_len > 0 && sp_session_n_tokens(s) >= seq_len;
            return report_stop(rc, err, i, g->json, full);
        }
        put_step(&b, s, i, g->json);
        out_buf(&b, 1);
        if (sp_session_finished(s)) break;
    }
    if (!g->json) sp_host_write(1, "\n", 1);
    if (g->metrics) put_metrics(&b, s);
    out_buf(&b, 1);
    sp_buf_free(&b);
    return 0;
}

/* Sampling, optionally constrained (constraint may be NULL). */
/* The work a session's model did (--work): forward passes, the positions
 * they fed, and the tokens generated per pass. */
static void say_work(const char *who, const sp_session *s) {
    sp_counters c;
    sp_session_counters(s, &c);
    int n = sp_session_n_generated(s);
    say_error(0, "work: %s: %llu forward passes over %llu positions; %d "
              "tokens generated, %.2f per pass", who,
              (unsigned long long)c.passes, (unsigned long long)c.tokens, n,
              c.passes ? (double)n / (double)c.passes : 0.0);
}

static int run_sampling(const loaded *l, const gen_request *g,
                        const sp_constraint *constraint) {
    char err[SP_ERR_LEN];
    sp_session *s = sp_session_new(l->model, l->tokenizer, err);
    if (!s) return say_error(EXIT_BAD_FILE, "%s", err);
    int status;
    if (constraint &&
        sp_session_constrain(s, constraint, (int)g->steps, err) != SP_OK) {
        /* the engine's "constraint: why", said of the flag */
        const char *why = strchr(err, ':') ? strchr(err, ':') + 2 : err;
        status = say_error(EXIT_BAD_ARG, "--%s%s",
                           g->regex ? "regex: " : "grammar: ", why);
    } else {
        /* the raw distribution is only printed with --json or --metrics */
        sp_sampler_set_raw(sp_session_sampler(s), g->json || g->metrics);
        int rc = sp_session_start(s, g->prompt, g->seed, err);
        if (rc != SP_OK)
            status = say_error(rc == SP_ERR_ARG ? EXIT_BAD_ARG : EXIT_BAD_FILE,
                               "%s", err);
        else
            status = sample_steps(s, g, sp_model_seq_len(l->model));
        if (!status && g->work) say_work("model", s);
    }
    sp_session_free(s);
    return status;
}

/* ---- beam search */

/* Appends the text of a hypothesis's tokens[from..n) (stopping at an
 * end-of-text token, whose piece is not text). */
static void put_tokens(sp_buf *b, const sp_beam_search *bs, const int *tokens,
                       int from, int n) {
    const sp_tokenizer *tok = sp_beam_tokenizer(bs);
    for (int i = from; i < n; i++) {
        if (sp_beam_is_end(bs, tokens[i])) break;
        int len;
        const char *piece = sp_decode(tok, i ? tokens[i - 1] : -1, tokens[i], &len);
        sp_buf_put(b, piece, (size_t)len);
    }
}

/* --json: every hypothesis after step i, best first, as one line. */
static void put_beams(sp_buf *b, const sp_beam_search *bs, long long i) {
    int n_prompt = sp_beam_n_prompt(bs);
    sp_buf_printf(b, "{\"step\":%lld,\"beams\":[", i);
    for (int k = 0; k < sp_beam_count(bs); k++) {
        int n;
        const int *tokens = sp_beam_tokens(bs, k, &n);
        sp_buf text;
        sp_buf_init(&text);
        put_tokens(&text, bs, tokens, n_prompt, n);
        sp_buf_puts(b, k ? ",{\"text\":" : "{\"text\":");
        sp_buf_json_str(b, text.data ? text.data : "", text.len);
        sp_buf_free(&text);
        sp_buf_puts(b, ",\"logprob\":");
        sp_buf_num(b, sp_beam_logprob(bs, k));
        sp_buf_puts(b, ",\"score\":");
        sp_buf_num(b, sp_beam_score(bs, k));
        sp_buf_printf(b, ",\"finished\":%s}",
                      sp_beam_finished(bs, k) ? "true" : "false");
    }
    sp_buf_puts(b, "]}\n");
}

/* Beam search: the best hypothesis, or with --json every step's beams. */
static int run_beams(const loaded *l, const gen_request *g,
                     const sp_constraint *constraint) {
    char err[SP_ERR_LEN];
    int max_tokens = (int)strlen(g->prompt) + 3 + (int)g->steps;
    sp_beam_search *bs = sp_beam_new(l->model, l->tokenizer, g->beams,
                                     (float)g->length_penalty, max_tokens, err);
    if (!bs) return say_error(EXIT_BAD_ARG, "--%s", err);
    if (constraint &&
        sp_beam_constrain(bs, constraint, (int)g->steps, err) != SP_OK) {
        sp_beam_free(bs);
        const char *why = strchr(err, ':') ? strchr(err, ':') + 2 : err;
        return say_error(EXIT_BAD_ARG, "--%s%s",
                         g->regex ? "regex: " : "grammar: ", why);
    }
    if (sp_beam_start(bs, g->prompt, err) != SP_OK) {
        sp_beam_free(bs);
        return say_error(EXIT_BAD_ARG, "%s", err);
    }
    int status = 0;
    sp_buf b;
    sp_buf_init(&b);
    for (long long i = 0; i < g->steps && sp_beam_live(bs) > 0; i++) {
        int rc = sp_beam_step(bs, &g->params, err);
        if (rc == SP_ERR_STATE) {
            say_error(0, "stopped after %lld steps: %s", i, err);
            break;
        }
        if (rc != SP_OK) {
            status = say_error(rc == SP_ERR_ARG ? EXIT_BAD_ARG : EXIT_BAD_FILE,
                               "%s", err);
            break;
        }
        if (g->json) {
            put_beams(&b, bs, i);
            out_buf(&b, 1);
        }
    }
    if (!status && !g->json) {
        /* under a constraint, the best hypothesis that is complete */
        int best = 0;
        if (constraint) {
            while (best < sp_beam_count(bs) && !sp_beam_finished(bs, best))
                best++;
            if (best == sp_beam_count(bs)) {
                say_error(0, "no hypothesis is complete yet: the best one");
                best = 0;
            }
        }
        int n;
        const int *tokens = sp_beam_tokens(bs, best, &n);
        sp_buf_puts(&b, g->prompt);
        put_tokens(&b, bs, tokens, sp_beam_n_prompt(bs), n);
        sp_buf_puts(&b, "\n");
        out_buf(&b, 1);
    }
    sp_buf_free(&b);
    sp_beam_free(bs);
    return status;
}

/* ---- speculative sampling */

/* One round's tokens: their text, or with --json the round as one line
 * (the draft's proposals, and each token with its fate). */
static void put_round(sp_buf *b, const sp_session *s,
                      const sp_speculator *sp, int before, int appended,
                      long long round, int json) {
    static const char *const STATUS[4] = {"", "accepted", "corrected",
                                          "bonus"};
    const int *round_tokens, *round_status;
    sp_spec_round_tokens(sp, &round_tokens, &round_status);
    if (json) {
        const int *drafted;
        int nd = sp_spec_round_drafted(sp, &drafted);
        sp_buf_printf(b, "{\"round\":%lld,\"drafted\":[", round);
        for (int i = 0; i < nd; i++)
            sp_buf_printf(b, i ? ",%d" : "%d", drafted[i]);
        sp_buf_puts(b, "],\"tokens\":[");
    }
    for (int i = 0; i < appended; i++) {
        int len;
        const char *piece = token_text(s, before + i, &len);
        if (!json) {
            sp_buf_put(b, piece, (size_t)len);
            continue;
        }
        sp_buf_printf(b, "%s{\"token\":%d,\"piece\":", i ? "," : "",
                      sp_session_tokens(s)[before + i]);
        sp_buf_json_str(b, piece, (size_t)len);
        sp_buf_printf(b, ",\"status\":\"%s\"}", STATUS[round_status[i]]);
    }
    if (json) sp_buf_puts(b, "]}\n");
}

/* The rounds of a started speculator, until --steps tokens or the end of
 * the text; then the acceptance rate on stderr. */
static int speculate_rounds(sp_speculator *sp, sp_session *s,
                            const gen_request *g) {
    char err[SP_ERR_LEN];
    int status = 0;
    sp_buf b;
    sp_buf_init(&b);
    if (!g->json) {
        sp_buf_puts(&b, g->prompt);
        out_buf(&b, 1);
    }
    for (long long round = 0;
         sp_session_n_generated(s) < g->steps && !sp_session_finished(s);
         round++) {
        int before = sp_session_n_tokens(s);
        int rc = sp_spec_round(sp, &g->params, err);
        if (rc == SP_ERR_STATE) {
            say_error(0, "stopped: %s", err);
            break;
        }
        if (rc != SP_OK) {
            status = say_error(EXIT_BAD_FILE, "%s", err);
            break;
        }
        /* never past --steps: the last round may be cut short */
        if (sp_session_n_generated(s) > g->steps)
            sp_session_rewind(s, (int)g->steps, err);
        const int *round_tokens, *round_status;
        int appended = sp_spec_round_tokens(sp, &round_tokens, &round_status);
        if (before + appended > sp_session_n_tokens(s))
            appended = sp_session_n_tokens(s) - before;
        put_round(&b, s, sp, before, appended, round, g->json);
        out_buf(&b, 1);
    }
    if (!g->json) sp_host_write(1, "\n", 1);
    sp_buf_free(&b);
    long long drafted, accepted, rounds, positions;
    sp_spec_totals(sp, &drafted, &accepted, &rounds, &positions);
    say_error(0, "speculative: %lld of %lld drafted tokens accepted (%.1f%%) "
              "in %lld rounds; %lld target positions for %d tokens",
              accepted, drafted, drafted ? 100.0 * accepted / drafted : 0.0,
              rounds, positions, sp_session_n_generated(s));
    return status;
}

/* Speculative sampling: --draft MODEL proposes, the model verifies. */
static int run_speculative(const loaded *target, const gen_request *g,
                           const sp_constraint *constraint) {
    char err[SP_ERR_LEN];
    loaded d;
    int status = load_model(g->draft, g->draft_tokenizer, 1, &d);
    if (status) return status;
    sp_session *s = sp_session_new(target->model, target->tokenizer, err);
    if (!s) {
        unload(&d);
        return say_error(EXIT_BAD_FILE, "%s", err);
    }
    sp_sampler_set_raw(sp_session_sampler(s), g->json);
    sp_speculator *sp = NULL;
    if (constraint &&
        sp_session_constrain(s, constraint, (int)g->steps, err) != SP_OK) {
        const char *why = strchr(err, ':') ? strchr(err, ':') + 2 : err;
        status = say_error(EXIT_BAD_ARG, "--%s%s",
                           g->regex ? "regex: " : "grammar: ", why);
    } else if (!(sp = sp_spec_new(s, d.model, d.tokenizer, g->speculate,
                                  err))) {
        status = say_error(EXIT_BAD_ARG, "--draft: %s", err);
    } else {
        int rc = sp_spec_start(sp, g->prompt, g->seed, err);
        if (rc != SP_OK)
            status = say_error(rc == SP_ERR_ARG ? EXIT_BAD_ARG : EXIT_BAD_FILE,
                               "%s", err);
        else
            status = speculate_rounds(sp, s, g);
        if (!status && g->work) {
            long long passes, fed;
            sp_spec_work(sp, &passes, &fed);
            say_work("target", s);
            say_error(0, "work: verification: %lld batched passes over %lld "
                      "positions (the last token and the drafts)%s", passes,
                      fed, sp_spec_matched(sp) ? "; the draft speaks the "
                      "target's tokenizer" : "; draft tokens mapped by text");
            say_work("draft", sp_spec_draft_session(sp));
        }
    }
    sp_spec_free(sp);
    sp_session_free(s);
    unload(&d);
    return status;
}

/* ---- the command */


/* --chat: the prompt as one user message in the chat template of the
 * model's tokenizer (malloc'd), or NULL after saying on stderr why the
 * prompt is used as it is. */
static char *chat_prompt(const loaded *l, const char *prompt) {
    const sp_tokenizer *tok = l->tokenizer ? l->tokenizer
                                           : sp_model_tokenizer(l->model);
    char err[SP_ERR_LEN];
    char *wrapped = tok ? sp_chat_wrap(tok, prompt, err) : NULL;
    if (!wrapped) {
        const char *why = tok ? err : "chat: the model has no tokenizer; "
                                      "the prompt is used as it is";
        sp_host_write(2, "note: ", 6);
        sp_host_write(2, why, (int)strlen(why));
        sp_host_write(2, "\n", 1);
    }
    return wrapped;
}

/* DRY's sequence breakers, given as text: the model's tokens for each. */
static int add_breakers(gen_request *g, const loaded *l) {
    const sp_tokenizer *tok = l->tokenizer ? l->tokenizer
                                           : sp_model_tokenizer(l->model);
    for (int i = 0; i < g->texts.n; i++) {
        int ids[SP_MAX_DRY_BREAKER_LEN + 2];
        char err[SP_ERR_LEN];
        const char *text = g->texts.breakers[i];
        int n = sp_encode(tok, text, 0, 0, ids, SP_MAX_DRY_BREAKER_LEN + 1,
                          err);
        /* (the tokenizer's message speaks of a prompt: here a breaker) */
        const char *why = strncmp(err, "prompt: ", 8) ? err : err + 8;
        if (n < 0 || n > SP_MAX_DRY_BREAKER_LEN)
            return say_error(EXIT_BAD_ARG, "--dry-sequence-breaker: '%s' %s",
                             text, n < 0 ? why : "is more than 8 tokens");
        if (n == 0)
            return say_error(EXIT_BAD_ARG, "--dry-sequence-breaker: '%s' is "
                             "no token", text);
        if (sp_params_add_dry_breaker(&g->params, ids, n, err) != SP_OK)
            return say_error(EXIT_BAD_ARG, "--%s", err);
    }
    return 0;
}

static int cmd_generate(args *a) {
    gen_request g;
    int status = parse_generate(a, &g);
    if (!status) status = check_generate(&g);
    if (status) return status;
    char err[SP_ERR_LEN];
    sp_constraint *constraint = NULL;
    if (g.regex || g.grammar) {
        constraint = g.regex ? sp_constraint_regex(g.regex, err)
                             : grammar_named(g.grammar)(err);
        if (!constraint) return say_error(EXIT_BAD_ARG, "--%s", err);
    }
    loaded l;
    status = load_model(g.model, g.tokenizer, 1, &l);
    char *wrapped = NULL;
    if (!status && g.chat) {
        wrapped = chat_prompt(&l, g.prompt);
        if (wrapped) g.prompt = wrapped;
    }
    if (!status) status = add_breakers(&g, &l);
    if (!status) status = check_params(&g.params, sp_model_vocab(l.model));
    if (!status) {
        if (g.beams) status = run_beams(&l, &g, constraint);
        else if (g.draft) status = run_speculative(&l, &g, constraint);
        else status = run_sampling(&l, &g, constraint);
    }
    sp_constraint_free(constraint);
    free(wrapped);
    unload(&l);
    return status;
}

/* ------------------------------------------------------------ params */

static void put_json_text(sp_buf *b, const char *key, const char *value) {
    sp_buf_printf(b, "\"%s\":", key);
    sp_buf_json_str(b, value, strlen(value));
}

/* `sampler params`: the engine's registry as JSON, for the page's build
 * and the docs (one object: the stages in their default order, the
 * parameters with every field of their declaration). */
static int cmd_params(args *a) {
    if (a->argc > 2)
        return say_error(EXIT_BAD_ARG, "params takes no options (see sampler "
                         "--help)");
    sp_buf b = {0};
    sp_buf_puts(&b, "{\"stages\":[");
    for (int s = 0; s < SP_STAGE_COUNT; s++) {
        sp_buf_printf(&b, "%s{", s ? "," : "");
        put_json_text(&b, "name", sp_stage_name(s));
        sp_buf_puts(&b, ",");
        put_json_text(&b, "label", sp_stage_label(s));
        sp_buf_puts(&b, ",");
        put_json_text(&b, "doc", sp_stage_doc(s));
        sp_buf_printf(&b, ",\"cut\":\"%s\"}", sp_cut_name(sp_stage_cut(s)));
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
        put_json_text(&b, "stage", in->stage >= 0 ? sp_stage_name(in->stage)
                                                   : "mirostat");
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
    out_buf(&b, 1);
    sp_buf_free(&b);
    return 0;
}

/* ------------------------------------------------------ logits, encode */

static int cmd_logits(args *a) {
    const char *model = NULL, *tokens_text = NULL;
    for (a->i = 2; a->i < a->argc; a->i++) {
        if (is_opt(a, "--model")) {
            NEED_VALUE(a, v);
            model = v;
        } else if (is_opt(a, "--tokens")) {
            NEED_VALUE(a, v);
            tokens_text = v;
        } else {
            return say_error(EXIT_BAD_ARG, "logits: unknown option '%s' (see "
                             "sampler --help)", a->argv[a->i]);
        }
    }
    if (!model || !tokens_text)
        return say_error(EXIT_BAD_ARG, "logits: --model and --tokens are "
                         "required");
    loaded l;
    int status = load_model(model, NULL, 0, &l);
    if (status) return status;
    int vocab = sp_model_vocab(l.model), seq_len = sp_model_seq_len(l.model);
    sp_state *st = sp_state_new(l.model);
    sp_buf b;
    sp_buf_init(&b);
    if (!st) {
        status = say_error(EXIT_BAD_FILE, "out of memory");
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
            status = say_error(EXIT_BAD_ARG, "--tokens: item %d is not a "
                               "token id in 0..%d", pos, vocab - 1);
            goto done;
        }
        if (seq_len > 0 && pos >= seq_len) {
            status = say_error(EXIT_BAD_ARG, "--tokens: more than the model's "
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
    if (b.failed) status = say_error(EXIT_BAD_FILE, "out of memory");
    else out_buf(&b, 1);
done:
    sp_buf_free(&b);
    sp_state_free(st);
    unload(&l);
    return status;
}

static int cmd_encode(args *a) {
    const char *tok_path = NULL, *model = NULL, *text = NULL;
    int bos = 0, eos = 0, chat = 0;
    for (a->i = 2; a->i < a->argc; a->i++) {
        if (is_opt(a, "--tokenizer")) {
            NEED_VALUE(a, v);
            tok_path = v;
        } else if (is_opt(a, "--model")) {
            NEED_VALUE(a, v);
            model = v;
        } else if (is_opt(a, "--text")) {
            NEED_VALUE(a, v);
            text = v;
        } else if (is_opt(a, "--bos") && !a->value) {
            bos = 1;
        } else if (is_opt(a, "--eos") && !a->value) {
            eos = 1;
        } else if (is_opt(a, "--chat") && !a->value) {
            chat = 1;
        } else {
            return say_error(EXIT_BAD_ARG, "encode: unknown option '%s' (see "
                             "sampler --help)", a->argv[a->i]);
        }
    }
    if ((!tok_path && !model) || !text)
        return say_error(EXIT_BAD_ARG, "encode: --text and --tokenizer (or "
                         "--model) are required");
    loaded l = {NULL, NULL};
    const sp_tokenizer *tok;
    char err[SP_ERR_LEN];
    if (model) {
        int status = load_model(model, tok_path, 1, &l);
        if (status) return status;
        tok = l.tokenizer ? l.tokenizer : sp_model_tokenizer(l.model);
    } else {
        size_t size;
        uint8_t *data = read_file(tok_path, &size);
        if (!data) return EXIT_BAD_FILE;
        l.tokenizer = sp_tokenizer_load(data, size, 0, err);
        free(data);
        if (!l.tokenizer)
            return say_error(EXIT_BAD_FILE, "%s: %s", tok_path, err);
        tok = l.tokenizer;
    }
    char *wrapped = chat ? chat_prompt(&l, text) : NULL;
    if (wrapped) text = wrapped;
    int max_ids = sp_encode_bound(tok, strlen(text));
    int *ids = malloc(sizeof(int) * (size_t)max_ids);
    int n = ids ? sp_encode(tok, text, bos, eos, ids, max_ids, err) : -1;
    int status = 0;
    if (n < 0) {
        status = say_error(EXIT_BAD_ARG, "%s", ids ? err : "out of memory");
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
        out_buf(&b, 1);
        sp_buf_free(&b);
    }
    free(ids);
    free(wrapped);
    unload(&l);
    return status;
}

/* --------------------------------------------------------- train-bigram */

static int cmd_train_bigram(args *a) {
    const char *text_path = NULL, *out_path = NULL;
    double alpha = 0.1;
    char err[SP_ERR_LEN];
    for (a->i = 2; a->i < a->argc; a->i++) {
        if (is_opt(a, "--text")) {
            NEED_VALUE(a, v);
            text_path = v;
        } else if (is_opt(a, "-o") || is_opt(a, "--out")) {
            NEED_VALUE(a, v);
            out_path = v;
        } else if (is_opt(a, "--alpha")) {
            NEED_VALUE(a, v);
            if (!parse_double(v, &alpha) || !(alpha > 0 && alpha <= 100))
                return say_error(EXIT_BAD_ARG, "--alpha must be a number in "
                                 "(0, 100] (got '%s')", v);
        } else {
            return say_error(EXIT_BAD_ARG, "train-bigram: unknown option "
                             "'%s' (see sampler --help)", a->argv[a->i]);
        }
    }
    if (!text_path || !out_path)
        return say_error(EXIT_BAD_ARG, "train-bigram: --text FILE and -o OUT "
                         "are required");
    size_t size;
    uint8_t *text = read_file(text_path, &size);
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
        return say_error(EXIT_BAD_FILE, "%s: %s", text_path, err);
    int status = 0;
    if (sp_host_write_file(out_path, model, model_size, err) != 0) {
        status = say_error(EXIT_BAD_FILE, "%s", err);
    } else {
        sp_buf b;
        sp_buf_init(&b);
        sp_buf_printf(&b, "train-bigram: vocab %d (the boundary and %d "
                      "characters), alpha %g, wrote %s (%zu bytes)\n",
                      chars + 1, chars, alpha, out_path, model_size);
        out_buf(&b, 2);
        sp_buf_free(&b);
    }
    free(model);
    return status;
}

/* ----------------------------------------------------------------- main */

int sp_cli_main(int argc, char **argv) {
    args a = {argc, 1, argv, NULL, NULL};
    if (argc < 2)
        return say_error(EXIT_BAD_ARG, "a command is required: warp, "
                         "generate, logits or encode (see sampler --help)");
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        print_help();
        return 0;
    }
    if (!strcmp(cmd, "--version")) {
        char v[64];
        int n = snprintf(v, sizeof v, "sampler %s (%s)\n", SP_VERSION,
                         sp_backend());
        sp_host_write(1, v, n);
        return 0;
    }
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            print_help();
            return 0;
        }
    }
    if (!strcmp(cmd, "warp")) return cmd_warp(&a);
    if (!strcmp(cmd, "generate")) return cmd_generate(&a);
    if (!strcmp(cmd, "logits")) return cmd_logits(&a);
    if (!strcmp(cmd, "encode")) return cmd_encode(&a);
    if (!strcmp(cmd, "params")) return cmd_params(&a);
    if (!strcmp(cmd, "train-bigram")) return cmd_train_bigram(&a);
    return say_error(EXIT_BAD_ARG, "unknown command '%s' (warp, generate, "
                     "logits, encode or params)", cmd);
}
