import { gzipSync } from 'node:zlib';
import tar from 'tar-stream';

/** A gzipped tar of the given files (path → content), made in memory: for small test builds. */
export async function tgz(files: Record<string, string | Buffer>): Promise<Buffer> {
  const pack = tar.pack();
  for (const [name, content] of Object.entries(files)) pack.entry({ name }, content);
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of pack) chunks.push(chunk as Buffer);
  return gzipSync(Buffer.concat(chunks));
}
