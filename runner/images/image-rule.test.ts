import { describe, expect, it } from 'vitest';
import { UNKNOWN_IMAGE_DAYS, buildIdOfTag, tagsToRemove } from './image-rule.js';
import { imageTagOf } from './image-store.js';

const id = '0f8fad5b-d9cb-469f-a165-70867728950e';

describe('which build images may go', () => {
  it("recognises only the runner's own build tags", () => {
    expect(buildIdOfTag(imageTagOf(id))).toBe(id);
    expect(buildIdOfTag('localhost/demo-node:base')).toBeNull();
    expect(buildIdOfTag(`docker.io/library/build-${id}:latest`)).toBeNull();
  });

  it('removes known builds not kept, and unknown ones only after a month', () => {
    const now = Date.now();
    const old = now / 1000 - (UNKNOWN_IMAGE_DAYS + 1) * 86400;
    const images = [
      { tag: 'a', buildId: 'kept', created: old },
      { tag: 'b', buildId: 'dropped', created: now / 1000 },
      { tag: 'c', buildId: 'unknown-new', created: now / 1000 },
      { tag: 'd', buildId: 'unknown-old', created: old },
    ];
    const builds = new Map([
      ['kept', { keep: true }],
      ['dropped', { keep: false }],
    ]);
    expect(tagsToRemove(images, builds, now)).toEqual(['b', 'd']);
  });
});
