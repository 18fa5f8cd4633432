import { afterEach, describe, expect, it, vi } from 'vitest';

import { UNSIZED_STEP, downloadModel } from './modelUrl.js';

const MB4 = 4 * 1024 * 1024;

/** A server's answer streamed in 4 MiB chunks (no Content-Length unless given); counts the chunks it was asked for. */
function streamed(chunks, headers = {}) {
  const served = { n: 0 };
  const body = new ReadableStream({
    pull(controller) {
      if (served.n === chunks) return controller.close();
      served.n++;
      controller.enqueue(new Uint8Array(MB4).fill(served.n));
    },
  });
  vi.stubGlobal('fetch', async () => new Response(body, { headers: { 'content-type': 'application/octet-stream', ...headers } }));
  return served;
}

afterEach(() => vi.unstubAllGlobals());

describe('downloadModel without a Content-Length', () => {
  it('asks about the bytes so far every 16 MiB, and stops reading the moment they outgrow the engine', async () => {
    const served = streamed(100); // 400 MiB on offer
    const asked = [];
    const limit = 50 * 1024 * 1024;
    const unsized = async (/** @type {number} */ loaded) => {
      asked.push(loaded);
      if (loaded > limit) throw new Error(`a file of at least ${loaded} bytes does not fit`);
    };
    await expect(downloadModel(new URL('http://x/m.gguf'), { unsized })).rejects.toThrow(`a file of at least ${4 * MB4 * 4} bytes does not fit`);
    expect(asked).toEqual([UNSIZED_STEP, 2 * UNSIZED_STEP, 3 * UNSIZED_STEP, 4 * UNSIZED_STEP]);
    expect(served.n).toBeLessThan(20); // the rest was never read
  });

  it('reads a file that fits to its end, the bytes in order', async () => {
    streamed(5);
    const asked = [];
    const bytes = await downloadModel(new URL('http://x/m.gguf'), { unsized: async (n) => { asked.push(n); } });
    expect(bytes.length).toBe(5 * MB4);
    expect([bytes[0], bytes[MB4], bytes[5 * MB4 - 1]]).toEqual([1, 2, 5]);
    expect(asked).toEqual([UNSIZED_STEP]);
  });

  it('does not ask when the server says the size (the size was checked before the body)', async () => {
    streamed(5, { 'content-length': String(5 * MB4) });
    const unsized = vi.fn(async () => {});
    const before = vi.fn(async () => {});
    expect((await downloadModel(new URL('http://x/m.gguf'), { unsized, beforeBody: before })).length).toBe(5 * MB4);
    expect(before).toHaveBeenCalledWith(5 * MB4);
    expect(unsized).not.toHaveBeenCalled();
  });
});
