/*
 * gguf_tokenizer.c — a GGUF file's tokenizer from its metadata (the keys
 * llama.cpp reads, tokenizer.ggml.*, and tokenizer.chat_template), through
 * the reader (gguf.c) into gguf_vocab.c's constructor.  Everything kept is
 * copied: the file's bytes may go before the tokenizer does.
 */
#include <stdlib.h>
#include <string.h>

#include "gguf_vocab.h"
#include "model/gguf.h"

/* The metadata keys of the special ids (llama.cpp's LLM_KV_TOKENIZER_*;
 * "seperator" is spelled as in the format). */
static const struct {
    int which;
    const char *key;
} SPECIAL_KEYS[] = {
    {SP_SPECIAL_BOS, "tokenizer.ggml.bos_token_id"},
    {SP_SPECIAL_EOS, "tokenizer.ggml.eos_token_id"},
    {SP_SPECIAL_EOT, "tokenizer.ggml.eot_token_id"},
    {SP_SPECIAL_EOM, "tokenizer.ggml.eom_token_id"},
    {SP_SPECIAL_UNK, "tokenizer.ggml.unknown_token_id"},
    {SP_SPECIAL_SEP, "tokenizer.ggml.seperator_token_id"},
    {SP_SPECIAL_PAD, "tokenizer.ggml.padding_token_id"},
    {SP_SPECIAL_MASK, "tokenizer.ggml.mask_token_id"},
    {SP_SPECIAL_FIM_PRE, "tokenizer.ggml.fim_pre_token_id"},
    {SP_SPECIAL_FIM_SUF, "tokenizer.ggml.fim_suf_token_id"},
    {SP_SPECIAL_FIM_MID, "tokenizer.ggml.fim_mid_token_id"},
    {SP_SPECIAL_FIM_PAD, "tokenizer.ggml.fim_pad_token_id"},
    {SP_SPECIAL_FIM_REP, "tokenizer.ggml.fim_rep_token_id"},
    {SP_SPECIAL_FIM_SEP, "tokenizer.ggml.fim_sep_token_id"},
    /* older names of the first three FIM ids */
    {SP_SPECIAL_FIM_PRE, "tokenizer.ggml.prefix_token_id"},
    {SP_SPECIAL_FIM_SUF, "tokenizer.ggml.suffix_token_id"},
    {SP_SPECIAL_FIM_MID, "tokenizer.ggml.middle_token_id"},
};

/* A NUL-terminated copy of a GGUF string (NULL out of memory). */
static char *copy_str(sp_gguf_str s) {
    char *c = malloc(s.len + 1);
    if (c) {
        memcpy(c, s.ptr, s.len);
        c[s.len] = '\0';
    }
    return c;
}

/* A string array's items as the spec wants them (pointers and lengths
 * into the file); SP_OK, or an error naming the key. */
static int strings_of(const sp_gguf_array *a, const char ***items,
                      uint32_t **lens, char *err) {
    sp_gguf_str *views = malloc(sizeof(sp_gguf_str) * (size_t)(a->n ? a->n : 1));
    *items = malloc(sizeof(char *) * (size_t)(a->n ? a->n : 1));
    *lens = malloc(sizeof(uint32_t) * (size_t)(a->n ? a->n : 1));
    if (!views || !*items || !*lens) {
        free(views);
        return sp_fail(err, SP_ERR_NOMEM, "tokenizer: out of memory");
    }
    sp_gguf_array_strings(a, views);
    for (uint64_t i = 0; i < a->n; i++) {
        if (views[i].len > UINT32_MAX) {
            free(views);
            return sp_fail(err, SP_ERR_FORMAT, "tokenizer: string %llu of "
                           "an array is too long", (unsigned long long)i);
        }
        (*items)[i] = views[i].ptr;
        (*lens)[i] = (uint32_t)views[i].len;
    }
    free(views);
    return SP_OK;
}

