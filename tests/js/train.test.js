// The trainer: `sampler train` writes the same checkpoint, tokenizer and
// GGUF bytes and prints the same lines natively, in WASM SIMD and in scalar
// WASM (several shapes and seeds); the training engine's API
// (web/src/engine/trainer.js) makes those very bytes however its steps are
// sliced, says its plan and refuses bad input with the engine's errors; and
// the model it makes is a model like any other (sampled in the training
// engine, loaded from its files by the page's engine).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { loadEngineNode, loadTrainEngineNode } from '../../web/src/engine/node.js';
import { createTrainer, planTraining, trainPresets, trainSettings } from '../../web/src/engine/trainer.js';
import { runNative, runWasm } from './helpers.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'train-test-'));

// Genesis 1:1-8, one verse a line, twice (16 lines: the 10th held out)
const VERSES = [
  'In the beginning God created the heaven and the earth.',
  'And the earth was without form, and void; and darkness was upon the face of the deep.',
  'And the Spirit of God moved upon the face of the waters.',
  'And God said, Let there be light: and there was light.',
  'And God saw the light, that it was good: and God divided the light from the darkness.',
  'And God called the light Day, and the darkness he called Night.',
  'And the evening and the morning were the first day.',
  'And God said, Let there be a firmament in the midst of the waters.',
];
const TEXT = [...VERSES, ...VERSES.map((v) => v.toUpperCase())].join('\n') + '\n';
const TEXT_FILE = path.join(dir, 'genesis.txt');
fs.writeFileSync(TEXT_FILE, TEXT);

// shapes: the defaults made small, GQA and a classifier of its own, one
// of odd widths (tails in every product), and a given tokenizer
const SHAPES = [
  { name: 'tiny-tied', seed: '7', args: ['--dim', '32', '--hidden', '48', '--context', '24', '--batch', '3', '--steps', '6'] },
  { name: 'gqa-untied', seed: '18446744073709551615', args: ['--dim', '48', '--hidden', '80', '--layers', '2', '--heads', '6', '--kv-heads', '2', '--tied', '0', '--context', '20', '--batch', '2', '--steps', '5', '--warmup', '2'] },
  { name: 'odd-widths', seed: '3', args: ['--dim', '20', '--hidden', '36', '--heads', '5', '--kv-heads', '1', '--context', '17', '--batch', '3', '--steps', '4'] },
  { name: 'shipped-tokenizer', seed: '11', args: ['--dim', '32', '--hidden', '40', '--context', '16', '--batch', '2', '--steps', '4', '--tokenizer', 'models/transformer_tokenizer.bin'] },
];

const files = (prefix) => ['.bin', '.tokenizer.bin', '.gguf'].map((ext) => fs.readFileSync(prefix + ext));

describe('sampler train is byte-identical in every build', () => {
  it.each(SHAPES.map((s) => [s.name, s]))('%s', async (_, shape) => {
    const run = async (how) => {
      const prefix = path.join(dir, `${shape.name}-${how}`);
      const args = ['train', '--text', TEXT_FILE, '--seed', shape.seed, ...shape.args, '--log-every', '1', '-o', prefix, '--gguf', `${prefix}.gguf`];
      const r = how === 'native' ? runNative(args) : await runWasm(how, args);
      expect(r.stderr).toMatch(/^train: wrote /);
      expect(r.status).toBe(0);
      return { stdout: r.stdout.toString(), files: files(prefix) };
    };
    const native = await run('native');
    for (const flavor of ['simd', 'scalar']) {
      const wasm = await run(flavor);
      expect(wasm.stdout).toBe(native.stdout);
      wasm.files.forEach((bytes, i) => expect(bytes.equals(native.files[i])).toBe(true));
    }
    const lines = native.stdout.trim().split('\n').map((l) => JSON.parse(l));
    // the plan, each step, the end; step 1's loss about ln V
    expect(lines[1].step).toBe(1);
    expect(Math.abs(lines[1].loss - Math.log(lines[0].vocab))).toBeLessThan(0.1);
    expect(lines.at(-1)).toHaveProperty('heldout_loss');
  });

  it('refuses bad input alike, and writes nothing: a good model at the prefix is kept', async () => {
    const empty = path.join(dir, 'empty.txt');
    fs.writeFileSync(empty, '\n \n');
    const binary = path.join(dir, 'binary.txt');
    fs.writeFileSync(binary, Buffer.from([0x41, 0x00, 0x42, 0x0a]));
    const cases = [
      [['--text', empty], 2, 'the text is empty'],
      [['--text', binary], 1, 'NUL byte at offset 1'],
      [['--text', TEXT_FILE, '--heads', '3'], 2, 'heads (3) must divide dim (64)'],
      [['--text', TEXT_FILE, '--dim', '2000'], 2, '--dim: dim must be a whole number in 8..1024'],
      [['--text', TEXT_FILE, '--lr', '1', '--clip', '0', '--warmup', '0', '--context', '16', '--batch', '4', '--steps', '30'], 1, 'training diverged'],
    ];
    // a model trained before at the prefix: no refusal or stop may touch it
    const prefix = path.join(dir, 'refused');
    const good = files(path.join(dir, 'tiny-tied-native')).slice(0, 2);
    fs.writeFileSync(`${prefix}.bin`, good[0]);
    fs.writeFileSync(`${prefix}.tokenizer.bin`, good[1]);
    for (const [args, status, message] of cases) {
      const all = ['train', ...args, '-o', prefix];
      const native = runNative(all);
      expect(native.status).toBe(status);
      expect(native.stderr).toContain(message);
      for (const flavor of ['simd', 'scalar']) {
        const wasm = await runWasm(flavor, all);
        expect(wasm.status).toBe(status);
        expect(wasm.stderr).toBe(native.stderr);
      }
      expect(fs.readFileSync(`${prefix}.bin`).equals(good[0])).toBe(true);
      expect(fs.readFileSync(`${prefix}.tokenizer.bin`).equals(good[1])).toBe(true);
      expect(fs.readdirSync(dir).filter((f) => f.startsWith('refused') && !/^refused\.(tokenizer\.)?bin$/.test(f))).toEqual([]);
    }
  });
});

