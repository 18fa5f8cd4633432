/*
 * sampler_train.h — training a Llama-style transformer on a text, in the
 * engine (c/engine/train/): the architecture the engine runs (llama2.c's:
 * token embedding, RMSNorm, RoPE attention with grouped KV heads, SwiGLU,
 * a classifier shared with the embedding or its own), a character
 * vocabulary made from the text (or a given tokenizer.bin), windows drawn
 * by PCG32, mean cross-entropy, backpropagation, AdamW with warm-up and a
 * cosine decay, gradient clipping by the global norm.  The result is a
 * llama2.c checkpoint (and tokenizer.bin), a GGUF F32 file, or a model the
 * rest of the engine samples from.
 *
 * Exact, as everything here: the same text, seed and settings give the
 * same weights bit for bit in the native build, WASM SIMD and WASM scalar
 * (every sum in one order, the engine's own exp and log, no FMA: the rules
 * at the top of sampler.h), whatever slices the training is run in.
 * Part of the engine's public API: include sampler.h.
 */
#ifndef SAMPLER_TRAIN_H
#define SAMPLER_TRAIN_H
#ifndef SAMPLER_H
#error "include sampler.h (the engine's public API), not sampler_train.h"
#endif

/* The settings, one row each:
 *   X(field, "name", type, default, min, max, "what it is")
 * name is the CLI's flag (--name), the WASM API's and the page's key; type
 * INT (an int field) or REAL (a double field); min and max inclusive.  The
 * CLI's options and --help, the WASM setter by name and the JS wrapper's
 * list come from this table. */
#define SP_TRAIN_SETTINGS(X)                                                  \
    X(dim, "dim", INT, 64, 8, 1024,                                           \
      "the model's width: the size of each token's vector")                   \
    X(hidden, "hidden", INT, 192, 8, 4096,                                    \
      "the feed-forward layer's width (SwiGLU)")                              \
    X(layers, "layers", INT, 1, 1, 32, "transformer blocks")                  \
    X(heads, "heads", INT, 4, 1, 64,                                          \
      "attention heads (they divide dim; head size dim / heads, even)")       \
    X(kv_heads, "kv-heads", INT, 2, 1, 64,                                    \
      "key and value heads, shared by groups of query heads (divides heads)") \
    X(context, "context", INT, 64, 2, 2048,                                   \
      "tokens in a training window: the trained model's context")             \
    X(batch, "batch", INT, 8, 1, 1024, "windows in each step")                \
    X(steps, "steps", INT, 300, 0, 10000000,                                  \
      "steps of the schedule: the learning rate decays over them")            \
    X(lr, "lr", REAL, 1e-2, 0, 1, "the peak learning rate")                   \
    X(lr_final, "lr-final", REAL, 0.1, 0, 1,                                  \
      "the learning rate at the last step, a fraction of lr (1: constant)")   \
    X(warmup, "warmup", INT, 30, 0, 10000000,                                 \
      "steps of linear warm-up to the peak learning rate")                    \
    X(weight_decay, "weight-decay", REAL, 0.1, 0, 10,                         \
      "AdamW's decoupled weight decay, on the matrices (not the norms)")      \
    X(beta1, "beta1", REAL, 0.9, 0, 0.9999,                                   \
      "AdamW: decay of the gradients' running mean")                          \
    X(beta2, "beta2", REAL, 0.95, 0, 0.99999,                                 \
      "AdamW: decay of the squared gradients' running mean")                  \
    X(eps, "eps", REAL, 1e-8, 1e-12, 1,                                       \
      "AdamW: added to the root of the squared gradients' mean")              \
    X(clip, "clip", REAL, 1.0, 0, 1e6,                                        \
      "gradients scaled down to this global norm when larger (0: no clipping)") \
    X(tied, "tied", INT, 1, 0, 1,                                             \
      "1: the classifier shares the embedding's weights; 0: its own")         \
    X(holdout, "holdout", INT, 10, 0, 1000000,                                \
      "every Nth line of the text is held out to measure the model on (0: none)")

typedef struct {
#define SP_TRAIN_FIELD_INT int
#define SP_TRAIN_FIELD_REAL double
#define SP_TRAIN_FIELD(field, name, type, def, min, max, doc)                 \
    SP_TRAIN_FIELD_##type field;
    SP_TRAIN_SETTINGS(SP_TRAIN_FIELD)
#undef SP_TRAIN_FIELD
} sp_train_config;

