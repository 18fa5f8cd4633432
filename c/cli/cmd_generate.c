/*
 * cmd_generate.c — `sampler generate`: its options, and the command.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_shared.h"

/* ----------------------------------------------------------- generate */

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

/* Readers of generate's numbers (cli_opt.read): each a number the engine
 * takes for its option. */
static int read_width(const char *v, void *o) {
    return cli_parse_int(v, o) && sp_beam_check_width(*(int *)o, NULL) == SP_OK;
}
static int read_groups(const char *v, void *o) {
    int *g = o;
    return cli_parse_int(v, g) && sp_beam_check_groups(*g, *g, NULL) == SP_OK;
}
static int read_draft(const char *v, void *o) {
    return cli_parse_int(v, o) && sp_spec_check_draft(*(int *)o, NULL) == SP_OK;
}
static int read_ngram(const char *v, void *o) {
    return cli_parse_int(v, o) && sp_spec_check_ngram(*(int *)o, NULL) == SP_OK;
}
static int read_diversity(const char *v, void *o) {
    return cli_parse_double(v, o) &&
           sp_beam_check_diversity(*(double *)o, NULL) == SP_OK;
}
static int read_length_penalty(const char *v, void *o) {
    return cli_parse_double(v, o) &&
           sp_beam_check_length_penalty(*(double *)o, NULL) == SP_OK;
}
static int read_steps(const char *v, void *o) {
    return cli_parse_long(v, 0, 100000000LL, o);
}
static int read_grammar(const char *v, void *o) {
    if (!grammar_named(v)) return 0;
    *(const char **)o = v;
    return 1;
}

/* Reads generate's options into g: 0, or the exit status after saying what
 * is wrong with one. */
static int parse_generate(args *a, gen_request *g) {
    memset(g, 0, sizeof *g);
    sp_params_default(&g->params);
    g->prompt = "";
    g->seed = DEFAULT_SEED;
    g->steps = DEFAULT_STEPS;
    char grammars[128] = "a grammar this engine knows (";
    for (size_t k = 0; k < N_GRAMMARS; k++)
        snprintf(grammars + strlen(grammars), sizeof grammars - strlen(grammars),
                 "%s%s", k ? ", " : "", GRAMMARS[k].name);
    snprintf(grammars + strlen(grammars), sizeof grammars - strlen(grammars), ")");
    const char *integer = "an integer in 1..%d", *number = "a number in [0, %d]";
    const cli_opt opts[] = {
        {"--model", NULL, &g->model, NULL, NULL, NULL, NULL, 0},
        {"--tokenizer", NULL, &g->tokenizer, NULL, NULL, NULL, NULL, 0},
        {"--prompt", NULL, &g->prompt, NULL, NULL, NULL, NULL, 0},
        {"--steps", NULL, NULL, NULL, &g->steps, read_steps,
         "an integer in 0..100000000", 0},
        {"--seed", NULL, NULL, NULL, &g->seed, cli_read_seed,
         "an integer in 0..18446744073709551615", 0},
        {"--json", NULL, NULL, &g->json, NULL, NULL, "takes no value", 0},
        {"--metrics", NULL, NULL, &g->metrics, NULL, NULL, NULL, 0},
        {"--chat", NULL, NULL, &g->chat, NULL, NULL, NULL, 0},
        {"--work", NULL, NULL, &g->work, NULL, NULL, NULL, 0},
        {"--regex", NULL, &g->regex, NULL, NULL, NULL, NULL, 0},
        {"--grammar", NULL, NULL, NULL, &g->grammar, read_grammar, grammars, 0},
        {"--beams", NULL, NULL, NULL, &g->beams, read_width, integer,
         SP_BEAM_MAX_WIDTH},
        {"--num-beam-groups", NULL, NULL, NULL, &g->beam_groups, read_groups,
         integer, SP_BEAM_MAX_WIDTH},
        {"--diversity-penalty", NULL, NULL, NULL, &g->diversity,
         read_diversity, number, SP_BEAM_MAX_DIVERSITY},
        {"--length-penalty", NULL, NULL, NULL, &g->length_penalty,
         read_length_penalty, number, SP_BEAM_MAX_LENGTH_PENALTY},
        {"--draft", NULL, &g->draft, NULL, NULL, NULL, NULL, 0},
        {"--draft-tokenizer", NULL, &g->draft_tokenizer, NULL, NULL, NULL,
         NULL, 0},
        {"--speculate", NULL, NULL, NULL, &g->speculate, read_draft, integer,
         SP_SPEC_MAX_DRAFT},
        {"--prompt-lookup", NULL, NULL, NULL, &g->lookup, read_draft, integer,
         SP_SPEC_MAX_DRAFT},
        {"--prompt-lookup-ngram", NULL, NULL, NULL, &g->lookup_ngram,
         read_ngram, integer, SP_SPEC_MAX_NGRAM},
        {NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0}};
    return cli_command_options(a, "generate", opts, &g->params, &g->texts);
}

