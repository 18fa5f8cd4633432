// The rooms of web/src keep to their side of the data's path: the engine
// Worker (worker/, and what it imports) never reaches the app layer (app/,
// components/, embed/), and the engine wrapper (engine/) reaches nothing
// but itself and shared/.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { ROOT } from './helpers.js';

const SRC = path.join(ROOT, 'web/src');

/** Every module a module imports, transitively (relative imports only). */
function importsOf(file, seen = new Set()) {
  if (seen.has(file)) return seen;
  seen.add(file);
  const text = fs.readFileSync(file, 'utf8');
  for (const m of text.matchAll(/^\s*(?:import|export)\s[^'"]*?from\s+'(\.[^']+)'|^\s*import\s+'(\.[^']+)'/gm)) {
    const spec = (m[1] ?? m[2]).replace(/\?.*$/, '');
    const target = path.resolve(path.dirname(file), spec);
    if (fs.existsSync(target) && fs.statSync(target).isFile()) importsOf(target, seen);
  }
  return seen;
}

const rel = (files) => [...files].map((f) => path.relative(SRC, f)).sort();

describe('layers', () => {
  it('the engine Worker imports no app, component or element code', () => {
    const files = rel(importsOf(path.join(SRC, 'worker/engine.worker.js')));
    expect(files).toContain('worker/host.js');
    expect(files).toContain('engine/engine.js');
    expect(files.filter((f) => /^(app|components|embed)\//.test(f))).toEqual([]);
  });

  it('the engine wrapper imports only the engine and shared/', () => {
    for (const f of ['engine/engine.js', 'engine/browser.js', 'engine/node.js']) {
      const files = rel(importsOf(path.join(SRC, f)));
      // (shared/manifest.js reads models/manifest.json: data, the one list of the shipped models)
      expect(files.filter((x) => !/^(engine|shared)\//.test(x) && x !== '../../models/manifest.json'), f).toEqual([]);
    }
  });
});
