// Sends far more than it was given (the bytes twice over), and ignores the refusal.
export const unobserved = 1;

export default async function upload({ bytes, url, signal }) {
  const twice = new Uint8Array(bytes.length * 2);
  twice.set(bytes);
  twice.set(bytes, bytes.length);
  await fetch(url, { method: 'PUT', body: twice, signal }).catch(() => null);
}
