/*
 * make_corpus.c — writes the fuzz targets' seed corpus: tiny valid files
 * (the build_files.h models) and a few broken ones, one folder per target.
 * The committed corpus (tests/fuzz/corpus/) came from this program:
 *
 *   gcc -std=c11 -Ic -Itests/fuzz tests/fuzz/make_corpus.c -o /tmp/make_corpus
 *   /tmp/make_corpus tests/fuzz/corpus
 *
 * tests/fuzz/run.sh copies the corpus to build/fuzz/ before fuzzing, so the
 * committed one never grows.
 */
#define _DEFAULT_SOURCE
#include <math.h>
#include <stdio.h>
#include <sys/stat.h>

#include "build_files.h"
#include "build_gguf.h"

static const char *out_dir;

static void save(const char *target, const char *name, const void *data,
                 size_t n) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", out_dir, target);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/%s/%s", out_dir, target, name);
    FILE *f = fopen(path, "wb");
    if (!f) {
        perror(path);
        exit(1);
    }
    fwrite(data, 1, n, f);
    fclose(f);
}

static void save_b(const char *target, const char *name, const bb_bytes *b) {
    save(target, name, b->data, b->len);
}

static void put_f32_at(bb_bytes *b, size_t at, float v) {
    memcpy(b->data + at, &v, 4);
}

static void bigram_seeds(void) {
    bb_bytes b = {0};
    bb_bigram(&b, BB_SMALL_BIGRAM_VOCAB, 0, BB_SMALL_BIGRAM_PIECES, 7);
    save_b("fuzz_bigram", "small.bin", &b);
    bb_bytes t = {0};
    bb_put(&t, b.data, b.len - 1);
    save_b("fuzz_bigram", "bad_truncated.bin", &t);
    bb_free(&t);
    bb_put(&t, b.data, b.len);
    t.data[4] = 2;
    save_b("fuzz_bigram", "bad_version.bin", &t);
    memcpy(t.data, b.data, b.len);
    t.data[21] = 'a';
    save_b("fuzz_bigram", "bad_duplicate.bin", &t);
    memcpy(t.data, b.data, b.len);
    put_f32_at(&t, 32 + 4 * 9, NAN);
    save_b("fuzz_bigram", "bad_nan.bin", &t);
    bb_free(&t);
    bb_free(&b);

    static const char *const two[2] = {"\n", "x"};
    bb_bigram(&b, 2, 1, two, 2);
    save_b("fuzz_bigram", "two.bin", &b);
    bb_free(&b);
    const char *letters[30];
    static char store[30][2];
    for (int i = 0; i < 30; i++) {
        store[i][0] = i == 0 ? '\n' : i == 1 ? ' ' : (char)('a' + i - 2);
        store[i][1] = '\0';
        letters[i] = store[i];
    }
    bb_bigram(&b, 30, 0, letters, 5);
    save_b("fuzz_bigram", "letters.bin", &b);
    bb_free(&b);
}

static void checkpoint_seeds(void) {
    bb_bytes b = {0};
    bb_checkpoint(&b, BB_TINY, 1, 0.5f);
    save_b("fuzz_checkpoint", "tiny.bin", &b);
    bb_bytes t = {0};
    bb_put(&t, b.data, b.len / 2);
    save_b("fuzz_checkpoint", "bad_half.bin", &t);
    bb_free(&t);
    bb_put(&t, b.data, b.len);
    put_f32_at(&t, bb_float_at(200), NAN);
    save_b("fuzz_checkpoint", "bad_nan.bin", &t);
    int32_t seven = 7;
    memcpy(t.data + 12, &seven, 4); /* n_heads 7 */
    save_b("fuzz_checkpoint", "bad_heads.bin", &t);
    bb_free(&t);
    bb_free(&b);
    bb_config c = BB_TINY;
    c.vocab_size = -12;
    bb_checkpoint(&b, c, 2, 0.5f);
    save_b("fuzz_checkpoint", "unshared.bin", &b);
    bb_free(&b);
    bb_config mini = {2, 1, 1, 1, 1, 3, 2};
    bb_checkpoint(&b, mini, 3, 1.0f);
    save_b("fuzz_checkpoint", "mini.bin", &b);
    bb_free(&b);
    bb_config gqa = {16, 8, 1, 4, 2, 5, 4};
    bb_checkpoint(&b, gqa, 4, 0.3f);
    save_b("fuzz_checkpoint", "gqa.bin", &b);
    bb_free(&b);
    save("fuzz_checkpoint", "bad_short.bin", "\x08\0\0\0\x10\0\0", 7);
}

