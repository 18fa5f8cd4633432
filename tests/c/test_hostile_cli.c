/*
 * test_hostile_cli.c — the CLI's statuses and messages on hostile files and
 * arguments, run in process with stdout and stderr captured.
 *
 * (hostile.h: what the test_hostile*.c files share.)
 */
#define _DEFAULT_SOURCE /* mkdtemp, dup */
#include <unistd.h>

#include "cli.h"
#include "hostile.h"

/* ---- the CLI --------------------------------------------------------------------- */

static char tmpdir[64];

static void write_file(const char *name, const void *data, size_t n) {
    char path[256];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "wb");
    if (!f) abort();
    if (n) fwrite(data, 1, n, f);
    fclose(f);
}

/* Runs the CLI in process with stdout and stderr captured; returns the
 * status and leaves stderr's text in errs. */
static char errs[4096];
static int cli(const char *a0, ...) {
    char *argv[32];
    int argc = 0;
    argv[argc++] = "sampler";
    va_list ap;
    va_start(ap, a0);
    for (const char *a = a0; a && argc < 31; a = va_arg(ap, const char *)) {
        static char copies[31][512];
        snprintf(copies[argc], sizeof copies[argc], "%s", a);
        argv[argc] = copies[argc];
        argc++;
    }
    va_end(ap);
    argv[argc] = NULL;
    fflush(stdout);
    fflush(stderr);
    int saved_out = dup(1), saved_err = dup(2);
    FILE *out = tmpfile(), *errf = tmpfile();
    dup2(fileno(out), 1);
    dup2(fileno(errf), 2);
    int status = sp_cli_main(argc, argv);
    fflush(stdout);
    fflush(stderr);
    dup2(saved_out, 1);
    dup2(saved_err, 2);
    close(saved_out);
    close(saved_err);
    rewind(errf);
    size_t n = fread(errs, 1, sizeof errs - 1, errf);
    errs[n] = '\0';
    fclose(out);
    fclose(errf);
    return status;
}

/* the error line: one line, "sampler: " and the message */
static void check_cli_line(void) {
    CHECK(strncmp(errs, "sampler: ", 9) == 0);
    char *nl = strchr(errs, '\n');
    CHECK(nl != NULL && nl[1] == '\0');
}

