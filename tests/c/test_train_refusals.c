/* test_train_refusals.c — what the trainer refuses or stops, each with its
 * message: texts that are empty, binary, not UTF-8, too short or of too
 * many characters; settings out of range or that do not fit together; a
 * vocabulary too large for the shape; a shape too large for memory; a
 * tokenizer that is no tokenizer.bin; a learning rate that diverges and a
 * loss that is not finite (training stops, the weights kept, and stays
 * stopped). */
#include <math.h>

#include "testutil.h"
#include "train_util.h"

static char err[SP_ERR_LEN];

/* The text refused by sp_train_plan_text and sp_train_new alike, with
 * the class rc and a message holding `says`. */
static void refused_text(const char *text, size_t len,
                         const sp_train_config *c, int rc, const char *says) {
    sp_train_plan plan;
    err[0] = '\0';
    CHECK_EQ_INT(sp_train_plan_text((const uint8_t *)text, len, NULL, 0, c,
                                    &plan, err), rc);
    CHECK_STR_CONTAINS(err, says);
    char again[SP_ERR_LEN] = "";
    sp_train *t = sp_train_new((const uint8_t *)text, len, NULL, 0, c, 1,
                               again);
    CHECK(t == NULL);
    CHECK(!strcmp(err, again));
    say("refused: %s", err);
}

static void test_bad_texts(void) {
    sp_train_config c = tu_small_config();
    refused_text("", 0, &c, SP_ERR_ARG, "the text is empty");
    refused_text(" \t\n\r\n  \n", 8, &c, SP_ERR_ARG, "the text is empty");
    refused_text("abc\0def\n", 8, &c, SP_ERR_FORMAT, "NUL byte at offset 3");
    refused_text("caf\xe9\n", 5, &c, SP_ERR_FORMAT, "not UTF-8 (byte 0xe9 at "
                 "offset 3)");
    refused_text("ab\xc0\x80\n", 5, &c, SP_ERR_FORMAT, "not UTF-8");
    refused_text("\xed\xa0\x80\n", 4, &c, SP_ERR_FORMAT, "not UTF-8");
    refused_text("short\n", 6, &c, SP_ERR_ARG, "a window needs context + 1 "
                 "= 13");
}

/* 5000 different characters: more than a character vocabulary holds; 300
 * are too many for a model of dim 8 (32 a dimension). */
static void test_too_many_characters(void) {
    char *text = malloc(5000 * 3 + 1);
    size_t n = 0;
    for (int i = 0; i < 5000; i++) {
        int cp = 0x4e00 + i; /* CJK ideographs, 3 bytes each */
        text[n++] = (char)(0xe0 | cp >> 12);
        text[n++] = (char)(0x80 | (cp >> 6 & 0x3f));
        text[n++] = (char)(0x80 | (cp & 0x3f));
    }
    sp_train_config c = tu_small_config();
    refused_text(text, n, &c, SP_ERR_ARG, "uses 5095 different characters");
    c.dim = 8;
    c.heads = 2;
    c.kv_heads = 1;
    c.context = 4;
    refused_text(text, 300 * 3, &c, SP_ERR_ARG, "a vocabulary of 399 tokens "
                 "is too large for a model of dim 8");
    free(text);
}

