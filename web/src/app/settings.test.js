// The hash audit: the URL hash round-trips EVERY setting.  The list below
// names each field of the page's setup (HashState) with a value that is
// not its default; a new field without an entry here fails the first test.
// Then every setting is changed through the app's own actions (as the
// controls do), and the app's link, loaded into a fresh app, gives the
// same setup and the same text.
import { beforeEach, describe, expect, it } from 'vitest';

import { createApp } from './app.js';
import { defaultState, parseHash, serializeHash } from './hash.js';
import { defaultPanelSpec } from './lab.js';
import { defaultParams } from './params.js';
import { inProcessClient } from '../../../tests/helpers/engine.js';

/** every setting of the single view: a value that is not the default */
const SINGLE = {
  view: 'single',
  model: 'transformer',
  params: { ...defaultParams(), temperature: 0.7, top_k: 40, top_p: 0.9, min_p: 0.05, repetition_penalty: 1.2, typical_p: 0.9, top_n_sigma: 2, xtc_probability: 0.5 },
  seed: '18446744073709551615',
  prompt: 'And God said, "let there be & light" #1',
  steps: 12,
  forced: [[0, 31], [5, 12]],
  strategy: 'speculative',
  beam: { width: 6, lengthPenalty: 0.5 },
  spec: { draft: 'transformer', n: 3 },
  bans: [3, 17],
  biases: [[5, 2.5], [20, -1]],
  dryBreakers: ['\n', ':', '_a,b~'],
  constraint: { kind: 'regex', regex: '[a-z ]+(,|\\.)' },
  speed: 42,
  barAction: 'force',
  theme: 'dark',
  samplers: 'llama.cpp',
  changes: [
    { from: 3, params: { ...defaultParams(), temperature: 1.5, top_k: 40, top_p: 0.9, min_p: 0.05, repetition_penalty: 1.2 }, bans: [3, 17], biases: [[1, 1]], dryBreakers: ['x'], samplers: 'hf' },
    { from: 7, params: { ...defaultParams(), temperature: 0.7, top_k: 0, top_p: 0.9, min_p: 0.05, repetition_penalty: 1.2, dry_multiplier: 0.8 }, bans: [], biases: [], dryBreakers: [], samplers: 'temperature,top_p' },
    { from: 9, params: { ...defaultParams(), temperature: 0.7, top_k: 40, top_p: 0.9, min_p: 0.05, repetition_penalty: 1.2 }, bans: [3, 17], biases: [[1, 1]], dryBreakers: ['x'], samplers: 'hf' },
  ],
  barScale: 'log',
  lang: 'de',
  edits: [[0, 2, 0.5], [3, 5, 0.25]],
};

/** compare mode's settings */
const COMPARE = {
  view: 'compare',
  model: 'transformer',
  seed: '7',
  prompt: 'Ma',
  steps: 9,
  constraint: { kind: 'json', regex: '' },
  panels: [
    defaultPanelSpec('greedy'),
    { ...defaultPanelSpec('balanced'), params: { ...defaultPanelSpec('balanced').params, top_k: 40 }, bans: [4, 9] },
    { ...defaultPanelSpec('custom'), strategy: 'beam', beam: { width: 3, lengthPenalty: 0.4 } },
    { ...defaultPanelSpec('chaos'), strategy: 'speculative', spec: { draft: 'bigram', n: 2 } },
  ],
  speed: 3,
  theme: 'light',
  lang: 'zh',
};

