import { realpath } from 'node:fs/promises';

/**
 * The key under which a folder's project and its last deploy are remembered (config-file.ts): one
 * per platform and folder. A file of its own: a container redeploy's head start reads the record
 * before the tool's client has loaded (deploy-steps/head-start.ts).
 */
export async function folderKey(apiUrl: string, dir: string): Promise<string> {
  return `${apiUrl} ${await realpath(dir).catch(() => dir)}`;
}