static void test_bad_settings(void) {
    sp_train_config c;
    sp_train_config_default(&c);
    CHECK_EQ_INT(sp_train_config_set(&c, "dim", 12.5, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "dim must be a whole number");
    CHECK_EQ_INT(sp_train_config_set(&c, "lr", 2, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "lr must be in 0..1 (got 2)");
    CHECK_EQ_INT(sp_train_config_set(&c, "lr", NAN, err), SP_ERR_ARG);
    CHECK_EQ_INT(sp_train_config_set(&c, "depth", 2, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "no setting named 'depth'");
    CHECK_EQ_INT(sp_train_preset(&c, "huge", err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "no preset named 'huge'");
    sp_train_config_default(&c);
    c.heads = 3;
    CHECK_EQ_INT(sp_train_config_check(&c, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "heads (3) must divide dim (64)");
    c.heads = 32; /* head size 2: even, fine */
    c.kv_heads = 3;
    CHECK_EQ_INT(sp_train_config_check(&c, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "kv-heads (3) must divide heads (32)");
    c.heads = 64; /* head size 1 */
    c.kv_heads = 1;
    CHECK_EQ_INT(sp_train_config_check(&c, err), SP_ERR_ARG);
    CHECK_STR_CONTAINS(err, "must be even");
    /* the table and the presets hold together */
    for (int i = 0; sp_train_preset_name(i); i++) {
        sp_train_config_default(&c);
        CHECK_EQ_INT(sp_train_preset(&c, sp_train_preset_name(i), err), SP_OK);
        CHECK_EQ_INT(sp_train_config_check(&c, err), SP_OK);
    }
    CHECK_EQ_INT(sp_train_setting_find("kv-heads"), 4);
    CHECK(sp_train_setting_at(sp_train_setting_count()) == NULL);
}

/* A shape whose weights and activations pass the trainer's 1 GiB. */
static void test_too_large_for_memory(void) {
    sp_train_config c;
    sp_train_config_default(&c);
    c.dim = 1024;
    c.hidden = 4096;
    c.layers = 32;
    c.heads = 16;
    c.kv_heads = 16;
    c.context = 4; /* the text is short; the weights alone are too many */
    refused_text(TU_TEXT, strlen(TU_TEXT), &c, SP_ERR_NOMEM,
                 "MiB, more than the trainer's 1024 MiB");
    /* the activations: a long context's attention weights */
    c.dim = 64;
    c.hidden = 192;
    c.layers = 32;
    c.heads = 64;
    c.kv_heads = 1;
    c.heads = 32;
    c.context = 2048;
    sp_train_plan plan;
    char *long_text = malloc(40000);
    for (int i = 0; i < 39999; i++) long_text[i] = i % 50 == 49 ? '\n' : 'a';
    long_text[39999] = '\n';
    CHECK_EQ_INT(sp_train_plan_text((const uint8_t *)long_text, 40000, NULL,
                                    0, &c, &plan, err), SP_ERR_NOMEM);
    CHECK(plan.bytes > SP_TRAIN_MAX_MEMORY);
    say("refused: %s", err);
    free(long_text);
}

static void test_bad_tokenizer(void) {
    sp_train_config c = tu_small_config();
    sp_train_plan plan;
    const uint8_t junk[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    CHECK_EQ_INT(sp_train_plan_text((const uint8_t *)TU_TEXT, strlen(TU_TEXT),
                                    junk, sizeof junk, &c, &plan, err),
                 SP_ERR_FORMAT);
    CHECK_STR_CONTAINS(err, "train: the tokenizer: ");
    say("refused: %s", err);
}

/* A learning rate of 1 without clipping: the loss jumps far above ln V
 * and training stops, and stays stopped. */
static void test_diverges(void) {
    sp_train_config c = tu_small_config();
    c.lr = 1;
    c.clip = 0;
    c.warmup = 0;
    c.weight_decay = 0;
    sp_train *t = tu_trainer(TU_TEXT, &c, 2, err);
    CHECK(t != NULL);
    if (!t) return;
    int done = 0, rc = SP_OK, total = 0;
    while (rc == SP_OK && total < 20) {
        rc = sp_train_run(t, 1, 0, &done, err);
        total += done;
    }
    CHECK_EQ_INT(rc, SP_ERR_FORMAT);
    CHECK_EQ_INT(sp_error_code(rc, err), SP_ERR_LOGITS);
    CHECK_STR_CONTAINS(err, "far above an untrained model's: training "
                       "diverged (learning rate 0.99");
    say("stopped after %d steps: %s", total, err);
    size_t n;
    const float *w = sp_train_weights(t, &n);
    float *before = malloc(4 * n);
    memcpy(before, w, 4 * n);
    CHECK_EQ_INT(sp_train_run(t, 1, 0, &done, err), SP_ERR_FORMAT);
    CHECK_EQ_INT(done, 0);
    CHECK(!memcmp(before, sp_train_weights(t, &n), 4 * n));
    free(before);
    sp_train_free(t);
}

/* A weight made infinite: the loss is not finite, nothing is updated. */
static void test_not_finite(void) {
    sp_train_config c = tu_small_config();
    sp_train *t = tu_trainer(TU_TEXT, &c, 2, err);
    CHECK(t != NULL);
    if (!t) return;
    int done;
    CHECK_EQ_INT(sp_train_run(t, 2, 0, &done, err), SP_OK);
    t->W.rms_final[0] = INFINITY;
    CHECK_EQ_INT(sp_train_run(t, 1, 0, &done, err), SP_ERR_FORMAT);
    CHECK_EQ_INT(sp_error_code(SP_ERR_FORMAT, err), SP_ERR_LOGITS);
    CHECK_STR_CONTAINS(err, "at step 3 is not a number: training diverged");
    CHECK_EQ_INT(sp_train_steps_done(t), 2);
    say("stopped: %s", err);
    sp_train_free(t);
}

TEST_SUITE(train_refusals,
           TEST(test_bad_texts),
           TEST(test_too_many_characters),
           TEST(test_bad_settings),
           TEST(test_too_large_for_memory),
           TEST(test_bad_tokenizer),
           TEST(test_diverges),
           TEST(test_not_finite));
