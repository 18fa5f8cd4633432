// @ts-check
/**
 * cli.js — the `sampler` command line over WASM: build/cli-{simd,scalar}.wasm,
 * the CLI's C code (c/cli) with the engine, run with a host for its output
 * and files.  `node build/sampler.mjs` (node.js) and the tests use it; the
 * page never loads it (its engine-*.wasm carries no CLI code).
 *
 * The C side imports four host functions (c/cli/host.h, implemented in
 * c/cli/wasm/host_wasm.c): env.host_write, env.host_file_size,
 * env.host_file_read and env.host_file_write.
 */
import { instantiate, WasmModule } from './wasm.js';

/**
 * The host a CLI run talks to.
 * @typedef {Object} CliHost
 * @property {(fd: number, bytes: Uint8Array) => void} write
 * @property {(path: string) => Uint8Array | null} readFile  null: no such file
 * @property {string} modelsDir
 * @property {(path: string, bytes: Uint8Array) => void} [writeFile]  (train-bigram -o, train -o); without it writing fails
 */

/**
 * Loads the command line.
 * @param {BufferSource | Response | Promise<Response>} wasm  the bytes of
 *   build/cli-simd.wasm or cli-scalar.wasm, or a fetch of either
 * @returns {Promise<Cli>}
 */
export async function loadCli(wasm) {
  const cli = new Cli();
  cli.attach(await instantiate(wasm, cli.imports()));
  return cli;
}

export class Cli extends WasmModule {
  constructor() {
    super();
    /** @type {CliHost | null} */
    this.host = null;
    /** @type {Map<string, Uint8Array>} files read for the C side, by path */
    this.fileCache = new Map();
  }

  /** @returns {WebAssembly.Imports} */
  imports() {
    return {
      env: {
        ...super.imports().env,
        host_write: (/** @type {number} */ fd, /** @type {number} */ ptr, /** @type {number} */ len) => {
          const bytes = this.bytes(ptr, len).slice();
          if (this.host) this.host.write(fd, bytes);
        },
        host_file_size: (/** @type {number} */ pathPtr) => {
          const path = this.cstring(pathPtr);
          if (!this.host) return -2;
          let data;
          try {
            data = this.host.readFile(path);
          } catch {
            return -2;
          }
          if (!data) return -1;
          this.fileCache.set(path, data);
          return data.length;
        },
        host_file_read: (/** @type {number} */ pathPtr, /** @type {number} */ dst, /** @type {number} */ len) => {
          const path = this.cstring(pathPtr);
          const data = this.fileCache.get(path);
          this.fileCache.delete(path);
          if (!data || data.length !== len) return -1;
          this.bytes(dst, len).set(data);
          return 0;
        },
        host_file_write: (/** @type {number} */ pathPtr, /** @type {number} */ ptr, /** @type {number} */ len) => {
          const path = this.cstring(pathPtr);
          if (!this.host?.writeFile) return -1;
          try {
            this.host.writeFile(path, this.bytes(ptr, len).slice());
          } catch {
            return -1;
          }
          return 0;
        },
      },
    };
  }

  /**
   * Runs the `sampler` command line (argv[0] is the program name).
   * @param {string[]} argv
   * @param {CliHost} host
   * @returns {number} the exit status
   */
  run(argv, host) {
    this.host = host;
    const dir = this.allocString(host.modelsDir);
    this.x.sp_host_set_models_dir(dir);
    this.free(dir);
    const ptrs = argv.map((a) => this.allocString(a));
    const argvPtr = this.malloc(4 * (ptrs.length + 1));
    const table = this.ints(argvPtr, ptrs.length + 1);
    ptrs.forEach((p, i) => { table[i] = p; });
    table[ptrs.length] = 0;
    try {
      return this.x.api_cli_main(argv.length, argvPtr);
    } finally {
      ptrs.forEach((p) => this.free(p));
      this.free(argvPtr);
      this.host = null;
      this.fileCache.clear();
    }
  }
}