/* What generate cannot do together: 0, or status 2 after saying why. */
static int check_generate(const gen_request *g) {
    if (!g->model) { /* the shipped names: models/manifest.json */
        sp_buf names = {0};
        cli_put_model_names(&names, ", ", ", ");
        int status = cli_say_error(EXIT_BAD_ARG, "generate: --model is "
                                   "required (%s or a path)",
                                   names.data ? names.data : "");
        sp_buf_free(&names);
        return status;
    }
    if (g->regex && g->grammar)
        return cli_say_error(EXIT_BAD_ARG, "--regex and --grammar cannot be "
                         "combined");
    if (g->beams && (g->metrics || g->draft))
        return cli_say_error(EXIT_BAD_ARG, "--beams cannot be combined with "
                         "--metrics or --draft");
    if (!g->draft != !g->speculate)
        return cli_say_error(EXIT_BAD_ARG, "--draft and --speculate go together");
    if ((g->beam_groups || g->diversity != 0.0) && !g->beams)
        return cli_say_error(EXIT_BAD_ARG, "--num-beam-groups and "
                         "--diversity-penalty need --beams");
    if (g->beam_groups) {
        char err[SP_ERR_LEN];
        if (sp_beam_check_groups(g->beams, g->beam_groups, err) != SP_OK)
            return cli_say_error(EXIT_BAD_ARG, "--%s", err);
    }
    if (g->lookup_ngram && !g->lookup)
        return cli_say_error(EXIT_BAD_ARG, "--prompt-lookup-ngram needs "
                         "--prompt-lookup N");
    if (g->lookup && (g->beams || g->draft || g->metrics))
        return cli_say_error(EXIT_BAD_ARG, "--prompt-lookup cannot be combined "
                         "with --beams, --draft or --metrics");
    return cli_check_params(&g->params, 0);
}


/* ---- the command */


/* --chat: the prompt as one user message in the chat template of the
 * model's tokenizer (malloc'd), or NULL after saying on stderr why the
 * prompt is used as it is. */
char *cli_chat_prompt(const loaded *l, const char *prompt) {
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
            return cli_say_error(EXIT_BAD_ARG, "--dry-sequence-breaker: '%s' %s",
                             text, n < 0 ? why : "is more than 8 tokens");
        if (n == 0)
            return cli_say_error(EXIT_BAD_ARG, "--dry-sequence-breaker: '%s' is "
                             "no token", text);
        if (sp_params_add_dry_breaker(&g->params, ids, n, err) != SP_OK)
            return cli_say_error(EXIT_BAD_ARG, "--%s", err);
    }
    return 0;
}

int cli_cmd_generate(args *a) {
    gen_request g;
    int status = parse_generate(a, &g);
    if (!status) status = check_generate(&g);
    if (status) return status;
    char err[SP_ERR_LEN];
    sp_constraint *constraint = NULL;
    if (g.regex || g.grammar) {
        constraint = g.regex ? sp_constraint_regex(g.regex, err)
                             : grammar_named(g.grammar)(err);
        if (!constraint) return cli_say_error(EXIT_BAD_ARG, "--%s", err);
    }
    loaded l;
    status = cli_load_model(g.model, g.tokenizer, 1, &l);
    char *wrapped = NULL;
    if (!status && g.chat) {
        wrapped = cli_chat_prompt(&l, g.prompt);
        if (wrapped) g.prompt = wrapped;
    }
    if (!status) status = add_breakers(&g, &l);
    if (!status)
        status = cli_add_words(&g.texts, l.tokenizer ? l.tokenizer
                               : sp_model_tokenizer(l.model), &g.params);
    if (!status) status = cli_check_params(&g.params, sp_model_vocab(l.model));
    if (!status) {
        if (g.beams) status = cli_run_beams(&l, &g, constraint);
        else if (g.draft || g.lookup)
            status = cli_run_speculative(&l, &g, constraint);
        else status = cli_run_sampling(&l, &g, constraint);
    }
    sp_constraint_free(constraint);
    free(wrapped);
    cli_unload(&l);
    return status;
}
