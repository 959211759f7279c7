// Fails before uploading anything.
export const unobserved = 1;

export default async function upload() {
  throw new Error('this module fails on purpose');
}
