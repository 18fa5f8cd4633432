// The strip of the samplers' state: its rows and marks from the steps'
// summaries (web/src/strip/rows.js), and the engine's state fields they
// come from (the step record, c/wasm/wasm_step.c STEP_FIELDS) checked
// against the stages' definitions on real steps of the bigram model.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { ROWS, STRIP_STAGES, stripRows } from '../../web/src/strip/rows.js';
import { STRIP_STAGES as LAZY_STAGES } from '../../web/src/components/lazy.js';
import { summarize } from '../../web/src/worker/summary.js';
import { engine, MODELS_DIR } from './helpers.js';

const bigram = () => new Uint8Array(fs.readFileSync(path.join(MODELS_DIR, 'bigram.bin')));

/** a step's summary as the strip reads it */
const st = (state, params = {}, extra = {}) => ({ state, params, ...extra });

describe('the strip\'s rows', () => {
  it('a row per stateful stage that is on, a mark per step, the engine\'s numbers as they are (the line too: the goal the step recorded)', () => {
    const steps = [
      st({ mirostat_mu: 6, surprise_bits: 2.5, mirostat_goal: 3, adaptive_average: NaN, penalties_n: -1, dry_n: -1 }),
      st({ mirostat_mu: 6.05, surprise_bits: 7.25, mirostat_goal: 3, adaptive_average: NaN, penalties_n: -1, dry_n: -1 }),
      st({ mirostat_mu: 5.625, surprise_bits: 0.5, mirostat_goal: 3, adaptive_average: NaN, penalties_n: -1, dry_n: -1 }),
    ];
    const rows = stripRows(steps, new Set(['mirostat', 'top_k']));
    expect(rows.map((r) => r.id)).toEqual(['mirostat']);
    const [row] = rows;
    expect(row.marks.map((m) => m.bar)).toEqual([6, 6.05, 5.625]);
    expect(row.marks.map((m) => m.dot)).toEqual([2.5, 7.25, 0.5]);
    expect(row.marks.map((m) => m.line)).toEqual([3, 3, 3]);
    expect(row.marks.map((m) => m.i)).toEqual([0, 1, 2]);
    expect(row.top).toBe(7.25); // the largest number drawn
  });

  it('a step where the stage was off has an empty mark; a fast-forwarded step one not fetched yet', () => {
    const steps = [
      st({ penalties_n: -1, penalty_count_token: 0, dry_n: 2, dry_longest: 4, dry_length_token: 0 }),
      st({ penalties_n: 3, penalty_count_token: 2, dry_n: 0, dry_longest: 0, dry_length_token: 0 }),
      st({}, {}, { lazy: true }),
    ];
    const rows = stripRows(steps, ['penalties', 'dry']);
    expect(rows.map((r) => r.id)).toEqual(['penalties', 'dry']);
    const [pen, dry] = rows;
    expect(pen.marks.map((m) => m.ran)).toEqual([false, true, false]);
    expect(pen.marks[0].bar).toBeNaN();
    expect([pen.marks[1].bar, pen.marks[1].dot]).toEqual([3, 2]);
    expect(pen.marks.map((m) => m.fetched)).toEqual([true, true, false]);
    // a fast-forwarded step whose state came (the panel's one request for them all): drawn at once
    const ff = stripRows([...steps.slice(0, 2), st({ penalties_n: 5, penalty_count_token: 1, dry_n: 0, dry_longest: 0, dry_length_token: 0 }, {}, { lazy: true, stateFetched: true })], ['penalties']);
    expect(ff[0].marks.map((m) => [m.fetched, m.ran, m.bar])).toEqual([[true, false, NaN], [true, true, 3], [true, true, 5]]);
    // and the rows of a text whose steps are all fast-forwarded are there before their state is
    expect(stripRows([st({}, {}, { lazy: true })], ['penalties']).map((r) => r.id)).toEqual(['penalties']);
    expect([dry.marks[0].bar, dry.marks[0].count, dry.marks[0].dot]).toEqual([4, 2, 0]);
    expect(dry.top).toBe(4);
  });

  it('adaptive-p on a scale of 0 to 1 with its target as the line; no row for a stage off now, nor for a field the engine lacks', () => {
    const s = st({ adaptive_average: 0.31, adaptive_aim: 0.29, adaptive_goal: 0.3, mirostat_mu: NaN });
    const [row] = stripRows([s], ['adaptive_p']);
    expect([row.id, row.top, row.marks[0].bar, row.marks[0].dot, row.marks[0].line]).toEqual(['adaptive', 1, 0.31, 0.29, 0.3]);
    expect(stripRows([s], ['top_p'])).toEqual([]);
    // the watermark's row: only when the engine has its step field
    expect(stripRows([s], ['watermark'])).toEqual([]);
    const green = stripRows([st({ watermark_green: 1 }), st({ watermark_green: 0 }), st({ watermark_green: -1 })], ['watermark']);
    expect(green[0].marks.map((m) => m.bar)).toEqual([1, 0, NaN]);
    expect(green[0].marks.map((m) => m.ran)).toEqual([true, true, false]);
  });

  it('its words in every language of the page: English\'s keys, a name and a one-line explanation per row', async () => {
    const en = (await import('../../web/src/strip/texts/en.js')).default;
    for (const row of ROWS) expect(String(en[`states.${row.id}Tip`]).length, row.id).toBeGreaterThan(60);
    for (const code of ['de', 'es', 'zh']) {
      const t = (await import(`../../web/src/strip/texts/${code}.js`)).default;
      expect(Object.keys(t).sort(), code).toEqual(Object.keys(en).sort());
      const same = Object.keys(en).filter((k) => typeof en[k] === 'string' && en[k].length > 12 && t[k] === en[k]);
      expect(same, code).toEqual([]); // translated
    }
  });

  it('the page fetches the strip for the stages that have a row (lazy.js names them without loading it)', () => {
    expect(LAZY_STAGES).toEqual(STRIP_STAGES);
    expect(new Set(ROWS.map((r) => r.id)).size).toBe(ROWS.length);
  });
});