/* Reads an optional key: SP_OK (set), SP_GGUF_MISSING (absent, err
 * cleared) or an error. */
static int optional(int rc, char *err) {
    if (rc == SP_GGUF_MISSING && err) err[0] = '\0';
    return rc;
}

/* An array of one entry per token (scores, token types): SP_OK when it has
 * at least n_tokens entries, else SP_ERR_FORMAT with "N <what> for M
 * tokens". */
static int per_token(const sp_gguf_array *a, uint64_t n_tokens,
                     const char *what, char *err) {
    if (a->n >= n_tokens) return SP_OK;
    return sp_fail(err, SP_ERR_FORMAT, "tokenizer: %llu %s for %llu tokens",
                   (unsigned long long)a->n, what,
                   (unsigned long long)n_tokens);
}

sp_tokenizer *sp_tokenizer_from_gguf(const sp_gguf *g, char *err) {
    sp_gguf_vocab_spec spec;
    sp_gguf_vocab_spec_init(&spec);
    sp_gguf_str model, pre, tmpl;
    sp_gguf_array tokens, scores, types, merges;
    char *model_c = NULL, *pre_c = NULL;
    const char **tok_items = NULL, **merge_items = NULL;
    uint32_t *tok_lens = NULL, *merge_lens = NULL;
    float *score_v = NULL;
    int32_t *type_v = NULL;
    sp_tokenizer *t = NULL;
    int rc = sp_gguf_get_str(g, "tokenizer.ggml.model", &model, err);
    if (rc == SP_GGUF_MISSING) {
        sp_fail(err, SP_ERR_FORMAT, "tokenizer: the file has no tokenizer "
                "(no tokenizer.ggml.model)");
        return NULL;
    }
    if (rc != SP_OK) return NULL;
    rc = optional(sp_gguf_get_str(g, "tokenizer.ggml.pre", &pre, err), err);
    if (rc != SP_OK && rc != SP_GGUF_MISSING) return NULL;
    model_c = copy_str(model);
    pre_c = rc == SP_OK ? copy_str(pre) : NULL;
    if (!model_c || (rc == SP_OK && !pre_c)) goto nomem;
    spec.model = model_c;
    spec.pre = pre_c;

    if (sp_gguf_get_array(g, "tokenizer.ggml.tokens", SP_GGUF_STRING, &tokens,
                          err) != SP_OK)
        goto done; /* err says missing or of another type */
    if (tokens.n < 1 || tokens.n > (1u << 22)) {
        sp_fail(err, SP_ERR_FORMAT, "tokenizer: tokenizer.ggml.tokens has "
                "%llu tokens (must be 1 to %d)", (unsigned long long)tokens.n,
                1 << 22);
        goto done;
    }
    spec.n_tokens = (int)tokens.n;
    if (strings_of(&tokens, &tok_items, &tok_lens, err) != SP_OK) goto done;
    spec.tokens = tok_items;
    spec.token_len = tok_lens;

    rc = optional(sp_gguf_get_array(g, "tokenizer.ggml.scores", SP_GGUF_ARRAY,
                                    &scores, err), err);
    if (rc == SP_OK) {
        if (scores.type != SP_GGUF_F32 && scores.type != SP_GGUF_I32) {
            sp_fail(err, SP_ERR_FORMAT, "tokenizer: tokenizer.ggml.scores "
                    "holds %s, not f32 or i32", sp_gguf_type_name(scores.type));
            goto done;
        }
        if (per_token(&scores, tokens.n, "scores", err) != SP_OK) goto done;
        score_v = malloc(sizeof(float) * (size_t)tokens.n);
        if (!score_v) goto nomem;
        for (uint64_t i = 0; i < tokens.n; i++)
            score_v[i] = scores.type == SP_GGUF_F32
                             ? (float)sp_gguf_array_float(&scores, i)
                             : (float)sp_gguf_array_int(&scores, i);
        spec.scores = score_v;
    } else if (rc != SP_GGUF_MISSING) {
        goto done;
    }

    rc = optional(sp_gguf_get_array(g, "tokenizer.ggml.token_type",
                                    SP_GGUF_I32, &types, err), err);
    if (rc == SP_OK) {
        if (per_token(&types, tokens.n, "token types", err) != SP_OK)
            goto done;
        type_v = malloc(sizeof(int32_t) * (size_t)tokens.n);
        if (!type_v) goto nomem;
        for (uint64_t i = 0; i < tokens.n; i++)
            type_v[i] = (int32_t)sp_gguf_array_int(&types, i);
        spec.types = type_v;
    } else if (rc != SP_GGUF_MISSING) {
        goto done;
    }

    rc = optional(sp_gguf_get_array(g, "tokenizer.ggml.merges",
                                    SP_GGUF_STRING, &merges, err), err);
    if (rc == SP_OK) {
        if (merges.n > (1u << 22)) {
            sp_fail(err, SP_ERR_FORMAT, "tokenizer: %llu merges (at most %d)",
                    (unsigned long long)merges.n, 1 << 22);
            goto done;
        }
        if (strings_of(&merges, &merge_items, &merge_lens, err) != SP_OK)
            goto done;
        spec.n_merges = (int)merges.n;
        spec.merges = merge_items;
        spec.merge_len = merge_lens;
    } else if (rc != SP_GGUF_MISSING) {
        goto done;
    }

    for (size_t k = 0; k < sizeof SPECIAL_KEYS / sizeof SPECIAL_KEYS[0]; k++) {
        int64_t id;
        rc = optional(sp_gguf_get_int(g, SPECIAL_KEYS[k].key, INT64_MIN,
                                      INT64_MAX, &id, err), err);
        if (rc == SP_OK) spec.special[SPECIAL_KEYS[k].which] = id < 0 ? -1 : id;
        else if (rc != SP_GGUF_MISSING) goto done;
    }
    static const char *const flag_keys[3] = {
        "tokenizer.ggml.add_bos_token", "tokenizer.ggml.add_eos_token",
        "tokenizer.ggml.add_space_prefix"};
    int *flags[3] = {&spec.add_bos, &spec.add_eos, &spec.add_space_prefix};
    for (int k = 0; k < 3; k++) {
        rc = optional(sp_gguf_get_bool(g, flag_keys[k], flags[k], err), err);
        if (rc != SP_OK && rc != SP_GGUF_MISSING) goto done;
    }
    rc = optional(sp_gguf_get_str(g, "tokenizer.chat_template", &tmpl, err),
                  err);
    if (rc == SP_OK) {
        spec.chat_template = tmpl.ptr;
        spec.chat_template_len = tmpl.len;
    } else if (rc != SP_GGUF_MISSING) {
        goto done;
    }
    t = sp_tokenizer_new_gguf(&spec, err);
    goto done;
nomem:
    sp_fail(err, SP_ERR_NOMEM, "tokenizer: out of memory");
done:
    free(tok_items);
    free(tok_lens);
    free(merge_items);
    free(merge_lens);
    free(score_v);
    free(type_v);
    free(model_c);
    free(pre_c);
    return t;
}

sp_tokenizer *sp_tokenizer_load_gguf(const uint8_t *data, size_t size,
                                     int vocab, char *err) {
    sp_gguf *g = sp_gguf_open(data, size, NULL, err);
    if (!g) return NULL;
    sp_tokenizer *t = sp_tokenizer_from_gguf(g, err);
    sp_gguf_close(g);
    if (t && vocab > 0 && t->vocab != vocab) {
        sp_fail(err, SP_ERR_FORMAT, "tokenizer: the file has %d tokens, the "
                "model %d logits: not its tokenizer", t->vocab, vocab);
        sp_tokenizer_free(t);
        return NULL;
    }
    return t;
}
