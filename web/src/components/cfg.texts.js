// @ts-check
/**
 * The words of classifier-free guidance's field and view (Cfg.jsx), in
 * the four languages: they come with its lazy chunk, not with the page's
 * catalogues, which every visit loads.
 */
export const CFG = /** @type {Record<string, Record<string, string>>} */ ({
  en: {
    how: 'How the mix works',
    negative: 'Negative prompt',
    negativeHint: 'The second run reads this instead of your prompt, then the same generated tokens. Empty: it reads your prompt\'s last token alone (as Hugging Face does).',
    apply: 'Apply',
    explain: 'Each step runs the model twice: once on your text (conditional) and once on the negative prompt (unconditional). The mix is scale × (conditional − unconditional) + unconditional, in log-probabilities: at 1 it is the conditional run, at 0 the unconditional one, above 1 it pushes away from what the negative prompt alone would say.',
    cond: 'your prompt',
    uncond: 'negative prompt',
    mix: 'the mix',
    title: 'The two runs and their mix at this step',
    off: 'Set the guidance scale away from 1 and take a step: the two runs and their mix show here.',
    row: '{piece}: your prompt {cond}, negative prompt {uncond}, mix {mix}',
  },
  de: {
    how: 'Wie die Mischung entsteht',
    negative: 'Negativer Prompt',
    negativeHint: 'Der zweite Lauf liest dies statt deines Prompts, dann dieselben erzeugten Tokens. Leer: Er liest nur das letzte Token deines Prompts (wie Hugging Face).',
    apply: 'Übernehmen',
    explain: 'Jeder Schritt lässt das Modell zweimal laufen: einmal auf deinem Text (bedingt) und einmal auf dem negativen Prompt (unbedingt). Die Mischung ist Skala × (bedingt − unbedingt) + unbedingt, in Log-Wahrscheinlichkeiten: bei 1 ist sie der bedingte Lauf, bei 0 der unbedingte, über 1 drückt sie weg von dem, was der negative Prompt allein sagen würde.',
    cond: 'dein Prompt',
    uncond: 'negativer Prompt',
    mix: 'die Mischung',
    title: 'Die beiden Läufe und ihre Mischung in diesem Schritt',
    off: 'Stell die Führungsstärke weg von 1 und mach einen Schritt: Hier erscheinen die beiden Läufe und ihre Mischung.',
    row: '{piece}: dein Prompt {cond}, negativer Prompt {uncond}, Mischung {mix}',
  },
  es: {
    how: 'Cómo se hace la mezcla',
    negative: 'Prompt negativo',
    negativeHint: 'La segunda pasada lee esto en lugar de tu prompt, y luego los mismos tokens generados. Vacío: lee solo el último token de tu prompt (como Hugging Face).',
    apply: 'Aplicar',
    explain: 'Cada paso ejecuta el modelo dos veces: una sobre tu texto (condicional) y otra sobre el prompt negativo (incondicional). La mezcla es escala × (condicional − incondicional) + incondicional, en log-probabilidades: con 1 es la pasada condicional, con 0 la incondicional y por encima de 1 se aleja de lo que diría el prompt negativo solo.',
    cond: 'tu prompt',
    uncond: 'prompt negativo',
    mix: 'la mezcla',
    title: 'Las dos pasadas y su mezcla en este paso',
    off: 'Aleja la escala de guía de 1 y da un paso: aquí aparecen las dos pasadas y su mezcla.',
    row: '{piece}: tu prompt {cond}, prompt negativo {uncond}, mezcla {mix}',
  },
  zh: {
    how: '混合是如何计算的',
    negative: '负面提示',
    negativeHint: '第二次运行读的是这段文字而不是你的提示，然后是同样的已生成词元。留空：只读你提示的最后一个词元（与 Hugging Face 相同）。',
    apply: '应用',
    explain: '每一步模型运行两次：一次在你的文本上（有条件），一次在负面提示上（无条件）。混合结果是 强度 ×（有条件 − 无条件）+ 无条件，按对数概率计算：为 1 时就是有条件的那次运行，为 0 时是无条件的那次，大于 1 时远离负面提示单独会给出的结果。',
    cond: '你的提示',
    uncond: '负面提示',
    mix: '混合',
    title: '这一步的两次运行及其混合',
    off: '把引导强度调离 1 并走一步：两次运行及其混合会显示在这里。',
    row: '{piece}：你的提示 {cond}，负面提示 {uncond}，混合 {mix}',
  },
});
