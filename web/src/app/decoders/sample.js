// @ts-check
/**
 * Sampling, one token a Step: the text is the steps' pieces; a Step may be
 * forced (the learner's pick); a constraint applies.
 */

/** @type {import('./index.js').Decoder} */
export const sample = {
  timeTravel: true,
  forcing: true,
  constrains: true,
  previews: true,
  count: (p) => p.steps.value.length,
  generated: (p) => p.steps.value.length,
  text: (p) => p.steps.value.map((st) => st.piece).join(''),
  start: (p, run) => p.client.request('start', {
    session: p.session, prompt: run.prompt, seed: p.seed.value, params: run.params, steps: run.count,
    forced: run.forced, samples: p.sampleArg(), constraint: run.engineConstraint, schedule: run.schedule,
  }),
  began(p, res, run) {
    p.beam.value = null;
    p.spec.value = null;
    p.steps.value = res.steps;
    p.forced.value = run.forced.filter(([i]) => i < res.steps.length);
    p.applyNext(res);
    p.constraint.value = run.constraint; // the engine took it
    p.setError('constraint');
  },
  step: (p, params, force) => p.client.request('step', { session: p.session, params, force, samples: p.sampleArg() }),
  stepped(p, res, force) {
    const index = p.steps.value.length;
    p.steps.value = p.steps.value.concat(res.steps);
    if (force >= 0 && res.steps.length) p.forced.value = [...p.forced.value, [index, force]];
    p.applyNext(res);
  },
  ran: (res) => res.steps.length,
};
