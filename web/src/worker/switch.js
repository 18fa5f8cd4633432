// @ts-check
/**
 * switch.js — the playground page's engine: it starts on the lesson engine
 * (build/engine-lite-*.wasm, no GGUF reader: a quarter fewer bytes to
 * fetch) and moves to the whole engine the first time the learner opens a
 * GGUF file, the only thing the lesson engine cannot read (quantized
 * weights, byte-level BPE and SentencePiece vocabularies, pre-tokenizers
 * and chat templates all come from GGUF files).  Both are the same code, so
 * the same seed gives the same text on either.
 *
 * The move loses nothing: every request that made the lesson engine's
 * models and sessions what they are is noted (a session's, from its last
 * new text on), and the whole engine is told them again, in their order,
 * after it has read the GGUF file — so each panel's text, its sampler
 * state and its models are there as they were.  A file the whole engine
 * refuses changes nothing: the lesson engine's Worker runs until the new
 * one has read the file, and then stops.  Requests made meanwhile wait
 * and go, in order, to whichever engine stays.
 */
import { EngineClient, createEngineWorker } from './client.js';
import { loadKey } from './models.js';

/** @typedef {{request: EngineClient['request'], terminate: () => void}} Client */

/** requests that begin a session's text anew (what came before them no longer counts) */
const STARTS = new Set(['start', 'beamStart', 'specStart']);
/** requests that change a session's text or state */
const CHANGES = new Set([...STARTS, 'step', 'branch', 'constrain', 'generate', 'beamStep', 'specRound']);

/** A GGUF file's first bytes. @param {unknown} b */
function isGguf(b) {
  if (!b || typeof b !== 'object') return false;
  const u = ArrayBuffer.isView(b) ? new Uint8Array(b.buffer, b.byteOffset, Math.min(4, b.byteLength))
    : b instanceof ArrayBuffer ? new Uint8Array(b, 0, Math.min(4, b.byteLength)) : null;
  return !!u && u.length === 4 && u[0] === 0x47 && u[1] === 0x47 && u[2] === 0x55 && u[3] === 0x46; // "GGUF"
}

/**
 * Whether a loadModel request needs the whole engine: a GGUF model or
 * tokenizer file given as bytes (the page downloads a link's model itself).
 * @param {any} args
 */
export const needsWholeEngine = (args) => isGguf(args?.bytes) || isGguf(args?.tokenizerBytes);

export class SwitchingClient {
  /**
   * @param {(engine: 'lite' | 'full') => Client} make  a client of a new Worker running that engine
   */
  constructor(make) {
    this.make = make;
    /** @type {'lite' | 'full'} */
    this.engine = 'lite';
    this.current = make('lite');
    /** @type {Array<{op: string, args: any}>} what made the lesson engine's state (none once on the whole engine) */
    this.journal = [];
    /** the loaded models' keys (a load of the same source and edits changes nothing) */
    /** @type {Map<string, string>} */
    this.keys = new Map();
    /** @type {Promise<unknown>} settles when every request sent so far is answered */
    this.last = Promise.resolve();
    /** @type {Promise<void> | null} a move in progress: later requests wait for it */
    this.moving = null;
  }

  /**
   * The Worker protocol's request (protocol.js), on the engine the page runs now.
   * @param {string} op @param {any} [args] @param {Transferable[]} [transfer]
   * @param {{onProgress?: (p: import('./client.js').Progress) => void}} [options]
   * @returns {Promise<any>}
   */
  request(op, args = {}, transfer = [], options = {}) {
    // a stop is answered at once, by the engine running the generate it stops
    if (op === 'stopGenerate') return this.current.request(op, args);
    if (this.moving) return this.moving.then(() => this.request(op, args, transfer, options));
    if (this.engine === 'lite' && op === 'loadModel' && needsWholeEngine(args)) return this.move(args, transfer, options);
    // on the lesson engine a file's bytes are copied, not moved, into the Worker: kept to be read again after a move
    const p = this.current.request(op, args, this.engine === 'lite' && op === 'loadModel' ? [] : transfer, options);
    // (noted before `last` settles: a move waits for `last`, then reads the notes)
    this.last = p.then((result) => { if (this.engine === 'lite') this.note(op, args, result); }, () => {});
    return p;
  }

  /**
   * Notes a request the lesson engine answered, if it changed its state.
   * @param {string} op @param {any} args @param {any} result its answer
   */
  note(op, args, result) {
    /** drops the notes of a session (all, or those that changed its text) */
    const drop = (/** @type {string} */ sid, all = true) => {
      this.journal = this.journal.filter((e) => e.args?.session !== sid || !(all || CHANGES.has(e.op)));
    };
    if (op === 'loadModel') {
      const key = loadKey(args);
      if (key && this.keys.get(args.model) === key) return; // already loaded: nothing changed
      this.keys.set(args.model, key);
    } else if (op === 'freeModel') this.keys.delete(args.model);
    else if (op === 'openSession' || op === 'closeSession') {
      drop(args.session);
      if (op === 'closeSession') return;
    } else if (STARTS.has(op)) drop(args.session, false);
    else if (op === 'generate') {
      // a generate a stop cut short made this many tokens
      const n = result?.generated?.tokens?.length ?? args.n;
      if (n > 0) this.journal.push({ op, args: { ...args, n } });
      return;
    } else if (!CHANGES.has(op)) return;
    this.journal.push({ op, args });
  }

  /**
   * Moves to the whole engine to read a GGUF file: a new Worker reads the
   * file, then is told what the lesson engine was told; only then does it
   * replace the lesson engine.  A refused file, or a whole engine that
   * cannot start, leaves everything on the lesson engine.
   * @param {any} args @param {Transferable[]} transfer
   * @param {{onProgress?: (p: import('./client.js').Progress) => void}} options
   */
  move(args, transfer, options) {
    const run = (async () => {
      await this.last; // every request so far answered: the journal is complete
      const full = this.make('full');
      try {
        try {
          await full.request('hello');
        } catch (err) {
          const why = /** @type {Error} */ (err)?.message ?? String(err);
          throw Object.assign(new Error(`a GGUF file: the page reads it with its whole engine, which could not be fetched (${why}); open it again once online`),
            { reason: 'wholeEngine' });
        }
        // what the lesson engine holds, in order (a request refused there
        // was not noted), after the file: a bad file is refused at once
        // (unless the file takes the id of a model loaded there)
        const again = () => Promise.all(this.journal.map((e) => full.request(e.op, e.args).catch(() => null)));
        const first = this.journal.some((e) => e.op === 'loadModel' && e.args.model === args.model);
        if (first) await again();
        const info = await full.request('loadModel', args, transfer, options);
        if (!first) await again();
        const old = this.current;
        this.current = full;
        this.engine = 'full';
        this.journal = [];
        this.keys.clear();
        old.terminate();
        return info;
      } catch (err) {
        full.terminate();
        throw err;
      }
    })();
    this.moving = run.then(() => {}, () => {}).then(() => { this.moving = null; });
    this.last = this.moving;
    return run;
  }

  /** Stops the Worker. */
  terminate() {
    this.current.terminate();
  }
}

/** The playground page's engine: the lesson engine until a GGUF file is opened. */
export function createPlaygroundClient() {
  return new SwitchingClient((engine) => new EngineClient(createEngineWorker({ engine })));
}
