// Builds the request body for each kind from the same bytes, so that the arms of one
// rep differ only in the type of object handed to fetch().
import { sha256 } from './vendor/noble-hashes/sha2.js';

// getRandomValues fills at most 65536 bytes per call.
const RANDOM_CHUNK = 65536;
const STREAM_CHUNK = 1024 * 1024;

/** Incompressible random bytes. */
export function randomBytes(size, cryptoImpl = globalThis.crypto) {
  const bytes = new Uint8Array(size);
  for (let off = 0; off < size; off += RANDOM_CHUNK) {
    cryptoImpl.getRandomValues(bytes.subarray(off, Math.min(off + RANDOM_CHUNK, size)));
  }
  return bytes;
}

/** The body and any extra fetch() options for a kind. */
export function makeBody(kind, bytes) {
  switch (kind) {
    case 'Uint8Array':
      return { body: bytes, init: {} };
    case 'ArrayBuffer':
      // A fresh Uint8Array spans its whole buffer, so the buffer is exactly the bytes.
      return { body: bytes.buffer, init: {} };
    case 'Blob':
      return { body: new Blob([bytes]), init: {} };
    case 'ReadableStream': {
      let off = 0;
      const stream = new ReadableStream({
        pull(controller) {
          if (off >= bytes.length) {
            controller.close();
            return;
          }
          controller.enqueue(bytes.slice(off, off + STREAM_CHUNK));
          off += STREAM_CHUNK;
        },
      });
      // Streaming request bodies must say duplex: 'half'.
      return { body: stream, init: { duplex: 'half' } };
    }
    default:
      throw new Error(`unknown body kind ${kind}`);
  }
}

export function toHex(buffer) {
  return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * Outside a secure context (a page of `unobserved serve` opened over plain HTTP from a
 * phone) there is no crypto.subtle; @noble/hashes computes the same digest there.
 */
export async function sha256Hex(bytes, cryptoImpl = globalThis.crypto) {
  if (!cryptoImpl?.subtle) return toHex(sha256(bytes));
  return toHex(await cryptoImpl.subtle.digest('SHA-256', bytes));
}
