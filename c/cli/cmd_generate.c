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

/* Reads generate's options into g: 0, or the exit status after saying what
 * is wrong with one. */
static int parse_generate(args *a, gen_request *g) {
    memset(g, 0, sizeof *g);
    sp_params_default(&g->params);
    g->prompt = "";
    g->seed = DEFAULT_SEED;
    g->steps = DEFAULT_STEPS;
    for (a->i = 2; a->i < a->argc; a->i++) {
        int r = cli_sampler_option(a, &g->params, &g->texts);
        if (r < 0) return -r;
        if (r > 0) continue;
        if (cli_is_opt(a, "--metrics") && !a->value) {
            g->metrics = 1;
        } else if (cli_is_opt(a, "--chat") && !a->value) {
            g->chat = 1;
        } else if (cli_is_opt(a, "--work") && !a->value) {
            g->work = 1;
        } else if (cli_is_opt(a, "--beams")) {
            NEED_VALUE(a, v);
            if (!cli_parse_int(v, &g->beams) ||
                sp_beam_check_width(g->beams, NULL) != SP_OK)
                return cli_say_error(EXIT_BAD_ARG, "--beams: '%s' is not an "
                                 "integer in 1..%d", v, SP_BEAM_MAX_WIDTH);
        } else if (cli_is_opt(a, "--draft")) {
            NEED_VALUE(a, v);
            g->draft = v;
        } else if (cli_is_opt(a, "--draft-tokenizer")) {
            NEED_VALUE(a, v);
            g->draft_tokenizer = v;
        } else if (cli_is_opt(a, "--speculate")) {
            NEED_VALUE(a, v);
            if (!cli_parse_int(v, &g->speculate) ||
                sp_spec_check_draft(g->speculate, NULL) != SP_OK)
                return cli_say_error(EXIT_BAD_ARG, "--speculate: '%s' is not an "
                                 "integer in 1..%d", v, SP_SPEC_MAX_DRAFT);
        } else if (cli_is_opt(a, "--num-beam-groups")) {
            NEED_VALUE(a, v);
            if (!cli_parse_int(v, &g->beam_groups) ||
                sp_beam_check_groups(g->beam_groups, g->beam_groups, NULL) !=
                    SP_OK)
                return cli_say_error(EXIT_BAD_ARG, "--num-beam-groups: '%s' is "
                                 "not an integer in 1..%d", v,
                                 SP_BEAM_MAX_WIDTH);
        } else if (cli_is_opt(a, "--diversity-penalty")) {
            NEED_VALUE(a, v);
            if (!cli_parse_double(v, &g->diversity) ||
                sp_beam_check_diversity(g->diversity, NULL) != SP_OK)
                return cli_say_error(EXIT_BAD_ARG, "--diversity-penalty: '%s' "
                                 "is not a number in [0, %d]", v,
                                 SP_BEAM_MAX_DIVERSITY);
        } else if (cli_is_opt(a, "--prompt-lookup")) {
            NEED_VALUE(a, v);
            if (!cli_parse_int(v, &g->lookup) ||
                sp_spec_check_draft(g->lookup, NULL) != SP_OK)
                return cli_say_error(EXIT_BAD_ARG, "--prompt-lookup: '%s' is not "
                                 "an integer in 1..%d", v, SP_SPEC_MAX_DRAFT);
        } else if (cli_is_opt(a, "--prompt-lookup-ngram")) {
            NEED_VALUE(a, v);
            if (!cli_parse_int(v, &g->lookup_ngram) ||
                sp_spec_check_ngram(g->lookup_ngram, NULL) != SP_OK)
                return cli_say_error(EXIT_BAD_ARG, "--prompt-lookup-ngram: '%s' "
                                 "is not an integer in 1..%d", v,
                                 SP_SPEC_MAX_NGRAM);
        } else if (cli_is_opt(a, "--length-penalty")) {
            NEED_VALUE(a, v);
            if (!cli_parse_double(v, &g->length_penalty) ||
                sp_beam_check_length_penalty(g->length_penalty, NULL) != SP_OK)
                return cli_say_error(EXIT_BAD_ARG, "--length-penalty: '%s' is not "
                                 "a number in [0, %d]", v,
                                 SP_BEAM_MAX_LENGTH_PENALTY);
        } else if (cli_is_opt(a, "--model")) {
            NEED_VALUE(a, v);
            g->model = v;
        } else if (cli_is_opt(a, "--tokenizer")) {
            NEED_VALUE(a, v);
            g->tokenizer = v;
        } else if (cli_is_opt(a, "--prompt")) {
            NEED_VALUE(a, v);
            g->prompt = v;
        } else if (cli_is_opt(a, "--steps")) {
            NEED_VALUE(a, v);
            if (!cli_parse_long(v, 0, 100000000LL, &g->steps))
                return cli_say_error(EXIT_BAD_ARG, "--steps: '%s' is not an "
                                 "integer in 0..100000000", v);
        } else if (cli_is_opt(a, "--seed")) {
            NEED_VALUE(a, v);
            if (!cli_parse_seed(v, &g->seed))
                return cli_say_error(EXIT_BAD_ARG, "--seed: '%s' is not an "
                                 "integer in 0..18446744073709551615", v);
        } else if (cli_is_opt(a, "--json")) {
            if (a->value)
                return cli_say_error(EXIT_BAD_ARG, "--json takes no value");
            g->json = 1;
        } else if (cli_is_opt(a, "--regex")) {
            NEED_VALUE(a, v);
            g->regex = v;
        } else if (cli_is_opt(a, "--grammar")) {
            NEED_VALUE(a, v);
            if (!grammar_named(v)) {
                char known[128] = "";
                for (size_t k = 0; k < N_GRAMMARS; k++)
                    snprintf(known + strlen(known), sizeof known - strlen(known),
                             "%s%s", k ? ", " : "", GRAMMARS[k].name);
                return cli_say_error(EXIT_BAD_ARG, "--grammar: '%s' is not a "
                                 "grammar this engine knows (%s)", v, known);
            }
            g->grammar = v;
        } else {
            return cli_say_error(EXIT_BAD_ARG, "generate: unknown option '%s' "
                             "(see sampler --help)", a->argv[a->i]);
        }
    }
    return 0;
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
    /* classifier-free guidance runs in a session: one text, two runs */
    if ((g->params.cfg_scale != 1.0f || g->texts.negative_prompt) &&
        (g->beams || g->draft || g->lookup))
        return cli_say_error(EXIT_BAD_ARG, "--cfg-scale and --negative-prompt "
                         "cannot be combined with --beams, --draft or "
                         "--prompt-lookup");
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
