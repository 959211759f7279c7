// The plain fetch() upload after 100 ms of sleep: what a regression looks like.
export const unobserved = 1;

export default async function upload({ blob, url, signal }) {
  await new Promise((r) => setTimeout(r, 100));
  const res = await fetch(url, { method: 'PUT', body: blob, signal });
  if (!res.ok) throw new Error(`the sink answered HTTP ${res.status}`);
}
