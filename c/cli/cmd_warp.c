/*
 * cmd_warp.c — `sampler warp`: one warp request (logits and history) through
 * the sampler chain.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_shared.h"

/* -------------------------------------------------------------- warp */

void cli_put_step_report(sp_buf *b, const sp_step *st) {
    sp_buf_puts(b, "\"kept\":");
    sp_buf_printf(b, "%d", st->n_kept);
    sp_buf_puts(b, ",\"kept_mass\":");
    sp_buf_num(b, st->kept_mass);
    sp_buf_puts(b, ",\"entropy_bits\":");
    sp_buf_num(b, st->entropy_bits);
    sp_buf_puts(b, ",\"entropy_raw_bits\":");
    sp_buf_num(b, st->entropy_raw_bits);
    sp_buf_printf(b, ",\"argmax_raw\":%d", st->argmax_raw);
    if (st->green) { /* the watermark, when on */
        sp_buf_puts(b, ",\"green_mass\":");
        sp_buf_num(b, st->green_mass);
        sp_buf_puts(b, ",\"spike_entropy\":");
        sp_buf_num(b, st->spike_entropy);
        if (st->token >= 0) sp_buf_printf(b, ",\"green\":%d", st->green[st->token]);
    }
}

int cli_cmd_warp(args *a) {
    sp_params p;
    sp_params_default(&p);
    uint64_t seed = 0;
    int draw = 0;
    /* --seed draws a token too */
    const cli_opt opts[] = {{"--seed", NULL, NULL, &draw, &seed, cli_read_seed,
                             "an integer in 0..18446744073709551615", 0},
                            {NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0}};
    int bad = cli_command_options(a, "warp", opts, &p, NULL);
    if (bad) return bad;
    if (cli_check_params(&p, 0)) return EXIT_BAD_ARG;
    size_t size;
    uint8_t *text = cli_read_file("-", &size);
    if (!text) return EXIT_BAD_FILE;
    float *logits = NULL;
    int *history = NULL, n_logits = 0, n_history = 0;
    char err[SP_ERR_LEN];
    int status = 0;
    sp_sampler *s = NULL;
    if (sp_parse_warp_request((const char *)text, size, &logits, &n_logits,
                              &history, &n_history, &p, err) != SP_OK) {
        status = cli_say_error(EXIT_BAD_FILE, "%s", err);
        goto done;
    }
    if (cli_check_params(&p, n_logits)) {
        status = EXIT_BAD_ARG;
        goto done;
    }
    s = sp_sampler_new(n_logits);
    if (!s) {
        status = cli_say_error(EXIT_BAD_FILE, "out of memory");
        goto done;
    }
    sp_step st;
    /* with a seed, XTC draws as a session's first step would */
    sp_sampler_state state = {draw ? sp_xtc_uniform(seed, 0) : 0.0, NAN, 0,
                              NULL, 0, NAN, NAN};
    sp_sampler_set_state(s, &state);
    int rc = sp_sampler_warp(s, logits, history, n_history, &p, &st, err);
    if (rc != SP_OK) {
        status = cli_say_error(rc == SP_ERR_ARG ? EXIT_BAD_ARG : EXIT_BAD_FILE,
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
    cli_put_step_report(&b, &st);
    /* who cut what, in the chain's order */
    const char *names[SP_STAGE_COUNT + 3];
    int counts[SP_STAGE_COUNT + 3];
    int n_cuts = sp_step_cuts(&st, &p, names, counts, NULL);
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
    if (b.failed) status = cli_say_error(EXIT_BAD_FILE, "out of memory");
    else cli_out_buf(&b, 1);
    sp_buf_free(&b);
done:
    sp_sampler_free(s);
    free(text);
    free(logits);
    free(history);
    return status;
}
