// No English left in the components: every word the page shows comes from
// the catalogue (web/src/i18n/; the course's, web/src/learn/, from its
// own).  The components (web/src/components, web/src/embed/*.jsx,
// web/src/main.jsx, the course's web/src/learn/**/*.jsx) are parsed (TypeScript's parser)
// and this fails on
//   - JSX text with a letter in it;
//   - a visible attribute (title, aria-label, placeholder, alt, label,
//     aria-valuetext, aria-roledescription, aria-description) given a text
//     with a letter, or an expression holding such a literal;
//   - a string or template literal with a letter among a JSX child's
//     expressions;
//   - anywhere in the file, a literal that reads like prose (two words in
//     a row) or a capitalised word ("Pause"): a label kept in a constant.
// Literals are fine as a call's arguments (t('bars.label'), catalogue
// keys, selectors), in comparisons (how === 'beam'), as object keys, in
// imports and in attributes no one reads (class, data-*, id, …).  A short
// list allows the few capitalised words that are not words to translate
// (key names).  A file another branch adds with English in it fails here:
// move its words into en.js (and the other catalogues).
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SRC = path.join(ROOT, 'web/src');

/** the files that draw the page */
export function componentFiles() {
  const under = (dir) => fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory()
    ? under(path.join(dir, e.name)) : [path.join(dir, e.name)]));
  return [
    ...under(path.join(SRC, 'components')).filter((f) => f.endsWith('.jsx')),
    ...under(path.join(SRC, 'learn')).filter((f) => f.endsWith('.jsx')),
    ...fs.readdirSync(path.join(SRC, 'embed')).filter((f) => f.endsWith('.jsx')).map((f) => path.join(SRC, 'embed', f)),
    path.join(SRC, 'main.jsx'),
  ].filter((f) => !/\.test\.jsx$/.test(f)).sort();
}

const VISIBLE = new Set(['title', 'aria-label', 'placeholder', 'alt', 'label', 'aria-valuetext', 'aria-roledescription', 'aria-description']);
/** what reads like a word but is none to translate: keyboard keys, error names, a regex's example */
const ALLOWED = new Set(['[A-Z][a-z]{2,6}', 'ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight', 'Home', 'End', 'Escape', 'Enter', 'PageUp', 'PageDown', 'Tab',
  'ConstraintError', 'DraftError', 'Error']);

const LETTER = /\p{L}/u;
/** two words in a row, or a capitalised word: a label or a sentence */
const PROSE = /(^|[\s(“"])\p{L}[\p{L}’']*[,:;]?\s+\p{L}[\p{L}’']*/u;
const CAPITALISED = /^[A-Z][a-z]+$/;

/** the text of a literal node (a template's fixed parts) */
function literalText(node) {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node)) return [node.head.text, ...node.templateSpans.map((s) => s.literal.text)].join('');
  return null;
}

/** Whether a literal is somewhere its words are not shown: a call's argument, a comparison, a key, an import. */
function quiet(node) {
  let child = node;
  for (let p = node.parent; p; child = p, p = p.parent) {
    if (ts.isCallExpression(p) && p.arguments.includes(child)) return true;
    if (ts.isBinaryExpression(p) && [ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken,
      ts.SyntaxKind.EqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsToken, ts.SyntaxKind.InKeyword].includes(p.operatorToken.kind)) return true;
    if (ts.isPropertyAssignment(p) && p.name === child) return true;
    if (ts.isElementAccessExpression(p) && p.argumentExpression === child) return true;
    if (ts.isImportDeclaration(p) || ts.isExportDeclaration(p)) return true;
    if (ts.isCaseClause(p) && p.expression === child) return true;
    if (ts.isJsxAttribute(p)) return !VISIBLE.has(p.name.getText());
    if (ts.isJsxElement(p) || ts.isJsxSelfClosingElement(p) || ts.isJsxFragment(p) || ts.isBlock(p) || ts.isSourceFile(p)) return false;
  }
  return false;
}

/**
 * English literals a component file shows.
 * @param {string} file
 * @returns {string[]} "line: text"
 */
export function englishIn(file) {
  const text = fs.readFileSync(file, 'utf8');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.JSX);
  const found = [];
  const at = (node) => `${path.relative(ROOT, file)}:${sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1}`;
  /** inside a JSX child expression or a visible attribute's */
  const shownExpression = (node) => {
    for (let p = node.parent; p; p = p.parent) {
      if (ts.isJsxExpression(p)) {
        const owner = p.parent;
        if (ts.isJsxAttribute(owner)) return VISIBLE.has(owner.name.getText());
        return ts.isJsxElement(owner) || ts.isJsxFragment(owner);
      }
      if (ts.isJsxElement(p) || ts.isJsxSelfClosingElement(p) || ts.isArrowFunction(p) || ts.isFunctionDeclaration(p)) return false;
    }
    return false;
  };
  const visit = (node) => {
    if (ts.isJsxText(node)) {
      const t = node.getText(sf).trim();
      if (LETTER.test(t)) found.push(`${at(node)}: ${t}`);
    } else if (ts.isJsxAttribute(node) && node.initializer && ts.isStringLiteral(node.initializer)) {
      const t = node.initializer.text;
      if (VISIBLE.has(node.name.getText()) && LETTER.test(t) && !ALLOWED.has(t)) found.push(`${at(node)}: ${node.name.getText()}="${t}"`);
      return;
    } else {
      const t = literalText(node);
      if (t !== null && !quiet(node) && !ALLOWED.has(t.trim())) {
        const shown = shownExpression(node) && LETTER.test(t);
        const prose = !/\bspg-/.test(t) && (PROSE.test(t) || CAPITALISED.test(t.trim()));
        if (shown || prose) found.push(`${at(node)}: ${JSON.stringify(t)}`);
      }
      if (ts.isTemplateExpression(node)) {
        for (const s of node.templateSpans) visit(s.expression);
        return;
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

describe('the components show no English of their own', () => {
  it('finds English where it is (the scanner itself)', () => {
    const dir = fs.mkdtempSync(path.join(ROOT, 'build/literals-'));
    const probe = path.join(dir, 'Probe.jsx');
    fs.writeFileSync(probe, `
const LABELS = [['a', 'Linear'], ['b', 'Two words']];
export function Probe({ t, on }) {
  return (
    <div class="spg-a spg-b" data-testid="probe" title="A title" aria-label={on ? 'Pause' : t('transport.play')}>
      Step
      {on ? ' Click a bar.' : t('x.y')}
      {\`\${3} steps\`}
      <span aria-hidden="true">⋮⋮ ×</span>
      {on === 'beam' && t('z')}
    </div>
  );
}`);
    try {
      const found = englishIn(probe).map((f) => f.replace(/^[^:]*:\d+: /, ''));
      expect(found).toEqual(['"Linear"', '"Two words"', 'title="A title"', '"Pause"', 'Step', '" Click a bar."', '" steps"']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('every component: its words come from the catalogue', () => {
    const files = componentFiles();
    expect(files.length).toBeGreaterThan(15);
    expect(files.flatMap(englishIn)).toEqual([]);
  });
});
