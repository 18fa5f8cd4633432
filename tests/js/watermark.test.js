// The watermark (Kirchenbauer et al. 2023): byte identity of the watermarked
// text and of `sampler detect` in every build, the typed wrapper's
// detection (web/src/engine/watermark.js) against the CLI's, the step
// record's green field against the detector, and the golden settings
// unchanged with the stage off.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { watermarkDetect, watermarkDetectText } from '../../web/src/engine/watermark.js';
import { engine, needTransformer, runNative, sameEverywhere, skipWithoutTransformer } from './helpers.js';


const WATERMARK = ['--watermark-gamma', '0.25', '--watermark-delta', '2', '--watermark-key', '15485863'];

/** a text file (the WASM CLI reads files through the host too) */
function textFile(name, text) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-'));
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

describe('watermarked text and detection are byte-identical in every build', () => {
  it('bigram: 200 characters watermarked, detected with the key (z > 4) and without the watermark (|z| < 3)', async () => {
    for (const seed of ['1', '42']) {
      const wm = await sameEverywhere(['generate', '--model', 'bigram', '--steps', '200', '--seed', seed, ...WATERMARK]);
      expect(wm.status).toBe(0);
      const plain = await sameEverywhere(['generate', '--model', 'bigram', '--steps', '200', '--seed', seed]);
      expect(wm.stdout.equals(plain.stdout)).toBe(false); // the bias changed the text
      const a = await sameEverywhere(['detect', '--model', 'bigram', '--text', textFile('wm.txt', wm.stdout)]);
      const b = await sameEverywhere(['detect', '--model', 'bigram', '--text', textFile('plain.txt', plain.stdout)]);
      const za = JSON.parse(a.stdout.toString()), zb = JSON.parse(b.stdout.toString());
      expect(za.tokens).toBeGreaterThanOrEqual(200);
      expect(za.z).toBeGreaterThan(4);
      expect(Math.abs(zb.z)).toBeLessThan(3);
      expect(za.per_token[0]).toBe(null); // the begin token is context
      expect(za.per_token.filter((x) => x === 1)).toHaveLength(za.green);
      // a wrong key finds nothing
      const c = await sameEverywhere(['detect', '--model', 'bigram', '--watermark-key', '7', '--text', textFile('wm.txt', wm.stdout)]);
      expect(Math.abs(JSON.parse(c.stdout.toString()).z)).toBeLessThan(3);
    }
    // the step records carry the drawn token's colour
    const json = await sameEverywhere(['generate', '--model', 'bigram', '--steps', '20', '--seed', '3', '--json', ...WATERMARK]);
    const lines = json.stdout.toString().trim().split('\n').map((l) => JSON.parse(l)).filter((l) => 'green' in l);
    expect(lines.length).toBe(20);
    for (const l of lines) {
      expect([0, 1]).toContain(l.green);
      expect(l.green_mass).toBeGreaterThanOrEqual(0);
      expect(l.spike_entropy).toBeGreaterThan(0);
    }
  });

  it.skipIf(skipWithoutTransformer)('the shipped transformer, detected with its prompt as context', async () => {
    needTransformer();
    const gen = ['generate', '--model', 'transformer', '--prompt', 'And God', '--steps', '60', '--seed', '5', '--temperature', '1.2'];
    const wm = await sameEverywhere([...gen, ...WATERMARK]);
    expect(wm.status).toBe(0);
    // the CLI prints the prompt and the text: detect the text after the prompt
    const text = wm.stdout.toString().replace(/\n$/, '').slice('And God'.length);
    const r = await sameEverywhere(['detect', '--model', 'transformer', '--prompt', 'And God', '--text', textFile('t.txt', text)]);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout.toString()).tokens).toBeGreaterThan(10);
  });

  it('errors name what is wrong, the same everywhere', async () => {
    const file = textFile('x.txt', 'Anna\n');
    const delta = await sameEverywhere(['detect', '--model', 'bigram', '--watermark-delta', '2', '--text', file]);
    expect(delta.status).toBe(2);
    expect(delta.stderr).toContain('--watermark-delta is the generator\'s');
    const gamma = await sameEverywhere(['detect', '--model', 'bigram', '--watermark-gamma', '1', '--text', file]);
    expect(gamma.status).toBe(2);
    expect(gamma.stderr).toContain('watermark-gamma must be in (0, 1) (got 1)');
    const missing = await sameEverywhere(['detect', '--model', 'bigram']);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('detect: --model and --text FILE are required');
  });
});

describe.each(['simd', 'scalar'])('the typed wrapper (%s)', (flavor) => {
  it('detects as the CLI does, and the session\'s step records agree with the detector', async () => {
    const e = await engine(flavor);
    const model = e.loadModel(fs.readFileSync(path.join(import.meta.dirname, '../../models/bigram.bin')));
    const s = e.createSession(model);
    s.start('', 11);
    const params = { watermark_delta: 2 };
    const greens = [];
    for (let i = 0; i < 120; i++) greens.push(s.step(params).watermarkGreen);
    const r = watermarkDetect(e, s.tokens, { vocab: s.vocab, first: s.nPrompt });
    expect(r.tokens).toBe(120);
    expect(Array.from(r.perToken.slice(s.nPrompt))).toEqual(greens);
    expect(r.green).toBe(greens.filter((g) => g === 1).length);
    expect(r.z).toBeCloseTo((r.green - 0.25 * 120) / Math.sqrt(120 * 0.25 * 0.75), 12);
    expect(r.running[r.running.length - 1]).toBe(r.z);
    expect(Number.isNaN(r.running[0])).toBe(true);
    expect(r.z).toBeGreaterThan(4);
    // the text as the CLI reads it
    const text = Array.from(s.tokens.slice(s.nPrompt)).map((t, i, a) => new TextDecoder().decode(s.tokenizer.decodeBytes(i ? a[i - 1] : s.tokens[s.nPrompt - 1], t))).join('');
    const cli = JSON.parse(runNative(['detect', '--model', 'bigram', '--text', textFile('w.txt', text)]).stdout.toString());
    const js = watermarkDetectText(e, s.tokenizer, text, { vocab: s.vocab });
    expect(js.z).toBeCloseTo(cli.z, 7); // the CLI prints 9 digits
    expect(js.green).toBe(cli.green);
    expect(js.pValue).toBeCloseTo(cli.p_value, 8);
    // off: no colour, no numbers
    const off = s.step({});
    expect(off.watermarkGreen).toBe(-1);
    expect(off.green).toBe(null);
    expect(Number.isNaN(off.greenMass)).toBe(true);
    expect(() => watermarkDetect(e, [0, 1], { vocab: s.vocab, gamma: 1.5 })).toThrow(RangeError);
    s.free();
    model.free();
  });
});
