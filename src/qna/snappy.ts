// A Snappy block decoder that checks every length against both buffers, handed to hyparquet
// for uploads. hyparquet's own decoder trusts the lengths it reads: in a corrupt page a
// 4-byte literal length can turn negative and walk the read position back by up to 2^31
// bytes, which costs seconds of CPU per page (8 s seen on one flipped byte of the real file)
// while the server's event loop is blocked.

// A 3-byte copy element yields at most 64 bytes: no valid page expands by more than ~22x.
const MAX_EXPANSION = 24;

/** Decompresses one Snappy block that must hold exactly `outputLength` bytes; throws otherwise. */
export function snappyDecompress(input: Uint8Array, outputLength: number): Uint8Array {
  let pos = 0;
  let declared = 0;
  for (let shift = 0; ; shift += 7) {
    const byte = input[pos++];
    if (byte === undefined || shift > 28) throw new Error('snappy: bad length header');
    declared += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) break;
  }
  if (declared !== outputLength)
    throw new Error(`snappy: block holds ${declared} bytes, page header says ${outputLength}`);
  if (outputLength > input.length * MAX_EXPANSION)
    throw new Error(`snappy: ${input.length} bytes cannot expand to ${outputLength}`);

  const output = new Uint8Array(outputLength);
  let out = 0;
  const need = (bytes: number) => {
    if (pos + bytes > input.length) throw new Error('snappy: block ends inside an element');
  };
  while (pos < input.length) {
    const tag = input[pos++]!;
    let length: number;
    if ((tag & 3) === 0) {
      // Literal: lengths above 60 are stored in the next 1 to 4 bytes, little-endian.
      length = (tag >>> 2) + 1;
      if (length > 60) {
        const extra = length - 60;
        need(extra);
        length = 1;
        for (let i = 0; i < extra; i++) length += input[pos + i]! * 2 ** (8 * i);
        pos += extra;
      }
      need(length);
      if (out + length > outputLength) throw new Error('snappy: literal overruns the page');
      output.set(input.subarray(pos, pos + length), out);
      pos += length;
      out += length;
      continue;
    }
    let offset: number;
    if ((tag & 3) === 1) {
      need(1);
      length = ((tag >>> 2) & 7) + 4;
      offset = ((tag >>> 5) << 8) + input[pos]!;
      pos += 1;
    } else if ((tag & 3) === 2) {
      need(2);
      length = (tag >>> 2) + 1;
      offset = input[pos]! + input[pos + 1]! * 256;
      pos += 2;
    } else {
      need(4);
      length = (tag >>> 2) + 1;
      offset = input[pos]! + input[pos + 1]! * 2 ** 8 + input[pos + 2]! * 2 ** 16 + input[pos + 3]! * 2 ** 24;
      pos += 4;
    }
    if (offset === 0 || offset > out) throw new Error('snappy: copy from before the start of the page');
    if (out + length > outputLength) throw new Error('snappy: copy overruns the page');
    // Byte by byte on purpose: a copy may overlap its own output (a repeated pattern).
    for (let i = 0; i < length; i++) output[out + i] = output[out - offset + i]!;
    out += length;
  }
  if (out !== outputLength) throw new Error('snappy: block ends early');
  return output;
}
