/*
 * chat.c — a prompt as a chat model expects one user message, from the
 * template its GGUF file carries (tokenizer.chat_template, a Jinja
 * program).  Like llama.cpp's llm_chat_detect_template, the template is
 * recognised by what it contains, not run: ChatML (Qwen, SmolLM: turns
 * between <|im_start|> and <|im_end|>) and Llama 3 (headers between
 * <|start_header_id|> and <|end_header_id|>, turns ended by <|eot_id|>).
 * The text is llama.cpp's llm_chat_apply_template's for those two, with
 * the assistant's turn opened; any other template is named as unsupported
 * and the prompt is used as it is.
 */
#include <stdlib.h>
#include <string.h>

#include "gguf_vocab.h"

static int has(const char *s, const char *part) { return strstr(s, part) != NULL; }

int sp_chat_detect(const char *tmpl) {
    if (strcmp(tmpl, "chatml") == 0) return SP_CHAT_CHATML;
    if (strcmp(tmpl, "llama3") == 0) return SP_CHAT_LLAMA3;
    if (has(tmpl, "<|im_start|>"))
        /* Phi-4's and SmolVLM's look alike but are not ChatML */
        return has(tmpl, "<|im_sep|>") || has(tmpl, "<end_of_utterance>")
                   ? SP_CHAT_OTHER : SP_CHAT_CHATML;
    /* templates llama.cpp recognises before Llama 3's */
    if (strncmp(tmpl, "mistral", 7) == 0 || has(tmpl, "[INST]") ||
        has(tmpl, "<|assistant|>") || has(tmpl, "[gMASK]<sop>") ||
        (has(tmpl, "<|user|>") && has(tmpl, "<|endoftext|>")) ||
        has(tmpl, "bos_token + message['role']") ||
        has(tmpl, "<start_of_turn>") || has(tmpl, "GPT4 Correct ") ||
        (has(tmpl, "USER: ") && has(tmpl, "ASSISTANT: ")) ||
        (has(tmpl, "### Instruction:") && has(tmpl, "<|EOT|>")) ||
        (has(tmpl, "<|START_OF_TURN_TOKEN|>") && has(tmpl, "<|USER_TOKEN|>")))
        return SP_CHAT_OTHER;
    if (has(tmpl, "<|start_header_id|>") && has(tmpl, "<|end_header_id|>"))
        return SP_CHAT_LLAMA3;
    return SP_CHAT_OTHER;
}

sp_chat_kind sp_tokenizer_chat(const sp_tokenizer *t) {
    return t->gguf ? (sp_chat_kind)t->gguf->chat : SP_CHAT_NONE;
}

/* C's isspace in the "C" locale, what llama.cpp's trim() tests */
static int c_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

char *sp_chat_wrap(const sp_tokenizer *t, const char *prompt, char *err) {
    sp_chat_kind kind = sp_tokenizer_chat(t);
    if (kind == SP_CHAT_NONE) {
        sp_fail(err, SP_ERR_ARG, "chat: the model has no chat template "
                "(tokenizer.chat_template); the prompt is used as it is");
        return NULL;
    }
    if (kind == SP_CHAT_OTHER) {
        sp_fail(err, SP_ERR_ARG, "chat: the model's chat template is neither "
                "ChatML-style nor Llama 3-style, the two supported; the "
                "prompt is used as it is");
        return NULL;
    }
    const char *open, *close;
    size_t from = 0, to = strlen(prompt);
    if (kind == SP_CHAT_CHATML) {
        open = "<|im_start|>user\n";
        close = "<|im_end|>\n<|im_start|>assistant\n";
    } else { /* Llama 3 trims the message */
        open = "<|start_header_id|>user<|end_header_id|>\n\n";
        close = "<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n";
        while (from < to && c_space(prompt[from])) from++;
        while (to > from && c_space(prompt[to - 1])) to--;
    }
    size_t a = strlen(open), b = strlen(close);
    char *out = malloc(a + (to - from) + b + 1);
    if (!out) {
        sp_fail(err, SP_ERR_NOMEM, "chat: out of memory");
        return NULL;
    }
    memcpy(out, open, a);
    memcpy(out + a, prompt + from, to - from);
    memcpy(out + a + (to - from), close, b + 1);
    return out;
}
