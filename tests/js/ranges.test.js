// One range per parameter: what a link or an element's attribute is asked
// (Engine.paramRefusals, the engine's sp_param_refusal: the values the page
// keeps) is exactly what a warp takes — the same values accepted, the same
// refused — for every parameter of the registry, at and around each end of
// its range, at a fraction for the whole-number ones, and at the extremes a
// link can write: ±Infinity, 1e308 (finite in JavaScript, infinity in the
// engine's float), −0, NaN, huge integers, numbers below the smallest float.
import { describe, expect, it } from 'vitest';

import { PARAM_SPECS } from '../../web/src/app/params.js';
import { engine } from './helpers.js';

/** the registry's range ends, from the generated registry (null: open-ended) */
import registry from '../../web/src/shared/registry.gen.js';

const EXTREMES = [Infinity, -Infinity, 1e308, -1e308, -0, NaN, 2 ** 31, -(2 ** 31) - 1, 2 ** 31 - 1, 1e20, -1e20, 2 ** 53 + 2, 1e-50, -1e-50, 3.4e38, 3.5e38, 5e-324];

/** values worth trying for a parameter: its ends, just past them, its slider's span doubled, a fraction, the extremes */
function probes(spec) {
  const p = registry.params.find((x) => x.name === spec.key);
  const out = [0, 1, 0.5, 1.5, -1, 2, 3, 5, 1000, spec.def, spec.min, spec.max, 2 * spec.max, spec.on, ...EXTREMES];
  for (const end of [p.min, p.max]) {
    if (end !== null) out.push(end, end - 1e-3, end + 1e-3, end - 1, end + 1);
  }
  return [...new Set(out)];
}

describe.each(['simd', 'scalar'])('a link\'s check and the engine (%s) take the same values', (flavor) => {
  it.each(PARAM_SPECS.map((s) => [s.key, s]))('%s', async (key, spec) => {
    const e = await engine(flavor);
    const sampler = e.createSampler(100000);
    const logits = new Float32Array(100000);
    const warpTakes = (v) => {
      try {
        sampler.warp(logits, [], { [key]: v }, { uncond: logits }); // (classifier-free guidance mixes in a second run's logits)
        return true;
      } catch (err) {
        if (!(err instanceof RangeError)) throw err;
        return false;
      }
    };
    const disagree = probes(spec).filter((v) => (e.paramRefusals({ [key]: v }).length === 0) !== warpTakes(v));
    sampler.free();
    expect(disagree).toEqual([]);
  });
});

describe('why the engine refuses a value', () => {
  it('names the reason and the engine\'s range', async () => {
    const e = await engine('simd');
    const why = (key, v) => e.paramRefusals({ [key]: v }).map(({ reason, range }) => `${reason} ${range}`);
    expect(why('temperature', 1e308)).toEqual(['finite [0, ∞)']);
    expect(why('temperature', Infinity)).toEqual(['finite [0, ∞)']);
    expect(why('temperature', NaN)).toEqual(['number [0, ∞)']);
    expect(why('temperature', -0)).toEqual([]);
    expect(why('top_p', 7)).toEqual(['range (0, 1]']);
    expect(why('top_p', 1e-50)).toEqual(['range (0, 1]']); // 0 in the engine's float
    expect(why('top_k', 2.5)).toEqual(['whole [0, 2147483647]']);
    expect(why('top_k', 1e20)).toEqual(['range [0, 2147483647]']);
    expect(why('top_k', -Infinity)).toEqual(['finite [0, 2147483647]']);
    // together: mirostat picks the token, and so would adaptive-p (the engine's line says so)
    const both = e.paramRefusals({ mirostat: 2, adaptive_target: 0.3 });
    expect(both.map((r) => [r.key, r.reason])).toEqual([['adaptive_target', 'together']]);
    expect(both[0].message).toMatch(/mirostat and adaptive-target are both set/);
    // a setting whose stage the order leaves out
    expect(e.paramRefusals({ top_p: 0.9 }, 'temperature,top_k').map((r) => [r.key, r.reason])).toEqual([['top_p', 'together']]);
    expect(e.paramRefusals({ top_p: 0.9, temperature: 0.5 }, 'temperature,top_p')).toEqual([]);
  });
});
