// Uploads other bytes than it was given (one bit flipped): the sink must say corrupted.
export const unobserved = 1;

export default async function upload({ bytes, url, signal }) {
  const other = bytes.slice();
  other[other.length >> 1] ^= 1;
  const res = await fetch(url, { method: 'PUT', body: other, signal });
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
}