describe('the training engine (trainer.js)', () => {
  const settings = { dim: 32, hidden: 48, context: 24, batch: 3, steps: 6 };

  it.each([['simd'], ['scalar']])('%s: slices make the CLI\'s bytes; plan, evaluation, snapshot, exports', async (flavor) => {
    const engine = await loadTrainEngineNode(flavor);
    expect(trainSettings(engine).map((s) => s.name)).toContain('kv-heads');
    expect(trainPresets(engine).map((p) => p.name)).toEqual(['tiny', 'small', 'shipped']);
    const plan = planTraining(engine, TEXT, { settings });
    expect(plan.vocab).toBe(99);
    expect(plan.documents).toBe(16);
    expect(plan.heldoutDocuments).toBe(1);
    expect(plan.tokensPerStep).toBe(72);
    const trainer = createTrainer(engine, TEXT, { settings, seed: 7 });
    expect(trainer.plan).toEqual(plan);
    expect(trainer.settings.dim).toBe(32);
    // slices of 2 windows (3 a step): the weights of 6 whole steps
    let done = 0;
    while (!trainer.finished) done += trainer.run({ steps: 10, windows: 2 });
    expect(done).toBe(6);
    expect(trainer.run({ steps: 1 })).toBe(0);
    const cli = files(path.join(dir, 'tiny-tied-native'));
    expect(Buffer.from(trainer.export('bin')).equals(cli[0])).toBe(true);
    expect(Buffer.from(trainer.export('tokenizer')).equals(cli[1])).toBe(true);
    expect(Buffer.from(trainer.export('gguf')).equals(cli[2])).toBe(true);
    const losses = trainer.losses();
    expect(losses).toHaveLength(6);
    expect(trainer.gradNorms()).toHaveLength(6);
    const { loss, bigram } = trainer.evaluate({ windows: 0 });
    expect(Number.isFinite(loss) && Number.isFinite(bigram)).toBe(true);
    // the snapshot samples as any model does
    const { model, tokenizer } = trainer.snapshot();
    expect(model.kind).toBe('transformer');
    expect(model.seqLen).toBe(24);
    const session = engine.createSession(model, tokenizer);
    session.start('And God', 5);
    const { count } = session.generate({ temperature: 0.8 }, 10);
    expect(count).toBeGreaterThan(0);
    session.free();
    model.free();
    tokenizer.free();
    trainer.free();
  });

  it('the page\'s engine loads what it exports; it has no trainer itself', async () => {
    const page = await loadEngineNode('simd');
    expect(() => createTrainer(page, TEXT)).toThrow(/no trainer: load build\/engine-train/);
    const [bin, tok, gguf] = files(path.join(dir, 'gqa-untied-native'));
    const a = page.loadModel(new Uint8Array(bin));
    const b = page.loadModel(new Uint8Array(gguf));
    expect(a.vocab).toBe(99);
    expect(b.vocab).toBe(99);
    expect(page.loadTokenizer(new Uint8Array(tok)).vocab).toBe(99);
  });

  it('refuses with the engine\'s errors', async () => {
    const engine = await loadTrainEngineNode('simd');
    expect(() => planTraining(engine, '')).toThrow(RangeError);
    expect(() => planTraining(engine, new Uint8Array([0x41, 0, 0x0a]))).toThrow(/NUL byte/);
    expect(() => planTraining(engine, TEXT, { settings: { 'kv-heads': 3 } })).toThrow(/kv-heads \(3\) must divide heads/);
    expect(() => planTraining(engine, TEXT, { settings: { depth: 3 } })).toThrow(/no setting named 'depth'/);
    expect(() => planTraining(engine, TEXT, { preset: 'huge' })).toThrow(/no preset named 'huge'/);
    let err;
    try {
      planTraining(engine, TEXT, { settings: { dim: 1024, hidden: 4096, layers: 32, heads: 16, 'kv-heads': 16, context: 4 } });
    } catch (e) {
      err = e;
    }
    expect(err?.reason).toBe('nomem');
    expect(err?.message).toMatch(/more than the trainer's 1024 MiB/);
    const t = createTrainer(engine, TEXT, { settings: { lr: 1, clip: 0, warmup: 0, context: 16, batch: 4, steps: 30 } });
    expect(() => { while (!t.finished) t.run({ steps: 1 }); }).toThrow(/training diverged/);
    expect(() => t.run()).toThrow(/training diverged/);
    expect(t.losses().length).toBe(t.stepsDone);
    t.free();
  });
});
