// One range per parameter: what a link or an element's attribute takes
// (web/src/app/lab.js paramError, from the registry) is exactly what the
// engine takes — the same values accepted, the same refused — for every
// parameter of the registry, at and around each end of its range, and at
// a fraction for the whole-number ones.
import { describe, expect, it } from 'vitest';

import { paramError } from '../../web/src/app/lab.js';
import { PARAM_SPECS } from '../../web/src/app/params.js';
import { engine } from './helpers.js';

/** values worth trying for a parameter: its ends, just past them, its slider's span doubled, a fraction */
function probes(spec) {
  const { min, max } = spec.range;
  const out = [0, 1, 0.5, 1.5, -1, 2, 3, 5, 1000, spec.def, spec.min, spec.max, 2 * spec.max, spec.on];
  for (const end of [min, max]) {
    if (Number.isFinite(end)) out.push(end, end - 1e-3, end + 1e-3, end - 1, end + 1);
  }
  return [...new Set(out)].filter(Number.isFinite);
}

describe.each(['simd', 'scalar'])('the page and the engine (%s) take the same values', (flavor) => {
  it.each(PARAM_SPECS.map((s) => [s.key, s]))('%s', async (key, spec) => {
    const e = await engine(flavor);
    const sampler = e.createSampler(100000);
    const logits = new Float32Array(100000);
    const engineTakes = (v) => {
      try {
        sampler.warp(logits, [], { [key]: v }, { uncond: logits }); // (classifier-free guidance mixes in a second run's logits)
        return true;
      } catch (err) {
        if (!(err instanceof RangeError)) throw err;
        return false;
      }
    };
    const disagree = probes(spec).filter((v) => (paramError(key, v) === '') !== engineTakes(v));
    sampler.free();
    expect(disagree).toEqual([]);
  });
});
