// @ts-check
/**
 * seed.js — a seed as the engine takes it: 64 bits, in two 32-bit halves.
 */

/**
 * Parses a seed: a non-negative safe integer, a bigint below 2^64, or a
 * decimal string.
 * @param {number | bigint | string} seed
 * @returns {[number, number]} low and high 32 bits
 */
export function splitSeed(seed) {
  let big;
  if (typeof seed === 'number') {
    if (!Number.isSafeInteger(seed) || seed < 0) throw new RangeError(`seed must be an integer in 0..2^64-1 (got ${seed})`);
    big = BigInt(seed);
  } else if (typeof seed === 'bigint') {
    big = seed;
  } else if (typeof seed === 'string' && /^[0-9]+$/.test(seed)) {
    big = BigInt(seed);
  } else {
    throw new TypeError(`seed must be an integer (got ${typeof seed === 'string' ? JSON.stringify(seed) : typeof seed})`);
  }
  if (big < 0n || big >= 1n << 64n) throw new RangeError(`seed must be an integer in 0..2^64-1 (got ${big})`);
  return [Number(big & 0xffffffffn), Number(big >> 32n)];
}
