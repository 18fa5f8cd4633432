// @ts-check
/**
 * Words, not ids: the bad words stage's and the sequence bias stage's
 * field (a lazy chunk, fetched when one of those stages is opened: few
 * visits do, and the page's first load stays within its budget).  The
 * learner types words, one a line ("word=bias" for a bias); the engine
 * makes each the model's tokens (HF's NoBadWordsLogitsProcessor /
 * SequenceBiasLogitsProcessor) and refuses, with its own message, a word
 * it cannot take.  The field's few words are in words.texts.js, in the
 * four languages, rather than in the page's catalogues (which every visit
 * loads).
 */
import { useState } from 'preact/hooks';

import { useI18n } from './I18n.jsx';
import { WORDS } from './words.texts.js';

/** @typedef {import('../app/panel.js').Panel} Panel */


/** @param {string} lang @param {string} key @param {Record<string, string | number>} [values] */
function say(lang, key, values = {}) {
  const table = WORDS[String(lang).split('-')[0]] ?? WORDS.en;
  return (table[key] ?? WORDS.en[key]).replace(/\{(\w+)\}/g, (_, k) => String(values[k] ?? ''));
}

/** The list as lines: a word a line, or word=bias. @param {'bad' | 'bias'} kind @param {Array<string | [string, number]>} list */
export function wordsText(kind, list) {
  return list.map((w) => (kind === 'bad' ? String(w) : `${/** @type {[string, number]} */ (w)[0]}=${/** @type {[string, number]} */ (w)[1]}`)).join('\n');
}

/**
 * Lines into a list: each non-empty line a word (kept as typed: a space
 * before a word is part of it), or word=bias split at the last "=".
 * @param {'bad' | 'bias'} kind @param {string} text
 * @returns {{list: Array<string | [string, number]>, bad: Array<{n: number, text: string}>}}
 */
export function parseWords(kind, text) {
  /** @type {Array<string | [string, number]>} */
  const list = [];
  /** @type {Array<{n: number, text: string}>} */
  const bad = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.replace(/\r$/, '');
    if (line.trim() === '') return;
    if (kind === 'bad') {
      list.push(line);
      return;
    }
    const at = line.lastIndexOf('=');
    const value = at > 0 ? Number(line.slice(at + 1).trim()) : NaN;
    if (at <= 0 || line.slice(at + 1).trim() === '' || !Number.isFinite(value)) bad.push({ n: i + 1, text: line });
    else list.push([line.slice(0, at), value]);
  });
  return { list, bad };
}

/**
 * The field of one of the two stages.
 * @param {{panel: Pick<Panel, 'badWords' | 'seqBias' | 'setWords'>, kind: 'bad' | 'bias', uid: string, onChanged?: () => void}} props
 */
export function WordsField({ panel, kind, uid, onChanged }) {
  const { lang } = useI18n();
  const list = kind === 'bad' ? panel.badWords.value : panel.seqBias.value;
  const shown = wordsText(kind, list);
  const [text, setText] = useState(/** @type {string | null} */ (null));
  const [notes, setNotes] = useState(/** @type {string[]} */ ([]));
  const value = text ?? shown;
  const id = `${uid}-words-${kind}`;
  const apply = async () => {
    const read = parseWords(kind, value);
    const why = await panel.setWords(kind, read.list);
    setNotes([...read.bad.map((b) => say(lang, 'line', b)), ...why]);
    setText(null);
    onChanged?.();
  };
  return (
    <div class="spg-field spg-words" data-testid={`words-${kind}`}>
      <label class="spg-label" for={id}>{say(lang, kind)}</label>
      <textarea
        id={id}
        rows={3}
        class="spg-mono"
        value={value}
        spellcheck={false}
        autocomplete="off"
        data-testid={`words-${kind}-text`}
        onInput={(e) => setText(/** @type {HTMLTextAreaElement} */ (e.currentTarget).value)}
      />
      <div class="spg-row">
        <button type="button" class="spg-btn spg-btn-small" data-testid={`words-${kind}-apply`} disabled={value === shown} onClick={apply}>
          {say(lang, 'apply')}
        </button>
      </div>
      <small class="spg-hint">{say(lang, `${kind}Hint`)}</small>
      {notes.length > 0 && (
        <p class="spg-calm" role="status" data-testid={`words-${kind}-error`}>{say(lang, 'refused')} {notes.join(' ')}</p>
      )}
    </div>
  );
}
