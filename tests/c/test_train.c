/* test_train.c — the transformer trainer (c/engine/train): its data (the
 * character vocabulary is the shipped tokenizer's, the streams are what
 * sp_encode gives), its forward pass against the engine's inference pass
 * bit for bit, its gradients against finite differences, the schedule,
 * training in slices against training in one go, and the exported files
 * (the checkpoint and the GGUF file load and give the same logits). */
#include <math.h>

#include "testutil.h"
#include "train_util.h"

static char err[SP_ERR_LEN];

/* An ASCII text's vocabulary is models/transformer_tokenizer.bin. */
static void test_vocab_ascii_is_shipped(void) {
    sp_train_config c = tu_small_config();
    sp_train *t = tu_trainer(TU_TEXT, &c, 1, err);
    CHECK(t != NULL);
    if (!t) return;
    char path[1024];
    snprintf(path, sizeof path, "%s/models/transformer_tokenizer.bin", test_root);
    size_t size, mine;
    uint8_t *shipped = read_all(path, &size);
    uint8_t *ours = sp_train_tokenizer_file(t, &mine, err);
    CHECK(shipped && ours && size == mine && !memcmp(shipped, ours, size));
    const sp_train_plan *p = sp_train_get_plan(t);
    CHECK_EQ_INT(p->vocab, 99);
    CHECK_EQ_INT(p->documents, 10);
    CHECK_EQ_INT(p->heldout_documents, 1);
    /* 9 verses of 921 characters, each with BOS and the dummy prefix; the
     * 10th (121 characters) held out */
    CHECK_EQ_INT((int)p->train_tokens, 921 + 9 * 2);
    CHECK_EQ_INT((int)p->heldout_tokens, 121 + 2);
    free(shipped);
    free(ours);
    sp_train_free(t);
}

/* Each document's ids are what the engine's encoder (run.c's encode with
 * BOS) gives for its line, non-ASCII characters and "\r\n" included. */
static void test_streams_are_encode(void) {
    const char *text = "Caf\xc3\xa9 d\xc3\xa9j\xc3\xa0 vu\r\n\n   \n"
                       "na\xc3\xafve \xe4\xb8\xad\xe6\x96\x87 <s> </s>\r"
                       "\xf0\x9f\x99\x82 tab\there\n";
    sp_train_config c = tu_small_config();
    c.context = 4;
    c.holdout = 0;
    sp_train *t = tu_trainer(text, &c, 1, err);
    CHECK(t != NULL);
    if (!t) return;
    CHECK_EQ_INT(sp_train_get_plan(t)->documents, 3);
    /* 99 + é, à, ï, 中, 文, 🙂 and the tab */
    CHECK_EQ_INT(sp_train_get_plan(t)->vocab, 99 + 7);
    sp_tokenizer *tok = sp_train_tokenizer(t, err);
    const char *lines[3] = {"Caf\xc3\xa9 d\xc3\xa9j\xc3\xa0 vu",
                            "na\xc3\xafve \xe4\xb8\xad\xe6\x96\x87 <s> </s>",
                            "\xf0\x9f\x99\x82 tab\there"};
    int ids[64], at = 0, same = 1;
    for (int i = 0; i < 3; i++) {
        int n = sp_encode(tok, lines[i], 1, 0, ids, 64, err);
        CHECK(n > 2);
        for (int k = 0; k < n; k++)
            same &= (size_t)(at + k) < t->n_train &&
                    t->train_ids[at + k] == ids[k];
        at += n;
    }
    CHECK(same);
    CHECK_EQ_INT(at, (int)t->n_train);
    sp_tokenizer_free(tok);
    sp_train_free(t);
}

/* The schedule: linear warm-up, then a cosine to lr x lr_final. */
static void test_schedule(void) {
    sp_train_config c;
    sp_train_config_default(&c);
    c.lr = 1e-3;
    c.warmup = 10;
    c.steps = 110;
    c.lr_final = 0.1;
    CHECK_NEAR(sp_tr_lr(&c, 0), 1e-4, 1e-18);
    CHECK_NEAR(sp_tr_lr(&c, 9), 1e-3, 1e-18);
    CHECK_NEAR(sp_tr_lr(&c, 10), 1e-3, 1e-15);
    CHECK_NEAR(sp_tr_lr(&c, 60), 5.5e-4, 1e-15); /* halfway: the mean */
    CHECK_NEAR(sp_tr_lr(&c, 110), 1e-4, 1e-15);
    CHECK_NEAR(sp_tr_lr(&c, 500), 1e-4, 1e-15);
    say("schedule: lr at steps 0, 9, 60, 110: %g %g %g %g",
            sp_tr_lr(&c, 0), sp_tr_lr(&c, 9), sp_tr_lr(&c, 60),
            sp_tr_lr(&c, 110));
}

/* The trainer's logits for a window are the engine's own (sp_forward on
 * the model sp_train_model makes), bit for bit, after a few steps. */
