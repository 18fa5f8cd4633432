/*
 * cli.c — the `sampler` command.  The native binary (main.c) and the WASM
 * build (`node build/sampler.mjs`) run this same code; output and files go
 * through the sp_host_* functions, so their output is byte-identical.
 *
 * Exit status: 0 done, 1 a bad or missing file / a runtime failure, 2 a bad
 * argument.  Every error is one line on stderr that names what is wrong.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

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
    "  sampler generate --model PATH|bigram|transformer [--tokenizer PATH]\n"
    "      [--prompt TEXT] [--steps N] [--seed S] [SAMPLER OPTIONS] [--json]\n"
    "      [--regex PATTERN | --grammar json] [--metrics]\n"
    "      [--beams B [--length-penalty A]]\n"
    "      [--draft MODEL [--draft-tokenizer PATH] --speculate N]\n"
    "      prints the prompt and the generated text; --json prints one JSON\n"
    "      object per step instead; --regex / --grammar json constrain the\n"
    "      generated text to match (within --steps tokens); --metrics adds a\n"
    "      last line {\"metrics\": {distinct-n, perplexity, ...}}; --beams B\n"
    "      runs a deterministic beam search of width B instead of sampling\n"
    "      (score = log p / length^A) and prints the best hypothesis; --draft\n"
    "      samples speculatively: MODEL drafts N tokens a round, the model\n"
    "      verifies them (acceptance rate on stderr)\n"
    "  sampler logits --model PATH --tokens 1,5,9\n"
    "      prints {\"logits\": [[...position 0...], ...]} (one KV-cache pass)\n"
    "  sampler encode --tokenizer PATH|--model PATH --text TEXT [--bos] "
    "[--eos]\n"
    "      prints {\"ids\": [...]}\n"
    "SAMPLER OPTIONS (applied in this order):\n"
    "  --logit-bias ID=VALUE   add VALUE to a logit; -inf bans (repeatable)\n"
    "  --repetition-penalty R  CTRL penalty on tokens seen (1 = off)\n"
    "  --frequency-penalty F   logit -= count * F (0 = off)\n"
    "  --presence-penalty F    logit -= F if seen (0 = off)\n"
    "  --penalty-last-n N      penalties look at the last N tokens (0 = all)\n"
    "  --temperature T         divide logits by T; 0 = greedy (default 1)\n"
    "  --top-k K               keep the K most likely (0 = off)\n"
    "  --top-p P               keep the smallest set with mass >= P (1 = off)\n"
    "  --min-p M               keep p >= M * max p (0 = off)\n"
    "  --typical-p P           locally typical sampling (1 = off)\n"
    "Defaults: --seed 42, --steps 64.  Models: `bigram` and `transformer` "
    "name\n"
    "the shipped ones.\n";

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

/* Reads a sampler option at argv[i] if it is one: 1 read, 0 not a sampler
 * option, or -EXIT_BAD_ARG after printing why. */