static void tokenizer_input(bb_bytes *b, int flags, int n, const char *text,
                            const bb_bytes *tok) {
    uint8_t head[4] = {(uint8_t)flags, (uint8_t)n,
                       (uint8_t)(strlen(text) & 255),
                       (uint8_t)(strlen(text) >> 8)};
    bb_put(b, head, 4);
    bb_put(b, text, strlen(text));
    bb_put(b, tok->data, tok->len);
}

static void tokenizer_seeds(void) {
    bb_bytes tok = {0}, b = {0};
    bb_tiny_tokenizer(&tok);
    tokenizer_input(&b, 3, 0, "abcab c\nab\xff", &tok);
    save_b("fuzz_tokenizer", "tiny_bos_eos", &b);
    bb_free(&b);
    tokenizer_input(&b, 8, 12, "a  b\xc3\xa9", &tok);
    save_b("fuzz_tokenizer", "tiny_vocab12", &b);
    bb_free(&b);
    tokenizer_input(&b, 12, 11, "cabbage", &tok);
    save_b("fuzz_tokenizer", "bad_vocab11_tight", &b);
    bb_free(&b);
    bb_bytes cut = {0};
    bb_put(&cut, tok.data, tok.len - 3);
    tokenizer_input(&b, 1, 0, "ab", &cut);
    save_b("fuzz_tokenizer", "bad_truncated", &b);
    bb_free(&b);
    bb_free(&cut);
    /* merges that chain and tie */
    static const char *const pieces[] = {"<unk>", "<s>", "</s>", " ", "a", "b",
                                         "aa", "ab", "ba", "aaa", "aba", "bab",
                                         " a", " aa", "<0x00>", "<0xC3>",
                                         "<0xA9>", "\xc3\xa9", "b\xc3\xa9"};
    static const float scores[] = {0, 0, 0, -1, -1, -1, 1, 1, 1, 2, 2, 2, 1, 3,
                                   0, 0, 0, 0.5f, 4};
    bb_bytes merge = {0};
    bb_tokenizer(&merge, 4, 19, pieces, scores);
    tokenizer_input(&b, 1, 0, "aaaa abab babab\xc3\xa9 a\xc3", &merge);
    save_b("fuzz_tokenizer", "merges", &b);
    bb_free(&b);
    bb_free(&merge);
    bb_free(&tok);
}

static void warp_input(const char *name, const uint8_t params[16],
                       int n_bias, const uint8_t *bias, const char *json) {
    bb_bytes b = {0};
    bb_put(&b, params, 16);
    uint8_t nb = (uint8_t)n_bias;
    bb_put(&b, &nb, 1);
    bb_put(&b, bias, 3 * (size_t)n_bias);
    bb_put(&b, json, strlen(json));
    save_b("fuzz_warp_request", name, &b);
    bb_free(&b);
}

