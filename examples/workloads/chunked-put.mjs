// Chunked upload, as many web apps write it: the file in 16 MiB slices, PUT one after
// another, each naming its index and its byte offset. The sink puts the chunks back
// together by offset and checks the whole.
export const unobserved = 1;

const CHUNK = 16 * 1024 * 1024;

export default async function upload({ blob, size, partUrl, signal }) {
  for (let index = 0, offset = 0; offset < size; index++, offset += CHUNK) {
    const url = new URL(partUrl(offset));
    url.searchParams.set('index', index);
    const res = await fetch(url, { method: 'PUT', body: blob.slice(offset, offset + CHUNK), signal });
    if (!res.ok) throw new Error(`chunk ${index} at ${offset}: the sink answered HTTP ${res.status}`);
  }
}