describe('the URL hash keeps every setting', () => {
  it('the audit list names every field of the setup', () => {
    const fields = Object.keys(defaultState()).sort();
    expect(Object.keys(SINGLE).concat('panels').sort()).toEqual(fields);
    for (const [key, value] of Object.entries(SINGLE)) {
      if (key === 'view') continue;
      expect(value, key).not.toEqual(/** @type {any} */ (defaultState())[key]);
    }
  });

  it('round-trips each setting of the single view alone, and all of them together', () => {
    for (const [key, value] of Object.entries(SINGLE)) {
      const state = { ...defaultState(), [key]: value };
      if (key === 'forced' || key === 'changes') state.steps = 12; // picks and changes inside the generated text
      const { state: back, notices } = parseHash(serializeHash(state));
      expect(notices, key).toEqual([]);
      expect(back, key).toEqual(state);
    }
    const all = { ...defaultState(), ...SINGLE, forced: [] }; // (forced picks are for sampling only)
    const { state: back, notices } = parseHash(serializeHash(all));
    expect(notices).toEqual([]);
    expect(back).toEqual(all);
    const sampled = { ...defaultState(), ...SINGLE, strategy: 'sample' };
    expect(parseHash(serializeHash(sampled)).state).toEqual(sampled);
  });

  it('round-trips compare mode: the shared setup, each panel, the speed', () => {
    const state = { ...defaultState(), ...COMPARE };
    const { state: back, notices } = parseHash(serializeHash(state));
    expect(notices).toEqual([]);
    expect(back.view).toBe('compare');
    for (const key of Object.keys(COMPARE)) expect(back[key], key).toEqual(state[key]);
  });
});

