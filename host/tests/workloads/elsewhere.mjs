// Posts its bytes to another origin (another loopback port): the page's policy must
// refuse the request before it leaves, and the sample must say so.
export const unobserved = 1;

export default async function upload({ blob }) {
  await fetch('http://127.0.0.1:9/collect', { method: 'POST', body: blob });
}
