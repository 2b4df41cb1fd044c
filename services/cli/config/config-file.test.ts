import { describe, expect, it } from 'vitest';
import { PitchConfig } from './config-file.js';

// The record a redeploy starts from before the platform is asked (head-start.ts): a value that
// does not fit is dropped, never used as an image id, and the rest of the file is kept.
describe("the config file's record of a folder's last build", () => {
  const record = { projectId: 'p', buildId: 'b', inputs: 'sha256:x' };

  it('keeps an image id that is a sha256 digest', () => {
    const image = `sha256:${'a'.repeat(64)}`;
    expect(PitchConfig.parse({ builtFrom: { k: { ...record, image } } }).builtFrom.k.image).toBe(image);
  });

  it('drops an image id that is not one (a path, a reference, an object), and keeps the record', () => {
    for (const image of [
      '../../etc/passwd',
      'docker.io/library/node:24',
      `sha256:${'A'.repeat(64)}`,
      { digest: 'x' },
      'x'.repeat(100_000),
    ]) {
      const parsed = PitchConfig.parse({ builtFrom: { k: { ...record, image } } });
      expect(parsed.builtFrom.k).toEqual(record);
    }
  });
});
