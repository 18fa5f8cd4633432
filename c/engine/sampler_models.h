/*
 * sampler_models.h — models (loading, hand-made, training, the
 * forward pass and its counters), tokenizers and constraints.
 * Part of the engine's public API: include sampler.h, which includes
 * this file where its declarations belong.
 */
#ifndef SAMPLER_MODELS_H
#define SAMPLER_MODELS_H
#ifndef SAMPLER_H
#error "include sampler.h (the engine's public API), not sampler_models.h"
#endif

/* ---------------------------------------------------------------- models */

typedef enum {
    SP_MODEL_BIGRAM = 1,
    SP_MODEL_TRANSFORMER = 2,
    SP_MODEL_HANDMADE = 3 /* a list of labels with logits, every step */
} sp_model_kind;

typedef struct sp_model sp_model;
typedef struct sp_state sp_state;
typedef struct sp_tokenizer sp_tokenizer;

/* Loads a model from a complete file image.  The format is recognized by
 * its content (bigram: magic "SPBG"; GGUF: magic "GGUF", the llama and
 * qwen2 architectures; otherwise a llama2.c checkpoint).  The model keeps
 * a pointer into data when take_ownership is 1 and frees it with free() in
 * sp_model_free (a GGUF or checkpoint's weights are then read in place: no
 * copy); otherwise it copies what it needs. */
sp_model *sp_model_load(uint8_t *data, size_t size, int take_ownership,
                        char *err);
void sp_model_free(sp_model *m);

/* The most memory this build can use (WASM: its maximum memory, the same
 * as build.sh's -sMAXIMUM_MEMORY; 0 for native builds: no limit of ours). */
#define SP_WASM_MAX_MEMORY ((double)(2u << 30))
double sp_memory_limit(void);
/* Whether a model file of `size` bytes can be loaded at all: SP_OK, or
 * SP_ERR_NOMEM and a message with its size and the limit when it is
 * larger than the memory less what a session needs beside it -- asked
 * before the bytes are read, so that a file too large is refused before
 * anything is loaded. */
int sp_model_check_size(double size, char *err);

/* A hand-made model from a spec (handmade.c): "logits:2,1,0",
 * "logits:yes=2,no=1,maybe=0" or "probs:0.5,0.3,0.2" (logit = ln p); the
 * same distribution at every step, whatever came before (the penalties
 * still see the history).  Its tokenizer reads prompts by longest match of
 * the labels and has no begin or end token: a generation may start from an
 * empty prompt.  SP_ERR_ARG with a message that names the bad entry. */
#define SP_HANDMADE_MAX 128      /* tokens (a step summary shows them all) */
#define SP_HANDMADE_MAX_LABEL 16 /* bytes of one label */
sp_model *sp_model_handmade(const char *spec, char *err);

/* A copy of a bigram or hand-made model that sp_model_set_prob may edit
 * (the loaded one stays as it was); NULL and a message for a transformer. */
sp_model *sp_model_copy(const sp_model *m, char *err);
/* The logits of the distribution after token row (bigram), or the
 * hand-made model's (row 0): [vocab], owned by the model; NULL for a
 * transformer or a row outside the vocabulary. */
const float *sp_model_row(const sp_model *m, int row);
/* Sets P(token | row) to p, in (0, 1), keeping the other tokens' logits:
 * they keep their ratios and share 1 - p (a learner drags a bar's top).
 * Only token's logit changes: ln(p / (1 - p)) + ln sum_{j != token}
 * exp(logit_j).  SP_ERR_ARG for a transformer, a row or token outside the
 * vocabulary, p outside (0, 1), or when every other token is masked. */
int sp_model_set_prob(sp_model *m, int row, int token, double p, char *err);

/* Trains a character bigram on a text (train.c), as models/train_bigram.py
 * does, byte for byte: each line (split as Python splits text files,
 * stripped as str.strip() strips) is a word framed by the boundary "\n";
 * P(b | a) = (count(a, b) + alpha) / (count(a) + alpha V), stored as float32
 * ln P in the bigram file format.  Feed the UTF-8 text in chunks of any
 * size (a front-end reports progress between them), then finish: *out is
 * a malloc'd bigram file of *size bytes (sp_model_load reads it).  Errors,
 * each with its message: a NUL byte (a binary file), bytes that are not
 * UTF-8, more than SP_TRAIN_MAX_BYTES, more than 4095 different
 * characters, an empty text.  After a failed feed, finish fails too. */
