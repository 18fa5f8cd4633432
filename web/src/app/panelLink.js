// @ts-check
/**
 * panelLink.js — a compare panel's text in a link and back (lab.js has
 * the format): the preset that needs the fewest fields, then the fields;
 * the strategy's options with it (beam search's width and length penalty,
 * diverse beam search's groups and diversity penalty, speculative
 * decoding's draft and its length, prompt lookup's longest n-gram).
 */
import { PARAM_SPECS } from './params.js';
import { msg } from '../i18n/index.js';
import {
  DRAFT_MODELS, LEGACY_LENGTH_PENALTY, LOOKUP, LOOKUP_NGRAM, PRESETS, SHORT_OF, applySettingField, biasesText, breakersField,
  defaultPanelSpec, diversityError, groupsError, ngramError, orderField, penaltyError, presetParams, speculateError, widthError,
} from './lab.js';

/** @typedef {import('./lab.js').PanelSpec} PanelSpec */

/** the strategies' option fields besides beamN, lpX and specN[-MODEL]: each one number (a
 * function: lab.js re-exports this module, whose checks are not there yet when it is read) */
const optionFields = () => /** @type {Array<[RegExp, (v: number) => any, (spec: PanelSpec, v: number) => void]>} */ ([
  [/^bg([0-9]+)$/, groupsError, (spec, v) => { spec.beam.groups = v; }],
  [/^dv([0-9]+(?:\.[0-9]+)?)$/, diversityError, (spec, v) => { spec.beam.diversity = v; }],
  [/^lng([0-9]+)$/, ngramError, (spec, v) => { spec.spec.ngram = v; }],
  [/^spec([0-9]+)-lookup$/, speculateError, (spec, v) => {
    spec.strategy = 'speculative';
    spec.spec = { draft: LOOKUP, n: v, ngram: spec.spec.ngram ?? LOOKUP_NGRAM.def };
  }],
]);

/**
 * Parses one panel of a compare link.
 * @param {string} text  e.g. "balanced_k40_beam4"
 * @returns {{spec: PanelSpec, notices: import('../i18n/index.js').Msg[]}}
 */
export function parsePanelSpec(text) {
  const notices = [];
  const [head, ...fields] = text.split('_');
  let preset = head;
  if (preset !== 'custom' && !PRESETS.some((p) => p.id === preset)) {
    notices.push(msg('why.preset', { name: head, list: [...PRESETS.map((p) => p.id), 'custom'].join(', ') }));
    preset = 'custom';
  }
  const spec = defaultPanelSpec(preset);
  for (const f of fields) {
    let m, opt;
    const setting = applySettingField(f, spec);
    if (setting !== null) {
      if (setting) notices.push(msg('why.field', { field: f, why: setting }));
    } else if ((m = /^beam([0-9]+)$/.exec(f))) {
      const v = Number(m[1]);
      const why = widthError(v);
      if (why) notices.push(msg('why.field', { field: f, why }));
      else {
        spec.strategy = 'beam';
        spec.beam.width = v;
        if (!fields.some((x) => x.startsWith('lp'))) spec.beam.lengthPenalty = LEGACY_LENGTH_PENALTY;
      }
    } else if ((m = /^lp([0-9]+(?:\.[0-9]+)?)$/.exec(f))) {
      const v = Number(m[1]);
      const why = penaltyError(v);
      if (why) notices.push(msg('why.field', { field: f, why }));
      else spec.beam.lengthPenalty = v;
    } else if ((opt = optionFields().find(([re]) => re.test(f)))) {
      const v = Number(/** @type {RegExpExecArray} */ (opt[0].exec(f))[1]);
      const why = opt[1](v);
      if (why) notices.push(msg('why.field', { field: f, why }));
      else opt[2](spec, v);
    } else if ((m = /^spec([0-9]+)(?:-([a-z][a-z-]*))?$/.exec(f))) {
      const v = Number(m[1]);
      let draft = m[2] ?? 'bigram';
      const why = speculateError(v) || (DRAFT_MODELS.includes(draft) || draft === 'file' ? '' : msg('why.draft', { list: DRAFT_MODELS.join(', ') }));
      if (why) notices.push(msg('why.field', { field: f, why }));
      else {
        if (draft === 'file') {
          notices.push(msg('why.field', { field: f, why: msg('why.fileDraft') }));
          draft = 'bigram';
        }
        spec.strategy = 'speculative';
        spec.spec = { draft, n: v };
      }
    } else {
      notices.push(msg('why.unknownField', { field: f }));
    }
  }
  // the groups split the beams evenly (else plain beam search)
  if (spec.beam.groups && spec.beam.width % spec.beam.groups !== 0) {
    notices.push(msg('why.field', { field: `bg${spec.beam.groups}`, why: msg('why.range', { name: 'num_beam_groups', range: `divisors of beams=${spec.beam.width}` }) }));
    delete spec.beam.groups;
  }
  return { spec, notices };
}

/**
 * The shortest text of a panel (see the format above).
 * @param {PanelSpec} spec
 */
export function serializePanelSpec(spec) {
  let best = '';
  let bestFields = /** @type {string[] | null} */ (null);
  // ties go to the first: custom (the neutral settings), then the presets
  for (const id of ['custom', ...PRESETS.map((p) => p.id)]) {
    const base = presetParams(id);
    const fields = PARAM_SPECS
      .filter((s) => /** @type {any} */ (spec.params)[s.key] !== /** @type {any} */ (base)[s.key])
      .map((s) => `${SHORT_OF[s.key]}${/** @type {any} */ (spec.params)[s.key]}`);
    if (!bestFields || fields.length < bestFields.length) {
      best = id;
      bestFields = fields;
    }
  }
  const out = [best, ...(bestFields ?? [])];
  if (spec.strategy === 'beam') {
    // the length penalty always goes with the width: "beam4" alone is an
    // older link's, whose penalty was 0
    out.push(`beam${spec.beam.width}`, `lp${spec.beam.lengthPenalty}`);
    // diverse beam search, when on
    if ((spec.beam.groups ?? 1) !== 1 || (spec.beam.diversity ?? 0) !== 0) out.push(`bg${spec.beam.groups ?? 1}`, `dv${spec.beam.diversity ?? 0}`);
  } else if (spec.strategy === 'speculative' && spec.spec.draft === LOOKUP) {
    // prompt lookup: its n-gram first (the lookup field reads it)
    out.push(`lng${spec.spec.ngram ?? LOOKUP_NGRAM.def}`, `spec${spec.spec.n}-lookup`);
  } else if (spec.strategy === 'speculative') {
    const draft = DRAFT_MODELS.includes(spec.spec.draft) ? spec.spec.draft : 'file';
    out.push(`spec${spec.spec.n}${draft === 'bigram' ? '' : `-${draft}`}`);
  }
  if (spec.bans.length) out.push(`ban${spec.bans.join('.')}`);
  if (spec.biases?.length) out.push(`lb${biasesText(spec.biases, '~')}`);
  if (spec.dryBreakers?.length) out.push(`sb${breakersField(spec.dryBreakers)}`);
  if (spec.badWords?.length) out.push(`bw${breakersField(spec.badWords)}`);
  if (spec.seqBias?.length) out.push(`sq${breakersField(spec.seqBias)}`);
  if (spec.samplers) out.push(`o${orderField(spec.samplers)}`);
  return out.join('_');
}