static int sampler_option(args *a, sp_params *p) {
    static const struct {
        const char *name;
        int is_int;
        size_t offset;
    } OPTS[] = {
        {"--temperature", 0, offsetof(sp_params, temperature)},
        {"--top-k", 1, offsetof(sp_params, top_k)},
        {"--top-p", 0, offsetof(sp_params, top_p)},
        {"--min-p", 0, offsetof(sp_params, min_p)},
        {"--typical-p", 0, offsetof(sp_params, typical_p)},
        {"--repetition-penalty", 0, offsetof(sp_params, repetition_penalty)},
        {"--frequency-penalty", 0, offsetof(sp_params, frequency_penalty)},
        {"--presence-penalty", 0, offsetof(sp_params, presence_penalty)},
        {"--penalty-last-n", 1, offsetof(sp_params, penalty_last_n)},
    };
    for (size_t k = 0; k < sizeof OPTS / sizeof OPTS[0]; k++) {
        if (!is_opt(a, OPTS[k].name)) continue;
        const char *v = opt_value(a);
        if (!v) return -say_error(EXIT_BAD_ARG, "%s needs a value", a->name);
        char *field = (char *)p + OPTS[k].offset;
        if (OPTS[k].is_int) {
            long long x;
            if (!parse_long(v, -2147483647LL, 2147483647LL, &x))
                return -say_error(EXIT_BAD_ARG, "%s: '%s' is not an integer",
                                  a->name, v);
            int xi = (int)x;
            memcpy(field, &xi, sizeof xi);
        } else {
            double x;
            if (!parse_double(v, &x))
                return -say_error(EXIT_BAD_ARG, "%s: '%s' is not a number",
                                  a->name, v);
            float xf = (float)x;
            memcpy(field, &xf, sizeof xf);
        }
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
        if (p->n_bias == SP_MAX_BIAS)
            return -say_error(EXIT_BAD_ARG, "--logit-bias: at most %d",
                              SP_MAX_BIAS);
        p->bias[p->n_bias].token = (int)id;
        p->bias[p->n_bias].value = (float)value;
        p->n_bias++;
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
    if (strcmp(name, "bigram") == 0) {
        model_path = join_path(sp_host_models_dir(), "bigram.bin");
    } else if (strcmp(name, "transformer") == 0) {
        model_path = join_path(sp_host_models_dir(), "transformer.bin");
        if (!tokenizer_path)
            tok_path = join_path(sp_host_models_dir(),
                                 "transformer_tokenizer.bin");
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
        int r = sampler_option(a, &p);
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
                              &history, &n_history, err) != SP_OK) {
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

/* Appends the text of tokens[from..n) (stopping at an end-of-text token for
 * llama2.c models, whose end pieces are not text). */
static void put_tokens(sp_buf *b, const sp_tokenizer *tok, const int *tokens,
                       int from, int n) {
    for (int i = from; i < n; i++) {
        if (tok->kind == SP_TOK_BPE && (tokens[i] == tok->eos || tokens[i] == tok->bos))
            break;
        int len;
        const char *piece = sp_decode(tok, i ? tokens[i - 1] : -1, tokens[i], &len);
        sp_buf_put(b, piece, (size_t)len);
    }
}

static int run_beams(const sp_model *m, const sp_tokenizer *tok,
                     const char *prompt, const sp_params *p, int width,
                     float length_penalty, long long steps, int json) {
    char err[SP_ERR_LEN];
    int max_tokens = (int)strlen(prompt) + 3 + (int)steps;
    sp_beam_search *bs = sp_beam_new(m, tok, width, length_penalty, max_tokens,
                                     err);
    if (!bs) return say_error(EXIT_BAD_ARG, "--%s", err);
    int status = 0;
    if (sp_beam_start(bs, prompt, err) != SP_OK) {
        status = say_error(EXIT_BAD_ARG, "%s", err);
        goto done;
    }
    const sp_tokenizer *t = sp_beam_tokenizer(bs);
    int n_prompt = sp_beam_n_prompt(bs);
    sp_buf b;
    sp_buf_init(&b);
    for (long long i = 0; i < steps && sp_beam_live(bs) > 0; i++) {
        int rc = sp_beam_step(bs, p, err);
        if (rc == SP_ERR_STATE) {
            say_error(0, "stopped after %lld steps: %s", i, err);
            break;
        }
        if (rc != SP_OK) {
            status = say_error(rc == SP_ERR_ARG ? EXIT_BAD_ARG : EXIT_BAD_FILE,
                               "%s", err);
            sp_buf_free(&b);
            goto done;
        }
        if (!json) continue;
        sp_buf_printf(&b, "{\"step\":%lld,\"beams\":[", i);
        for (int k = 0; k < sp_beam_count(bs); k++) {
            int n;
            const int *tokens = sp_beam_tokens(bs, k, &n);
            sp_buf b2;
            sp_buf_init(&b2);
            put_tokens(&b2, t, tokens, n_prompt, n);
            sp_buf_puts(&b, k ? ",{\"text\":" : "{\"text\":");
            sp_buf_json_str(&b, b2.data ? b2.data : "", b2.len);
            sp_buf_free(&b2);
            sp_buf_puts(&b, ",\"logprob\":");
            sp_buf_num(&b, sp_beam_logprob(bs, k));
            sp_buf_puts(&b, ",\"score\":");
            sp_buf_num(&b, sp_beam_score(bs, k));
            sp_buf_printf(&b, ",\"finished\":%s}",
                          sp_beam_finished(bs, k) ? "true" : "false");
        }
        sp_buf_puts(&b, "]}\n");
        out_buf(&b, 1);
    }
    if (!json) {
        int n;
        const int *tokens = sp_beam_tokens(bs, 0, &n);
        sp_buf_puts(&b, prompt);
        put_tokens(&b, t, tokens, n_prompt, n);
        sp_buf_puts(&b, "\n");
        out_buf(&b, 1);
    }
    sp_buf_free(&b);
done:
    sp_beam_free(bs);
    return status;
}

static int run_speculative(loaded *target, const char *draft_name,
                           const char *draft_tokenizer, const char *prompt,
                           uint64_t seed, const sp_params *p, int n_draft,
                           long long steps, int json) {
    char err[SP_ERR_LEN];
    loaded d;
    int status = load_model(draft_name, draft_tokenizer, 1, &d);
    if (status) return status;
    sp_session *s = sp_session_new(target->model, target->tokenizer, err);
    sp_speculator *sp = NULL;
    if (!s) {
        status = say_error(EXIT_BAD_FILE, "%s", err);
        goto done;
    }
    sp_sampler_set_raw(sp_session_sampler(s), json);
    sp = sp_spec_new(s, d.model, d.tokenizer, n_draft, err);
    if (!sp) {
        status = say_error(EXIT_BAD_ARG, "--draft: %s", err);
        goto done;
    }
    int rc = sp_spec_start(sp, prompt, seed, err);
    if (rc != SP_OK) {
        status = say_error(rc == SP_ERR_ARG ? EXIT_BAD_ARG : EXIT_BAD_FILE,
                           "%s", err);
        goto done;
    }
    const sp_tokenizer *tok = sp_session_tokenizer(s);
    sp_buf b;
    sp_buf_init(&b);
    if (!json) {
        sp_buf_puts(&b, prompt);
        out_buf(&b, 1);
    }
    static const char *const STATUS[4] = {"", "accepted", "corrected", "bonus"};
    long long round = 0;
    while (sp_session_n_generated(s) < steps && !sp_session_finished(s)) {
        int before = sp_session_n_tokens(s);
        rc = sp_spec_round(sp, p, err);
        if (rc != SP_OK) {
            if (rc == SP_ERR_STATE) {
                say_error(0, "stopped: %s", err);
                break;
            }
            status = say_error(EXIT_BAD_FILE, "%s", err);
            break;
        }
        /* never past --steps: the last round may be cut short */
        if (sp_session_n_generated(s) > steps)
            sp_session_rewind(s, (int)steps, err);
        const int *tokens = sp_session_tokens(s), *round_tokens, *round_status;
        int n = sp_session_n_tokens(s);
        int appended = sp_spec_round_tokens(sp, &round_tokens, &round_status);
        if (before + appended > n) appended = n - before;
        if (json) {
            const int *drafted;
            int nd = sp_spec_round_drafted(sp, &drafted);
            sp_buf_printf(&b, "{\"round\":%lld,\"drafted\":[", round);
            for (int i = 0; i < nd; i++)
                sp_buf_printf(&b, i ? ",%d" : "%d", drafted[i]);
            sp_buf_puts(&b, "],\"tokens\":[");
        }
        for (int i = 0; i < appended; i++) {
            int t = tokens[before + i], len;
            const char *piece = sp_decode(tok, tokens[before + i - 1], t, &len);
            if (sp_session_is_end(s, t)) len = 0;
            if (json) {
                sp_buf_printf(&b, "%s{\"token\":%d,\"piece\":", i ? "," : "",
                              t);
                sp_buf_json_str(&b, piece, (size_t)len);
                sp_buf_printf(&b, ",\"status\":\"%s\"}", STATUS[round_status[i]]);
            } else {
                sp_buf_put(&b, piece, (size_t)len);
            }
        }
        if (json) sp_buf_puts(&b, "]}\n");
        out_buf(&b, 1);
        round++;
    }
    if (!json) sp_host_write(1, "\n", 1);
    sp_buf_free(&b);
    long long drafted, accepted, rounds, positions;
    sp_spec_totals(sp, &drafted, &accepted, &rounds, &positions);
    say_error(0, "speculative: %lld of %lld drafted tokens accepted (%.1f%%) "
              "in %lld rounds; %lld target positions for %d tokens",
              accepted, drafted, drafted ? 100.0 * accepted / drafted : 0.0,
              rounds, positions, sp_session_n_generated(s));
done:
    sp_spec_free(sp);
    sp_session_free(s);
    unload(&d);
    return status;
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

static int cmd_generate(args *a) {
    sp_params p;
    sp_params_default(&p);
    const char *model = NULL, *tokenizer = NULL, *prompt = "";
    const char *regex = NULL, *grammar = NULL;
    uint64_t seed = DEFAULT_SEED;
    long long steps = DEFAULT_STEPS;
    int json = 0, metrics = 0;
    long long beams = 0, speculate = 0;
    double length_penalty = 0.0;
    const char *draft = NULL, *draft_tokenizer = NULL;
    for (a->i = 2; a->i < a->argc; a->i++) {
        int r = sampler_option(a, &p);
        if (r < 0) return -r;
        if (r > 0) continue;
        if (is_opt(a, "--metrics") && !a->value) {
            metrics = 1;
        } else if (is_opt(a, "--beams")) {
            NEED_VALUE(a, v);
            if (!parse_long(v, 1, 64, &beams))
                return say_error(EXIT_BAD_ARG, "--beams: '%s' is not an "
                                 "integer in 1..64", v);
        } else if (is_opt(a, "--draft")) {
            NEED_VALUE(a, v);
            draft = v;
        } else if (is_opt(a, "--draft-tokenizer")) {
            NEED_VALUE(a, v);
            draft_tokenizer = v;
        } else if (is_opt(a, "--speculate")) {
            NEED_VALUE(a, v);
            if (!parse_long(v, 1, 16, &speculate))
                return say_error(EXIT_BAD_ARG, "--speculate: '%s' is not an "
                                 "integer in 1..16", v);
        } else if (is_opt(a, "--length-penalty")) {
            NEED_VALUE(a, v);
            if (!parse_double(v, &length_penalty) ||
                !(length_penalty >= 0 && length_penalty <= 10))
                return say_error(EXIT_BAD_ARG, "--length-penalty: '%s' is not "
                                 "a number in [0, 10]", v);
        } else if (is_opt(a, "--model")) {
            NEED_VALUE(a, v);
            model = v;
        } else if (is_opt(a, "--tokenizer")) {
            NEED_VALUE(a, v);
            tokenizer = v;
        } else if (is_opt(a, "--prompt")) {
            NEED_VALUE(a, v);
            prompt = v;
        } else if (is_opt(a, "--steps")) {
            NEED_VALUE(a, v);
            if (!parse_long(v, 0, 100000000LL, &steps))
                return say_error(EXIT_BAD_ARG, "--steps: '%s' is not an "
                                 "integer in 0..100000000", v);
        } else if (is_opt(a, "--seed")) {
            NEED_VALUE(a, v);
            if (!parse_seed(v, &seed))
                return say_error(EXIT_BAD_ARG, "--seed: '%s' is not an "
                                 "integer in 0..18446744073709551615", v);
        } else if (is_opt(a, "--json")) {
            if (a->value)
                return say_error(EXIT_BAD_ARG, "--json takes no value");
            json = 1;
        } else if (is_opt(a, "--regex")) {
            NEED_VALUE(a, v);
            regex = v;
        } else if (is_opt(a, "--grammar")) {
            NEED_VALUE(a, v);
            if (strcmp(v, "json") != 0)
                return say_error(EXIT_BAD_ARG, "--grammar: '%s' is not a "
                                 "grammar this engine knows (json)", v);
            grammar = v;
        } else {
            return say_error(EXIT_BAD_ARG, "generate: unknown option '%s' "
                             "(see sampler --help)", a->argv[a->i]);
        }
    }
    if (!model)
        return say_error(EXIT_BAD_ARG, "generate: --model is required "
                         "(bigram, transformer or a path)");
    if (regex && grammar)
        return say_error(EXIT_BAD_ARG, "--regex and --grammar cannot be "
                         "combined");
    if (beams && (regex || grammar || metrics || draft))
        return say_error(EXIT_BAD_ARG, "--beams cannot be combined with "
                         "--regex, --grammar, --metrics or --draft");
    if (!draft != !speculate)
        return say_error(EXIT_BAD_ARG, "--draft and --speculate go together");
    if (draft && (regex || grammar))
        return say_error(EXIT_BAD_ARG, "--draft cannot be combined with "
                         "--regex or --grammar");
    if (check_params(&p, 0)) return EXIT_BAD_ARG;
    char err[SP_ERR_LEN];
    sp_constraint *constraint = NULL;
    if (regex || grammar) {
        constraint = regex ? sp_constraint_regex(regex, err)
                           : sp_constraint_json(err);
        if (!constraint)
            return say_error(EXIT_BAD_ARG, "--%s", err);
    }
    loaded l;
    int status = load_model(model, tokenizer, 1, &l);
    if (status) {
        sp_constraint_free(constraint);
        return status;
    }
    sp_session *s = NULL;
    if (check_params(&p, sp_model_vocab(l.model))) {
        status = EXIT_BAD_ARG;
        goto done;
    }
    if (beams) {
        status = run_beams(l.model, l.tokenizer, prompt, &p, (int)beams,
                           (float)length_penalty, steps, json);
        goto done;
    }
    if (draft) {
        status = run_speculative(&l, draft, draft_tokenizer, prompt, seed,
                                 &p, (int)speculate, steps, json);
        goto done;
    }
    s = sp_session_new(l.model, l.tokenizer, err);
    if (!s) {
        status = say_error(EXIT_BAD_FILE, "%s", err);
        goto done;
    }
    if (constraint &&
        sp_session_constrain(s, constraint, (int)steps, err) != SP_OK) {
        status = say_error(EXIT_BAD_ARG, "--%s%s", regex ? "regex: " : "grammar: ",
                           strchr(err, ':') ? strchr(err, ':') + 2 : err);
        goto done;
    }
    /* the raw distribution is only printed with --json or --metrics */
    sp_sampler_set_raw(sp_session_sampler(s), json || metrics);
    int rc = sp_session_start(s, prompt, seed, err);
    if (rc != SP_OK) {
        status = say_error(rc == SP_ERR_ARG ? EXIT_BAD_ARG : EXIT_BAD_FILE,
                           "%s", err);
        goto done;
    }
    sp_buf b;
    sp_buf_init(&b);
    const sp_tokenizer *tok = sp_session_tokenizer(s);
    if (!json) {
        sp_buf_puts(&b, prompt);
        out_buf(&b, 1);
    }
    for (long long i = 0; i < steps; i++) {
        rc = sp_session_step(s, &p, -1, err);
        if (rc != SP_OK) {
            out_buf(&b, 1);
            int seq_len = sp_model_seq_len(l.model);
            if (rc == SP_ERR_STATE && seq_len > 0 &&
                sp_session_n_tokens(s) >= seq_len) {
                /* context full: a normal end; stop, say why */
                if (!json) sp_host_write(1, "\n", 1);
                say_error(0, "stopped after %lld steps: %s", i, err);
            } else if (rc == SP_ERR_STATE) {
                /* every token masked (by the model: 1) or banned (by the
                 * options: 2) */
                if (!json) sp_host_write(1, "\n", 1);
                status = say_error(strncmp(err, "no token left", 13) == 0
                                       ? EXIT_BAD_ARG : EXIT_BAD_FILE,
                                   "stopped after %lld steps: %s", i, err);
            } else if (rc == SP_ERR_UNSATISFIABLE) {
                if (!json) sp_host_write(1, "\n", 1);
                status = say_error(EXIT_BAD_FILE, "stopped after %lld steps: "
                                   "%s", i, err);
            } else {
                status = say_error(rc == SP_ERR_ARG ? EXIT_BAD_ARG
                                                    : EXIT_BAD_FILE, "%s", err);
            }
            sp_buf_free(&b);
            goto done;
        }
        const sp_step *st = sp_session_last_step(s);
        const int *tokens = sp_session_tokens(s);
        int n = sp_session_n_tokens(s);
        int len;
        const char *piece = sp_decode(tok, tokens[n - 2], st->token, &len);
        int end = sp_session_is_end(s, st->token);
        if (end) len = 0; /* an end-of-text token is not text */
        if (json) {
            sp_buf_printf(&b, "{\"step\":%lld,\"token\":%d,\"piece\":", i,
                          st->token);
            sp_buf_json_str(&b, piece, (size_t)len);
            if (end) sp_buf_puts(&b, ",\"end\":true");
            sp_buf_puts(&b, ",\"p\":");
            sp_buf_num(&b, st->p_token);
            sp_buf_puts(&b, ",\"p_raw\":");
            sp_buf_num(&b, st->probs_raw[st->token]);
            sp_buf_puts(&b, ",");
            put_step_report(&b, st);
            sp_buf_puts(&b, ",\"u\":");
            sp_buf_num(&b, st->u);
            sp_buf_puts(&b, "}\n");
        } else {
            sp_buf_put(&b, piece, (size_t)len);
        }
        out_buf(&b, 1);
        if (sp_session_finished(s)) break;
    }
    if (!json) sp_host_write(1, "\n", 1);
    if (metrics) put_metrics(&b, s);
    out_buf(&b, 1);
    sp_buf_free(&b);
done:
    sp_session_free(s);
    sp_constraint_free(constraint);
    unload(&l);
    return status;
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
    int bos = 0, eos = 0;
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
    int max_ids = (int)strlen(text) + 3;
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
        sp_buf_puts(&b, "]}\n");
        out_buf(&b, 1);
        sp_buf_free(&b);
    }
    free(ids);
    unload(&l);
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
        sp_host_write(1, USAGE, (int)strlen(USAGE));
        return 0;
    }
    if (!strcmp(cmd, "--version")) {
        const char v[] = "sampler " SP_VERSION " (" SP_VEC4_BACKEND ")\n";
        sp_host_write(1, v, (int)strlen(v));
        return 0;
    }
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            sp_host_write(1, USAGE, (int)strlen(USAGE));
            return 0;
        }
    }
    if (!strcmp(cmd, "warp")) return cmd_warp(&a);
    if (!strcmp(cmd, "generate")) return cmd_generate(&a);
    if (!strcmp(cmd, "logits")) return cmd_logits(&a);
    if (!strcmp(cmd, "encode")) return cmd_encode(&a);
    return say_error(EXIT_BAD_ARG, "unknown command '%s' (warp, generate, "
                     "logits or encode)", cmd);
}