#define SP_TRAIN_MAX_BYTES (64 << 20)
typedef struct sp_trainer sp_trainer;
sp_trainer *sp_trainer_new(char *err);
int sp_trainer_feed(sp_trainer *t, const uint8_t *bytes, size_t n,
                    char *err);
int sp_trainer_finish(sp_trainer *t, double alpha, uint8_t **out,
                      size_t *size, char *err);
size_t sp_trainer_bytes(const sp_trainer *t); /* fed so far */
int sp_trainer_chars(const sp_trainer *t);    /* different characters */
void sp_trainer_free(sp_trainer *t);

sp_model_kind sp_model_kind_of(const sp_model *m);
int sp_model_vocab(const sp_model *m);
int sp_model_seq_len(const sp_model *m); /* context length; 0 = unbounded */
/* A tokenizer built into the model file (bigram), or NULL. */
const sp_tokenizer *sp_model_tokenizer(const sp_model *m);

sp_state *sp_state_new(const sp_model *m);
void sp_state_free(sp_state *st);
/* Makes dst continue from where src stood after n_pos tokens (copies the
 * KV cache rows [0, n_pos) and the last logits). */
void sp_state_copy(const sp_model *m, sp_state *dst, const sp_state *src,
                   int n_pos);
/* Feeds token at position pos (0-based, in order) and returns the logits for
 * the next position, [vocab], owned by the state. */
float *sp_forward(const sp_model *m, sp_state *st, int token, int pos);

/* The batched forward pass: feeds tokens[0..n) at positions pos..pos+n-1
 * (n in 1..SP_BATCH_MAX) in one call, reading each weight matrix once for
 * the n positions, and returns their logits, [n][vocab] row by row, owned
 * by the state and valid until its next forward.  Row b has the very bits
 * sp_forward(m, st, tokens[b], pos + b) would give after the rows before
 * it (same kernels, same summation order), and the state is left as those
 * n calls leave it.  last_only: only the last row is computed (a prompt's
 * prefill).  NULL for a token or a position out of range, or when memory
 * is short.  Speculative decoding verifies its drafted tokens with it, and
 * a session prefills its prompt with it. */
#define SP_BATCH_MAX 32
const float *sp_forward_batch(const sp_model *m, sp_state *st,
                              const int *tokens, int n, int pos,
                              int last_only);

/* A look inside the forward pass (model/inspect.c; sp_inspection in
 * sampler.h).  Off by default, and then it costs nothing: a pass copies
 * nothing and the state holds no room for it.  On, every forward pass
 * (single or batched: the same numbers) keeps the attention weights and
 * the residual stream after each layer of the last position it fed.
 * SP_ERR_ARG, with a message that says why, for a model without
 * attention: a bigram (its only context is the previous token: the row
 * of its table) or a hand-made model (the same distribution whatever came
 * before); SP_ERR_NOMEM. */
int sp_state_set_capture(const sp_model *m, sp_state *st, int on, char *err);
/* Why a model has no attention to look at (the message above), or NULL for
 * a transformer. */
const char *sp_model_no_attention(const sp_model *m);
/* What the last pass kept: its position, the model's shape and the
 * attention weights (owned by the state, valid until its next pass); no
 * lens (lens_top 0).  SP_ERR_STATE when the capture is off or no pass has
 * run since it was turned on. */
int sp_state_inspect(const sp_model *m, const sp_state *st, sp_inspection *out,
                     char *err);
/* The logit lens after layer `layer` (0-based; the last layer's is the
 * model's distribution) of the position the last pass kept: the softmax
 * of the classifier's logits, [vocab], owned by the state and valid until
 * its next lens or pass; *logits (unless NULL) gets the logits and
 * *entropy_bits (unless NULL) the distribution's entropy.  One classifier
 * pass over the vocabulary each: on a large vocabulary, the lens's cost.
 * NULL and a message when nothing is kept or layer is out of range. */
