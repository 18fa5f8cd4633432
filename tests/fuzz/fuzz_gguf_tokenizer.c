/*
 * fuzz_gguf_tokenizer.c — the GGUF tokenizers (SentencePiece and
 * byte-level BPE with each pre-tokenizer) built from fuzzed vocabularies,
 * directly or through a GGUF file, then encoding fuzzed text: no crash, no
 * leak, every id in range, every error one clean line -- and, when the text
 * holds no special token and every id is a plain token, decoding gives the
 * text back (as llama.cpp reads it: U+FFFD for a byte that starts no
 * character), since every byte has a token here.
 *
 * Input: [flags][text length, 2 bytes LE][text][pieces, each: a type byte,
 * the bytes, then 0x00]
 *   flags bit 0: byte-level BPE (else SentencePiece); bits 1-2: the
 *   pre-tokenizer (gpt-2, llama-bpe, qwen2, smollm); bit 3: BOS; bit 4:
 *   EOS; bit 5: no space prefix; bit 6: through a GGUF file; bit 7: a
 *   tight max_ids
 * Every byte's token comes first (ids 0..255: "<0xXX>" or GPT-2's
 * character), then U+2581 (SentencePiece), then the fuzzed pieces; each
 * BPE piece of two or more characters gets the rule (first character,
 * the rest).
 */
#include "fuzz_common.h"
#include "model/gguf_vocab.h"
#include "build_gguf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_PIECES 300

static int utf8_len(unsigned char c) {
    return c < 0xc0 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
}

/* Whether every lead byte of 2 to 4 bytes has its continuation bytes. */
static int leads_complete(const char *s) {
    for (const unsigned char *u = (const unsigned char *)s; *u; u++) {
        if (*u < 0xc0) continue;
        for (int k = 1; k < utf8_len(*u); k++)
            if ((u[k] & 0xc0) != 0x80) return 0;
    }
    return 1;
}

/* The text as llama.cpp reads it for byte-level BPE (pretok.c's output,
 * words back to back); NULL when it has a code point it cannot write. */
