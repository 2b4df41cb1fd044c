// A picture's bytes as base64, for the comment's JSON body. Part of voice.js.

/** `blob`'s bytes in base64, read in chunks so a large picture does not overflow the call stack. */
export async function base64Of(blob: Blob) {
  const bytes = new Uint8Array(await blob.arrayBuffer());
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x8000)
    text += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000) as unknown as number[]);
  return btoa(text);
}
