// Generate N (the panel's fast-forward) over the real engine, the Worker's
// host in process: the text stepping gives, byte for byte; a token's step
// record on demand, the same as the step's own; the link reproduces the
// text; Stop keeps what came; a constrained text is stepped in batches.
import { beforeEach, describe, expect, it } from 'vitest';

import { parseHash, serializeHash } from './hash.js';
import { createPanel } from './panel.js';
import { engineText, inProcessClient } from '../../../tests/helpers/engine.js';
import { until } from '../../../tests/helpers/until.js';

const text = (panel) => panel.prompt.value + panel.steps.value.map((s) => s.piece).join('');

describe('Generate N', () => {
  let panel;
  let client;
  beforeEach(async () => {
    client = inProcessClient();
    panel = createPanel(client, { session: 'g' });
    await panel.init();
  });

  it('writes the text Step writes, and each token\'s record comes from the engine on demand', async () => {
    const hash = '#model=bigram&temperature=1.2&top_k=20&top_p=0.95&repetition_penalty=1.3&seed=11&prompt=Ka&steps=3';
    await panel.load(parseHash(hash).state);
    const progress = [];
    const stop = panel.generating.subscribe((g) => { if (g) progress.push(g.done); });
    expect(await panel.generate(150)).toBe(true);
    stop();
    expect(panel.generating.value).toBe(null);
    const n = panel.steps.value.length;
    expect(n).toBeGreaterThan(3 + 100); // names end, and the bigram starts a new one: 150 unless the limit stops it
    expect(n).toBe(153);
    expect(progress[0]).toBe(0);
    expect(panel.generated.value).toMatchObject({ count: 150, stopped: false, from: 3 });
    expect(text(panel)).toBe('Ka' + await engineText({ prompt: 'Ka', seed: 11, params: panel.params.value, steps: n }));
    // the stepped panel: the same steps one at a time
    const stepped = createPanel(inProcessClient(), { session: 's' });
    await stepped.init();
    await stepped.load(parseHash(hash.replace('steps=3', 'steps=153')).state);
    expect(text(stepped)).toBe(text(panel));
    // the fast-forwarded entries: piece, token and p (the engine's per-token stats), no rows yet
    const k = 40;
    const lazy = panel.steps.value[k];
    expect(lazy.lazy).toBe(true);
    expect(lazy.token).toBe(stepped.steps.value[k].token);
    expect(lazy.p).toBe(stepped.steps.value[k].p);
    expect(lazy.entropyBits).toBe(stepped.lab.value.stats[k].entropyBits);
    expect(lazy.nKept).toBe(stepped.steps.value[k].nKept);
    // hovering it shows nothing until the engine's record is in, then the step's own
    panel.hoverStep(k);
    expect(panel.viewIndex.value).toBe(k);
    await until(() => panel.shown.value !== null);
    const rec = panel.shown.value;
    const want = stepped.steps.value[k];
    expect(rec.fastForwarded).toBe(true);
    expect(rec.index).toBe(k);
    expect(Array.from(rec.ids)).toEqual(Array.from(want.ids));
    expect(Array.from(rec.final)).toEqual(Array.from(want.final));
    expect(Array.from(rec.raw)).toEqual(Array.from(want.raw));
    expect(rec.cut).toEqual(want.cut);
    expect(rec.nKept).toBe(want.nKept);
    expect(rec.p).toBe(want.p);
    expect(rec.piece).toBe(want.piece);
    expect(panel.steps.value[k].lazy).toBeFalsy();
    // the metrics are the stepped text's
    expect(panel.lab.value.metrics).toEqual(stepped.lab.value.metrics);
    expect(panel.lab.value.stats).toEqual(stepped.lab.value.stats);
    // the link: steps= replays it
    const link = serializeHash(panel.hashState.value);
    expect(link).toContain('steps=153');
    const again = createPanel(inProcessClient(), { session: 'l' });
    await again.init();
    await again.load(parseHash(link).state);
    expect(text(again)).toBe(text(panel));
  });

  it('keeps each setting with the tokens it wrote: a link with a slider moved between runs gives the same text', async () => {
    await panel.load(parseHash('#model=bigram&seed=3&prompt=Jo').state);
    await panel.generate(20);
    panel.setParam('temperature', 0.4);
    await panel.step();
    await panel.generate(25);
    panel.setParam('top_k', 5);
    const link = serializeHash(panel.hashState.value);
    expect(link).toMatch(/changes=/);
    const again = createPanel(inProcessClient(), { session: 'l' });
    await again.init();
    await again.load(parseHash(link).state);
    expect(text(again)).toBe(text(panel));
    expect(again.steps.value.length).toBe(46);
  });

  it('stops when asked, keeps the tokens that came, and goes on from there', async () => {
    await panel.load(parseHash('#model=bigram&seed=9').state);
    let asked = false;
    const stop = panel.generating.subscribe((g) => {
      if (g && g.done > 0 && !asked) { asked = true; panel.stopGenerate(); }
    });
    await panel.generate(1900);
    stop();
    expect(asked).toBe(true);
    const got = panel.steps.value.length;
    expect(panel.generated.value.stopped).toBe(true);
    expect(got).toBeLessThan(1900);
    expect(panel.generated.value.count).toBe(got);
    expect(panel.status.value.nGenerated).toBe(got);
    await panel.generate(5);
    expect(panel.steps.value.length).toBe(got + 5);
    expect(text(panel)).toBe(await engineText({ seed: 9, params: panel.params.value, steps: got + 5 }));
  });

  it('steps a constrained text in batches: every record is the step\'s own', async () => {
    await panel.load(parseHash('#model=bigram&seed=4&regex=[a-z]{3,8}').state);
    expect(panel.constraint.value.kind).toBe('regex');
    await panel.generate(50);
    const steps = panel.steps.value;
    expect(steps.length).toBeGreaterThan(2);
    expect(steps.every((s) => !s.lazy && s.ids.length > 0)).toBe(true);
    expect(panel.status.value.ready).toBe(false); // complete: it matches
    expect(text(panel)).toMatch(/^[a-z]{3,8}$/);
  });

  it('is for sampling only', async () => {
    await panel.load(parseHash('#model=bigram&seed=1&strategy=beam&beams=2&length_penalty=1').state);
    expect(await panel.generate(10)).toBe(false);
  });
});