static void test_cli(void) {
    strcpy(tmpdir, "/tmp/sp_hostile_XXXXXX");
    if (!mkdtemp(tmpdir)) {
        CHECK(!"mkdtemp");
        return;
    }
    bb_bytes mb = {0}, tb = {0};
    bb_checkpoint(&mb, BB_TINY, 1, 0.5f);
    bb_tiny_tokenizer(&tb);
    write_file("tiny.bin", mb.data, mb.len);
    write_file("tokenizer.bin", tb.data, tb.len);
    write_file("half.bin", mb.data, mb.len / 2);
    write_file("empty.bin", "", 0);
    bb_bytes bad = {0};
    bb_put(&bad, mb.data, mb.len);
    float nan = NAN;
    memcpy(bad.data + 28 + 4 * 5, &nan, 4);
    write_file("nan.bin", bad.data, bad.len);
    bb_free(&bad);
    bb_put(&bad, tb.data, tb.len - 2);
    write_file("tok_cut.bin", bad.data, bad.len);
    bb_free(&bad);
    char model[128], tok[128], half[128], empty[128], nanf[128], cut[128];
    snprintf(model, sizeof model, "%s/tiny.bin", tmpdir);
    snprintf(tok, sizeof tok, "%s/tokenizer.bin", tmpdir);
    snprintf(half, sizeof half, "%s/half.bin", tmpdir);
    snprintf(empty, sizeof empty, "%s/empty.bin", tmpdir);
    snprintf(nanf, sizeof nanf, "%s/nan.bin", tmpdir);
    snprintf(cut, sizeof cut, "%s/tok_cut.bin", tmpdir);

    CHECK_EQ_INT(cli("generate", "--model", model, "--steps", "3", NULL), 0);
    CHECK_EQ_INT(cli("generate", "--model", model, "--steps", "50",
                     "--logit-bias", "1=-inf", "--logit-bias", "2=-inf", NULL),
                 0);
    CHECK_STR_CONTAINS(errs, "stopped after 7 steps: context full: 8 tokens");
    /* every token banned: the options leave nothing, status 2 */
    CHECK_EQ_INT(cli("generate", "--model", model, "--logit-bias", "0=-inf",
                     "--logit-bias", "1=-inf", "--logit-bias", "2=-inf",
                     "--logit-bias", "3=-inf", "--logit-bias", "4=-inf",
                     "--logit-bias", "5=-inf", "--logit-bias", "6=-inf",
                     "--logit-bias", "7=-inf", "--logit-bias", "8=-inf",
                     "--logit-bias", "9=-inf", "--logit-bias", "10=-inf",
                     "--logit-bias", "11=-inf", NULL), 2);
    CHECK_STR_CONTAINS(errs, "sampler: stopped after 0 steps: no token left: "
                       "every token is banned");
    check_cli_line();
    /* bad files: status 1, one line */
    CHECK_EQ_INT(cli("generate", "--model", half, NULL), 1);
    check_cli_line();
    CHECK_STR_CONTAINS(errs, "half.bin: checkpoint: file has ");
    CHECK_STR_CONTAINS(errs, "bytes, header implies ");
    CHECK_EQ_INT(cli("generate", "--model", empty, NULL), 1);
    CHECK_STR_CONTAINS(errs, "checkpoint: file has 0 bytes, shorter than the "
                       "28-byte header");
    CHECK_EQ_INT(cli("generate", "--model", nanf, NULL), 1);
    CHECK_STR_CONTAINS(errs, "checkpoint: weight 5 (token_embedding_table) is "
                       "not finite");
    CHECK_EQ_INT(cli("generate", "--model", model, "--tokenizer", cut, NULL), 1);
    check_cli_line();
    CHECK_STR_CONTAINS(errs, "tok_cut.bin: tokenizer: truncated in piece 11");
    CHECK_EQ_INT(cli("generate", "--model", "/nonexistent/x.bin", NULL), 1);
    CHECK_STR_CONTAINS(errs, "No such file or directory");
    CHECK_EQ_INT(cli("generate", "--model", "/tmp/a\nb", NULL), 1);
    check_cli_line(); /* the newline in the name is escaped */
    CHECK_STR_CONTAINS(errs, "/tmp/a\\nb");
    CHECK_EQ_INT(cli("encode", "--tokenizer", model, "--text", "a", NULL), 1);
    check_cli_line();
    /* bad arguments: status 2, the argument named */
    static const struct {
        const char *opt, *value, *needle;
    } args[] = {
        {"--temperature", "nan", "--temperature must be a finite number >= 0 "
                                 "(got nan)"},
        {"--temperature", "-1", "--temperature must be"},
        {"--temperature", "1e999", "--temperature must be a finite number >= "
                                   "0 (got inf)"},
        {"--temperature", "hot", "--temperature: 'hot' is not a number"},
        {"--temperature", "", "--temperature: '' is not a number"},
        {"--top-p", "1.5", "--top-p must be in (0, 1] (got 1.5)"},
        {"--top-p", "0", "--top-p must be in (0, 1] (got 0)"},
        {"--min-p", "-inf", "--min-p must be in [0, 1] (got -inf)"},
        {"--typical-p", "NaN", "--typical-p must be in (0, 1] (got nan)"},
        {"--top-k", "-1", "--top-k must be >= 0 (got -1)"},
        {"--top-k", "2.5", "--top-k: '2.5' is not an integer"},
        {"--top-k", "99999999999", "--top-k: '99999999999' is not an "
                                   "integer"},
        {"--repetition-penalty", "0", "--repetition-penalty must be a finite "
                                      "number > 0 (got 0)"},
        {"--frequency-penalty", "inf", "--frequency-penalty must be a finite "
                                       "number (got inf)"},
        {"--presence-penalty", "x", "--presence-penalty: 'x' is not a number"},
        {"--penalty-last-n", "-5", "--penalty-last-n must be >= 0 (got -5)"},
        {"--logit-bias", "99999=1", "--logit-bias token 99999 is outside the "
                                    "vocabulary (0..11)"},
        {"--logit-bias", "2147483647=1", "--logit-bias token 2147483647 is "
                                         "outside the vocabulary"},
        {"--logit-bias", "2147483648=1", "--logit-bias: '2147483648' is not a "
                                         "token id"},
        {"--logit-bias", "-1=1", "--logit-bias: '-1' is not a token id"},
        {"--logit-bias", "1=nan", "--logit-bias value for token 1 must be a "
                                  "finite number or -inf (got nan)"},
        {"--logit-bias", "1=", "--logit-bias: '' is not a number or -inf"},
        {"--logit-bias", "1", "--logit-bias: '1' is not ID=VALUE"},
        {"--steps", "-1", "--steps: '-1' is not an integer in 0..100000000"},
        {"--steps", "100000001", "--steps: '100000001' is not an integer"},
        {"--seed", "18446744073709551616", "--seed: '18446744073709551616' is "
                                           "not an integer in "
                                           "0..18446744073709551615"},
        {"--seed", "-1", "--seed: '-1' is not an integer"},
        {"--seed", " 1", "--seed: ' 1' is not an integer"},
        {"--temperature", "a\nb", "--temperature: 'a\\nb' is not a number"},
        {"--beams", "0", "--beams: '0' is not an integer in 1..64"},
        {"--beams", "65", "--beams: '65' is not an integer in 1..64"},
        {"--beams", "2.5", "--beams: '2.5' is not an integer in 1..64"},
        {"--length-penalty", "10.5", "--length-penalty: '10.5' is not a "
                                     "number in [0, 10]"},
        {"--length-penalty", "-1e-30", "--length-penalty: '-1e-30' is not a "
                                       "number in [0, 10]"},
        {"--speculate", "0", "--speculate: '0' is not an integer in 1..16"},
        {"--speculate", "17", "--speculate: '17' is not an integer in 1..16"},
    };
    for (size_t i = 0; i < sizeof args / sizeof args[0]; i++) {
        int status = cli("generate", "--model", model, "--steps", "1",
                         args[i].opt, args[i].value, NULL);
        CHECK_EQ_INT(status, 2);
        CHECK_STR_CONTAINS(errs, args[i].needle);
        check_cli_line();
    }
    CHECK_EQ_INT(cli("generate", "--model", model, "--seed",
                     "18446744073709551615", "--steps", "2", NULL), 0);
    CHECK_EQ_INT(cli("generate", "--model", model, "--steps", NULL), 2);
    CHECK_STR_CONTAINS(errs, "--steps needs a value");
    CHECK_EQ_INT(cli("generate", "--model", model, "--prompt", "a\tb", NULL),
                 2);
    CHECK_STR_CONTAINS(errs, "the character '\\t' (byte offset 1)");
    check_cli_line();
    CHECK_EQ_INT(cli("generate", "--model", model, "--prompt",
                     "abcabcabcabcabcabcabc", NULL), 2);
    CHECK_STR_CONTAINS(errs, "prompt: 9 tokens leave no room");
    CHECK_EQ_INT(cli("logits", "--model", model, "--tokens", "1,2,99", NULL),
                 2);
    CHECK_STR_CONTAINS(errs, "--tokens: item 2 is not a token id in 0..11");
    CHECK_EQ_INT(cli("logits", "--model", model, "--tokens",
                     "1,1,1,1,1,1,1,1,1", NULL), 2);
    CHECK_STR_CONTAINS(errs, "--tokens: more than the model's seq_len (8)");
    CHECK_EQ_INT(cli("logits", "--model", model, "--tokens", "1,", NULL), 2);
    CHECK_EQ_INT(cli("logits", "--model", model, "--tokens", "", NULL), 2);
    CHECK_EQ_INT(cli("frobnicate", NULL), 2);
    CHECK_EQ_INT(cli("generate", "--bogus", NULL), 2);
    CHECK_STR_CONTAINS(errs, "generate: unknown option '--bogus'");

    char path[256];
    static const char *const names[] = {"tiny.bin", "tokenizer.bin",
                                        "half.bin", "empty.bin", "nan.bin",
                                        "tok_cut.bin"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", tmpdir, names[i]);
        remove(path);
    }
    rmdir(tmpdir);
    bb_free(&mb);
    bb_free(&tb);
}

TEST_SUITE(hostile_cli,
           TEST(test_cli));
