/*
 * gguf_special.c — a GGUF tokenizer's special tokens, as llama.cpp's
 * llama_vocab::impl::load finds them: the end-of-turn, end-of-message and
 * fill-in-the-middle tokens by their text when the metadata does not name
 * them (each made a control token), the end-of-generation set, and the list
 * of tokens matched whole in a text (control, user-defined and unknown
 * ones), longest first.
 */
#include <stdlib.h>
#include <string.h>

#include "gguf_vocab.h"

/* llama.cpp finds these by their text when the metadata does not name them,
 * and makes each a control token; the EOG texts end a generation. */
static const char *const EOT_TEXTS[] = {
    "<|eot_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>", "<|endoftext|>",
    "<|end_of_text|>", "<EOT>", "_<EOT>", "[EOT]",
    "<\xef\xbd\x9c" "end\xe2\x96\x81" "of\xe2\x96\x81" "sentence\xef\xbd\x9c>",
    "<end_of_utterance>", NULL};
static const char *const EOM_TEXTS[] = {"<|eom_id|>", NULL};
static const char *const FIM_PRE_TEXTS[] = {
    "<|fim_prefix|>", "<fim-prefix>", "<fim_prefix>",
    "<\xef\xbd\x9c" "fim\xe2\x96\x81" "begin\xef\xbd\x9c>", "<PRE>",
    "\xe2\x96\x81<PRE>", "<|code_prefix|>", "<|prefix|>", NULL};
static const char *const FIM_SUF_TEXTS[] = {
    "<|fim_suffix|>", "<fim-suffix>", "<fim_suffix>",
    "<\xef\xbd\x9c" "fim\xe2\x96\x81" "hole\xef\xbd\x9c>", "<SUF>",
    "\xe2\x96\x81<SUF>", "<|code_suffix|>", "<|suffix|>", NULL};
static const char *const FIM_MID_TEXTS[] = {
    "<|fim_middle|>", "<fim-middle>", "<fim_middle>",
    "<\xef\xbd\x9c" "fim\xe2\x96\x81" "end\xef\xbd\x9c>", "<MID>",
    "\xe2\x96\x81<MID>", "<|code_middle|>", "<|middle|>", NULL};
static const char *const FIM_PAD_TEXTS[] = {
    "<|fim_pad|>", "<fim-pad>", "<fim_pad>", "<PAD>", "[PAD]", NULL};
static const char *const FIM_REP_TEXTS[] = {
    "<|fim_repo|>", "<|repo_name|>", "<fim-repo>", "<REPO>", "<reponame>",
    NULL};
static const char *const FIM_SEP_TEXTS[] = {"<|file_sep|>", NULL};
static const char *const EOG_TEXTS[] = {
    "<|eot_id|>", "<|im_end|>", "<|end|>", "<|return|>", "<|call|>",
    "<|flush|>", "<|calls|>", "<end_of_turn>", "<|endoftext|>", "</s>",
    "<|eom_id|>", "<EOT>", "_<EOT>", "[EOT]", "[EOS]", "<|end_of_text|>",
    "<end_of_utterance>", "<eos>", "<turn|>", "<|tool_response>",
    "<\xef\xbd\x9c" "end\xe2\x96\x81" "of\xe2\x96\x81" "sentence\xef\xbd\x9c>",
    "[e~[", NULL};

static int find_text(const struct sp_gguf_vocab *v, const char *s) {
    return sp_vocab_token(v, s, (int)strlen(s));
}

/* The lowest id among the tokens spelled as one of texts, or -1.  (llama.cpp
 * takes the first its hash map happens to list; real vocabularies have one.) */
static int find_any(const struct sp_gguf_vocab *v, const char *const *texts) {
    int best = -1;
    for (int i = 0; texts[i]; i++) {
        int id = find_text(v, texts[i]);
        if (id >= 0 && (best < 0 || id < best)) best = id;
    }
    return best;
}

