// @ts-check
/**
 * manifest.js — the shipped models, as models/manifest.json lists them:
 * the one list the CLI (c/cli/manifest.c), the Worker, the page, links and
 * drafts read.  Adding a shipped model is one entry there (and its
 * catalogue name).
 */
import manifest from '../../../models/manifest.json';

/**
 * @typedef {{name: string, file: string, kind: string, tokenizer: string | null,
 *   draft: string | null, draft_of: string | null, label: string, catalogue: string,
 *   missing: string}} ShippedModel
 */

/** @type {ShippedModel[]} in the manifest's order; the first is the default model */
export const SHIPPED = manifest.models;

/** the default model's name (the manifest's first) */
export const DEFAULT_MODEL = SHIPPED[0].name;

/** The key a file's URL goes by in the Worker's files (and a fragment's
 * JSON): its name without ".bin", in camel case (bible_tiny.bin -> bibleTiny).
 * @param {string} file */
export const fileKey = (file) => file.replace(/\.bin$/, '').replace(/_([a-z])/g, (_, c) => c.toUpperCase());

/** every file the shipped models need (models and tokenizers), once each */
export const SHIPPED_FILES = [...new Set(SHIPPED.flatMap((m) => (m.tokenizer ? [m.file, m.tokenizer] : [m.file])))];
