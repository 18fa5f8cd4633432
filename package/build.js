// @ts-check
/**
 * build.js — the npm package's own texts, made at build time (vite.config.js,
 * `vite build --mode package`) so they cannot drift from the code:
 *
 *   package.json             package/package.template.json, with the version and
 *                            licence of the repository and `files` = what
 *                            the build wrote
 *   README.md                package/README.md, with the attribute table and
 *                            the Vite example of docs/lessons.md
 *   sampler-playground.d.ts  package/sampler-playground.d.ts, with an
 *                            interface of the element's attributes made
 *                            from the same table
 *
 * The attribute table is docs/lessons.md's, checked against the element's
 * own list (web/src/embed/attrs.js): an attribute missing from the guide,
 * or one the element does not have, stops the build.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { ATTRIBUTES } from '../web/src/embed/attrs.js';

const here = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(here, '..');
export const GUIDE = path.join(ROOT, 'docs/lessons.md');
/** the package's module and its types */
export const MAIN = 'sampler-playground.js';
export const TYPES = 'sampler-playground.d.ts';

const read = (/** @type {string} */ file) => fs.readFileSync(path.join(ROOT, file), 'utf8');

/**
 * @typedef {Object} AttributeRow  one row of the guide's table
 * @property {string[]} names   the attributes it describes
 * @property {string} values
 * @property {string} def
 * @property {string} line      the row as written
 */

/**
 * The guide's attribute table (the first table after "### Attributes"),
 * checked against the element's attributes.
 * @param {string} [guide] the guide's text
 * @returns {{header: string[], rows: AttributeRow[]}}
 */
export function attributeTable(guide = fs.readFileSync(GUIDE, 'utf8')) {
  const at = guide.indexOf('\n### Attributes\n');
  if (at < 0) throw new Error('docs/lessons.md has no "### Attributes" section');
  const lines = guide.slice(at).split('\n');
  const start = lines.findIndex((l) => l.startsWith('|'));
  let end = start;
  while (end < lines.length && lines[end].startsWith('|')) end++;
  const table = lines.slice(start, end);
  const cells = (/** @type {string} */ l) => l.slice(1, l.lastIndexOf('|')).split(' | ').map((c) => c.trim());
  const rows = table.slice(2).map((line) => {
    const [first, values, def] = cells(line);
    const names = [...first.matchAll(/`([a-z-]+)`/g)].map((m) => m[1]);
    return { names, values, def, line };
  });
  const documented = rows.flatMap((r) => r.names);
  const missing = ATTRIBUTES.filter((a) => !documented.includes(a));
  const unknown = documented.filter((a) => !ATTRIBUTES.includes(a));
  const twice = documented.filter((a, i) => documented.indexOf(a) !== i);
  if (missing.length || unknown.length || twice.length) {
    throw new Error(`docs/lessons.md's attribute table and the element's attributes (web/src/embed/attrs.js) differ:${
      missing.length ? ` not in the table: ${missing.join(', ')};` : ''}${
      unknown.length ? ` not attributes of the element: ${unknown.join(', ')};` : ''}${
      twice.length ? ` in the table twice: ${twice.join(', ')};` : ''}`);
  }
  return { header: table.slice(0, 2), rows };
}

/**
 * The guide's example of a named file (the fence after "<!-- bundler example: NAME -->").
 * @param {string} name @param {string} [guide]
 */
export function guideExample(name, guide = fs.readFileSync(GUIDE, 'utf8')) {
  const m = guide.match(new RegExp(`<!-- bundler example: ${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} -->\\n(\`\`\`\\w*\\n[\\s\\S]*?\\n\`\`\`)`));
  if (!m) throw new Error(`docs/lessons.md has no example "${name}"`);
  return m[1];
}

/** the files of the Vite example in docs/lessons.md, in the order the guide shows them */
export const VITE_EXAMPLE = ['vite.config.js', 'index.html', 'lesson.js'];

/** The interface of the element's attributes for the types, one documented property each. */
function attributesInterface() {
  const { rows } = attributeTable();
  const byName = new Map(rows.flatMap((r) => r.names.map((n) => [n, r])));
  const doc = (/** @type {string} */ s) => s.replace(/\*\//g, '*\\/');
  const props = ATTRIBUTES.map((name) => {
    const r = /** @type {AttributeRow} */ (byName.get(name));
    return `  /** ${doc(r.values)}. Default: ${doc(r.def)}. */\n  '${name}'?: string;`;
  });
  return `export interface SamplerPlaygroundAttributes {\n${props.join('\n')}\n}`;
}

/**
 * The package's texts for the files the build wrote.
 * @param {string[]} files  the build's files (the module, the Worker, .wasm, models)
 * @returns {Record<string, string>} file name -> contents
 */
export function packageTexts(files) {
  const root = JSON.parse(read('package.json'));
  const template = JSON.parse(read('package/package.template.json'));
  const pkg = {
    name: template.name,
    version: root.version,
    ...template,
    license: root.license,
    files: [...files, TYPES].sort(),
  };

  const { header, rows } = attributeTable();
  const table = [...header, ...rows.map((r) => r.line)].join('\n');
  const vite = VITE_EXAMPLE.map((f) => `\`${f}\`:\n\n${guideExample(f)}`).join('\n\n');
  const readme = fill(read('package/README.md'), { attributes: table, 'vite example': vite });

  const types = fill(read(`package/${TYPES}`), { attributes: attributesInterface() });
  return { 'package.json': `${JSON.stringify(pkg, null, 2)}\n`, 'README.md': readme, [TYPES]: types };
}

/**
 * Replaces each "<!-- NAME -->" line (or "// <NAME>" in the types) by its text.
 * @param {string} text @param {Record<string, string>} parts
 */
function fill(text, parts) {
  let out = text;
  for (const [name, value] of Object.entries(parts)) {
    const marker = new RegExp(`^(<!-- ${name} -->|// <${name}>)$`, 'm');
    if (!marker.test(out)) throw new Error(`package template: no "${name}" marker`);
    out = out.replace(marker, () => value);
  }
  return out;
}
