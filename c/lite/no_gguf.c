/*
 * no_gguf.c — the engine without GGUF files: the lesson engine
 * (build/engine-lite-{simd,scalar}.wasm).
 *
 * Course chapters and embedded playgrounds run the shipped models, hand-made
 * distributions and llama2.c files; they never read a GGUF file, whose
 * parser, quantized kernels, byte-level BPE, pre-tokenizers and Unicode
 * tables are about 40 % of the engine's bytes.  The lesson engine is built
 * from the same sources without those files (build.sh ENGINE_LITE_SRC) and
 * links these in their place: a GGUF file is recognised by its magic and
 * refused with a message that says where it can be opened.  Everything
 * else — every sampler, model, decoder and their bits — is the same code,
 * so the same seed gives the same text in both engines (tests/js/lite.test.js).
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "model/gguf.h"
#include "model/gguf_vocab.h"
#include "model/transformer.h"

#define NO_GGUF "GGUF: this page's engine is the lesson engine, which reads " \
                "no GGUF files; open the file in the playground's own page"

int sp_gguf_is(const uint8_t *data, size_t size) {
    return size >= 4 && memcmp(data, "GGUF", 4) == 0;
}

int sp_gguf_model_load(sp_model *m, uint8_t *data, size_t size,
                       int take_ownership, char *err) {
    (void)m, (void)data, (void)size, (void)take_ownership;
    return sp_fail(err, SP_ERR_FORMAT, NO_GGUF);
}

sp_tokenizer *sp_tokenizer_load_gguf(const uint8_t *data, size_t size,
                                     int vocab, char *err) {
    (void)data, (void)size, (void)vocab;
    sp_fail(err, SP_ERR_FORMAT, NO_GGUF);
    return NULL;
}

/* No tokenizer or model of this engine holds a GGUF part: what follows is
 * never reached with one, and answers as for a tokenizer without it. */
void sp_gguf_close(sp_gguf *g) { (void)g; }
void sp_gguf_vocab_free(struct sp_gguf_vocab *v) { (void)v; }
int sp_vocab_token(const struct sp_gguf_vocab *v, const char *s, int len) {
    (void)v, (void)s, (void)len;
    return -1;
}
int sp_gguf_encode(const sp_tokenizer *t, const char *text, int bos, int eos,
                   int *ids, int max_ids, char *err) {
    (void)t, (void)text, (void)bos, (void)eos, (void)ids, (void)max_ids;
    return sp_fail(err, SP_ERR_STATE, NO_GGUF);
}
const char *sp_gguf_decode(const sp_tokenizer *t, int prev, int token,
                           int *len) {
    (void)t, (void)prev, (void)token;
    *len = 0;
    return "";
}
sp_chat_kind sp_tokenizer_chat(const sp_tokenizer *t) {
    (void)t;
    return SP_CHAT_NONE;
}
char *sp_chat_wrap(const sp_tokenizer *t, const char *prompt, char *err) {
    (void)t, (void)prompt;
    sp_fail(err, SP_ERR_ARG, "chat: the model has no chat template "
            "(tokenizer.chat_template); the prompt is used as it is");
    return NULL;
}