static void forward_is_inference(int tied, int kv) {
    sp_train_config c = tu_small_config();
    c.tied = tied;
    c.kv_heads = kv;
    sp_train *t = tu_trainer(TU_TEXT, &c, 7, err);
    CHECK(t != NULL);
    if (!t) return;
    int done;
    CHECK_EQ_INT(sp_train_run(t, 3, 0, &done, err), SP_OK);
    CHECK_EQ_INT(done, 3);
    sp_model *m = sp_train_model(t, err);
    CHECK(m != NULL);
    if (!m) {
        sp_train_free(t);
        return;
    }
    sp_state *st = sp_state_new(m);
    t->n = t->T;
    for (int i = 0; i <= t->T; i++) t->tokens[i] = t->train_ids[5 + i];
    sp_tr_forward(t, 0); /* keeps the logits */
    int V = t->V, bad = 0;
    const float *mine = t->logits;
    for (int pos = 0; pos < t->T; pos++) {
        const float *ref = sp_forward(m, st, t->tokens[pos], pos);
        for (int v = 0; v < V; v++)
            bad += sp_float_bits(ref[v]) != sp_float_bits(mine[pos * V + v]);
    }
    CHECK_EQ_INT(bad, 0);
    say("forward (tied %d, kv %d): %d positions x %d logits, %d "
            "differ from the engine's", tied, kv, t->T, V, bad);
    sp_state_free(st);
    sp_model_free(m);
    sp_train_free(t);
}

static void test_forward_is_inference_tied_gqa(void) { forward_is_inference(1, 2); }
static void test_forward_is_inference_own_mha(void) { forward_is_inference(0, 4); }

/* The step's mean loss over its windows (the offsets it drew), without a
 * gradient. */
static double batch_loss(sp_train *t) {
    double sum = 0;
    t->n = t->T;
    for (int b = 0; b < t->B; b++) {
        for (int i = 0; i <= t->T; i++)
            t->tokens[i] = t->train_ids[t->offsets[b] + i];
        sum += sp_tr_forward(t, 0);
    }
    return sum / ((double)t->B * t->T);
}

/* Central differences, (L(w + h) - L(w - h)) / 2h, against the gradient
 * of a batch after 10 steps of training (the attention no longer uniform),
 * at the entries of each tensor whose gradient is largest. */
static void test_finite_differences(void) {
    sp_train_config c = tu_small_config();
    c.lr = 3e-2;
    c.steps = 40;
    sp_train *t = tu_trainer(TU_TEXT, &c, 3, err);
    CHECK(t != NULL);
    if (!t) return;
    int done;
    CHECK_EQ_INT(sp_train_run(t, 30, 0, &done, err), SP_OK);
    sp_tr_begin_step(t);
    for (int b = 0; b < t->B; b++) sp_tr_run_window(t, t->offsets[b]);
    size_t n = t->n_params;
    const float *g = t->g;
    const char *names[12] = {"emb", "rms_att", "wq", "wk", "wv", "wo",
                             "rms_ffn", "w1", "w2", "w3", "rms_final", "cls"};
    const float *starts[12] = {t->W.emb, t->W.rms_att, t->W.wq, t->W.wk,
                               t->W.wv, t->W.wo, t->W.rms_ffn, t->W.w1,
                               t->W.w2, t->W.w3, t->W.rms_final, t->W.cls};
    const double h = 5e-3;
    double worst = 0;
    for (int k = 0; k < 12; k++) {
        size_t from = (size_t)(starts[k] - t->w);
        size_t to = k < 11 ? (size_t)(starts[k + 1] - t->w) : n;
        size_t best = from;
        for (size_t i = from; i < to; i++)
            if (fabsf(g[i]) > fabsf(g[best])) best = i;
        float keep = t->w[best];
        t->w[best] = (float)(keep + h);
        double up = batch_loss(t);
        t->w[best] = (float)(keep - h);
        double down = batch_loss(t);
        t->w[best] = keep;
        double fd = (up - down) / (2 * h);
        double rel = fabs(fd - g[best]) / fabs(g[best]);
        worst = rel > worst ? rel : worst;
        say("%-9s [%zu]: gradient %.6g, central difference "
                "%.6g (relative %.2g)", names[k], best - from, g[best], fd,
                rel);
        CHECK(fabs(fd - g[best]) <= 2e-3 * fabs(g[best]) + 1e-6);
    }
    say("finite differences: worst relative difference %.2g",
            worst);
    sp_train_free(t);
}

/* Steps run in slices of any size give the same weights as in one go;
 * the same seed the same weights, another seed others. */
