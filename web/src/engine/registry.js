// @ts-check
/**
 * registry.js — the sampler's registry as the engine declares it
 * (c/engine/sampler/params.c): every parameter with its names, range and
 * slider span, the chain's stages in their default order, and the names
 * of what can cut a token.  Read once, when the engine is attached.
 */

/**
 * One parameter of the engine's registry (c/engine/sampler/params.c).
 * @typedef {Object} ParamInfo
 * @property {string} name   the API's and a link's key ("top_p")
 * @property {string} flag   the CLI's ("top-p")
 * @property {string} code   its short code in compact links ("p")
 * @property {string} label  for people ("Top-p")
 * @property {string} doc    one line: what it does, and its off value
 * @property {string} stage  the stage it belongs to ("top_p"; "mirostat")
 * @property {'float' | 'int'} type
 * @property {number} min @property {number} max   its range
 * @property {boolean} minOpen @property {boolean} maxOpen  the range excludes that end
 * @property {boolean} inLink  a playground link always states it
 * @property {boolean} switch  away from neutral it turns its stage on
 * @property {number} uiOn     its value when a learner turns its stage on
 * @property {number} neutral  its default: the stage does nothing
 * @property {number} uiMin @property {number} uiMax @property {number} uiStep  a lesson slider's range
 */

/**
 * The registry, read from the engine's exports.
 * @param {import('./wasm.js').WasmModule} m
 * @returns {{params: ParamInfo[], stages: string[], terminal: string[], cutNames: string[]}}
 */
export function readRegistry(m) {
  const x = m.x;
  /** @type {ParamInfo[]} */
  const params = [];
  const n = x.api_param_count();
  for (let i = 0; i < n; i++) {
    const text = (/** @type {number} */ which) => m.cstring(x.api_param_text(i, which));
    const { values: v } = m.readDoubles((ptr) => x.api_param_numbers(i, ptr), 10);
    params.push({
      name: text(0), flag: text(1), code: text(2), label: text(3), doc: text(4), stage: text(5),
      type: v[0] === 1 ? 'int' : 'float',
      minOpen: (v[1] & 1) !== 0, maxOpen: (v[1] & 2) !== 0, inLink: (v[1] & 4) !== 0, switch: (v[1] & 8) !== 0,
      min: v[2], max: v[3], neutral: v[4], uiMin: v[5], uiMax: v[6], uiStep: v[7], uiOn: v[9],
    });
  }
  /** @type {string[]} */
  const stages = [];
  for (let i = 0; m.cstring(x.api_stage_name(i)); i++) stages.push(m.cstring(x.api_stage_name(i)));
  /** @type {string[]} the terminal stages: stage -1, -2, ... of api_stage_active */
  const terminal = [];
  for (let i = 1; m.cstring(x.api_terminal_name(i)); i++) terminal.push(m.cstring(x.api_terminal_name(i)));
  /** @type {string[]} */
  const cutNames = [];
  for (let i = 0; ; i++) {
    const name = m.cstring(x.api_cut_name(i));
    if (name === 'unknown') break;
    cutNames.push(name);
  }
  return { params, stages, terminal, cutNames };
}