static char *bpe_reading(const char *text, size_t len, size_t *out_len) {
    char *words;
    size_t *starts, bad;
    int n = sp_pretokenize(SP_PRE_GPT2, text, len, &words, &starts, &bad);
    if (n < 0) return NULL;
    *out_len = starts[n];
    free(starts);
    return words;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 3) return 0;
    int flags = data[0];
    size_t text_len = (size_t)data[1] | (size_t)data[2] << 8;
    if (text_len > size - 3) text_len = size - 3;
    char *text = malloc(text_len + 1);
    memcpy(text, data + 3, text_len);
    text[text_len] = '\0'; /* a NUL inside ends the text, as in C */
    const uint8_t *at = data + 3 + text_len, *end = data + size;
    text_len = strlen(text);
    int bpe = flags & 1;

    /* the vocabulary */
    char *pieces[256 + 1 + MAX_PIECES];
    uint32_t lens[256 + 1 + MAX_PIECES];
    int32_t types[256 + 1 + MAX_PIECES];
    char *merges[MAX_PIECES];
    int n = 0, m = 0;
    for (int b = 0; b < 256; b++) {
        pieces[n] = malloc(8);
        if (bpe) {
            lens[n] = (uint32_t)sp_bytebpe_char(b, pieces[n]);
            types[n] = SP_TT_NORMAL;
        } else {
            lens[n] = (uint32_t)snprintf(pieces[n], 8, "<0x%02X>", b);
            types[n] = SP_TT_BYTE;
        }
        n++;
    }
    if (!bpe) {
        pieces[n] = malloc(4);
        memcpy(pieces[n], "\xe2\x96\x81", 4);
        lens[n] = 3;
        types[n++] = SP_TT_NORMAL;
    }
    while (at < end && n < 256 + 1 + MAX_PIECES) {
        int type = *at++ % 7;
        const uint8_t *stop = memchr(at, 0, (size_t)(end - at));
        size_t len = stop ? (size_t)(stop - at) : (size_t)(end - at);
        pieces[n] = malloc(len + 1);
        memcpy(pieces[n], at, len);
        pieces[n][len] = '\0';
        lens[n] = (uint32_t)len;
        types[n] = type;
        if (bpe && len > 1 && m < MAX_PIECES) {
            size_t first = (size_t)utf8_len((unsigned char)at[0]);
            if (first < len) {
                merges[m] = malloc(len + 2);
                memcpy(merges[m], at, first);
                merges[m][first] = ' ';
                memcpy(merges[m] + first + 1, at + first, len - first);
                merges[m][len + 1] = '\0';
                m++;
            }
        }
        n++;
        at += len + (stop ? 1 : 0);
    }
    static const char *const PRE[] = {"gpt-2", "llama-bpe", "qwen2", "smollm"};
    sp_gguf_vocab_spec spec;
    sp_gguf_vocab_spec_init(&spec);
    spec.model = bpe ? "gpt2" : "llama";
    spec.pre = PRE[(flags >> 1) & 3];
    spec.n_tokens = n;
    spec.tokens = (const char *const *)pieces;
    spec.token_len = lens;
    spec.types = types;
    spec.n_merges = m;
    spec.merges = (const char *const *)merges;
    spec.add_space_prefix = (flags & 32) ? 0 : -1;
    spec.add_eos = (flags & 16) ? 1 : -1;

    char err[SP_ERR_LEN];
    err[0] = '\0';
    sp_tokenizer *t;
    if (flags & 64) { /* the same through a GGUF file */
        gg_file f;
        gg_init(&f);
        gg_str(&f, "tokenizer.ggml.model", spec.model);
        gg_str(&f, "tokenizer.ggml.pre", spec.pre);
        gg_key(&f, "tokenizer.ggml.tokens", GG_ARRAY);
        bb_u32(&f.kv, GG_STRING);
        gg_u64_to(&f.kv, (uint64_t)n);
        for (int i = 0; i < n; i++) gg_string_to(&f.kv, pieces[i], lens[i]);
        gg_arr(&f, "tokenizer.ggml.token_type", GG_I32, types, (uint64_t)n, 4);
        if (bpe) gg_arr_str(&f, "tokenizer.ggml.merges",
                            (const char *const *)merges, (uint64_t)m);
        if (flags & 32) gg_bool(&f, "tokenizer.ggml.add_space_prefix", 0);
        if (flags & 16) gg_bool(&f, "tokenizer.ggml.add_eos_token", 1);
        bb_bytes file = {0};
        gg_finish(&f, 3, &file);
        gg_free(&f);
        t = sp_tokenizer_load(file.data, file.len, 0, err);
        bb_free(&file);
    } else {
        t = sp_tokenizer_new_gguf(&spec, err);
    }
    if (!t) {
        fz_check_error(err);
        goto done;
    }
    FZ_ASSERT(t->vocab == n);

    int bos = (flags >> 3) & 1, eos = (flags >> 4) & 1;
    int cap = sp_encode_bound(t, text_len);
    int max_ids = (flags & 128) ? (int)(text_len / 2) : cap;
    int *ids = malloc(sizeof(int) * (size_t)cap);
    int got = sp_encode(t, text, bos, eos, ids, max_ids, err);
    if (got < 0) {
        fz_check_error(err);
    } else {
        FZ_ASSERT(got <= max_ids);
        /* decode everything; the text comes back when every id between
         * the added BOS and EOS is a plain token (a normal one, or one of
         * the first 256, the bytes) */
        int from = bos && t->gguf->add_bos ? 1 : 0;
        int to = eos && t->gguf->add_eos ? got - 1 : got;
        size_t total = 0, room = 16 * (size_t)got + 16;
        char *back = malloc(room);
        int plain = 1;
        for (int i = 0; i < got; i++) {
            FZ_ASSERT(ids[i] >= 0 && ids[i] < t->vocab);
            int len;
            const char *p = sp_decode(t, i ? ids[i - 1] : -1, ids[i], &len);
            FZ_ASSERT(len >= 0);
            if (i < from || i >= to) continue;
            int attr = t->gguf->attr[ids[i]];
            if (attr != SP_ATTR_NORMAL && !(ids[i] < 256 && attr == SP_ATTR_BYTE))
                plain = 0;
            /* a text's own token with the BOS id (here the byte 0x01's: ids
             * 0..255 are bytes) is read as BOS by the decoder, which drops
             * the space SentencePiece put after it (run.c's rule): the text
             * does not come back byte for byte */
            if (ids[i] == t->bos) plain = 0;
            if (total + (size_t)len <= room) memcpy(back + total, p, (size_t)len);
            else plain = 0;
            total += (size_t)len;
        }
        /* U+2581 in the text reads back as a space (SentencePiece's); a
         * lead byte without its continuation bytes takes the next bytes
         * into its character, a space's U+2581 among them */
        if (!bpe && (strstr(text, "\xe2\x96\x81") || !leads_complete(text)))
            plain = 0;
        for (int k = 0; plain && k < t->gguf->n_specials; k++) {
            int id = t->gguf->specials[k];
            const char *s = t->pieces[id];
            size_t sn = (size_t)t->piece_len[id];
            for (size_t i = 0; i + sn <= text_len; i++)
                if (memcmp(text + i, s, sn) == 0) plain = 0;
        }
        if (plain && !bpe) {
            /* SentencePiece: the space put first stays when no BOS drops it */
            int prefixed = t->gguf->add_space_prefix && text_len > 0 &&
                           !from;
            FZ_ASSERT(total == text_len + (size_t)prefixed);
            FZ_ASSERT(!prefixed || back[0] == ' ');
            FZ_ASSERT(memcmp(back + prefixed, text, text_len) == 0);
        } else if (plain) {
            size_t want_len;
            char *want = bpe_reading(text, text_len, &want_len);
            if (want) {
                FZ_ASSERT(total == want_len);
                FZ_ASSERT(memcmp(back, want, want_len) == 0);
            }
            free(want);
        }
        free(back);
    }
    free(ids);
    sp_tokenizer_free(t);
done:
    for (int i = 0; i < n; i++) free(pieces[i]);
    for (int i = 0; i < m; i++) free(merges[i]);
    free(text);
    return 0;
}