static void test_slices_same_bits(void) {
    sp_train_config c = tu_small_config();
    sp_train *a = tu_trainer(TU_TEXT, &c, 11, err);
    sp_train *b = tu_trainer(TU_TEXT, &c, 11, err);
    sp_train *d = tu_trainer(TU_TEXT, &c, 12, err);
    CHECK(a && b && d);
    if (!a || !b || !d) return;
    int done, total = 0;
    CHECK_EQ_INT(sp_train_run(a, 7, 0, &done, err), SP_OK);
    CHECK_EQ_INT(done, 7);
    /* b: 2 windows at a time (3 a step) */
    while (total < 7) {
        CHECK_EQ_INT(sp_train_run(b, 7 - total, 2, &done, err), SP_OK);
        total += done;
    }
    CHECK_EQ_INT(sp_train_steps_done(b), 7);
    CHECK_EQ_INT(sp_train_run(d, 7, 0, &done, err), SP_OK);
    size_t n;
    const float *wa = sp_train_weights(a, &n), *wb = sp_train_weights(b, &n);
    CHECK(!memcmp(wa, wb, 4 * n));
    CHECK(memcmp(wa, sp_train_weights(d, &n), 4 * n) != 0);
    CHECK(!memcmp(sp_train_losses(a), sp_train_losses(b), 4 * 7));
    /* the schedule's end: no step past it */
    CHECK_EQ_INT(sp_train_run(a, 100, 0, &done, err), SP_OK);
    CHECK_EQ_INT(done, 13);
    CHECK_EQ_INT(sp_train_run(a, 100, 0, &done, err), SP_OK);
    CHECK_EQ_INT(done, 0);
    say("slices: 7 steps at 2 windows a call = in one call; "
            "losses %.6f .. %.6f", sp_train_losses(a)[0],
            sp_train_losses(a)[19]);
    sp_train_free(a);
    sp_train_free(b);
    sp_train_free(d);
}

/* Step 1's loss is the untrained model's, about ln V; training lowers it,
 * and the held-out loss is computed beside a bigram's. */
static void test_loss_falls(void) {
    sp_train_config c = tu_small_config();
    c.steps = 60;
    c.lr = 1e-2;
    sp_train *t = tu_trainer(TU_TEXT, &c, 5, err);
    CHECK(t != NULL);
    if (!t) return;
    int done;
    CHECK_EQ_INT(sp_train_run(t, 60, 0, &done, err), SP_OK);
    const float *loss = sp_train_losses(t);
    CHECK_NEAR(loss[0], log(99.0), 0.05);
    CHECK(loss[59] < 3.0);
    double held, bigram;
    CHECK_EQ_INT(sp_train_eval(t, 0, &held, &bigram, err), SP_OK);
    CHECK(isfinite(held) && isfinite(bigram));
    say("loss: step 1 %.4f (ln 99 = %.4f), step 60 %.4f; "
            "held out %.4f, the bigram's %.4f", loss[0], log(99.0),
            loss[59], held, bigram);
    sp_train_free(t);
}

/* The checkpoint loads in the engine; the GGUF file too, with the same
 * logits, bit for bit, and its SentencePiece tokenizer gives the same ids
 * for an ASCII prompt. */
static void test_exports_load(void) {
    sp_train_config c = tu_small_config();
    sp_train *t = tu_trainer(TU_TEXT, &c, 9, err);
    CHECK(t != NULL);
    if (!t) return;
    int done;
    CHECK_EQ_INT(sp_train_run(t, 2, 0, &done, err), SP_OK);
    size_t bin_size, gguf_size;
    uint8_t *bin = sp_train_checkpoint(t, &bin_size, err);
    uint8_t *gguf = sp_train_gguf(t, &gguf_size, err);
    CHECK(bin && gguf);
    sp_model *mb = bin ? sp_model_load(bin, bin_size, 1, err) : NULL;
    sp_model *mg = gguf ? sp_model_load(gguf, gguf_size, 1, err) : NULL;
    CHECK(mb && mg);
    if (!mb || !mg) {
        say("exports: %s", err);
        sp_model_free(mb);
        sp_model_free(mg);
        sp_train_free(t);
        return;
    }
    const sp_tokenizer *tg = sp_model_tokenizer(mg);
    sp_tokenizer *tb = sp_train_tokenizer(t, err);
    int ib[64], ig[64];
    int nb = sp_encode(tb, "And God said, Let", 1, 0, ib, 64, err);
    int ng = tg ? sp_encode(tg, "And God said, Let", 1, 0, ig, 64, err) : -1;
    CHECK(nb > 0 && nb == ng && !memcmp(ib, ig, sizeof(int) * (size_t)nb));
    sp_state *sb = sp_state_new(mb), *sg = sp_state_new(mg);
    int bad = 0;
    for (int pos = 0; pos < nb && pos < c.context; pos++) {
        const float *lb = sp_forward(mb, sb, ib[pos], pos);
        const float *lg = sp_forward(mg, sg, ib[pos], pos);
        bad += memcmp(lb, lg, sizeof(float) * 99) != 0;
    }
    CHECK_EQ_INT(bad, 0);
    say("exports: checkpoint %zu bytes, GGUF %zu bytes, the "
            "same ids (%d) and logits", bin_size, gguf_size, nb);
    sp_state_free(sb);
    sp_state_free(sg);
    sp_tokenizer_free(tb);
    sp_model_free(mb);
    sp_model_free(mg);
    sp_train_free(t);
}

TEST_SUITE(train,
           TEST(test_vocab_ascii_is_shipped),
           TEST(test_streams_are_encode),
           TEST(test_schedule),
           TEST(test_forward_is_inference_tied_gqa),
           TEST(test_forward_is_inference_own_mha),
           TEST(test_finite_differences),
           TEST(test_slices_same_bits),
           TEST(test_loss_falls),
           TEST(test_exports_load));
