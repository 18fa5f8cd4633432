// The panel's state and actions, over the real engine: the Worker's host
// runs in process behind a client that clones every message both ways,
// as postMessage does.
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';

import { charTokenizer, MODELS, randomCheckpoint } from '../../../tests/e2e/fixtures.js';
import { parseHash, serializeHash } from './hash.js';
import { createPanel } from './panel.js';
import { engineText, inProcessClient } from '../../../tests/helpers/engine.js';
import { until } from '../../../tests/helpers/until.js';

const bigramPath = path.join(MODELS, 'bigram.bin');

const text = (panel) => panel.prompt.value + panel.steps.value.map((s) => s.piece).join('');

describe('a panel', () => {
  let panel;
  beforeEach(async () => {
    panel = createPanel(inProcessClient(), { session: 'p' });
    await panel.init();
  });

  it('loads a link: the same hash gives the engine\'s text', async () => {
    const { state, notices } = parseHash('#model=bigram&temperature=0.7&top_k=40&top_p=0.9&seed=42&prompt=Ma&steps=30');
    await panel.load(state, notices);
    expect(panel.ready.value).toBe(true);
    expect(panel.steps.value).toHaveLength(30);
    expect(text(panel)).toBe('Ma' + await engineText({ prompt: 'Ma', seed: 42, params: state.params, steps: 30 }));
    expect(serializeHash(panel.hashState.value)).toBe('#model=bigram&temperature=0.7&top_k=40&top_p=0.9&seed=42&prompt=Ma&steps=30');
  });

  it('re-warps on a slider move without drawing, so the text stays the seed\'s', async () => {
    await panel.load(parseHash('#seed=5').state);
    const before = panel.next.value;
    panel.setParam('temperature', 2.2);
    await until(() => panel.next.value !== before);
    expect(panel.params.value.temperature).toBe(2.2);
    expect(panel.next.value.entropyBits).toBeGreaterThan(before.entropyBits);
    panel.setParam('top_k', 1);
    await until(() => panel.next.value.nKept === 1);
    panel.setParam('top_k', 0);
    panel.setParam('temperature', 1);
    await until(() => panel.next.value.nKept === 54 && panel.next.value.params.temperature === 1);
    for (let i = 0; i < 20; i++) await panel.step();
    expect(text(panel)).toBe(await engineText({ prompt: '', seed: 5, params: { temperature: 1 }, steps: 20 }));
  });

  it('re-warps a pinned past step when a setting moves during time travel (peek), the text untouched', async () => {
    await panel.load(parseHash('#seed=6&steps=5').state);
    const before = text(panel);
    panel.pin(2);
    expect(panel.shown.value.kind).toBe('step');
    panel.setParam('top_k', 1);
    expect(panel.focus.value).toBe(2);
    await until(() => panel.shown.value.kind === 'peek' && panel.shown.value.nKept === 1);
    expect(panel.shown.value.index).toBe(2);
    expect(panel.shown.value.token).toBe(panel.steps.value[2].token);
    // samples of the past step
    await panel.drawSamples();
    await until(() => panel.shownSamples.value !== null);
    expect(panel.shownSamples.value.index).toBe(2);
    expect(Array.from(panel.shownSamples.value.freq).filter((f) => f > 0)).toHaveLength(1);
    expect(text(panel)).toBe(before);
    // another step pinned: shown as it was; back live: the next token, re-warped too
    panel.pin(3);
    expect(panel.shown.value.kind).toBe('step');
    panel.pin(null);
    expect(panel.shown.value.kind).toBe('preview');
    expect(panel.shown.value.nKept).toBe(1);
    // a hovered (not pinned) step goes back live on a setting move, as before
    panel.hover.value = 1;
    panel.setParam('top_k', 0);
    expect(panel.viewIndex.value).toBeNull();
  });

  it('a link\'s top-k past the vocabulary stays as the link says (in its range; the slider rests at its end), and keeps every token', async () => {
    await panel.load(parseHash('#seed=4&top_k=500&temperature=5&steps=6').state);
    expect(panel.params.value.top_k).toBe(500);
    expect(panel.params.value.temperature).toBe(5);
    expect(panel.hashState.value.params.top_k).toBe(500);
    await until(() => panel.next.value?.nKept === 54);
    expect(text(panel)).toBe(await engineText({ prompt: '', seed: 4, params: { top_k: 500, temperature: 5 }, steps: 6 }));
  });

  it('the stages on are the engine\'s: XTC at probability 0.5, threshold 0.55 is off; turned on, its threshold takes its typical 0.1', async () => {
    await panel.load(parseHash('#seed=3&top_k=5&xtc_probability=0.5&xtc_threshold=0.55').state);
    await panel.askStages(); // (the chain editor asks whenever the settings change)
    expect([...panel.stagesOn.value]).toEqual(['top_k']);
    panel.setStageOn('xtc', true);
    expect(panel.stagesOn.value.has('xtc')).toBe(true); // the switch shows on at once
    await until(() => panel.params.value.xtc_threshold === 0.1);
    await until(() => panel.stagesOn.value.has('xtc') && panel.stagesOn.value.has('top_k'));
    expect(panel.params.value.xtc_probability).toBe(0.5);
    panel.setStageOn('top_k', false);
    expect(panel.stagesOn.value.has('top_k')).toBe(false); // at once, and then the engine's answer
    expect(panel.params.value.top_k).toBe(0);
    await panel.askStages();
    expect([...panel.stagesOn.value]).toEqual(['xtc']);
  });

  it('clamps settings: top-k to the vocabulary, temperature to its range', async () => {
    await panel.load(parseHash('').state);
    panel.setParam('top_k', 500);
    expect(panel.params.value.top_k).toBe(54);
    panel.setParam('temperature', 9);
    expect(panel.params.value.temperature).toBe(3);
  });

  it('adds exactly one token per step and branches from a past step', async () => {
    await panel.load(parseHash('#seed=8&steps=10').state);
    await panel.step();
    expect(panel.steps.value).toHaveLength(11);
    panel.focus.value = 3;
    expect(panel.shown.value).toBe(panel.steps.value[3]);
    const old = panel.steps.value[3];
    const other = old.ids.find((id) => id !== old.token);
    panel.pick(other);
    await until(() => panel.steps.value.length === 4);
    expect(panel.steps.value[3].token).toBe(other);
    expect(panel.steps.value[3].forced).toBe(true);
    expect(panel.focus.value).toBeNull();
    expect(panel.forced.value).toEqual([[3, other]]);
    // the link of a branched text reproduces it
    await panel.step();
    await panel.step();
    const hash = serializeHash(panel.hashState.value);
    expect(hash).toContain(`forced=3.${other}`);
    const again = createPanel(inProcessClient(), { session: 'q' });
    await again.init();
    await again.load(parseHash(hash).state);
    expect(text(again)).toBe(text(panel));
  });

  it('plays and pauses', async () => {
    await panel.load(parseHash('#seed=1').state);
    panel.speed.value = 60;
    panel.play();
    expect(panel.playing.value).toBe(true);
    await until(() => panel.steps.value.length >= 5);
    panel.pause();
    await new Promise((r) => setTimeout(r, 50));
    const n = panel.steps.value.length;
    await new Promise((r) => setTimeout(r, 100));
    expect(panel.steps.value.length).toBe(n);
    expect(panel.playing.value).toBe(false);
  });

  it('draws samples and redraws them when the distribution changes', async () => {
    await panel.load(parseHash('#seed=3').state);
    await panel.drawSamples();
    const s = panel.samples.value;
    expect(s.n).toBe(1000);
    expect(s.kl).toBeGreaterThan(0);
    panel.setParam('top_k', 2);
    await until(() => panel.next.value.nKept === 2);
    expect(Array.from(panel.samples.value.freq).filter((f) => f > 0).length).toBeLessThanOrEqual(2);
    panel.clearSamples();
    expect(panel.samples.value).toBeNull();
  });

  it('refuses a bad prompt or seed with a message and keeps the text', async () => {
    await panel.load(parseHash('#seed=2&steps=6').state);
    const before = text(panel);
    expect(await panel.setPrompt('Zoë')).toBe(false);
    expect(String(panel.errors.value.prompt)).toMatch(/the character 'ë'/);
    expect(text(panel)).toBe(before);
    expect(panel.prompt.value).toBe('');
    expect(await panel.setSeed('12x')).toBe(false);
    expect(String(panel.errors.value.seed)).toBe('The seed must be a whole number (0 to 18446744073709551615).');
    expect(panel.seed.value).toBe('2');
    await panel.step();
    expect(panel.steps.value).toHaveLength(7);
  });

  it('keeps its model when another cannot be loaded', async () => {
    await panel.load(parseHash('#seed=2&steps=3').state);
    expect(await panel.selectModel('transformer')).toBe(false);
    expect(String(panel.errors.value.model)).toBe('The tiny transformer is not in this build yet.');
    expect(panel.modelId.value).toBe('bigram');
    const bad = new Blob([new Uint8Array(fs.readFileSync(bigramPath)).slice(0, 5000)]);
    bad.name = 'broken.bin';
    expect(await panel.loadFiles(bad)).toBe(false);
    expect(String(panel.errors.value.model)).toMatch(/^broken\.bin: bigram: file has 5000 bytes, header implies \d+$/);
    expect(panel.modelId.value).toBe('bigram');
    await panel.step();
    expect(panel.steps.value).toHaveLength(4);
  });

  it('loads a llama2.c model from files and stops calmly at its context end', async () => {
    await panel.load(parseHash('').state);
    const model = new Blob([randomCheckpoint({ vocab: 33, seqLen: 8 })]);
    model.name = 'tiny.bin';
    expect(await panel.loadFiles(model, new Blob([charTokenizer()]))).toBe(true);
    expect(panel.modelId.value).toBe('file-1');
    expect(panel.model.value).toMatchObject({ kind: 'transformer', vocab: 33, seqLen: 8 });
    // (the tiny transformer's two drafts are in the list, offered as drafts only)
    expect(panel.models.value.map((m) => m.name)).toEqual(['Bigram names', 'Tiny transformer', 'Bible draft (1-layer transformer)', 'Bible bigram', 'tiny.bin']);
    for (let i = 0; i < 10; i++) await panel.step();
    expect(panel.status.value.ready).toBe(false);
    expect(panel.status.value.message).toMatch(/context is full|ended the text/);
    expect(panel.errors.value.engine).toBeUndefined();
    expect(panel.hashState.value.model).toBe('file');
  });

  it('falls back to the bigram with a notice when a link names a missing model', async () => {
    const { state, notices } = parseHash('#model=transformer&temperature=abc&seed=4&steps=5');
    await panel.load(state, notices);
    expect(panel.modelId.value).toBe('bigram');
    expect(panel.notices.value).toHaveLength(2);
    expect(String(panel.notices.value[0])).toMatch(/temperature="abc"/);
    expect(String(panel.notices.value[1])).toMatch(/The tiny transformer is not in this build yet\. Using Bigram names instead\./);
    expect(panel.steps.value).toHaveLength(5);
  });
});
