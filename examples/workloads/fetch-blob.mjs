// The plain fetch() upload: the module's bytes as one Blob, PUT in one request. It does
// exactly what the built-in Blob arm does, so the two side by side measure the harness
// around a module (BENCHMARKS.md, "Workload modules: what the harness costs").
export const unobserved = 1;

export default async function upload({ blob, url, signal }) {
  const res = await fetch(url, { method: 'PUT', body: blob, signal });
  if (!res.ok) throw new Error(`the sink answered HTTP ${res.status}`);
}
