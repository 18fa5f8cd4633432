// @ts-check
/**
 * Speculative decoding, one round a Step: the draft model proposes, the
 * panel's model verifies; the text is every round's tokens.
 */

import { LOOKUP, LOOKUP_NGRAM } from '../lab.js';

/**
 * Adds an answer's rounds.
 * @param {import('./index.js').PanelState} p @param {any} res
 */
function applyRounds(p, res) {
  const old = p.spec.value ?? { rounds: [], tokens: [], totals: res.totals, draft: res.draft, n: res.n, ngram: res.ngram, work: res.work };
  p.spec.value = {
    rounds: old.rounds.concat(res.rounds),
    tokens: old.tokens.concat(res.rounds.flatMap((/** @type {import('../../worker/protocol.js').SpecRound} */ r) => r.tokens)),
    totals: res.totals,
    draft: res.draft,
    n: res.n,
    ngram: res.ngram,
    work: res.work,
  };
}

/** @type {import('./index.js').Decoder} */
export const speculative = {
  timeTravel: true,
  forcing: false,
  constrains: true,
  previews: true,
  count: (p) => p.spec.value?.rounds.length ?? 0,
  generated: (p) => p.spec.value?.tokens.length ?? 0,
  text: (p) => (p.spec.value?.tokens ?? []).map((t) => t.piece).join(''),
  async start(p, run) {
    // prompt lookup ('lookup'): the text drafts, no model to load
    const { draft, n, ngram } = p.specOpts.value;
    const lookup = draft === LOOKUP;
    if (!lookup) await p.ensureModel(draft, 'spec');
    return p.client.request('specStart', {
      session: p.session, draft: lookup ? '' : draft, n, ngram: lookup ? ngram ?? LOOKUP_NGRAM.def : 0, prompt: run.prompt, seed: p.seed.value,
      params: run.params, rounds: run.count, samples: p.sampleArg(), schedule: run.schedule, constraint: run.engineConstraint,
    });
  },
  began(p, res, run) {
    p.beam.value = null;
    p.spec.value = { rounds: [], tokens: [], totals: res.totals, draft: res.draft, n: res.n, ngram: res.ngram, work: res.work };
    p.constraint.value = run.constraint; // the engine took it
    p.setError('constraint');
    p.steps.value = res.steps;
    p.forced.value = [];
    applyRounds(p, res);
    p.applyNext(res);
  },
  step: (p, params) => p.client.request('specRound', { session: p.session, params, samples: p.sampleArg() }),
  stepped(p, res) {
    p.steps.value = p.steps.value.concat(res.steps);
    applyRounds(p, res);
    p.applyNext(res);
  },
  ran: (res) => res.rounds.length,
};