void sp_gguf_find_specials(struct sp_gguf_vocab *v) {
    static const struct {
        int which;
        const char *const *texts;
    } kinds[] = {
        {SP_SPECIAL_EOT, EOT_TEXTS},         {SP_SPECIAL_EOM, EOM_TEXTS},
        {SP_SPECIAL_FIM_PRE, FIM_PRE_TEXTS}, {SP_SPECIAL_FIM_SUF, FIM_SUF_TEXTS},
        {SP_SPECIAL_FIM_MID, FIM_MID_TEXTS}, {SP_SPECIAL_FIM_PAD, FIM_PAD_TEXTS},
        {SP_SPECIAL_FIM_REP, FIM_REP_TEXTS}, {SP_SPECIAL_FIM_SEP, FIM_SEP_TEXTS},
    };
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        int *id = &v->special_id[kinds[k].which];
        if (*id >= 0) continue;
        *id = find_any(v, kinds[k].texts);
        if (*id >= 0) v->attr[*id] |= SP_ATTR_CONTROL;
    }
    /* the end-of-generation tokens */
    static const int eog_ids[] = {SP_SPECIAL_FIM_PAD, SP_SPECIAL_FIM_REP,
                                  SP_SPECIAL_FIM_SEP};
    for (size_t k = 0; k < 3; k++)
        if (v->special_id[eog_ids[k]] >= 0)
            v->attr[v->special_id[eog_ids[k]]] |= SP_ATTR_EOG;
    for (int i = 0; EOG_TEXTS[i]; i++) {
        int id = find_text(v, EOG_TEXTS[i]);
        if (id >= 0) v->attr[id] |= SP_ATTR_EOG | SP_ATTR_CONTROL;
    }
    /* gpt-oss: tokens llama.cpp always renders */
    static const char *const shown[] = {"<|channel|>", "<|message|>",
                                        "<|start|>", "<|constrain|>", NULL};
    for (int i = 0; shown[i]; i++) {
        int id = find_text(v, shown[i]);
        if (id >= 0) v->attr[id] = SP_ATTR_USER_DEFINED;
    }
    static const int always[] = {SP_SPECIAL_EOS, SP_SPECIAL_EOT,
                                 SP_SPECIAL_EOM};
    for (size_t k = 0; k < 3; k++)
        if (v->special_id[always[k]] >= 0)
            v->attr[v->special_id[always[k]]] |= SP_ATTR_EOG;
    /* o200k_harmony and solar-open: "<|end|>" ends a message, not the text */
    int ret = find_text(v, "<|return|>"), call = find_text(v, "<|call|>"),
        calls = find_text(v, "<|calls|>"), flush = find_text(v, "<|flush|>"),
        end = find_text(v, "<|end|>");
#define IS_EOG(id) ((id) >= 0 && (v->attr[id] & SP_ATTR_EOG))
    if (IS_EOG(end) && ((IS_EOG(ret) && IS_EOG(call)) ||
                        (IS_EOG(calls) && IS_EOG(flush))))
        v->attr[end] = SP_ATTR_USER_DEFINED;
    /* Gemma 4 and PaddleOCR: "</s>" is not an end */
    int tool = find_text(v, "<|tool_response>"), s = find_text(v, "</s>");
    if (IS_EOG(tool) && IS_EOG(s)) v->attr[s] = SP_ATTR_NORMAL;
#undef IS_EOG
}

/* The ids matched whole in a text (control, user-defined and unknown
 * tokens), longest first; equal lengths by id (llama.cpp's std::sort leaves
 * their order open; it matters only when two specials overlap in a text). */
typedef struct {
    int len, id;
} len_id;

static int longer_first(const void *a, const void *b) {
    const len_id *x = a, *y = b;
    if (x->len != y->len) return x->len > y->len ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

int sp_gguf_collect_specials(sp_tokenizer *t, char *err) {
    struct sp_gguf_vocab *v = t->gguf;
    const int special = SP_ATTR_CONTROL | SP_ATTR_USER_DEFINED |
                        SP_ATTR_UNKNOWN;
    int n = 0;
    for (int i = 0; i < t->vocab; i++) n += (v->attr[i] & special) != 0;
    len_id *order = malloc(sizeof(len_id) * (size_t)(n ? n : 1));
    v->specials = malloc(sizeof(int) * (size_t)(n ? n : 1));
    if (!order || !v->specials) {
        free(order);
        return sp_fail(err, SP_ERR_NOMEM, "tokenizer: out of memory");
    }
    n = 0;
    for (int i = 0; i < t->vocab; i++)
        if (v->attr[i] & special) order[n++] = (len_id){t->piece_len[i], i};
    qsort(order, (size_t)n, sizeof(len_id), longer_first);
    for (int i = 0; i < n; i++) v->specials[i] = order[i].id;
    v->n_specials = n;
    free(order);
    return SP_OK;
}