describe('the engine\'s state fields, as the strip gets them', () => {
  it('Mirostat 2: μ starts at 2τ and moves by η (surprise − τ); the surprise is −log2 of the drawn token\'s probability', async () => {
    const e = await engine('simd');
    const model = e.loadModel(bigram());
    const session = e.createSession(model);
    session.start('', 7);
    const params = { mirostat: 2, mirostat_tau: 3, mirostat_eta: 0.1 };
    let mu = 2 * 3;
    for (let i = 0; i < 20; i++) {
      const rec = session.step(params);
      expect(rec.state.mirostat_mu).toBe(Math.fround(mu));
      expect(rec.state.mirostat_goal).toBe(3); // τ, the step's own record of it
      expect(rec.state.adaptive_goal).toBeNaN();
      expect(rec.state.surprise_bits).toBeCloseTo(-Math.log2(rec.p), 10);
      const summary = summarize({ ...rec, top: rec.top }, { kind: 'step', index: i, params, pieceOf: () => '' });
      expect(summary.state.mirostat_mu).toBe(rec.state.mirostat_mu);
      mu = Math.fround(rec.state.mirostat_mu - 0.1 * (rec.state.surprise_bits - 3));
      expect(rec.state.penalties_n).toBe(-1); // off
      expect(rec.state.dry_n).toBe(-1);
      expect(rec.state.adaptive_average).toBeNaN();
    }
    // a peek has no drawn token: its numbers about the token are NaN
    const peeked = summarize(session.peek(3, params), { kind: 'peek', index: 3, params, pieceOf: () => '' });
    expect(peeked.state.surprise_bits).toBeNaN();
    expect(Number.isFinite(peeked.state.mirostat_mu)).toBe(true);
    session.free();
    model.free();
  });

  it('the penalties: how many distinct tokens of the window, the drawn token\'s count in it; DRY: its candidates and their repeats', async () => {
    const e = await engine('simd');
    const model = e.loadModel(bigram());
    const session = e.createSession(model);
    session.start('', 11);
    const params = { frequency_penalty: 0.2, penalty_last_n: 16, dry_multiplier: 0.8, dry_allowed_length: 1 };
    let sawDry = false;
    for (let i = 0; i < 60; i++) {
      const window = session.tokens.slice(-16);
      const rec = session.step(params);
      expect(rec.state.penalties_n).toBe(new Set(window).size);
      expect(rec.state.penalty_count_token).toBe(window.filter((t) => t === rec.token).length);
      expect(rec.state.dry_n).toBeGreaterThanOrEqual(0);
      expect(rec.state.dry_longest >= 1 || rec.state.dry_n === 0).toBe(true);
      expect(rec.state.dry_length_token).toBeLessThanOrEqual(rec.state.dry_longest);
      if (rec.state.dry_n > 0) sawDry = true;
    }
    expect(sawDry).toBe(true);
    session.free();
    model.free();
  });
});
