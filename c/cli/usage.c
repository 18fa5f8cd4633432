/*
 * usage.c — `sampler --help`: the usage, its sampler options from the
 * engine's registry and its model names from models/manifest.json.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_shared.h"

static const char USAGE[] =
    "usage:\n"
    "  sampler warp [SAMPLER OPTIONS] [--seed S] < request.json\n"
    "      request {\"logits\": [...], \"history\": [ids...]} (history "
    "optional;\n"
    "      a masked logit may be \"-inf\"); prints the final distribution and "
    "the\n"
    "      step's report as one JSON object; with --seed also draws a token\n"
    "  sampler generate --model PATH|%MODELS%\n"
    "      [--tokenizer PATH]\n"
    "      [--prompt TEXT [--chat]] [--steps N] [--seed S] [SAMPLER OPTIONS]\n"
    "      [--json]\n"
    "      [--regex PATTERN | --grammar json|json-object] [--metrics]\n"
    "      [--beams B [--length-penalty A] [--num-beam-groups G\n"
    "      --diversity-penalty F]]\n"
    "      [--draft MODEL [--draft-tokenizer PATH] --speculate N] [--work]\n"
    "      [--prompt-lookup N [--prompt-lookup-ngram M]]\n"
    "      prints the prompt and the generated text; --chat wraps the prompt\n"
    "      in the chat template of the model's GGUF file (one user message)\n"
    "      and prints it so; --json prints one JSON\n"
    "      object per step instead; --regex / --grammar constrain the\n"
    "      generated text to match (within --steps tokens): json is any JSON\n"
    "      document, json-object one whose top value is an object; --metrics\n"
    "      adds a last line {\"metrics\": {distinct-n, perplexity, ...}};\n"
    "      --beams B runs a deterministic beam search of width B instead of\n"
    "      sampling (score = log p / length^A) and prints the best\n"
    "      hypothesis; --num-beam-groups splits the B beams into G groups, a\n"
    "      group's candidates losing F for each earlier group's beam that\n"
    "      chose the same token this step (diverse beam search);\n"
    "      --prompt-lookup drafts N tokens a round by copying what followed\n"
    "      the first earlier occurrence of the text's last M (default 2) .. 1\n"
    "      tokens, verified as --draft's are;\n"
    "      --draft samples speculatively: MODEL drafts N tokens a\n"
    "      round, the model verifies them in one batched pass (acceptance\n"
    "      rate on stderr); %DRAFTS% are the default\n"
    "      transformer's drafts; --work prints the forward passes the models\n"
    "      ran (a batched pass counts once) and the tokens per pass\n"
    "  sampler logits --model PATH --tokens 1,5,9\n"
    "      prints {\"logits\": [[...position 0...], ...]} (one KV-cache pass)\n"
    "  sampler inspect --model PATH [--tokenizer T] (--tokens IDS | --prompt "
    "TEXT)\n"
    "      [--position P] [--top K]\n"
    "      inside a transformer at position P (default the last): prints\n"
    "      {\"attention\": [layer][head][key position] (the softmax weights "
    "of\n"
    "      P's query over positions 0..P), \"lens\": [layer] -> the K "
    "(default 5)\n"
    "      most probable tokens {\"id\", \"p\"} after that layer (the "
    "residual\n"
    "      stream through the final norm and the classifier; the last is "
    "the\n"
    "      model's distribution)}; --prompt is encoded as generate does\n"
    "  sampler encode --tokenizer PATH|--model PATH --text TEXT [--bos] "
    "[--eos]\n"
    "      [--chat]\n"
    "      prints {\"ids\": [...]} (--chat: also \"text\", the text wrapped\n"
    "      in the chat template); PATH: a tokenizer.bin or a GGUF file\n"
    "  sampler train-bigram --text FILE -o OUT [--alpha A]\n"
    "      trains a character bigram on FILE (UTF-8; one word per line) as\n"
    "      models/train_bigram.py does, byte for byte (alpha 0.1)\n"
    "  sampler train --text FILE -o PREFIX [--steps N] [--seed S]\n"
    "      [--preset tiny|small|shipped] [TRAIN OPTIONS] [--tokenizer PATH]\n"
    "      [--log-every K] [--eval-windows W] [--gguf FILE] [--grads FILE]\n"
    "      trains a transformer on FILE (UTF-8; each line a document) and\n"
    "      writes PREFIX.bin and PREFIX.tokenizer.bin (llama2.c formats;\n"
    "      --gguf also a GGUF F32 file; --grads the last step's gradients,\n"
    "      float32 in the checkpoint's order); prints one JSON line: the\n"
    "      plan, then each K-th step's {\"step\", \"loss\", ...} (default\n"
    "      10; step 1 always), then the held-out loss of W windows (default\n"
    "      64; 0: all) beside a bigram's; same seed, same files everywhere\n"
    "  sampler detect --model PATH|NAME --text FILE [--prompt TEXT]\n"
    "      [--watermark-gamma G] [--watermark-key K]\n"
    "      tokenizes the prompt and FILE's text as a generation's tokens\n"
    "      and counts the text's green tokens, each by the green list of\n"
    "      the token before it; prints {\"tokens\", \"green\", \"z\",\n"
    "      \"p_value\", \"ids\", \"per_token\"} (z = (green - G tokens) /\n"
    "      sqrt(tokens G (1 - G)); defaults G 0.25, K 15485863)\n"
    "  sampler params\n"
    "      prints the sampler's registry: every stage and parameter, as JSON\n"
    "SAMPLER OPTIONS (the chain's stages in their default order):\n";

static const char USAGE_END[] =
    "  --samplers LIST         the chain's order: stage names joined by ,\n"
    "                          or ; (a stage left out must stay off), or\n"
    "                          default, hf or llama.cpp\n"
    "  --logit-bias ID=VALUE   add VALUE to a logit; -inf bans (repeatable)\n"
    "  --exp-decay-length-penalty START,FACTOR  Hugging Face's pair: sets\n"
    "                          --exp-decay-start and --exp-decay-factor\n"
    "  --dry-sequence-breaker TEXT  DRY: TEXT's tokens end a repeat "
    "(repeatable)\n"
    "  --bad-words TEXT        ban the token that would complete TEXT's "
    "tokens\n"
    "                          (also \" TEXT\"'s; repeatable)\n"
    "  --sequence-bias TEXT=VALUE  add VALUE to the token that would "
    "complete\n"
    "                          TEXT's tokens (repeatable)\n"
    "  --negative-prompt TEXT  classifier-free guidance: the unconditional\n"
    "                          run's text (generate; none: the prompt's last\n"
    "                          token alone), mixed by --cfg-scale\n"
    "Defaults: --seed 42, --steps 64.  Models: %MAIN% "
    "name\n"
    "the shipped ones; `logits:2,1,0`, `logits:a=2,b=1,c=0` or\n"
    "`probs:0.5,0.3,0.2` is a hand-made model (the same distribution every "
    "step).\n";

/* The usage, with every sampler option from the engine's registry: its
 * flag, its stage, and its one line of doc. */