static void warp_seeds(void) {
    static const uint8_t none[16] = {0};
    static const uint8_t all[16] = {255, 60, 100, 200, 20, 180, 100, 140,
                                    140, 3, 100, 0, 128, 42, 0, 0};
    static const uint8_t edges[16] = {255, 247, 250, 241, 249, 244, 246, 248,
                                      241, 1, 251, 255, 255, 1, 1, 0};
    static const uint8_t bias[6] = {1, 0, 0, 3, 0, 5};
    warp_input("plain", none, 0, NULL,
               "{\"logits\": [2, 1, 0, -1.5, 3.25e1], \"history\": [0, 4]}");
    warp_input("masked", all, 2, bias,
               "{\"logits\": [\"-inf\", 1, null, 0.5, 0.5, 0.5, -1e38, 7]}");
    warp_input("edges", edges, 2, bias,
               "{\"logits\": [3.4e38, -3.4e38, 0, 1e-45, -0], "
               "\"history\": [1, 1, 1, 2, 3, 4, 0]}");
    warp_input("all_masked", all, 0, NULL, "{\"logits\": [\"-inf\", null]}");
    warp_input("bad_key", none, 0, NULL, "{\"logits\": [1], \"histroy\": [0]}");
    warp_input("bad_number", none, 0, NULL, "{\"logits\": [1e39, 01, 1.]}");
    warp_input("bad_history", all, 0, NULL,
               "{\"history\": [0, 2.5], \"logits\": [0, 0]}");
    warp_input("empty", none, 0, NULL, "");
}

static void generate_seeds(void) {
    /* transformer: heads, hidden/layers, seq_len/unshared, scale; 64
     * weight bytes; 12 scores; then ops */
    bb_bytes b = {0};
    uint8_t head[5] = {0, 3, 7, 9, 1};
    bb_put(&b, head, 5);
    for (int i = 0; i < 64; i++) {
        uint8_t w = (uint8_t)(i * 37 + 11);
        bb_put(&b, &w, 1);
    }
    for (int i = 0; i < 12; i++) {
        uint8_t s = (uint8_t)(128 + 16 * (i % 5));
        bb_put(&b, &s, 1);
    }
    static const uint8_t ops[] = {
        16, 'a', 'b', 1, 2, 3, 4, 5, 6, 7, 8, /* start "ab" */
        1, 0, 2, 3, 3, 5, 9, 33, 7, 4, 4, 5, 10, 6 + 8, 14, 2, 1, 4,
        5, 8, 9, 1, 48, 'c', 'a', 'b', 0, 0, 0, 0, 0, 0, 0, 1, 1, 9, 6, 1,
        11, 5, 255, 2, 7};
    bb_put(&b, ops, sizeof ops);
    save_b("fuzz_generate", "transformer", &b);
    b.data[0] = 2;
    b.data[3] = 0x13; /* unshared classifier, seq_len 8 */
    b.data[4] = 6;    /* weights x 1e19: the forward overflows */
    save_b("fuzz_generate", "transformer_overflow", &b);
    bb_free(&b);
    uint8_t bigram[1 + 36 + 30];
    bigram[0] = 1;
    bigram[1] = 4 | 2 << 4; /* vocab 6, boundary 2 */
    for (int i = 0; i < 36; i++) bigram[2 + i] = (uint8_t)(i * 29);
    static const uint8_t bops[] = {24, 'a', 0xc3, 0xa9, 1, 2, 3, 4, 5, 6, 7,
                                   8, 1, 3, 2, 5, 6, 3, 4, 3, 7, 6, 5, 12,
                                   9, 2, 2, 2, 2};
    memcpy(bigram + 37, bops, 29);
    save("fuzz_generate", "bigram", bigram, 37 + 29);
}

static void oom_seeds(void) {
    static const uint8_t model[4] = {3, 0, 0, 0};
    save("fuzz_oom", "model_tiny", model, 3);
    static const uint8_t bigram[4] = {2, 0, 0, 1};
    save("fuzz_oom", "model_bigram", bigram, 4);
    static const uint8_t tok[3] = {4, 0, 1};
    save("fuzz_oom", "tokenizer", tok, 3);
    static const uint8_t session[6] = {9, 0, 2, 'a', 'b', 'c'};
    save("fuzz_oom", "session", session, 6);
    static const char warp[] = "\x05\0\x03{\"logits\": [1, 2, 3], "
                               "\"history\": [0]}";
    save("fuzz_oom", "warp", warp, sizeof warp - 1);
}

