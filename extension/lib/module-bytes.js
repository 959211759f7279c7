// The bytes a workload module is given: AES-128-CTR keystream under the run's module
// seed, which the host chose and knows, so it checks what arrived against its own copy
// and never against the page's word (host/src/sink/expected.rs makes the same bytes).
// The counter block is the rep as a 64-bit big-endian number, then a 64-bit block
// counter from zero: every rep gets bytes of its own.

const PIECE = 16 * 1024 * 1024; // a multiple of the 16-byte block

export function fromHex(hex) {
  if (!/^([0-9a-f]{2})+$/i.test(hex)) throw new Error('not hex digits');
  return new Uint8Array(hex.match(/../g).map((h) => parseInt(h, 16)));
}

function counterBlock(rep, offset) {
  const block = new Uint8Array(16);
  const view = new DataView(block.buffer);
  view.setBigUint64(0, BigInt(rep));
  view.setBigUint64(8, BigInt(offset / 16));
  return block;
}

/** `size` bytes of rep `rep`'s stream, made a piece at a time. */
export async function moduleBytes(seedHex, rep, size, subtle = globalThis.crypto.subtle) {
  const key = await subtle.importKey('raw', fromHex(seedHex), 'AES-CTR', false, ['encrypt']);
  const out = new Uint8Array(size);
  for (let offset = 0; offset < size; offset += PIECE) {
    const n = Math.min(PIECE, size - offset);
    const piece = await subtle.encrypt({ name: 'AES-CTR', counter: counterBlock(rep, offset), length: 64 }, key, new Uint8Array(n));
    out.set(new Uint8Array(piece), offset);
  }
  return out;
}
