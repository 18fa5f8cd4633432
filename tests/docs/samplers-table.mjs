// docs/samplers.md's parameter table, made from the engine's registry
// (`build/sampler params`): `node tests/docs/samplers-table.mjs` rewrites
// the table between its markers; tests/js/docs.test.js fails when the
// table in the file is not this one.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const DOC = path.join(ROOT, 'docs/samplers.md');
const BEGIN = '<!-- params:begin (node tests/docs/samplers-table.mjs) -->';
const END = '<!-- params:end -->';

/** the registry, from the native CLI */
export function registry() {
  const r = spawnSync(path.join(ROOT, 'build/sampler'), ['params'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`build/sampler params failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

const num = (x) => (x === null ? '∞' : String(x));

/** a parameter's range in words: the engine's (sp_param_range_text), and whole for an integer */
const range = (p) => `${p.range}${p.type === 'int' ? ' whole' : ''}`;

/** a slider's span (top-k's end: the model's vocabulary) */
const span = (p) => `${num(p.uiMin).replace('-', '−')} … ${p.name === 'top_k' ? 'vocabulary' : num(p.uiMax)}`;

/** The table, as markdown. */
export function table(reg = registry()) {
  const rows = reg.params.map((p) => `| \`${p.name}\` | \`--${p.flag}\` | ${p.stage} | ${range(p)} | ${span(p)} | ${num(p.neutral)} | ${p.doc} |`);
  return ['| name (link, API) | CLI flag / element attribute | stage | range | slider | neutral | what it does |', '| --- | --- | --- | --- | --- | --- | --- |', ...rows].join('\n');
}

/** The table as it stands in docs/samplers.md. */
export function tableInDoc(text = fs.readFileSync(DOC, 'utf8')) {
  const a = text.indexOf(BEGIN);
  const b = text.indexOf(END);
  if (a < 0 || b < a) throw new Error(`${DOC} has no ${BEGIN} ... ${END}`);
  return text.slice(a + BEGIN.length, b).trim();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const text = fs.readFileSync(DOC, 'utf8');
  const a = text.indexOf(BEGIN);
  const b = text.indexOf(END);
  fs.writeFileSync(DOC, `${text.slice(0, a + BEGIN.length)}\n${table()}\n${text.slice(b)}`);
  console.log(`wrote the parameter table of ${path.relative(ROOT, DOC)}`);
}
