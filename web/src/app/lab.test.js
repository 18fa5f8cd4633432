// The presets and the compact panel format of compare links.
import { describe, expect, it } from 'vitest';

import { english } from '../i18n/index.js';
import { PRESETS, defaultPanelSpec, matchPreset, parseBans, parsePanelSpec, presetParams, serializePanelSpec } from './lab.js';
import { defaultParams } from './params.js';
import { panelChecked } from './linkCheck.js';
import { loadEngineNode } from '../engine/node.js';

describe('presets', () => {
  it('are the issue\'s five, over the neutral settings', () => {
    expect(PRESETS.map((p) => [english().t(p.label), presetParams(p.id).temperature, presetParams(p.id).top_p])).toEqual([
      ['Greedy', 0, 1], ['Factual', 0.3, 0.7], ['Balanced', 0.7, 0.9], ['Creative', 1, 0.95], ['Chaos', 2, 1],
    ]);
    expect(presetParams('nope')).toEqual(defaultParams());
  });

  it('are recognized exactly, else "custom"', () => {
    expect(matchPreset(presetParams('factual'))).toBe('factual');
    expect(matchPreset({ ...presetParams('factual'), top_k: 5 })).toBe('custom');
    expect(matchPreset(defaultParams())).toBe('custom');
  });
});

describe('the panel format', () => {
  it('writes the shortest form: the preset needing the fewest fields', () => {
    expect(serializePanelSpec(defaultPanelSpec('chaos'))).toBe('chaos');
    expect(serializePanelSpec({ ...defaultPanelSpec(), params: { ...presetParams('balanced'), top_k: 40 } })).toBe('balanced_k40');
    expect(serializePanelSpec({ ...defaultPanelSpec(), params: { ...defaultParams(), temperature: 0.5, min_p: 0.05 } })).toBe('custom_t0.5_m0.05');
    expect(serializePanelSpec(defaultPanelSpec())).toBe('custom');
    expect(serializePanelSpec({ ...defaultPanelSpec('greedy'), strategy: 'beam', beam: { width: 1, lengthPenalty: 0 } })).toBe('greedy_beam1_lp0');
    expect(serializePanelSpec({ ...defaultPanelSpec('creative'), strategy: 'speculative', spec: { draft: 'transformer', n: 2 } })).toBe('creative_spec2-transformer');
    expect(serializePanelSpec({ ...defaultPanelSpec('creative'), strategy: 'speculative', spec: { draft: 'file-1', n: 2 } })).toBe('creative_spec2-file');
  });

  it('round-trips', () => {
    for (const text of ['greedy', 'factual_r1.2', 'balanced_k40_beam8_lp1.5', 'factual_p0.5_m0.1_spec8', 'custom_t0.4_p0.5_m0.1', 'chaos_ban1.2.3', 'creative_spec1-transformer_ban7']) {
      const { spec, notices } = parsePanelSpec(text);
      expect(notices).toEqual([]);
      expect(serializePanelSpec(spec)).toBe(text);
    }
  });

  it('carries diverse beam search and prompt lookup, as a single panel\'s link does', () => {
    const beam = { ...defaultPanelSpec('greedy'), strategy: 'beam', beam: { width: 4, lengthPenalty: 1, groups: 2, diversity: 0.5 } };
    expect(serializePanelSpec(beam)).toBe('greedy_beam4_lp1_bg2_dv0.5');
    expect(parsePanelSpec('greedy_beam4_lp1_bg2_dv0.5')).toEqual({ spec: beam, notices: [] });
    const lookup = { ...defaultPanelSpec('balanced'), strategy: 'speculative', spec: { draft: 'lookup', n: 3, ngram: 3 } };
    expect(serializePanelSpec(lookup)).toBe('balanced_lng3_spec3-lookup');
    expect(parsePanelSpec('balanced_lng3_spec3-lookup')).toEqual({ spec: lookup, notices: [] });
    expect(parsePanelSpec('balanced_spec2-lookup').spec.spec).toEqual({ draft: 'lookup', n: 2, ngram: 2 }); // the n-gram's default
    // what it cannot read is said, the rest kept
    const bad = parsePanelSpec('greedy_beam4_lp1_bg3_dv9_lng7_spec9-lookup');
    expect([bad.spec.strategy, bad.spec.beam.width, bad.spec.beam.groups, bad.spec.beam.diversity]).toEqual(['beam', 4, undefined, undefined]);
    expect(bad.notices.map(String)).toHaveLength(4);
    expect(bad.notices.map(String)[0]).toMatch(/^"dv9": /);
    expect(bad.notices.map(String)[3]).toMatch(/^"bg3": .*divisors of beams=4/);
  });

  it('names what it cannot read, keeping the rest; the engine says which settings it refuses', async () => {
    const { spec: read, notices } = parsePanelSpec('balanced_k-3_beam0_lp7_spec9_ban1.x_spec2-file');
    expect(read.params).toEqual({ ...presetParams('balanced'), top_k: -3 });
    const e = await loadEngineNode('simd');
    const { spec, whys } = await panelChecked(read, async (values, samplers) => ({ refused: e.paramRefusals(values, samplers) }));
    expect(whys.map(String)).toEqual(['"k-3": Top-k must be in [0, 2147483647]']);
    expect(spec.params).toEqual(presetParams('balanced'));
    expect(spec.strategy).toBe('speculative');
    expect(spec.spec).toEqual({ draft: 'bigram', n: 2 });
    expect(notices.map(String)).toEqual([
      '"beam0": the beam width must be a whole number from 1 to 8',
      '"lp7": the length penalty must be between 0 and 2',
      '"spec9": the draft length must be a whole number from 1 to 8',
      'unknown field "ban1.x"',
      '"spec2-file": a link cannot carry a draft model loaded from a file; drafting with bigram',
    ]);
  });

  it('reads ban lists, deduplicated and sorted', () => {
    expect(parseBans('40,12,40', ',')).toEqual([12, 40]);
    expect(parseBans('', ',')).toEqual([]);
    expect(parseBans('1,,2', ',')).toBeNull();
    expect(parseBans(Array.from({ length: 65 }, (_, i) => i).join(','), ',')).toBeNull();
  });
});
