// @ts-check
/**
 * Beam search, one expansion a Step: the text is the best beam's; no
 * random numbers, no next-token distribution of its own.
 */

/**
 * Folds a beam answer in.
 * @param {import('./index.js').PanelState} p @param {any} res
 */
function applyBeam(p, res) {
  p.beam.value = {
    hypotheses: res.hypotheses, live: res.live, expansions: res.expansions, width: res.width, lengthPenalty: res.lengthPenalty,
    ...(res.groups > 1 || res.diversity ? { groups: res.groups, diversity: res.diversity } : {}),
  };
  p.status.value = res.status;
  p.steps.value = res.steps; // the best beam's: it may change every Step
  p.applyLab(res.lab, res.status.nGenerated);
}

/** @type {import('./index.js').Decoder} */
export const beam = {
  timeTravel: true,
  forcing: false,
  constrains: true,
  previews: false,
  count: (p) => p.beam.value?.expansions ?? 0,
  generated: (p) => p.status.value?.nGenerated ?? 0,
  // under a constraint, the best hypothesis that is complete (a match)
  text: (p) => {
    const hs = p.beam.value?.hypotheses ?? [];
    const done = p.constraint.value.kind !== 'none' ? hs.find((h) => h.finished) : null;
    return (done ?? hs[0])?.text ?? '';
  },
  start: (p, run) => p.client.request('beamStart', {
    session: p.session, prompt: run.prompt, width: p.beamOpts.value.width, lengthPenalty: p.beamOpts.value.lengthPenalty,
    groups: p.beamOpts.value.groups ?? 1, diversity: p.beamOpts.value.diversity ?? 0,
    params: run.params, steps: run.count, schedule: run.schedule, constraint: run.engineConstraint,
  }),
  began(p, res, run) {
    p.constraint.value = run.constraint; // the engine took it
    p.setError('constraint');
    p.forced.value = [];
    p.next.value = null;
    p.samples.value = null;
    p.spec.value = null;
    applyBeam(p, res);
  },
  step: (p, params) => p.client.request('beamStep', { session: p.session, params }),
  stepped: (p, res) => applyBeam(p, res),
  ran: (res) => res.expansions,
};
