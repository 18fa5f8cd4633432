// @ts-check
/**
 * axe.js — the accessibility audit the e2e tests share: axe-core's serious
 * and critical violations on a page (open shadow roots included), one line
 * each with the first three elements it names.
 */
import { createRequire } from 'node:module';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/** @param {import('playwright-core').Page} page @returns {Promise<string[]>} */
export async function audit(page) {
  await page.addScriptTag({ path: AXE });
  return page.evaluate(async () => {
    const r = await /** @type {any} */ (window).axe.run(document, { resultTypes: ['violations'] });
    return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join('; ')}`);
  });
}