/* fuzz_gguf_tokenizer: [flags][text length][text][type byte, piece, 0]... */
static void gguf_tokenizer_input(const char *name, int flags, const char *text,
                                 const char *const *pieces, const int *types,
                                 int n) {
    bb_bytes b = {0};
    uint8_t head[3] = {(uint8_t)flags, (uint8_t)(strlen(text) & 255),
                       (uint8_t)(strlen(text) >> 8)};
    bb_put(&b, head, 3);
    bb_put(&b, text, strlen(text));
    for (int i = 0; i < n; i++) {
        uint8_t type = (uint8_t)types[i];
        bb_put(&b, &type, 1);
        bb_put(&b, pieces[i], strlen(pieces[i]) + 1);
    }
    save_b("fuzz_gguf_tokenizer", name, &b);
    bb_free(&b);
}

static void gguf_tokenizer_seeds(void) {
    /* SentencePiece, with BOS */
    static const char *const spm[] = {"\xe2\x96\x81Hello", "\xe2\x96\x81world",
                                      "<s>", "ll", "He", "\xe2\x96\x81w"};
    static const int spm_types[] = {1, 1, 3, 1, 1, 1};
    gguf_tokenizer_input("spm_bos", 8, "Hello world, na\xc3\xafve \xf0\x9f\x98\x80\n<s>x",
                         spm, spm_types, 6);
    gguf_tokenizer_input("spm_gguf_no_prefix", 8 | 32 | 64, " a\xc3( b",
                         spm, spm_types, 6);
    /* byte-level BPE pieces, spelled as GPT-2 does ("\xc4\xa0" is a space) */
    static const char *const bpe[] = {"he", "ll", "llo", "hello", "\xc4\xa0w",
                                      "\xc4\xa0world", "<|im_start|>", "'s",
                                      "12", "123"};
    static const int bpe_types[] = {1, 1, 1, 1, 1, 1, 3, 1, 1, 1};
    gguf_tokenizer_input("bpe_gpt2", 1, "hello world's 123  x\n\n",
                         bpe, bpe_types, 10);
    gguf_tokenizer_input("bpe_llama3_specials", 1 | 2 | 8,
                         "<|im_start|>hello I'M 12345\r\n\xff", bpe, bpe_types, 10);
    gguf_tokenizer_input("bpe_qwen2_gguf", 1 | 4 | 64, "hello 2024 \xe4\xb8\xad",
                         bpe, bpe_types, 10);
    gguf_tokenizer_input("bpe_smollm_eos", 1 | 6 | 16, "a 123b hello",
                         bpe, bpe_types, 10);
}

/* fuzz_gguf: a small model (gg_model_write's layout) with its matrices of
 * `type` but ffn_down of down_type (the only matrix whose rows, `hidden`
 * long, can hold the K types' 256-weight blocks in a model this small) */
static void gguf_small(bb_bytes *out, const char *arch, uint32_t type,
                       uint32_t down_type, int hidden, int tied, int version) {
    gg_model m = gg_tiny_model(arch, type);
    m.dim = 32, m.hidden = hidden, m.layers = 1, m.heads = 2, m.kv_heads = 1;
    m.vocab = 20, m.ctx = 8, m.tied = tied;
    gg_file f;
    gg_init(&f);
    gg_model_metadata(&f, &m);
    int kv = m.dim / m.heads * m.kv_heads;
    uint32_t sd = m.seed;
    gg_random_tensor(&f, "token_embd.weight", type, m.vocab, m.dim, sd, 1, m.scale * 4, 0);
    gg_random_tensor(&f, "output_norm.weight", GG_F32, 1, m.dim, sd, 2, 0.2f, 1);
    if (!tied) gg_random_tensor(&f, "output.weight", type, m.vocab, m.dim, sd, 3, m.scale, 0);
    gg_random_tensor(&f, "blk.0.attn_norm.weight", GG_F32, 1, m.dim, sd, 4, 0.2f, 1);
    gg_random_tensor(&f, "blk.0.attn_q.weight", type, m.dim, m.dim, sd, 5, m.scale, 0);
    gg_random_tensor(&f, "blk.0.attn_k.weight", type, kv, m.dim, sd, 6, m.scale, 0);
    gg_random_tensor(&f, "blk.0.attn_v.weight", type, kv, m.dim, sd, 7, m.scale, 0);
    gg_random_tensor(&f, "blk.0.attn_output.weight", type, m.dim, m.dim, sd, 8, m.scale, 0);
    gg_random_tensor(&f, "blk.0.ffn_norm.weight", GG_F32, 1, m.dim, sd, 9, 0.2f, 1);
    gg_random_tensor(&f, "blk.0.ffn_gate.weight", type, hidden, m.dim, sd, 10, m.scale, 0);
    gg_random_tensor(&f, "blk.0.ffn_up.weight", type, hidden, m.dim, sd, 11, m.scale, 0);
    gg_random_tensor(&f, "blk.0.ffn_down.weight", down_type, m.dim, hidden, sd, 12, m.scale, 0);
    if (!strcmp(arch, "qwen2")) {
        gg_random_tensor(&f, "blk.0.attn_q.bias", GG_F32, 1, m.dim, sd, 13, 0.5f, 0);
        gg_random_tensor(&f, "blk.0.attn_k.bias", GG_F32, 1, kv, sd, 14, 0.5f, 0);
        gg_random_tensor(&f, "blk.0.attn_v.bias", GG_F32, 1, kv, sd, 15, 0.5f, 0);
    }
    gg_finish(&f, (uint32_t)version, out);
    gg_free(&f);
}

