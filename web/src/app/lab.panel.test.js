// The decoding lab in a panel, over the real engine behind a cloning
// client: strategies, constraint, bans, forcing, greedy two ways, and the
// engine's metrics, stats and counters gathered step by step.
import { beforeEach, describe, expect, it } from 'vitest';

import { charTokenizer, randomCheckpoint } from '../../../tests/e2e/fixtures.js';
import { parseHash, serializeHash } from './hash.js';
import { createPanel } from './panel.js';
import { engineText, inProcessClient } from '../../../tests/helpers/engine.js';
import { until } from '../../../tests/helpers/until.js';


describe('the decoding lab in a panel', () => {
  let panel;
  beforeEach(async () => {
    panel = createPanel(inProcessClient(), { session: 'lab' });
    await panel.init();
  });

  it('gathers the engine\'s metrics and stats as the text grows, and the counters\' history', async () => {
    await panel.load(parseHash('#seed=3&steps=10&temperature=0.8').state);
    expect(panel.lab.value.costs.map((c) => c.n)).toEqual([...Array(11).keys()]);
    expect(panel.lab.value.metrics.tokens).toBe(10);
    expect(panel.lab.value.stats).toHaveLength(10);
    for (let i = 0; i < 5; i++) await panel.step();
    expect(panel.lab.value.stats).toHaveLength(15);
    expect(panel.lab.value.stats.map((s) => s.nKept)).toEqual(panel.steps.value.map((s) => s.nKept));
    expect(panel.lab.value.metrics.tokens).toBe(15);
    expect(panel.lab.value.costs.map((c) => c.n)).toEqual([...Array(16).keys()]);
    expect(panel.lab.value.costs.at(-1).tokens).toBe(16); // the boundary + 15
    // a branch: the stats and the history are cut back there
    panel.pin(4);
    panel.pick(panel.steps.value[4].ids.find((id) => id !== panel.steps.value[4].token));
    await until(() => panel.steps.value.length === 5);
    expect(panel.lab.value.stats).toHaveLength(5);
    expect(panel.lab.value.costs.map((c) => c.n)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('bans a token with a click on its bar and forces one with Shift (or the force action)', async () => {
    await panel.load(parseHash('#seed=2').state);
    const top = panel.next.value.ids[0];
    panel.clickBar(top);
    await until(() => panel.next.value.cut[panel.next.value.ids.indexOf(top)] === 'bias');
    expect(panel.bans.value).toEqual([top]);
    expect(serializeHash(panel.hashState.value)).toContain(`ban=${top}`);
    for (let i = 0; i < 20; i++) await panel.step();
    expect(panel.steps.value.every((s) => s.token !== top)).toBe(true);
    panel.clickBar(top); // lifts the ban
    await until(() => panel.next.value.cut[panel.next.value.ids.indexOf(top)] === 'kept');
    expect(panel.bans.value).toEqual([]);
    // forcing the first token: Shift+click before the first step
    await panel.restart();
    panel.clickBar(30, { force: true });
    await until(() => panel.steps.value.length === 1);
    expect(panel.steps.value[0]).toMatchObject({ token: 30, forced: true });
    panel.barAction.value = 'force';
    panel.clickBar(31);
    await until(() => panel.steps.value.length === 2);
    expect(panel.forced.value).toEqual([[0, 30], [1, 31]]);
    expect(serializeHash(panel.hashState.value)).toContain('forced=0.30,1.31');
  });

  it('goes greedy two ways with the same text', async () => {
    await panel.load(parseHash('#seed=9&steps=12&prompt=Ma').state);
    await panel.greedyVia('temperature');
    expect(panel.params.value).toMatchObject({ temperature: 0, top_k: 0 });
    const a = panel.text.value;
    await panel.greedyVia('top_k');
    expect(panel.params.value).toMatchObject({ temperature: 1, top_k: 1 });
    expect(panel.text.value).toBe(a);
    expect(a).toBe(await engineText({ prompt: 'Ma', seed: 1, params: { temperature: 0 }, steps: 12 }));
    await panel.restart({ steps: 0 });
    await panel.greedyVia('temperature');
    expect(panel.steps.value).toHaveLength(30);
  });

  it('constrains the text with a regex or JSON; a refused pattern keeps the old text and says why', async () => {
    await panel.load(parseHash('#seed=4&temperature=1.5').state);
    expect(await panel.setConstraint({ kind: 'regex', regex: '[A-Z][a-z]{2,5}' })).toBe(true);
    expect(panel.next.value.cut.filter((c) => c === 'constraint').length).toBeGreaterThan(20);
    panel.speed.value = 60;
    for (let i = 0; i < 10 && panel.status.value.ready; i++) await panel.step();
    expect(panel.text.value).toMatch(/^[A-Z][a-z]{2,5}$/);
    expect(panel.status.value.message).toMatch(/matches the constraint/);
    const before = panel.text.value;
    expect(await panel.setConstraint({ kind: 'regex', regex: '[a-' })).toBe(false);
    expect(String(panel.errors.value.constraint)).toMatch(/^regex: /);
    expect(panel.constraint.value.regex).toBe('[A-Z][a-z]{2,5}');
    expect(panel.text.value).toBe(before);
    expect(await panel.setConstraint({ kind: 'json', regex: '' })).toBe(true);
    expect(panel.errors.value.constraint).toBeUndefined();
    for (let i = 0; i < 10 && panel.status.value.ready; i++) await panel.step();
    expect(() => JSON.parse(panel.text.value)).not.toThrow();
    expect(serializeHash(panel.hashState.value)).toContain('grammar=json');
  });

  it('a link with a refused constraint starts without it, with a notice', async () => {
    const { state, notices } = parseHash('#seed=4&steps=3&regex=%5B0-9%5D%2B');
    await panel.load(state, notices);
    expect(String(panel.notices.value[0])).toMatch(/constraint was not applied: constraint: no text this model's vocabulary can write matches it/);
    expect(panel.steps.value).toHaveLength(3);
    expect(panel.constraint.value.kind).toBe('none');
  });

  it('runs beam search, one expansion per step; width 1 is the greedy text', async () => {
    await panel.load(parseHash('#prompt=Ro&strategy=beam&beams=1&steps=15').state);
    expect(panel.beam.value.expansions).toBe(15);
    expect(panel.text.value).toBe(await engineText({ prompt: 'Ro', seed: 1, params: { temperature: 0 }, steps: 15 }));
    expect(panel.stepCount.value).toBe(15);
    await panel.setBeamOpts({ width: 4 });
    expect(panel.beam.value.width).toBe(4);
    expect(panel.beam.value.expansions).toBe(15); // the same number of steps again
    expect(panel.beam.value.hypotheses).toHaveLength(4);
    await panel.step();
    expect(panel.beam.value.expansions).toBe(16);
    expect(panel.lab.value.metrics.tokens).toBe(16);
    expect(panel.lab.value.costs).toEqual([]);
    expect(serializeHash(panel.hashState.value)).toContain('steps=16&strategy=beam&beams=4');
    expect(panel.next.value).toBeNull();
  });

  it('runs speculative decoding, one round per step, and replays its link', async () => {
    await panel.load(parseHash('#seed=5&strategy=speculative&speculate=3&steps=4').state);
    expect(panel.spec.value.rounds).toHaveLength(4);
    expect(panel.spec.value.tokens).toHaveLength(16); // the bigram drafting for itself: 3 accepted + 1 bonus
    expect(panel.spec.value.totals).toMatchObject({ drafted: 12, accepted: 12, rounds: 4 });
    await panel.step();
    expect(panel.spec.value.rounds).toHaveLength(5);
    expect(panel.lab.value.stats).toHaveLength(20);
    expect(panel.next.value.index).toBe(20);
    const again = createPanel(inProcessClient(), { session: 'again' });
    await again.init();
    await again.load(parseHash(serializeHash(panel.hashState.value)).state);
    expect(again.text.value).toBe(panel.text.value);
    // a draft that cannot be loaded is refused with its message
    expect(await panel.setSpecOpts({ draft: 'transformer' })).toBe(false);
    expect(String(panel.errors.value.spec)).toBe('The tiny transformer is not in this build yet.');
    expect(panel.specOpts.value.draft).toBe('bigram');
    expect(panel.spec.value.rounds).toHaveLength(5);
  });

  it('speculative decoding with another draft marks rejections; the counters show the cache', async () => {
    const chars = '\n abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-.,';
    const m = new Blob([randomCheckpoint({ vocab: 3 + chars.length, seqLen: 128, dim: 16, hidden: 32, layers: 2, heads: 2, kvHeads: 2, scale: 1 })]);
    await panel.load(parseHash('#seed=2&prompt=Ma').state);
    expect(await panel.loadFiles(m, new Blob([charTokenizer(chars)]))).toBe(true);
    await panel.setStrategy('speculative');
    for (let i = 0; i < 6; i++) await panel.step();
    expect(panel.spec.value.rounds.some((r) => r.rejected)).toBe(true);
    expect(panel.spec.value.totals.accepted).toBeLessThan(panel.spec.value.totals.drafted);
    const last = panel.lab.value.costs.at(-1);
    expect(last.flops).toBeGreaterThan(0);
    expect(last.flops).toBeLessThan(last.flopsNoCache);
    expect(panel.lab.value.costs.length).toBe(7); // after the prompt and after each round
    expect(panel.hashState.value.model).toBe('file');
  });

  it('applies a preset and reports which preset the settings are', async () => {
    await panel.load(parseHash('#seed=1').state);
    expect(panel.preset.value).toBe('custom');
    panel.applyPreset('factual');
    expect(panel.params.value).toMatchObject({ temperature: 0.3, top_p: 0.7, top_k: 0 });
    expect(panel.preset.value).toBe('factual');
    await until(() => panel.next.value.params.temperature === 0.3);
    panel.setParam('top_k', 5);
    expect(panel.preset.value).toBe('custom');
  });
});
