/*
 * cli_shared.h — what the files of the `sampler` command share (cli.h is
 * its one entry point, sp_cli_main):
 *
 *   cli.c            the commands by name
 *   usage.c          --help
 *   args.c           errors on stderr, options and their values, the
 *                    sampler's options from the engine's registry
 *   load.c           --model NAME|PATH and its tokenizer (manifest.c: the
 *                    shipped names, models/manifest.json)
 *   cmd_warp.c       warp
 *   cmd_generate.c   generate: its options and the command
 *   generate_run.c   generate: sampling, beam search, speculative sampling
 *   cmd_tools.c      params, logits, encode, train-bigram
 *   cmd_inspect.c    inspect (attention weights and the logit lens)
 *   cmd_detect.c     detect (a watermark's z-score)
 *   cmd_train.c      train (a transformer on a text)
 *
 * Exit status: 0 done, 1 a bad or missing file / a runtime failure, 2 a bad
 * argument.  Every error is one line on stderr that names what is wrong.
 */
#ifndef SP_CLI_SHARED_H
#define SP_CLI_SHARED_H

#include <stddef.h>
#include <stdint.h>

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

/* ---- args.c */

typedef struct {
    int argc, i;
    char **argv;
    const char *name;  /* the option being read, e.g. "--top-p" */
    const char *value; /* its value when given as --name=value */
} args;

/* Options whose value is text the model's tokenizer turns into tokens. */
typedef struct {
    const char *breakers[SP_MAX_DRY_BREAKERS]; /* --dry-sequence-breaker */
    int n;
    /* words, not ids: --bad-words TEXT, --sequence-bias TEXT=VALUE */
    const char *bad_words[SP_MAX_WORDS];
    int n_bad_words;
    const char *seq_bias[SP_MAX_WORDS]; /* TEXT=VALUE as given */
    int n_seq_bias;
    /* classifier-free guidance's --negative-prompt TEXT (NULL: none) */
    const char *negative_prompt;
} sampler_texts;

/* Makes the texts' words tokens of tok into p (args.c): 0, or the exit
 * status after saying why. */
int cli_add_words(const sampler_texts *texts, const sp_tokenizer *tok,
                  sp_params *p);

void cli_out_buf(sp_buf *b, int fd);
/* Says "sampler: " and the message on stderr, as one line; returns status. */
int cli_say_error(int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
int cli_is_opt(args *a, const char *name);
const char *cli_opt_value(args *a);
int cli_parse_double(const char *s, double *out);
int cli_parse_long(const char *s, long long lo, long long hi, long long *out);
int cli_parse_int(const char *s, int *out);
int cli_parse_seed(const char *s, uint64_t *out);
int cli_sampler_option(args *a, sp_params *p, sampler_texts *texts);

/* A command's own options, one row each (the table ends with a NULL
 * name), --name VALUE (or -alias VALUE, --name=VALUE):
 *   text          the value, as given, into *text;
 *   value, read   read(VALUE, value) reads and checks it: 0 for a value it
 *                 refuses, said as "NAME: 'VALUE' is not " what (with
 *                 limit for what's %d: "an integer in 1..%d");
 *   flag alone    a flag without a value: *flag = 1 (given a value, it is
 *                 an unknown option, or "NAME " what when what is set);
 *   flag beside   1 when the option was given. */
typedef struct {
    const char *name, *alias;
    const char **text;
    int *flag;
    void *value;
    int (*read)(const char *text, void *value);
    const char *what;
    int limit;
} cli_opt;
/* Reads argv[i] when it is one of opts: 1; 0 when it is none of them;
 * -EXIT_BAD_ARG after saying what is wrong with its value. */
int cli_table_option(args *a, const cli_opt *opts);
/* A command's options: the sampler's (into p and texts; none when p is
 * NULL) and its own, opts; reads them all: 0, or the exit status after
 * saying what is wrong or unknown. */
int cli_command_options(args *a, const char *cmd, const cli_opt *opts,
                        sp_params *p, sampler_texts *texts);
/* A command whose options are all in opts. */
int cli_table_options(args *a, const char *cmd, const cli_opt *opts);
/* Readers for cli_opt.read: a seed (uint64_t), a whole number (int). */
int cli_read_seed(const char *text, void *value);
int cli_read_int(const char *text, void *value);
int cli_check_params(const sp_params *p, int vocab);

#define NEED_VALUE(a, v)                                                    \
    const char *v = cli_opt_value(a);                                           \
    if (!v) return cli_say_error(EXIT_BAD_ARG, "%s needs a value", (a)->name)

/* ---- load.c */

typedef struct {
    sp_model *model;
    sp_tokenizer *tokenizer; /* loaded separately (llama2.c); may be NULL */
} loaded;

uint8_t *cli_read_file(const char *path, size_t *size);
void cli_unload(loaded *l);
char *cli_dup_str(const char *s);
char *cli_join_path(const char *dir, const char *name);
int cli_load_model(const char *name, const char *tokenizer_path,
                   int need_tokenizer, loaded *out);

/* ---- usage.c */

void cli_print_help(void);
/* "bigram, transformer": the shipped models that are not drafts */
void cli_put_model_names(sp_buf *b, const char *sep, const char *last);

/* ---- generate */

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
    int beam_groups;     /* --num-beam-groups G (0: not given, 1 group) */
    double diversity;    /* --diversity-penalty F */
    int lookup, lookup_ngram; /* --prompt-lookup N, --prompt-lookup-ngram M */
    const char *draft, *draft_tokenizer; /* --draft MODEL, or NULL */
    int speculate;       /* --speculate N (with --draft) */
    sampler_texts texts; /* --dry-sequence-breaker TEXT... */
} gen_request;

int cli_run_sampling(const loaded *l, const gen_request *g,
                     const sp_constraint *constraint);
int cli_run_beams(const loaded *l, const gen_request *g,
                  const sp_constraint *constraint);
int cli_run_speculative(const loaded *target, const gen_request *g,
                        const sp_constraint *constraint);

/* cmd_warp.c: a step's report as JSON fields */
void cli_put_step_report(sp_buf *b, const sp_step *st);
/* cmd_generate.c: --chat's prompt (malloc'd), or NULL after a note */
char *cli_chat_prompt(const loaded *l, const char *prompt);

/* ---- the commands: argv[1] is the command's name; the exit status */

int cli_cmd_warp(args *a);
int cli_cmd_generate(args *a);
int cli_cmd_params(args *a);
int cli_cmd_logits(args *a);
int cli_cmd_inspect(args *a); /* cmd_inspect.c */
int cli_cmd_encode(args *a);
int cli_cmd_train_bigram(args *a);
int cli_cmd_detect(args *a); /* cmd_detect.c: watermark detection */
int cli_cmd_train(args *a);  /* cmd_train.c: a transformer on a text */
/* cmd_train.c: the train command's options, for --help */
void cli_put_train_help(sp_buf *b);

#endif /* SP_CLI_SHARED_H */