describe('every control\'s setting reaches the link and comes back', () => {
  let app;
  beforeEach(async () => {
    app = createApp(inProcessClient(), { retuneDelay: 0 });
    await app.init();
    await app.load(parseHash('').state);
  });

  /** the app's link, loaded into a fresh app: its setup, link and text */
  async function reload(from) {
    const link = serializeHash(from.hashState.value);
    const fresh = createApp(inProcessClient(), { retuneDelay: 0 });
    await fresh.init();
    const { state, notices } = parseHash(link);
    expect(notices).toEqual([]);
    await fresh.load(state, notices);
    return { fresh, link };
  }

  it('the single view', async () => {
    const p = app.main;
    p.setParam('temperature', 0.8);
    p.setParam('top_k', 30);
    p.setParam('top_p', 0.95);
    p.setParam('min_p', 0.02);
    p.setParam('repetition_penalty', 1.1);
    await p.setSeed('9');
    await p.setPrompt('Ma');
    p.speed.value = 25;
    p.barAction.value = 'force';
    app.theme.value = 'dark';
    await app.language.choose('es');
    p.toggleBan(5);
    p.setBias(7, 1.5);
    p.setBias(9, -3);
    expect(await p.setDryBreakers(['\n', 'a'])).toBe(true);
    expect(await p.setDryBreakers(['\n', 'a', 'abcdefghijk'])).toBe(false); // more than 8 of the bigram's tokens: left out
    expect(String(p.errors.value.dry)).toBe('dry-sequence-breaker: "abcdefghijk" is more than 8 tokens');
    expect(p.dryBreakers.value).toEqual(['\n', 'a']);
    await p.step(10); // a forced first token
    for (let i = 0; i < 6; i++) await p.step();
    await p.setBeamOpts({ width: 2, lengthPenalty: 0.7 });
    await p.setSpecOpts({ n: 6 });
    await p.setConstraint({ kind: 'regex', regex: '[a-z]+' });
    for (let i = 0; i < 3; i++) await p.step();
    const { fresh, link } = await reload(app);
    expect(link).toContain('speed=25');
    expect(link).toContain('click=force');
    expect(link).toContain('theme=dark');
    expect(link).toContain('lang=es');
    expect(fresh.language.chosen.value).toBe('es');
    expect(link).toContain('beams=2');
    expect(link).toContain('speculate=6');
    expect(link).toContain('ban=5&logit_bias=7=1.5,9=-3&dry_sequence_breakers=%5B%22%5Cn%22,%22a%22%5D');
    expect(fresh.hashState.value).toEqual(app.hashState.value);
    expect(fresh.main.text.value).toBe(p.text.value);
    expect(fresh.main.speed.value).toBe(25);
    expect(fresh.main.barAction.value).toBe('force');
    expect(fresh.main.beamOpts.value).toEqual({ width: 2, lengthPenalty: 0.7 });
  });

  it('settings moved between steps: the link replays each step with its own settings', async () => {
    const p = app.main;
    for (let i = 0; i < 5; i++) await p.step();
    p.setParam('temperature', 1.8); // mid-text, as a drag during Play
    for (let i = 0; i < 4; i++) await p.step();
    p.toggleBan(3);
    p.setParam('top_k', 5);
    for (let i = 0; i < 4; i++) await p.step();
    p.setParam('temperature', 1);
    p.setParam('top_k', 0);
    p.toggleBan(3); // back to the settings of the first steps
    for (let i = 0; i < 3; i++) await p.step();
    p.setParam('top_p', 0.5); // the live settings: for the next step only
    const { fresh, link } = await reload(app);
    expect(link).toContain('changes=0_p1,5_t1.8_p1,9_t1.8_k5_p1_ban3,13_p1');
    expect(fresh.main.text.value).toBe(p.text.value);
    expect(fresh.hashState.value).toEqual(app.hashState.value);
    // the same text step by step with the engine's own session
    const e = await (await import('../engine/node.js')).loadEngineNode('simd');
    const fs = await import('node:fs');
    const m = e.loadModel(new Uint8Array(fs.readFileSync(new URL('../../../models/bigram.bin', import.meta.url))));
    const s = e.createSession(m, null);
    s.start('', '42');
    let text = '';
    const at = (i) => (i < 5 ? { temperature: 1 } : i < 9 ? { temperature: 1.8 } : i < 13
      ? { temperature: 1.8, top_k: 5, logit_bias: [[3, -Infinity]] } : { temperature: 1 });
    for (let i = 0; i < 16; i++) text += s.step(at(i)).piece;
    expect(p.text.value).toBe(text);
    // without the changes, the link's settings for every step: another text
    const plain = parseHash(link.replace(/&changes=[^&]*/, '')).state;
    const other = createApp(inProcessClient(), { retuneDelay: 0 });
    await other.init();
    await other.load(plain);
    expect(other.main.text.value).not.toBe(p.text.value);
    s.free();
    m.free();
  });

  it('beam search and speculative decoding keep the settings of each step too', async () => {
    const p = app.main;
    await p.setStrategy('beam');
    await p.step();
    p.setParam('repetition_penalty', 2);
    await p.step();
    await p.step();
    let again = await reload(app);
    expect(again.link).toContain('changes=0_r1,1&');
    expect(again.fresh.main.text.value).toBe(p.text.value);
    await p.setStrategy('speculative');
    p.setParam('repetition_penalty', 1);
    await p.step();
    p.setParam('temperature', 0.3);
    await p.step();
    again = await reload(app);
    expect(again.link).toContain('changes=0_t1,1&');
    expect(again.fresh.main.text.value).toBe(p.text.value);
  });

  it('another strategy', async () => {
    const p = app.main;
    await p.setStrategy('beam');
    await p.setBeamOpts({ width: 3, lengthPenalty: 0.4 });
    await p.step();
    await p.step();
    const { fresh } = await reload(app);
    expect(fresh.hashState.value).toEqual(app.hashState.value);
    expect(fresh.main.text.value).toBe(p.text.value);
  });

  it('compare mode', async () => {
    await app.setView('compare');
    const c = app.compare;
    const [a, b] = c.panels.value;
    c.setPreset(b, 'factual');
    b.setParam('top_k', 12);
    await c.retune(b, { now: true });
    await c.setStrategy(a, 'beam');
    c.speed.value = 50;
    app.theme.value = 'light';
    await app.language.choose('pseudo');
    await c.step();
    await c.step();
    const { fresh, link } = await reload(app);
    expect(link).toContain('view=compare');
    expect(link).toContain('speed=50');
    expect(link).toContain('theme=light');
    expect(fresh.theme.value).toBe('light');
    expect(link).toContain('lang=en-XA');
    expect(fresh.hashState.value).toEqual(app.hashState.value);
    expect(fresh.compare.panels.value.map((x) => x.text.value)).toEqual(c.panels.value.map((x) => x.text.value));
  });
});
