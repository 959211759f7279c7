// Resolves without uploading a byte.
export const unobserved = 1;

export default async function upload() {}
