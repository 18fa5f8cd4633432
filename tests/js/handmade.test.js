// The hand-made model, edits and the bigram trainer through the WASM
// engine (both builds), the CLI in WASM and natively, and the Worker host:
// the lessons' worked examples to their printed digits, the trainer's bytes
// = models/bigram.bin, edits replayed the same everywhere.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';

import { loadEngineNode } from '../../web/src/engine/node.js';
import { inProcessClient } from '../helpers/engine.js';
import { need, skipWithout } from '../e2e/fixtures.js';
import { MODELS_DIR as MODELS, runNative, runWasm } from './helpers.js';

const NAMES = '/usr/share/dict/propernames.gz';
const haveNames = fs.existsSync(NAMES);
// an optional package (build.sh installs it when it can): its absence skips, saying so, even under CI
const NAMES_MISSING = `${NAMES} is missing (sudo apt-get install miscfiles): the bigram's training list`;
/** outside CI the trainer's tests skip without it (and say so); under CI=true they fail */
const skipWithoutNames = skipWithout(haveNames, NAMES_MISSING);

/** the first step's summary of a hand-made model under params, through the host */
async function firstStep(client, spec, params = {}) {
  await client.request('loadModel', { model: 'h', handmade: spec });
  await client.request('openSession', { session: 's', model: 'h' });
  const a = await client.request('start', { session: 's', prompt: '', seed: 1, params: { ...params } });
  return a.next;
}

/** a summary's final probability of token id */
const finalOf = (step, id) => step.final[Array.from(step.ids).indexOf(id)];

describe('the hand-made model', () => {
  for (const flavor of ['simd', 'scalar']) {
    it(`gives the lessons' worked examples to their printed digits (${flavor})`, async () => {
      const e = await loadEngineNode(flavor);
      const m = e.handmadeModel('logits:2,1,0');
      expect(m.kind).toBe('handmade');
      expect(m.vocab).toBe(3);
      expect(m.tokenizer?.piece(2)).toBe('c');
      const s = e.createSession(m, null);
      s.start('', 1);
      const t1 = s.preview({ temperature: 1 });
      expect(Array.from(t1.probs, (p) => p.toFixed(3))).toEqual(['0.665', '0.245', '0.090']);
      const t05 = s.preview({ temperature: 0.5 });
      expect(Array.from(t05.probs, (p) => p.toFixed(3))).toEqual(['0.867', '0.117', '0.016']);
      s.free();
      const tail = e.handmadeModel('probs:0.50,0.20,0.15,0.08,0.05,0.02');
      const s2 = e.createSession(tail, null);
      s2.start('', 1);
      const r = s2.preview({ top_p: 0.9 });
      expect(r.nKept).toBe(4);
      expect(r.keptMass.toFixed(2)).toBe('0.93');
      s2.free();
      tail.free();
      m.free();
    });
  }

  it('refuses a bad spec with the engine\'s message', async () => {
    const e = await loadEngineNode('simd');
    expect(() => e.handmadeModel('logits:2,x')).toThrow(/entry 2 \("x"\) is not a number/);
    expect(() => e.handmadeModel('2,1')).toThrow(/starts with "logits:"/);
  });

  it('generates the same text natively and in both WASM builds', async () => {
    const args = ['generate', '--model', 'logits:yes=2,no=1,maybe=0', '--steps', '30', '--seed', '9', '--repetition-penalty', '1.5'];
    const native = runNative(args);
    expect(native.status).toBe(0);
    expect(native.stdout.toString()).toMatch(/^(yes|no|maybe){30}\n$/);
    for (const flavor of ['simd', 'scalar']) {
      const w = await runWasm(flavor, args);
      expect(w.stdout.toString()).toBe(native.stdout.toString());
    }
  });

  it('takes edits by probability: the dragged token gets p, the others keep their logits', async () => {
    const client = inProcessClient();
    await client.request('loadModel', { model: 'h', handmade: 'logits:2,1,0', edits: [[0, 2, 0.5]] });
    const row = await client.request('modelRow', { model: 'h', row: 0 });
    expect(row.pieces).toEqual(['a', 'b', 'c']);
    expect(row.logits.slice(0, 2)).toEqual([2, 1]);
    expect(row.logits[2]).toBeCloseTo(Math.log(Math.exp(2) + Math.exp(1)), 5);
    const step = await firstStep(client, 'logits:2,1,0', {});
    // a fresh load without edits: the edit is gone
    expect(finalOf(step, 2).toFixed(3)).toBe('0.090');
    await client.request('loadModel', { model: 'h', handmade: 'logits:2,1,0', edits: [[0, 2, 0.5]] });
    await client.request('openSession', { session: 's', model: 'h' });
    const a = await client.request('start', { session: 's', prompt: '', seed: 1, params: {} });
    expect(finalOf(a.next, 2)).toBeCloseTo(0.5, 6);
    expect(finalOf(a.next, 0) / finalOf(a.next, 1)).toBeCloseTo(Math.E, 4);
    await expect(client.request('loadModel', { model: 'h2', handmade: 'logits:2,1,0', edits: [[0, 2, 1]] })).rejects.toThrow(/p must be in \(0, 1\)/);
  });

  it('edits a row of a copy of the bigram, other rows and the shipped model untouched', async () => {
    const client = inProcessClient();
    await client.request('loadModel', { model: 'bigram', builtin: 'bigram' });
    await client.request('loadModel', { model: 'edited', builtin: 'bigram', edits: [[0, 5, 0.3]] });
    const plain = await client.request('modelRow', { model: 'bigram', row: 0 });
    const edited = await client.request('modelRow', { model: 'edited', row: 0 });
    const other = await client.request('modelRow', { model: 'edited', row: 3 });
    const plain3 = await client.request('modelRow', { model: 'bigram', row: 3 });
    expect(other.logits).toEqual(plain3.logits);
    expect(edited.logits[5]).not.toBe(plain.logits[5]);
    expect(edited.logits.filter((x, i) => i !== 5)).toEqual(plain.logits.filter((x, i) => i !== 5));
    await client.request('openSession', { session: 's', model: 'edited' });
    const a = await client.request('start', { session: 's', prompt: '', seed: 1, params: {} });
    expect(finalOf(a.next, 5)).toBeCloseTo(0.3, 6);
  });
});

