/*
 * generate_run.c — `sampler generate`'s three ways to write a text: sampling,
 * beam search and speculative sampling, each printing as it goes.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_shared.h"

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
    cli_put_step_report(b, st);
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
        return cli_say_error(rc == SP_ERR_ARG ? EXIT_BAD_ARG : EXIT_BAD_FILE, "%s",
                         err);
    if (!json) sp_host_write(1, "\n", 1);
    int status = EXIT_BAD_FILE;
    if (rc == SP_ERR_STATE && context_full)
        status = 0;
    else if (sp_error_code(rc, err) == SP_ERR_NO_TOKEN)
        status = EXIT_BAD_ARG;
    return cli_say_error(status, "stopped after %lld steps: %s", i, err);
}

/* The generation loop of a started session: each token printed as it
 * comes, then a newline (without --json) and the metrics (--metrics). */
static int sample_steps(sp_session *s, const gen_request *g, int seq_len) {
    char err[SP_ERR_LEN];
    sp_buf b;
    sp_buf_init(&b);
    if (!g->json) {
        sp_buf_puts(&b, g->prompt);
        cli_out_buf(&b, 1);
    }
    for (long long i = 0; i < g->steps; i++) {
        int rc = sp_session_step(s, &g->params, -1, err);
        if (rc != SP_OK) {
            sp_buf_free(&b);
            int full = seq_len > 0 && sp_session_n_tokens(s) >= seq_len;
            return report_stop(rc, err, i, g->json, full);
        }
        put_step(&b, s, i, g->json);
        cli_out_buf(&b, 1);
        if (sp_session_finished(s)) break;
    }
    if (!g->json) sp_host_write(1, "\n", 1);
    if (g->metrics) put_metrics(&b, s);
    cli_out_buf(&b, 1);
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
    cli_say_error(0, "work: %s: %llu forward passes over %llu positions; %d "
              "tokens generated, %.2f per pass", who,
              (unsigned long long)c.passes, (unsigned long long)c.tokens, n,
              c.passes ? (double)n / (double)c.passes : 0.0);
}

