// @ts-check
/**
 * wasm.js — a standalone .wasm and its memory: instantiating it (with the
 * bytes when a host serves .wasm with the wrong MIME type), whether SIMD
 * runs here, and the helpers that copy numbers, strings and bytes in and
 * out of the module's memory.  The engine (engine.js) and the command line
 * over WASM (cli.js) are both WasmModules.
 */

/** A minimal module using a v128 instruction: valid only where SIMD is. */
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, // magic, version
  1, 5, 1, 96, 0, 1, 123, // type section: () -> v128
  3, 2, 1, 0, // function section
  10, 22, 1, 20, 0, 253, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 11, // v128.const 0
]);

/** @returns {boolean} whether this JS engine runs WebAssembly SIMD */
export function simdSupported() {
  try {
    return WebAssembly.validate(SIMD_PROBE);
  } catch {
    return false;
  }
}

/**
 * Instantiates wasm bytes or a fetch Response; when a host serves .wasm with
 * the wrong MIME type, streaming compilation fails and the bytes are used.
 * @param {BufferSource | Response | Promise<Response>} source
 * @param {WebAssembly.Imports} imports
 */
export async function instantiate(source, imports) {
  const resolved = await source;
  if (typeof Response !== 'undefined' && resolved instanceof Response) {
    if (!resolved.ok) throw new Error(`engine: ${resolved.url}: HTTP ${resolved.status}`);
    if (WebAssembly.instantiateStreaming) {
      try {
        return (await WebAssembly.instantiateStreaming(resolved.clone(), imports)).instance;
      } catch {
        /* wrong MIME type: fall back to the bytes */
      }
    }
    return (await WebAssembly.instantiate(await resolved.arrayBuffer(), imports)).instance;
  }
  return (await WebAssembly.instantiate(/** @type {BufferSource} */ (resolved), imports)).instance;
}

export const encoder = new TextEncoder();
export const decoder = new TextDecoder('utf-8');

/** A standalone .wasm's exports and memory: the engine's (Engine), or the
 * command line's (cli.js). */
export class WasmModule {
  constructor() {
    /** @type {any} */
    this.x = null;
    /** @type {WebAssembly.Memory | null} */
    this.memory = null;
    /** @type {string[] | undefined} the step record's fields, in api_step_read's order */
    this.stepFields = undefined;
  }

  /** @returns {WebAssembly.Imports} */
  imports() {
    return { env: { emscripten_notify_memory_growth: () => {} } };
  }

  /** @param {WebAssembly.Instance} instance */
  attach(instance) {
    this.x = instance.exports;
    this.memory = /** @type {WebAssembly.Memory} */ (this.x.memory);
    if (this.x._initialize) this.x._initialize();
  }

  // ---- memory helpers ------------------------------------------------

  /** @param {number} ptr @param {number} len */
  bytes(ptr, len) {
    return new Uint8Array(/** @type {WebAssembly.Memory} */ (this.memory).buffer, ptr, len);
  }

  /** @param {number} ptr @param {number} n */
  floats(ptr, n) {
    return new Float32Array(/** @type {WebAssembly.Memory} */ (this.memory).buffer, ptr, n);
  }

  /** @param {number} ptr @param {number} n */
  ints(ptr, n) {
    return new Int32Array(/** @type {WebAssembly.Memory} */ (this.memory).buffer, ptr, n);
  }

  /** @param {number} ptr a NUL-terminated UTF-8 string in the engine */
  cstring(ptr) {
    const heap = new Uint8Array(/** @type {WebAssembly.Memory} */ (this.memory).buffer);
    let end = ptr;
    while (heap[end] !== 0) end++;
    return decoder.decode(heap.subarray(ptr, end));
  }

  /** @param {number} size */
  malloc(size) {
    const ptr = this.x.malloc(Math.max(1, size));
    if (!ptr) throw new Error(`engine: out of memory (${size} bytes)`);
    return ptr;
  }

  /** @param {number} ptr */
  free(ptr) {
    if (ptr) this.x.free(ptr);
  }

  /**
   * Copies a JS string into the engine as NUL-terminated UTF-8; a NUL
   * inside would cut it short, so it is refused.
   * @param {string} text
   * @param {string} [what] named in the error
   */
  allocString(text, what = 'text') {
    const nul = text.indexOf('\0');
    if (nul >= 0) throw new RangeError(`${what} contains a NUL character (at ${nul})`);
    const utf8 = encoder.encode(text);
    const ptr = this.malloc(utf8.length + 1);
    this.bytes(ptr, utf8.length + 1).set(utf8);
    this.bytes(ptr + utf8.length, 1)[0] = 0;
    return ptr;
  }

  /**
   * Calls fn with a string copied into the engine, frees it after.
   * @template R
   * @param {unknown} text
   * @param {string} what  named in the errors
   * @param {(ptr: number) => R} fn
   * @returns {R}
   */
  withString(text, what, fn) {
    if (typeof text !== 'string') throw new TypeError(`${what} must be a string`);
    const ptr = this.allocString(text, what);
    try {
      return fn(ptr);
    } finally {
      this.free(ptr);
    }
  }

  /** @param {Uint8Array} data */
  allocBytes(data) {
    const ptr = this.malloc(data.length);
    this.bytes(ptr, data.length).set(data);
    return ptr;
  }

  /**
   * Lets fill(ptr) write n doubles into engine memory, and copies them out.
   * @template R
   * @param {(ptr: number) => R} fill
   * @param {number} n
   * @returns {{r: R, values: Float64Array}}
   */
  readDoubles(fill, n) {
    const ptr = this.malloc(8 * n);
    try {
      const r = fill(ptr);
      return { r, values: new Float64Array(/** @type {WebAssembly.Memory} */ (this.memory).buffer, ptr, n).slice() };
    } finally {
      this.free(ptr);
    }
  }
}
