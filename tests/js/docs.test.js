// The docs say what the code does: docs/samplers.md's parameter table is
// the engine's registry (tests/docs/samplers-table.mjs makes it), and the
// page documents every stage of the chain.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';

import { DOC, registry, table, tableInDoc } from '../docs/samplers-table.mjs';

describe('docs/samplers.md', () => {
  it('its parameter table is the engine\'s registry (node tests/docs/samplers-table.mjs rewrites it)', () => {
    expect(tableInDoc()).toBe(table());
  });

  it('explains every stage of the chain, and says why tail-free sampling is not there', () => {
    const text = fs.readFileSync(DOC, 'utf8');
    for (const s of registry().stages) expect(text, s.name).toContain(`### ${s.label}`);
    expect(text).toContain('### Mirostat');
    expect(text).toMatch(/tail-free/i);
  });
});