/* A setting's row, as the table declares it. */
typedef struct {
    const char *name, *doc;
    int is_int;
    double def, min, max;
} sp_train_setting;

int sp_train_setting_count(void);
const sp_train_setting *sp_train_setting_at(int i); /* NULL out of range */
/* The index of a setting by name, or -1. */
int sp_train_setting_find(const char *name);

/* Every setting at its default (the "tiny" preset). */
void sp_train_config_default(sp_train_config *c);
/* Sets a setting by name: SP_ERR_ARG with a message for an unknown name,
 * a value out of range, or a whole-number setting given a fraction. */
int sp_train_config_set(sp_train_config *c, const char *name, double value,
                        char *err);
/* A setting's value by index (a whole number as a double). */
double sp_train_config_get(const sp_train_config *c, int index);
/* The ranges, and what ties settings together: heads divisible by
 * kv-heads, dim by heads, an even head size.  SP_ERR_ARG with a message. */
int sp_train_config_check(const sp_train_config *c, char *err);

/* The presets by name, for the page and the CLI (--preset): each sets the
 * shape (dim, hidden, layers, heads, kv-heads), context, batch, lr and
 * warm-up, and leaves the rest.  "tiny" (the defaults): the shipped
 * draft's shape (dim 64, 1 layer), context 64, batch 8, lr 1e-2; "small":
 * 2 layers of dim 128 (~0.41 M weights), context 64, batch 8, lr 5e-3;
 * "shipped": the shipped transformer's shape and recipe (4 layers, 0.8 M
 * weights, context 256, batch 16, lr 3e-3, 100 warm-up steps).  The first
 * two learn fastest in a time budget: many small steps (measured on the
 * King James text, 410 K tokens: tiny at batch 8 x context 64 reaches a
 * held-out 1.85 nats, at 16 x 128 with lr 5e-3 2.27). */
const char *sp_train_preset_name(int i); /* NULL past the last */
const char *sp_train_preset_doc(int i);
int sp_train_preset(sp_train_config *c, const char *name, char *err);

/* What a text and settings make, known before training starts. */
typedef struct {
    int vocab;                    /* tokens of the vocabulary */
    int documents, heldout_documents; /* lines of the text, each side */
    double train_tokens, heldout_tokens; /* the two streams' tokens */
    double params;                /* weights (a shared classifier once) */
    double bytes;                 /* the memory the trainer holds */
    double tokens_per_step;       /* batch x context */
    double flops_per_step;        /* 2 x the multiply-adds of a step,
                                   * forward and backward */
} sp_train_plan;

/* The most memory a trainer may hold, in every build (so a shape is
 * refused or accepted alike natively and in WASM). */
#define SP_TRAIN_MAX_MEMORY ((double)(1u << 30))
/* The largest text (bytes) and character vocabulary. */
#define SP_TRAIN_MAX_TEXT (64 << 20)
#define SP_TRAIN_MAX_VOCAB 4096

/* The data a text makes and what training it would take: the text is
 * UTF-8, each non-blank line a document (llama2.c's run.c encodes it as
 * BOS, the dummy-prefix space, then its characters); the vocabulary is
 * <unk>, <s>, </s>, newline, the printable ASCII characters (as the
 * shipped transformer's tokenizer: an ASCII text gets that very file) and
 * then every other character of the text in code point order; or the
 * given tokenizer.bin (tokenizer non-NULL) encodes the lines.  Refuses,
 * each with a message: an empty text (no line to learn from), a binary
 * one (a NUL byte, bytes that are not UTF-8), more than SP_TRAIN_MAX_TEXT
 * bytes or SP_TRAIN_MAX_VOCAB characters, a training stream shorter than
 * a window, settings out of range, a vocabulary too large for the model
 * (more than 32 tokens per dimension: its embedding and classifier would
 * be most of the model, each token seen too rarely to learn), and more
 * than SP_TRAIN_MAX_MEMORY of memory (SP_ERR_NOMEM). */