/* The usage text with its placeholders filled from models/manifest.json:
 * %MODELS% the shipped names (the models, then the drafts by name), %DRAFTS%
 * the drafts ("a and b"), %MAIN% the models that are not drafts ("`a` and
 * `b`"). */
static void put_usage(sp_buf *b, const char *text) {
    int n;
    const sp_shipped *m = sp_manifest(&n);
    int order[SP_SHIPPED_MAX], k = 0;
    for (int i = 0; i < n; i++)
        if (!m[i].draft_of[0]) order[k++] = i;
    int first_draft = k;
    for (int i = 0; i < n; i++) {
        if (!m[i].draft_of[0]) continue;
        int at = k++;
        while (at > first_draft && strcmp(m[order[at - 1]].name, m[i].name) > 0) {
            order[at] = order[at - 1];
            at--;
        }
        order[at] = i;
    }
    for (const char *p = text; *p;) {
        const char *mark = strchr(p, '%');
        const char *end = mark ? strchr(mark + 1, '%') : NULL;
        if (!end) {
            sp_buf_puts(b, p);
            break;
        }
        sp_buf_printf(b, "%.*s", (int)(mark - p), p);
        size_t len = (size_t)(end - mark - 1);
        int from = 0, to = k;
        const char *sep = "|", *last = "|", *quote = "";
        if (!strncmp(mark + 1, "DRAFTS", len)) {
            from = first_draft;
            sep = ", ";
            last = " and ";
        } else if (!strncmp(mark + 1, "MAIN", len)) {
            to = first_draft;
            sep = ", ";
            last = " and ";
            quote = "`";
        }
        for (int i = from; i < to; i++)
            sp_buf_printf(b, "%s%s%s%s", i == from ? "" : i == to - 1 ? last : sep,
                          quote, m[order[i]].name, quote);
        p = end + 1;
    }
}

void cli_print_help(void) {
    sp_buf b = {0};
    put_usage(&b, USAGE);
    for (int st = 0; st < SP_STAGE_ALL; st++) {
        /* the stages in order, then the terminal one (mirostat) */
        for (int k = 0; k < sp_param_count(); k++) {
            const sp_param_info *in = sp_param_at(k);
            if (in->stage != st) continue;
            char opt[64];
            snprintf(opt, sizeof opt, "--%s %s", in->flag,
                     in->type == SP_PARAM_INT ? "N" : "X");
            sp_buf_printf(&b, "  %-23s [%s] %s\n", opt,
                          sp_stage_name(st),
                          in->doc);
        }
    }
    put_usage(&b, USAGE_END);
    cli_put_train_help(&b);
    if (b.len) sp_host_write(1, b.data, (int)b.len);
    sp_buf_free(&b);
}

void cli_put_model_names(sp_buf *b, const char *sep, const char *last) {
    int n, k = 0, count = 0;
    const sp_shipped *m = sp_manifest(&n);
    for (int i = 0; i < n; i++) count += !m[i].draft_of[0];
    for (int i = 0; i < n; i++) {
        if (m[i].draft_of[0]) continue;
        sp_buf_printf(b, "%s%s", k == 0 ? "" : k == count - 1 ? last : sep,
                      m[i].name);
        k++;
    }
}
