// Compare mode and the page controller over the real engine: panels in
// lockstep sharing the random numbers, presets, retuning, the shared
// constraint, adding and removing panels, links, and switching views.
import { beforeEach, describe, expect, it } from 'vitest';

import { createApp } from './app.js';
import { parseHash, serializeHash } from './hash.js';
import { engineText, inProcessClient } from '../../../tests/helpers/engine.js';

const texts = (app) => app.compare.panels.value.map((p) => p.text.value);

describe('compare mode', () => {
  let app;
  beforeEach(async () => {
    app = createApp(inProcessClient(), { retuneDelay: 0 });
    await app.init();
  });

  it('loads a compare link: each panel is its settings\' text with the shared seed', async () => {
    const { state, notices } = parseHash('#view=compare&seed=7&prompt=Ma&steps=25&panels=greedy,balanced,chaos');
    await app.load(state, notices);
    expect(app.view.value).toBe('compare');
    expect(app.ready.value).toBe(true);
    const [g, b, c] = texts(app);
    expect(g).toBe(await engineText({ prompt: 'Ma', seed: 7, params: { temperature: 0 }, steps: 25 }));
    expect(b).toBe(await engineText({ prompt: 'Ma', seed: 7, params: { temperature: 0.7, top_p: 0.9 }, steps: 25 }));
    expect(c).toBe(await engineText({ prompt: 'Ma', seed: 7, params: { temperature: 2 }, steps: 25 }));
    expect(serializeHash(app.hashState.value)).toBe('#view=compare&model=bigram&seed=7&prompt=Ma&steps=25&panels=greedy,balanced,chaos');
  });

  it('shares the random numbers: two panels with the same settings have the same text, each step draws the same u', async () => {
    await app.load(parseHash('#view=compare&seed=11&panels=creative,creative,chaos').state);
    for (let i = 0; i < 20; i++) await app.compare.step();
    const [a, b] = texts(app);
    expect(a).toBe(b);
    expect(a).toHaveLength(20);
    const [pa, , pc] = app.compare.panels.value;
    expect(pc.steps.value.map((s) => s.u)).toEqual(pa.steps.value.map((s) => s.u));
    expect(app.compare.stepCount.value).toBe(20);
  });

  it('regenerates a panel to the same number of steps when its preset or strategy changes', async () => {
    await app.load(parseHash('#view=compare&seed=3&steps=15&panels=chaos,balanced').state);
    const [p] = app.compare.panels.value;
    await app.compare.setPreset(p, 'greedy');
    expect(p.text.value).toBe(await engineText({ prompt: '', seed: 3, params: { temperature: 0 }, steps: 15 }));
    await app.compare.setStrategy(p, 'beam');
    expect(p.beam.value.expansions).toBe(15);
    p.beamOpts.value = { width: 1, lengthPenalty: 0 };
    await app.compare.retune(p);
    expect(p.text.value).toBe(await engineText({ prompt: '', seed: 3, params: { temperature: 0 }, steps: 15 }));
    expect(serializeHash(app.hashState.value)).toBe('#view=compare&model=bigram&seed=3&steps=15&panels=greedy_beam1_lp0,balanced');
    p.setParam('top_k', 3);
    await app.compare.retune(p);
    expect(serializeHash(app.hashState.value)).toContain('panels=greedy_k3_beam1_lp0,balanced');
  });

  it('plays all panels in lockstep and stops when none can go on', async () => {
    await app.load(parseHash('#view=compare&seed=5&regex=%5BA-Z%5D%5Ba-z%5D%7B2%2C4%7D&panels=greedy,chaos').state);
    expect(app.compare.constraint.value).toEqual({ kind: 'regex', regex: '[A-Z][a-z]{2,4}' });
    app.compare.speed.value = 60;
    app.compare.play();
    const t0 = Date.now();
    while (app.compare.playing.value && Date.now() - t0 < 5000) await new Promise((r) => setTimeout(r, 10));
    expect(app.compare.playing.value).toBe(false);
    for (const t of texts(app)) expect(t).toMatch(/^[A-Z][a-z]{2,4}$/);
    expect(app.compare.status.value.ready).toBe(false);
  });

  it('sets one constraint for all, and a refused one for none (its message once)', async () => {
    await app.load(parseHash('#view=compare&seed=2&steps=4&panels=greedy,chaos').state);
    const before = texts(app);
    expect(await app.compare.setConstraint({ kind: 'regex', regex: '(ab' })).toBe(false);
    expect(String(app.compare.errors.value.constraint)).toBe("regex: missing ')' at offset 3");
    expect(app.compare.panels.value.every((p) => !p.errors.value.constraint)).toBe(true);
    expect(texts(app)).toEqual(before);
    expect(await app.compare.setConstraint({ kind: 'json', regex: '' })).toBe(true);
    expect(app.compare.errors.value.constraint).toBeUndefined();
    for (let i = 0; i < 10; i++) await app.compare.step();
    for (const t of texts(app)) expect(() => JSON.parse(t)).not.toThrow();
    expect(serializeHash(app.hashState.value)).toContain('grammar=json');
  });

  it('adds panels up to four (caught up) and removes them down to two', async () => {
    await app.load(parseHash('#view=compare&seed=1&steps=6&panels=greedy,factual').state);
    expect(await app.compare.addPanel('chaos')).toBe(true);
    expect(await app.compare.addPanel('creative')).toBe(true);
    expect(await app.compare.addPanel('creative')).toBe(false);
    const panels = app.compare.panels.value;
    expect(panels).toHaveLength(4);
    expect(panels[2].steps.value).toHaveLength(6);
    expect(new Set(panels.map((p) => p.session)).size).toBe(4);
    expect(app.compare.removePanel(panels[0])).toBe(true);
    expect(app.compare.removePanel(panels[1])).toBe(true);
    expect(app.compare.removePanel(panels[2])).toBe(false);
    expect(serializeHash(app.hashState.value)).toContain('panels=chaos,creative');
  });

  it('changes the shared seed, prompt and model for every panel', async () => {
    await app.load(parseHash('#view=compare&seed=1&panels=greedy,chaos').state);
    expect(await app.compare.setSeed('99')).toBe(true);
    expect(app.compare.panels.value.map((p) => p.seed.value)).toEqual(['99', '99']);
    expect(await app.compare.setPrompt('Jo')).toBe(true);
    expect(app.compare.prompt.value).toBe('Jo');
    expect(await app.compare.setPrompt('Zoë')).toBe(false);
    expect(String(app.compare.errors.value.prompt)).toMatch(/the character 'ë'/);
    expect(await app.compare.selectModel('transformer')).toBe(false);
    expect(String(app.compare.errors.value.model)).toBe('The tiny transformer is not in this build yet.');
    expect(app.compare.modelId.value).toBe('bigram');
  });

  it('a link naming a missing model says so once and uses the bigram', async () => {
    const { state, notices } = parseHash('#view=compare&model=transformer&steps=3&panels=greedy,chaos');
    await app.load(state, notices);
    expect(app.compare.notices.value.map(String)).toEqual(['The tiny transformer is not in this build yet. Using Bigram names instead.']);
    expect(texts(app).map((t) => t.length)).toEqual([3, 3]);
  });

  it('switches views, carrying the model, seed, prompt and constraint over', async () => {
    await app.load(parseHash('#seed=8&prompt=Al&steps=5&top_k=3').state);
    await app.setView('compare');
    expect(app.view.value).toBe('compare');
    expect(app.compare.panels.value.map((p) => p.preset.value)).toEqual(['greedy', 'balanced', 'chaos']);
    expect(app.compare.seed.value).toBe('8');
    expect(app.compare.prompt.value).toBe('Al');
    expect(serializeHash(app.hashState.value)).toBe('#view=compare&model=bigram&seed=8&prompt=Al&panels=greedy,balanced,chaos');
    await app.compare.setSeed('9');
    await app.setView('single');
    expect(app.view.value).toBe('single');
    expect(app.main.seed.value).toBe('9');
    expect(app.main.params.value.top_k).toBe(3); // the single view keeps its own settings
    expect(serializeHash(app.hashState.value)).toBe('#model=bigram&temperature=1&top_k=3&top_p=1&seed=9&prompt=Al');
  });
});