const float *sp_state_lens(const sp_model *m, sp_state *st, int layer,
                           const float **logits, double *entropy_bits,
                           char *err);
/* The k most probable tokens of probs[vocab] (descending, ties by id: one
 * pass with a k-element heap, no sort of the vocabulary) into ids[k] and
 * p[k]; returns their count (k, or vocab if smaller). */
int sp_probs_top(const float *probs, int vocab, int k, int *ids, float *p);

/* Work done by a state's forward passes since sp_state_new or the last
 * reset.  flops: 2 x the multiply-adds the passes did (matmuls, attention
 * scores, weighted sums of the values); flops_no_cache: what recomputing
 * the whole prefix 0..pos from scratch at every call would have cost (the
 * same count for positions 0..pos, logits included, summed over the calls);
 * tokens: positions fed (one per sp_forward call, n per batched pass);
 * kv_reused: key and value vectors (one [kv_dim] row of one layer each)
 * read from earlier positions; kv_written: new ones; passes: forward calls,
 * a batched pass counting once (each reads the weights once).  A bigram
 * counts tokens and passes only. */
typedef struct {
    double flops;
    double flops_no_cache;
    uint64_t tokens;
    uint64_t kv_reused;
    uint64_t kv_written;
    uint64_t passes;
} sp_counters;

void sp_state_counters(const sp_state *st, sp_counters *out);
/* The counters a state of model m reads after n forward passes from
 * position 0 (one token at a time, as a session feeds them), computed from
 * the model's shape without running them: the KV-cache cost of a text of
 * n tokens.  SP_ERR_ARG when n is negative or past the model's context. */
int sp_model_cost(const sp_model *m, int n, sp_counters *out, char *err);
void sp_state_reset_counters(sp_state *st);

/* ------------------------------------------------------------- tokenizers */

typedef enum {
    SP_TOK_CHAR = 1, /* one piece per character, no merges (the bigram) */
    SP_TOK_BPE = 2,  /* llama2.c tokenizer.bin: merges by score */
    SP_TOK_LABEL = 3, /* the hand-made model's labels: longest match, no
                       * begin or end token */
    SP_TOK_SPM = 4,  /* a GGUF file's "llama" tokenizer: SentencePiece
                      * merges by score, byte fallback, special tokens */
    SP_TOK_BYTE_BPE = 5 /* a GGUF file's "gpt2" tokenizer: a pre-tokenizer
                         * cuts words, byte-level BPE merges them by rank */
} sp_tok_kind;

/* Loads a llama2.c tokenizer.bin image, or the tokenizer of a GGUF file
 * (recognised by its magic; the model's weights are not read), copied:
 * data stays the caller's.  vocab > 0: the model's logits, which the
 * tokenizer's size must match. */
sp_tokenizer *sp_tokenizer_load(const uint8_t *data, size_t size, int vocab,
                                char *err);
/* A tokenizer of ids for a model without one (a llama2.c checkpoint chosen
 * alone): token i's piece is "<i>", a prompt is read as such pieces
 * ("<1><17>"); BOS 1 and EOS 2 as in llama2.c (run.c) when the vocabulary
 * has them; the model's text then shows its ids. */
sp_tokenizer *sp_tokenizer_ids(int vocab, char *err);
void sp_tokenizer_free(sp_tokenizer *t);
int sp_tokenizer_vocab(const sp_tokenizer *t);
sp_tok_kind sp_tokenizer_kind(const sp_tokenizer *t);
int sp_tokenizer_bos(const sp_tokenizer *t); /* -1 when it has none */
/* Whether two tokenizers are the same: kind, pieces, ids, scores. */
int sp_tokenizers_equal(const sp_tokenizer *a, const sp_tokenizer *b);
int sp_tokenizer_eos(const sp_tokenizer *t); /* -1 when it has none */
/* Encodes text into ids (at most max_ids); returns the count or -1 with a
 * message.  bos, eos: begin and end the text as the model's texts do --
 * llama2.c's always with BOS and EOS, a GGUF file's with the tokens its
 * add_bos_token and add_eos_token say (llama.cpp's add_special).  A GGUF
 * tokenizer reads its special tokens in the text as those tokens
 * ("<|im_end|>" is one token, as with llama.cpp's parse_special). */