static void gguf_seeds(void) {
    static const struct {
        const char *name, *arch;
        uint32_t type, down_type;
        int hidden, tied, version;
    } seeds[] = {
        {"f32.gguf", "llama", GG_F32, GG_F32, 32, 0, 3},
        {"f16_tied_v2.gguf", "llama", GG_F16, GG_F16, 32, 1, 2},
        {"bf16.gguf", "llama", GG_BF16, GG_BF16, 32, 1, 3},
        {"q8_0.gguf", "llama", GG_Q8_0, GG_Q8_0, 64, 1, 3},
        {"q4_0_qwen2.gguf", "qwen2", GG_Q4_0, GG_Q4_0, 64, 0, 3},
        {"q4_k_down.gguf", "llama", GG_Q8_0, GG_Q4_K, 256, 1, 3},
        {"q6_k_down.gguf", "llama", GG_Q4_0, GG_Q6_K, 256, 1, 3},
    };
    bb_bytes b = {0};
    for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++) {
        gguf_small(&b, seeds[i].arch, seeds[i].type, seeds[i].down_type,
                   seeds[i].hidden, seeds[i].tied, seeds[i].version);
        save_b("fuzz_gguf", seeds[i].name, &b);
        if (i == 3) { /* broken files, from the Q8_0 one */
            bb_bytes t = {0};
            bb_put(&t, b.data, b.len - 40); /* the last tensor cut short */
            save_b("fuzz_gguf", "bad_truncated.gguf", &t);
            bb_free(&t);
            bb_put(&t, b.data, b.len);
            t.data[4] = 4; /* version 4 */
            save_b("fuzz_gguf", "bad_version.gguf", &t);
            memcpy(t.data, b.data, b.len);
            memset(t.data + 8, 0xff, 8); /* 2^64 - 1 tensors */
            save_b("fuzz_gguf", "bad_tensor_count.gguf", &t);
            memcpy(t.data, b.data, b.len);
            /* the first scale of ffn_down's last row (two blocks of 34
             * bytes; the file ends with it): inf */
            t.data[b.len - 68] = 0x00;
            t.data[b.len - 67] = 0x7c;
            save_b("fuzz_gguf", "bad_inf_scale.gguf", &t);
            bb_free(&t);
        }
        bb_free(&b);
    }
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: make_corpus DIR\n");
        return 2;
    }
    out_dir = argv[1];
    mkdir(out_dir, 0755);
    bigram_seeds();
    checkpoint_seeds();
    tokenizer_seeds();
    gguf_tokenizer_seeds();
    gguf_seeds();
    warp_seeds();
    generate_seeds();
    oom_seeds();
    return 0;
}
