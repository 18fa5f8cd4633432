// The Worker's host, for issue 8 and the robustness work, over the real
// engine: models fetched from a URL (with progress, and calm messages when
// they cannot be), progress for a shipped model, and a model whose output
// is not finite (a calm stop with the engine's message, the text kept).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { loadEngineNode } from '../engine/node.js';
import { MODELS } from '../../../tests/e2e/fixtures.js';
import { checkpoint, edit, floatAt, TINY, tokenizer } from '../../../tests/js/hostile_files.js';
import { EngineHost } from './host.js';

const bigramPath = path.join(MODELS, 'bigram.bin');
const files = new Map([
  ['https://x.example/tiny.bin', checkpoint(TINY)],
  ['https://x.example/tok.bin', tokenizer()],
]);

function makeHost() {
  return new EngineHost(loadEngineNode('simd'), {
    builtins: { bigram: { name: 'Bigram names', url: bigramPath, missing: 'no bigram' } },
    fetchBytes: async (url, onProgress) => {
      const bytes = new Uint8Array(fs.readFileSync(url));
      onProgress?.(0, bytes.length);
      onProgress?.(bytes.length, bytes.length);
      return bytes;
    },
    fetchUrl: async (url, onProgress) => {
      const bytes = files.get(url);
      if (!bytes) throw new Error(`${url.replace(/.*\//, '')} could not be fetched (HTTP 404)`);
      onProgress?.(bytes.length, bytes.length);
      return bytes;
    },
  });
}

/** the tiny model with its own classifier: token 5 takes all the probability, then its logit is +inf */
function infiniteLater() {
  const zeros = checkpoint({ ...TINY, vocab: -12 }).map((b, i) => (i < 28 ? b : 0));
  const edits = [];
  for (let t = 0; t < 12; t++) for (let d = 0; d < 8; d++) edits.push([floatAt(t * 8 + d), 'f32', t === 5 ? Number(d === 0) : (d === 0 ? 0.001 : 1)]);
  for (let i = 96; i < 1288; i++) if ((i < 112) || (i >= 496 && i < 512) || i >= 1280) edits.push([floatAt(i), 'f32', 1]);
  edits.push([floatAt(1320 + 40), 'f32', 3e38]);
  return edit(zeros, edits);
}

describe('the host for lessons', () => {
  it('loads a model from URLs, reporting progress; a second element asking for it gets the same', async () => {
    const host = makeHost();
    const seen = [];
    const args = { model: 'url:tiny', url: 'https://x.example/tiny.bin', tokenizerUrl: 'https://x.example/tok.bin', name: 'tiny.bin' };
    const info = await host.handle('loadModel', args, { progress: (l, t) => seen.push([l, t]) });
    expect(info).toMatchObject({ model: 'url:tiny', name: 'tiny.bin', kind: 'transformer', vocab: 12, seqLen: 8 });
    expect(seen.at(-1)).toEqual([files.get(args.url).length, files.get(args.url).length]);
    expect(await host.handle('loadModel', args)).toEqual(info);
    await host.handle('openSession', { session: 'e1', model: 'url:tiny' });
    const res = await host.handle('start', { session: 'e1', prompt: '', seed: 1, params: {}, steps: 3 });
    expect(res.steps).toHaveLength(3);
  });

  it('a URL that cannot be fetched fails with its reason, and nothing changes', async () => {
    const host = makeHost();
    await expect(host.handle('loadModel', { model: 'url:x', url: 'https://x.example/missing.bin' })).rejects.toThrow('missing.bin could not be fetched (HTTP 404)');
    expect(host.models.size).toBe(0);
  });

  it('reports a shipped model\'s download', async () => {
    const seen = [];
    await makeHost().handle('loadModel', { model: 'bigram', builtin: 'bigram' }, { progress: (l, t) => seen.push([l, t]) });
    expect(seen.at(-1)[0]).toBe(fs.statSync(bigramPath).size);
  });

  it('a model whose output turns +inf: the step that led there is kept, then a calm stop with the engine\'s message', async () => {
    const host = makeHost();
    await host.handle('loadModel', { model: 'f', bytes: infiniteLater(), tokenizerBytes: tokenizer() });
    await host.handle('openSession', { session: 's', model: 'f' });
    const start = await host.handle('start', { session: 's', prompt: '', seed: 1, params: {} });
    expect(start.status).toMatchObject({ ready: true, nGenerated: 0 });
    expect(start.next.ids[0]).toBe(5);
    const step = await host.handle('step', { session: 's', params: {} });
    expect(step.steps.map((s) => s.token)).toEqual([5]);
    expect(step.next).toBeNull();
    expect(step.status).toMatchObject({ ready: false, fault: true, nGenerated: 1 });
    expect(step.status.message).toBe("logits: token 5 is +inf; the model's output is not finite. Nothing can follow; Reset, or choose another model.");
    // a start on it says so at once
    const again = await host.handle('start', { session: 's', prompt: 'b', seed: 1, params: {} });
    expect(again.status).toMatchObject({ ready: false, fault: true });
  });
});