int sp_encode(const sp_tokenizer *t, const char *text, int bos, int eos,
              int *ids, int max_ids, char *err);
/* The most ids sp_encode can make of len bytes (max_ids that never falls
 * short). */
int sp_encode_bound(const sp_tokenizer *t, size_t len);
/* Adds a DRY sequence breaker given as text: the tokenizer's tokens for it.
 * SP_ERR_ARG with a message that quotes the text (as JSON) when it is no
 * token, more than SP_MAX_DRY_BREAKER_LEN, or one the tokenizer cannot
 * write. */
int sp_params_add_dry_breaker_text(sp_params *p, const sp_tokenizer *tok,
                                   const char *text, char *err);
/* A bad word or a sequence bias given as text, made tokens by the
 * tokenizer (sampler/words.c).  The text is encoded as it is, without
 * begin or end token (Hugging Face's add_special_tokens=False; a llama2.c
 * tokenizer puts its dummy-prefix space before it, as run.c does); a bad
 * word also as vLLM does it, a second time with one space before the text
 * (its leading spaces dropped first), kept when that gives as many tokens
 * with another first token -- the word in the middle of a text, for
 * tokenizers whose words carry their space.  A sequence bias is the text's
 * tokens only (HF: one sequence, added once).  SP_ERR_ARG with a message
 * that quotes the text (as JSON) when it is no token, more than
 * SP_MAX_WORD_LEN, one the tokenizer cannot write, or there is no room. */
int sp_params_add_bad_word_text(sp_params *p, const sp_tokenizer *tok,
                                const char *text, char *err);
int sp_params_add_sequence_bias_text(sp_params *p, const sp_tokenizer *tok,
                                     const char *text, float value,
                                     char *err);
/* The bytes token `token` contributes after token `prev`, and their count. */
const char *sp_decode(const sp_tokenizer *t, int prev, int token, int *len);
/* Whether token ends a generated text: llama2.c's BOS and EOS, a GGUF
 * file's end-of-generation tokens (its EOS, <|eot_id|>, <|im_end|>, ...
 * as llama.cpp finds them).  A character tokenizer's boundary only ends a
 * word (0). */
int sp_tokenizer_is_eog(const sp_tokenizer *t, int token);

/* A GGUF file's chat template (tokenizer.chat_template), as recognised. */
typedef enum {
    SP_CHAT_NONE = 0,   /* the tokenizer has none */
    SP_CHAT_CHATML = 1, /* <|im_start|>user ... <|im_end|> (Qwen, SmolLM) */
    SP_CHAT_LLAMA3 = 2, /* <|start_header_id|>user<|end_header_id|> ... */
    SP_CHAT_OTHER = 3   /* one of another family: not supported */
} sp_chat_kind;
sp_chat_kind sp_tokenizer_chat(const sp_tokenizer *t);
/* The prompt as one user message in the model's chat template, the
 * assistant's turn opened (malloc'd; free it), or NULL with a message that
 * says why (no template, or one not supported): then use the prompt as it
 * is.  The text holds the template's special tokens as text; sp_encode
 * reads them back as those tokens. */
char *sp_chat_wrap(const sp_tokenizer *t, const char *prompt, char *err);

/* ----------------------------------------------------------- constraints */

/* A regex (the whole generated text must match it) or the JSON grammar:
 * one JSON document, or one whose top value is an object (the usual "JSON
 * mode").  Syntax and semantics: constrain/regex.c and constrain/json.c. */
typedef struct sp_constraint sp_constraint;
sp_constraint *sp_constraint_regex(const char *pattern, char *err);
sp_constraint *sp_constraint_json(char *err);
sp_constraint *sp_constraint_json_object(char *err);
void sp_constraint_free(sp_constraint *c);
const char *sp_constraint_describe(const sp_constraint *c);

#endif /* SAMPLER_MODELS_H */