int sp_train_plan_text(const uint8_t *text, size_t len,
                       const uint8_t *tokenizer, size_t tok_len,
                       const sp_train_config *c, sp_train_plan *out,
                       char *err);

typedef struct sp_train sp_train;

/* A trainer for the text (copied out: text and tokenizer stay the
 * caller's), its weights drawn from seed (llama2.c's initialisation:
 * N(0, 0.02), the residual projections' scaled by 1 / sqrt(2 layers)),
 * the windows of each step drawn by PCG32 from seed too.  NULL and a
 * message for what sp_train_plan_text refuses, or no memory. */
sp_train *sp_train_new(const uint8_t *text, size_t len,
                       const uint8_t *tokenizer, size_t tok_len,
                       const sp_train_config *c, uint64_t seed, char *err);
void sp_train_free(sp_train *t);
const sp_train_plan *sp_train_get_plan(const sp_train *t);
const sp_train_config *sp_train_get_config(const sp_train *t);

/* Trains: whole steps until max_steps more are done or the schedule's
 * last step is, or sooner after max_windows windows (0: no limit) -- then
 * the step stands half done and the next call goes on with it, so a
 * front-end can run slices of any size and the weights are the same bits.
 * *steps_done: steps completed by this call.  Fails (class SP_ERR_FORMAT,
 * code SP_ERR_LOGITS) with a message when a loss or the gradients are not
 * finite, or the loss is far above an untrained model's (more than
 * 2 ln V + 1: a learning rate that diverges): training stops there, the
 * weights as the last good step left them, and every later call fails
 * the same way. */
int sp_train_run(sp_train *t, int max_steps, int max_windows,
                 int *steps_done, char *err);
int sp_train_steps_done(const sp_train *t);
/* Windows of the current step already done (0 between steps). */
int sp_train_windows_done(const sp_train *t);
/* Each step's mean training loss, [steps done] (step 1's is the untrained
 * model's, about ln vocab), its gradients' global norm before clipping,
 * and its learning rate. */
const float *sp_train_losses(const sp_train *t);
const float *sp_train_grad_norms(const sp_train *t);
double sp_train_lr_at(const sp_train *t, int step); /* step 0-based */

/* The mean cross-entropy (nats per token) of the current weights on the
 * held-out stream: windows of context tokens evenly spread over it (at
 * most max_windows, 0: all; a stream shorter than a window is one shorter
 * window), every position predicted.  *bigram: on the very same
 * predictions, a bigram of the same tokens counted on the training
 * stream (add-0.1, as the shipped bigrams) -- the line a transformer,
 * which sees more than one token back, must cross.  SP_ERR_STATE when
 * nothing is held out. */
int sp_train_eval(sp_train *t, int max_windows, double *loss, double *bigram,
                  char *err);

/* The current weights as files (malloc'd, *size bytes; NULL and a
 * message when memory is short): a llama2.c checkpoint (legacy float32,
 * the unused RoPE tables filled as llama2.c's export fills them, negative
 * vocab_size for a classifier of its own), its tokenizer.bin, and a GGUF
 * file (llama architecture, F32, the tokenizer as SentencePiece pieces). */
uint8_t *sp_train_checkpoint(const sp_train *t, size_t *size, char *err);
uint8_t *sp_train_tokenizer_file(const sp_train *t, size_t *size,
                                 char *err);
uint8_t *sp_train_gguf(const sp_train *t, size_t *size, char *err);
/* The current weights as a model and its tokenizer, loaded as any
 * checkpoint is (the engine's loader): sample from it, free it with
 * sp_model_free, sp_tokenizer_free.  Training goes on untouched. */
sp_model *sp_train_model(const sp_train *t, char *err);
sp_tokenizer *sp_train_tokenizer(const sp_train *t, char *err);

/* The last completed step's gradients of the mean loss (before clipping),
 * in the checkpoint's order of weights (the embedding, the norms and
 * matrices layer by layer as llama2.c stores them, the final norm, then
 * the classifier when it is its own): [*n] floats; NULL before the first
 * step.  The tests hold them against PyTorch's. */
const float *sp_train_gradients(const sp_train *t, size_t *n);
/* The current weights in the same order, [*n]. */
const float *sp_train_weights(const sp_train *t, size_t *n);

#endif /* SAMPLER_TRAIN_H */
