/*
 * gguf_vocab.h — the tokenizers a GGUF file carries, as llama.cpp runs them
 * (src/llama-vocab.cpp, src/unicode.cpp): "llama" (SentencePiece: pieces
 * with scores, byte fallback) and "gpt2" (byte-level BPE: pieces and merge
 * rules, after a pre-tokenizer splits the text into words).
 *
 *   gguf_vocab.c   building one from plain arrays (sp_gguf_vocab_spec):
 *                  token attributes, end-of-generation tokens, the special
 *                  tokens, the string and merge tables, the decode cache
 *   gguf_special.c end-of-generation tokens, the specials matched whole
 *   gguf_encode.c  text -> ids: special tokens matched whole, then each
 *                  stretch of plain text by the model's algorithm; decoding
 *   spm.c          SentencePiece merges by score
 *   pretok.c       the pre-tokenizers (gpt-2, llama-bpe, qwen2, smollm)
 *   bytebpe.c      GPT-2's byte <-> character map and merges by rank
 *   chat.c         the chat template for one user message
 *   gguf_tokenizer.c  the spec read from a GGUF file's metadata
 *
 * The engine's other files see these tokenizers through sp_tokenizer
 * (kinds SP_TOK_SPM and SP_TOK_BYTE_BPE) and sp_encode / sp_decode.
 */
#ifndef SP_GGUF_VOCAB_H
#define SP_GGUF_VOCAB_H

#include <stddef.h>
#include <stdint.h>

#include "internal.h"

/* tokenizer.ggml.token_type values (llama.cpp's llama_token_type) */
enum {
    SP_TT_UNDEFINED = 0,
    SP_TT_NORMAL = 1,
    SP_TT_UNKNOWN = 2,
    SP_TT_CONTROL = 3,
    SP_TT_USER_DEFINED = 4,
    SP_TT_UNUSED = 5,
    SP_TT_BYTE = 6
};

/* A token's attributes (llama.cpp's llama_token_attr, and EOG). */
enum {
    SP_ATTR_UNKNOWN = 1 << 0,
    SP_ATTR_UNUSED = 1 << 1,
    SP_ATTR_NORMAL = 1 << 2,
    SP_ATTR_CONTROL = 1 << 3,
    SP_ATTR_USER_DEFINED = 1 << 4,
    SP_ATTR_BYTE = 1 << 5,
    SP_ATTR_EOG = 1 << 6 /* ends a generation (llama.cpp's special_eog_ids) */
};

/* The pre-tokenizers (tokenizer.ggml.pre) */
typedef enum {
    SP_PRE_NONE = 0,   /* SentencePiece: none */
    SP_PRE_GPT2,       /* "gpt-2" */
    SP_PRE_LLAMA3,     /* "llama-bpe", "llama3", "llama-v3" */
    SP_PRE_QWEN2,      /* "qwen2", "deepseek-r1-qwen" */
    SP_PRE_SMOLLM      /* "smollm" */
} sp_pre_kind;

/* The special token ids a GGUF's metadata may name (-1: not named). */
enum {
    SP_SPECIAL_BOS, SP_SPECIAL_EOS, SP_SPECIAL_EOT, SP_SPECIAL_EOM,
    SP_SPECIAL_UNK, SP_SPECIAL_SEP, SP_SPECIAL_PAD, SP_SPECIAL_MASK,
    SP_SPECIAL_FIM_PRE, SP_SPECIAL_FIM_SUF, SP_SPECIAL_FIM_MID,
    SP_SPECIAL_FIM_PAD, SP_SPECIAL_FIM_REP, SP_SPECIAL_FIM_SEP,
    SP_SPECIAL_COUNT
};

/* What a GGUF file says about its tokenizer, as plain arrays (borrowed:
 * the constructor copies what it keeps).  Strings are bytes with lengths
 * (a GGUF string may hold any byte); a NULL length array means
 * NUL-terminated strings. */
typedef struct {
    const char *model;         /* tokenizer.ggml.model: "llama" or "gpt2" */
    const char *pre;           /* tokenizer.ggml.pre, or NULL */
    int n_tokens;
    const char *const *tokens; /* tokenizer.ggml.tokens */
    const uint32_t *token_len;
    const float *scores;       /* tokenizer.ggml.scores, or NULL (all 0) */
    const int32_t *types;      /* tokenizer.ggml.token_type, or NULL */
    int n_merges;              /* tokenizer.ggml.merges ("a b" each) */
    const char *const *merges;
    const uint32_t *merge_len;
    int64_t special[SP_SPECIAL_COUNT]; /* tokenizer.ggml.*_token_id, -1 */
    int add_bos, add_eos;      /* tokenizer.ggml.add_{bos,eos}_token, -1 */
    int add_space_prefix;      /* tokenizer.ggml.add_space_prefix, -1 */
    const char *chat_template; /* tokenizer.chat_template, or NULL */
    size_t chat_template_len;
} sp_gguf_vocab_spec;

/* A spec with nothing set: every id and flag -1, every array NULL. */
void sp_gguf_vocab_spec_init(sp_gguf_vocab_spec *spec);

