// The bounded Snappy decoder: the real file decodes through it (realData.test.ts shows the
// rows equal the JSON Lines copy); these pin how it refuses damaged blocks.
import { describe, expect, it } from 'vitest';
import { snappyDecompress } from '../../src/qna/snappy.js';

const bytes = (...values: number[]) => new Uint8Array(values);

describe('snappyDecompress', () => {
  it('decodes a literal followed by a copy that overlaps its own output', () => {
    // preamble 7; literal "ab" (tag (2-1)<<2); 1-byte-offset copy of length 5 at offset 2.
    const block = bytes(7, 0x04, 0x61, 0x62, 0x01 | ((5 - 4) << 2), 2);
    expect(new TextDecoder().decode(snappyDecompress(block, 7))).toBe('abababa');
  });

  it('decodes an empty block', () => {
    expect(snappyDecompress(bytes(0), 0)).toEqual(new Uint8Array(0));
  });

  it.each([
    ['a length header that disagrees with the page header', bytes(8, 0x04, 0x61, 0x62), 7, /page header says 7/],
    ['a missing length header', bytes(), 0, /bad length header/],
    ['a size no Snappy block of that length can expand to', bytes(0xff, 0xff, 0x03, 0x00), 65535, /cannot expand/],
    ['a copy from before the start', bytes(4, 0x01, 9), 4, /before the start/],
    ['a literal longer than the page', bytes(2, 0x08, 0x61, 0x62, 0x63), 2, /literal overruns/],
    ['a block that stops early', bytes(3, 0x04, 0x61, 0x62), 3, /ends early/],
    ['a block cut inside a copy', bytes(3, 0x04, 0x61, 0x62, 0x02), 3, /ends inside an element/],
  ])('refuses %s', (_name, block, size, message) => {
    expect(() => snappyDecompress(block, size)).toThrow(message);
  });

  it('refuses at once a literal whose 4-byte length reads as negative in 32-bit arithmetic', () => {
    // hyparquet's decoder takes 0xffffffff as -1 and walks back 2^31 bytes (seconds of CPU).
    const block = bytes(8, 0xfc, 0xff, 0xff, 0xff, 0xff, 0x61, 0x62, 0x63);
    const started = performance.now();
    expect(() => snappyDecompress(block, 8)).toThrow(/ends inside an element/);
    expect(performance.now() - started).toBeLessThan(50);
  });
});
