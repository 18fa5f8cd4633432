// @ts-check
/**
 * The page's first module, small on purpose: it starts the engine Worker
 * (which fetches and compiles the WebAssembly engine at once) and only then
 * loads the page's code, so the two downloads and the engine's compilation
 * run side by side instead of one after the other.
 */
import { createPlaygroundClient } from './worker/switch.js';

// the lesson engine, until the learner opens a GGUF file (switch.js)
const client = createPlaygroundClient();
const { start } = await import('./main.jsx');
await start(client);
