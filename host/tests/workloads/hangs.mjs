// Never settles, and ignores its abort signal.
export const unobserved = 1;

export default function upload() {
  return new Promise(() => {});
}
