// Whether a stage is on is the engine's to say (Engine.activeStages, the
// test its chain runs: sp_stage_active); the page's chain editor shows that
// answer and keeps no rule of its own.  Worked cases, and every switch of
// the registry turning on its own stage and no other.
import { describe, expect, it } from 'vitest';

import { PARAM_SPECS } from '../../web/src/app/params.js';
import { engine } from './helpers.js';

describe.each(['simd', 'scalar'])('the stages settings turn on (%s)', (flavor) => {
  it('none by default', async () => {
    const e = await engine(flavor);
    expect(e.activeStages({})).toEqual([]);
  });

  it('XTC at probability 0.5 and threshold 0.55 is off (two tokens cannot both be at 0.55 or more), and cuts nothing', async () => {
    const e = await engine(flavor);
    expect(e.activeStages({ xtc_probability: 0.5, xtc_threshold: 0.55 })).toEqual([]);
    expect(e.activeStages({ xtc_probability: 0.5, xtc_threshold: 0.5 })).toEqual(['xtc']);
    expect(e.activeStages({ xtc_probability: 0.5 })).toEqual(['xtc']); // threshold 0.1
    // the chain agrees: at 0.55 no token is cut whatever the uniform
    const s = e.createSampler(4);
    const logits = [2, 1.9, -3, -4];
    const off = s.warp(logits, [], { xtc_probability: 1, xtc_threshold: 0.55 });
    expect(off.nKept).toBe(4);
    const on = s.warp(logits, [], { xtc_probability: 1, xtc_threshold: 0.3 });
    expect(on.cuts).toEqual([{ stage: 'xtc', cut: 1, mass: on.probsRaw[0] }]); // the top token goes, the second stays
    s.free();
  });

  it('temperature: T = 1 with a dynamic range is on; mirostat after the chain; a logit bias', async () => {
    const e = await engine(flavor);
    expect(e.activeStages({ temperature: 1, dynatemp_range: 0.5 })).toEqual(['temperature']);
    expect(e.activeStages({ mirostat: 2, top_k: 5 })).toEqual(['top_k', 'mirostat']);
    expect(e.activeStages({ logit_bias: [[3, -Infinity]] }, { vocab: 10 })).toEqual(['bias']);
    expect(() => e.activeStages({ logit_bias: [[30, 1]] }, { vocab: 10 })).toThrow(RangeError);
    expect(() => e.activeStages({ xtc_threshold: 1.5 })).toThrow(/xtc-threshold/);
  });

  it('each switch of the registry, at its "on" value, turns on its own stage and no other', async () => {
    const e = await engine(flavor);
    const switches = PARAM_SPECS.filter((s) => s.isSwitch);
    expect(switches.length).toBeGreaterThanOrEqual(15);
    const wrong = switches.map((s) => [s.key, e.activeStages({ [s.key]: s.on })]).filter(([, on]) => on.length !== 1);
    expect(wrong).toEqual([]);
    for (const s of switches) expect(e.activeStages({ [s.key]: s.on }), s.key).toEqual([s.stage]);
  });
});
