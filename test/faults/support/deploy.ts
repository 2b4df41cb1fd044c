import type { Client } from '@demo-rooms/contract';
import { tgz } from '../../support/archives.js';

// A static deploy through the api, step by step, so a fault test can strike between the steps.

export const staticManifest = (name = 'Fault') => ({
  kind: 'static' as const,
  name,
  output: 'dist',
  apps: [{ id: 'web', name: 'Web', path: '/', device: 'laptop' as const }],
});

/** A site of `pages` small pages besides index.html: enough files that an unpack takes a while. */
export async function siteArchive(pages: number): Promise<{ files: Record<string, string>; bytes: Buffer }> {
  const files: Record<string, string> = { 'index.html': '<h1>home</h1>' };
  for (let i = 0; i < pages; i++) files[`pages/p${i}.html`] = `<p>${i}</p>`.repeat(50);
  return { files, bytes: await tgz(files) };
}

/** startUpload and its PUT; resolves with the upload id once the api answered 204. */
export async function uploadBytes(baseUrl: string, token: string, client: Client, projectId: string, bytes: Buffer): Promise<string> {
  const { uploadId, putUrl } = await client.call('startUpload', {
    params: { projectId },
    body: { kind: 'static', sizeBytes: bytes.length },
  });
  const res = await fetch(baseUrl + putUrl, {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}` },
    body: new Uint8Array(bytes),
    signal: AbortSignal.timeout(20_000),
  });
  if (res.status !== 204) throw new Error(`upload PUT answered ${res.status}: ${await res.text()}`);
  return uploadId;
}