describe('the bigram trainer', () => {
  it.skipIf(skipWithoutNames)('makes models/bigram.bin again from the names list, byte for byte (both builds, any chunk size)', async () => {
    need(haveNames, NAMES_MISSING);
    const names = zlib.gunzipSync(fs.readFileSync(NAMES));
    const want = fs.readFileSync(path.join(MODELS, 'bigram.bin'));
    for (const flavor of ['simd', 'scalar']) {
      const e = await loadEngineNode(flavor);
      /** @type {number[]} */
      const seen = [];
      const got = e.trainBigram(new Uint8Array(names), { chunk: 1000, onProgress: (done) => seen.push(done) });
      expect(Buffer.from(got).equals(want)).toBe(true);
      expect(seen.length).toBe(Math.ceil(names.length / 1000));
      expect(seen.at(-1)).toBe(names.length);
    }
  });

  it.skipIf(skipWithoutNames)('train-bigram writes the same bytes natively and in WASM', async () => {
    need(haveNames, NAMES_MISSING);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'train-'));
    const text = path.join(dir, 'names.txt');
    fs.writeFileSync(text, zlib.gunzipSync(fs.readFileSync(NAMES)));
    const want = fs.readFileSync(path.join(MODELS, 'bigram.bin'));
    const native = runNative(['train-bigram', '--text', text, '-o', path.join(dir, 'n.bin')]);
    expect(native.status).toBe(0);
    expect(native.stderr).toMatch(/vocab 54 .*11788 bytes/);
    expect(fs.readFileSync(path.join(dir, 'n.bin')).equals(want)).toBe(true);
    const w = await runWasm('simd', ['train-bigram', '--text', text, '-o', path.join(dir, 'w.bin')]);
    expect(w.status).toBe(0);
    expect(fs.readFileSync(path.join(dir, 'w.bin')).equals(want)).toBe(true);
    fs.rmSync(dir, { recursive: true });
  });

  it('says clearly what is wrong with a text', async () => {
    const e = await loadEngineNode('simd');
    const enc = new TextEncoder();
    expect(() => e.trainBigram(enc.encode(' \n\n'))).toThrow(/the text is empty/);
    expect(() => e.trainBigram(new Uint8Array([0x41, 0, 0x42]))).toThrow(/NUL byte at offset 1: this is a binary file/);
    expect(() => e.trainBigram(new Uint8Array([0x41, 0xfe]))).toThrow(/not UTF-8 \(byte 0xfe at offset 1\)/);
    const big = new Uint8Array(100 << 20).fill(0x61);
    expect(() => e.trainBigram(big)).toThrow(/larger than 64 MiB/);
    const r = runNative(['train-bigram', '--text', '/nonexistent.txt', '-o', '/tmp/x.bin']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/nonexistent\.txt/);
  });

  it('trains in the Worker on pasted text, and a session samples from it at once', async () => {
    const client = inProcessClient();
    const text = new TextEncoder().encode('banana\nbandana\ncabana\n');
    const info = await client.request('loadModel', { model: 'text', text });
    expect(info.kind).toBe('bigram');
    expect(info.trained).toEqual({ bytes: text.length, chars: 5 });
    await client.request('openSession', { session: 's', model: 'text' });
    const a = await client.request('start', { session: 's', prompt: '', seed: 3, params: {}, steps: 40 });
    const generated = a.steps.map((s) => s.piece).join('');
    expect(generated).toMatch(/^[abcdn\n]+$/);
  });

  it('counts the KV cost of a text of n tokens without running it', async () => {
    const e = await loadEngineNode('simd');
    const m = e.loadModel(new Uint8Array(fs.readFileSync(path.join(MODELS, 'transformer.bin'))));
    const tok = e.loadTokenizer(new Uint8Array(fs.readFileSync(path.join(MODELS, 'transformer_tokenizer.bin'))));
    const s = e.createSession(m, tok);
    s.start('And God said', 1);
    for (let i = 0; i < 20; i++) s.step({});
    const ran = s.counters();
    const counted = m.cost(ran.tokens); // the prompt's positions and 20 more
    const { passes, ...work } = ran;
    expect(counted).toEqual(work);
    expect(passes).toBe(1 + 20); // the prompt in one batched pass, then a pass a token
    expect(m.cost(256).flopsNoCache / m.cost(256).flops).toBeGreaterThan(m.cost(64).flopsNoCache / m.cost(64).flops);
    expect(() => m.cost(100000)).toThrow(/outside 0\.\./);
    s.free();
  });
});