int cli_run_sampling(const loaded *l, const gen_request *g,
                        const sp_constraint *constraint) {
    char err[SP_ERR_LEN];
    sp_session *s = sp_session_new(l->model, l->tokenizer, err);
    if (!s) return cli_say_error(EXIT_BAD_FILE, "%s", err);
    int status;
    if (sp_session_set_negative_prompt(s, g->texts.negative_prompt, err)) {
        status = cli_say_error(EXIT_BAD_FILE, "%s", err);
    } else if (constraint &&
        sp_session_constrain(s, constraint, (int)g->steps, err) != SP_OK) {
        /* the engine's "constraint: why", said of the flag */
        const char *why = strchr(err, ':') ? strchr(err, ':') + 2 : err;
        status = cli_say_error(EXIT_BAD_ARG, "--%s%s",
                           g->regex ? "regex: " : "grammar: ", why);
    } else {
        /* the raw distribution is only printed with --json or --metrics */
        sp_sampler_set_raw(sp_session_sampler(s), g->json || g->metrics);
        int rc = sp_session_start(s, g->prompt, g->seed, err);
        if (rc != SP_OK)
            status = cli_say_error(rc == SP_ERR_ARG ? EXIT_BAD_ARG : EXIT_BAD_FILE,
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
        sp_buf_printf(b, ",\"finished\":%s",
                      sp_beam_finished(bs, k) ? "true" : "false");
        if (sp_beam_groups(bs) > 1) { /* diverse beam search */
            sp_buf_printf(b, ",\"group\":%d,\"penalty\":",
                          sp_beam_group(bs, k));
            sp_buf_num(b, sp_beam_penalty(bs, k));
        }
        sp_buf_puts(b, "}");
    }
    sp_buf_puts(b, "]}\n");
}

/* Beam search: the best hypothesis, or with --json every step's beams. */
int cli_run_beams(const loaded *l, const gen_request *g,
                     const sp_constraint *constraint) {
    char err[SP_ERR_LEN];
    int max_tokens = (int)strlen(g->prompt) + 3 + (int)g->steps;
    sp_beam_search *bs = sp_beam_new(l->model, l->tokenizer, g->beams,
                                     (float)g->length_penalty, max_tokens, err);
    if (!bs) return cli_say_error(EXIT_BAD_ARG, "--%s", err);
    if (g->beam_groups &&
        sp_beam_set_groups(bs, g->beam_groups, (float)g->diversity, err) !=
            SP_OK) {
        sp_beam_free(bs);
        return cli_say_error(EXIT_BAD_ARG, "--%s", err);
    }
    if (constraint &&
        sp_beam_constrain(bs, constraint, (int)g->steps, err) != SP_OK) {
        sp_beam_free(bs);
        const char *why = strchr(err, ':') ? strchr(err, ':') + 2 : err;
        return cli_say_error(EXIT_BAD_ARG, "--%s%s",
                         g->regex ? "regex: " : "grammar: ", why);
    }
    if (sp_beam_start(bs, g->prompt, err) != SP_OK) {
        sp_beam_free(bs);
        return cli_say_error(EXIT_BAD_ARG, "%s", err);
    }
    int status = 0;
    sp_buf b;
    sp_buf_init(&b);
    for (long long i = 0; i < g->steps && sp_beam_live(bs) > 0; i++) {
        int rc = sp_beam_step(bs, &g->params, err);
        if (rc == SP_ERR_STATE) {
            cli_say_error(0, "stopped after %lld steps: %s", i, err);
            break;
        }
        if (rc != SP_OK) {
            status = cli_say_error(rc == SP_ERR_ARG ? EXIT_BAD_ARG : EXIT_BAD_FILE,
                               "%s", err);
            break;
        }
        if (g->json) {
            put_beams(&b, bs, i);
            cli_out_buf(&b, 1);
        }
    }
    if (!status && !g->json) {
        /* under a constraint, the best hypothesis that is complete */
        int best = 0;
        if (constraint) {
            while (best < sp_beam_count(bs) && !sp_beam_finished(bs, best))
                best++;
            if (best == sp_beam_count(bs)) {
                cli_say_error(0, "no hypothesis is complete yet: the best one");
                best = 0;
            }
        }
        int n;
        const int *tokens = sp_beam_tokens(bs, best, &n);
        sp_buf_puts(&b, g->prompt);
        put_tokens(&b, bs, tokens, sp_beam_n_prompt(bs), n);
        sp_buf_puts(&b, "\n");
        cli_out_buf(&b, 1);
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
        sp_buf_printf(b, "{\"round\":%lld,", round);
        if (sp_spec_lookup(sp)) { /* where the draft was copied from */
            int ngram, at = sp_spec_round_match(sp, &ngram);
            sp_buf_printf(b, "\"match\":%d,\"ngram\":%d,", at, ngram);
        }
        sp_buf_puts(b, "\"drafted\":[");
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
        cli_out_buf(&b, 1);
    }
    for (long long round = 0;
         sp_session_n_generated(s) < g->steps && !sp_session_finished(s);
         round++) {
        int before = sp_session_n_tokens(s);
        int rc = sp_spec_round(sp, &g->params, err);
        if (rc == SP_ERR_STATE) {
            cli_say_error(0, "stopped: %s", err);
            break;
        }
        if (rc != SP_OK) {
            status = cli_say_error(EXIT_BAD_FILE, "%s", err);
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
        cli_out_buf(&b, 1);
    }
    if (!g->json) sp_host_write(1, "\n", 1);
    sp_buf_free(&b);
    long long drafted, accepted, rounds, positions;
    sp_spec_totals(sp, &drafted, &accepted, &rounds, &positions);
    cli_say_error(0, "%s: %lld of %lld drafted tokens accepted (%.1f%%) "
              "in %lld rounds; %lld target positions for %d tokens",
              sp_spec_lookup(sp) ? "prompt lookup" : "speculative",
              accepted, drafted, drafted ? 100.0 * accepted / drafted : 0.0,
              rounds, positions, sp_session_n_generated(s));
    return status;
}

/* Speculative sampling: --draft MODEL proposes, the model verifies; or
 * --prompt-lookup: the text itself proposes. */
int cli_run_speculative(const loaded *target, const gen_request *g,
                           const sp_constraint *constraint) {
    char err[SP_ERR_LEN];
    loaded d = {0};
    int status = g->draft ? cli_load_model(g->draft, g->draft_tokenizer, 1, &d)
                          : 0;
    if (status) return status;
    sp_session *s = sp_session_new(target->model, target->tokenizer, err);
    if (!s) {
        cli_unload(&d);
        return cli_say_error(EXIT_BAD_FILE, "%s", err);
    }
    sp_sampler_set_raw(sp_session_sampler(s), g->json);
    sp_speculator *sp = NULL;
    if (constraint &&
        sp_session_constrain(s, constraint, (int)g->steps, err) != SP_OK) {
        const char *why = strchr(err, ':') ? strchr(err, ':') + 2 : err;
        status = cli_say_error(EXIT_BAD_ARG, "--%s%s",
                           g->regex ? "regex: " : "grammar: ", why);
    } else if (!(sp = g->lookup ? sp_spec_new_lookup(s, g->lookup,
                                                     g->lookup_ngram
                                                         ? g->lookup_ngram
                                                         : 2,
                                                     err)
                                : sp_spec_new(s, d.model, d.tokenizer,
                                              g->speculate, err))) {
        status = cli_say_error(EXIT_BAD_ARG, g->lookup ? "--%s" : "--draft: %s",
                               err);
    } else {
        int rc = sp_spec_start(sp, g->prompt, g->seed, err);
        if (rc != SP_OK)
            status = cli_say_error(rc == SP_ERR_ARG ? EXIT_BAD_ARG : EXIT_BAD_FILE,
                               "%s", err);
        else
            status = speculate_rounds(sp, s, g);
        if (!status && g->work) {
            long long passes, fed;
            sp_spec_work(sp, &passes, &fed);
            say_work("target", s);
            cli_say_error(0, "work: verification: %lld batched passes over %lld "
                      "positions (the last token and the drafts)%s", passes,
                      fed, sp_spec_lookup(sp) ? "; drafts copied from the "
                      "text" : sp_spec_matched(sp) ? "; the draft speaks the "
                      "target's tokenizer" : "; draft tokens mapped by text");
            if (!sp_spec_lookup(sp))
                say_work("draft", sp_spec_draft_session(sp));
        }
    }
    sp_spec_free(sp);
    sp_session_free(s);
    cli_unload(&d);
    return status;
}
