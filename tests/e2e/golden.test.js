// The shipped links (tests/golden/cases.js) still give their pinned texts on
// the built page in Chromium: old playground links load unchanged.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { LINK_CASES } from '../golden/cases.js';
import { pageTexts } from '../golden/run.js';
import { ROOT } from './fixtures.js';
import { skipWithoutChromium, useBrowser } from './harness.js';

const golden = JSON.parse(fs.readFileSync(path.join(ROOT, 'tests/golden/links.golden.json'), 'utf8'));

describe.skipIf(skipWithoutChromium)('golden links', () => {
  const { h } = useBrowser();
  it('every pinned link gives its pinned text', async () => {
    expect(Object.keys(golden).sort()).toEqual(LINK_CASES.map((c) => c.name).sort());
    const texts = await pageTexts(LINK_CASES, h.browser, h.server.url);
    for (const c of LINK_CASES) expect([c.name, texts[c.name]]).toEqual([c.name, golden[c.name]]);
  }, 180_000); // every pinned link loaded in a page: about 25 s on an idle machine
});