/* One entry of the merge table: the pair (left, right) of string ids merges
 * at `rank` into string `result`. */
typedef struct {
    int32_t left, right, rank, result;
} sp_merge_slot;

struct sp_gguf_vocab {
    int n_tokens;
    sp_pre_kind pre;
    int add_bos, add_eos, add_space_prefix, ignore_merges;
    uint8_t *attr;             /* SP_ATTR_* per token */
    /* the string table: ids 0..vocab-1 are the tokens (t->pieces), then the
     * strings merge rules name that are not tokens */
    int n_strings;
    const char **str;
    int *str_len;
    char *extra;               /* storage of the strings past the tokens */
    uint64_t *slots;           /* open addressing: the string's hash << 32 |
                                * its id + 1; 0 empty */
    uint32_t slot_mask;
    sp_merge_slot *merge_slots; /* open addressing on (left, right) */
    uint32_t merge_mask;
    int n_merges;
    int max_len;               /* longest token, in bytes */
    int *specials;             /* ids matched whole in text, longest first */
    int n_specials;
    int byte_token[256];       /* SPM: "<0xXX>" (or the byte itself); BPE:
                                * GPT-2's character for the byte; -1 */
    char *decoded;             /* each token's bytes when decoded */
    int *dec_off, *dec_len;
    char *chat_template;       /* NUL-terminated copy, or NULL */
    int chat;                  /* sp_chat_kind */
    int special_id[SP_SPECIAL_COUNT];
};

/* gguf_vocab.c */
/* s[0..len) for a message: 40 characters of valid text at most, control
 * bytes and bytes of no character escaped; out holds SP_VOCAB_QUOTE bytes */
#define SP_VOCAB_QUOTE 200
const char *sp_vocab_quote(const char *s, size_t len, char *out);
sp_tokenizer *sp_tokenizer_new_gguf(const sp_gguf_vocab_spec *spec,
                                    char *err);
void sp_gguf_vocab_free(struct sp_gguf_vocab *v);
/* The id of exactly these bytes among the tokens and merge strings, or -1. */
int sp_vocab_find(const struct sp_gguf_vocab *v, const char *s, int len);
/* The token spelled s[0..len), or -1 (a merge string is no token). */
int sp_vocab_token(const struct sp_gguf_vocab *v, const char *s, int len);
/* The merge of string ids (left, right): its rank and result, or -1. */
int sp_vocab_merge(const struct sp_gguf_vocab *v, int left, int right,
                  int *result);

/* gguf_tokenizer.c: from a parsed GGUF file (gguf.h), or from its bytes
 * (vocab > 0: the model's logits, which the token count must match) */
struct sp_gguf;
sp_tokenizer *sp_tokenizer_from_gguf(const struct sp_gguf *g, char *err);
sp_tokenizer *sp_tokenizer_load_gguf(const uint8_t *data, size_t size,
                                     int vocab, char *err);

/* gguf_special.c */
void sp_gguf_find_specials(struct sp_gguf_vocab *v);
int sp_gguf_collect_specials(sp_tokenizer *t, char *err);

/* gguf_encode.c */
int sp_gguf_encode(const sp_tokenizer *t, const char *text, int bos,
                   int eos, int *ids, int max_ids, char *err);
const char *sp_gguf_decode(const sp_tokenizer *t, int prev, int token,
                           int *len);
/* What each token decodes to, cached (v->decoded, dec_off, dec_len). */
int sp_gguf_build_decoded(sp_tokenizer *t, char *err);

/* A growing list of ids (the encoders' output). */
typedef struct {
    int *ids;
    int n, cap;
} sp_idlist;
int sp_idlist_push(sp_idlist *l, int id);

/* spm.c: one stretch of plain text (spaces already escaped to U+2581) */
int sp_spm_encode(const sp_tokenizer *t, const char *text, size_t len,
                  sp_idlist *out, char *err);

/* pretok.c: splits text[0..len) into words; returns the count (-1: out of
 * memory), the words as byte ranges [starts[i], starts[i + 1]) of *text_out
 * (malloc'd, free both): the text after llama.cpp's UTF-8 reading, with
 * U+FFFD for each byte that starts no character.  *bad_at: the byte offset
 * of a code point past U+10FFFF, which llama.cpp cannot write back (-1 when
 * none; the result is then -2). */
int sp_pretokenize(sp_pre_kind pre, const char *text, size_t len,
                   char **text_out, size_t **starts, size_t *bad_at);

/* bytebpe.c */
int sp_bytebpe_encode_word(const sp_tokenizer *t, const char *word,
                           size_t len, sp_idlist *out, char *err);
/* GPT-2's character for byte b, as UTF-8 (1 or 2 bytes) into out */
int sp_bytebpe_char(int b, char *out);
/* The byte GPT-2's character cp stands for, or -1. */
int sp_bytebpe_byte(uint32_t cp);

/* chat.c */
int sp_chat_detect(const char *tmpl);

#endif /* SP_GGUF_VOCAB_H */
