import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { progressError, readProgress } from './engine-dial.js';

const progress = (...chunks: string[]) => Readable.from(chunks.map((chunk) => Buffer.from(chunk)));

describe('progressError', () => {
  it('answers the error a progress line names, a line split across chunks and lines not JSON passed over', async () => {
    const stream = progress('{"stream":"Copying blob"}\nnot json\n{"err', 'or":"manifest unknown"}\n{"id":"x"}\n');
    expect(await progressError(stream)).toBe('manifest unknown');
  });

  it('answers null when no line names one, and reads the stream to its end', async () => {
    const stream = progress('{"stream":"Writing manifest"}\n', '\n{"id":"sha256:abc","error":""}\n');
    expect(await progressError(stream)).toBeNull();
    expect(stream.readableEnded).toBe(true);
  });
});

describe('readProgress', () => {
  const id = 'a'.repeat(64);
  it("answers the image id podman's pull names last, and none that is not a digest", async () => {
    expect(await readProgress(progress('{"stream":"Copying config"}\n', `{"images":["${id}"],"id":"${id}"}\n`))).toEqual({
      error: null,
      id,
    });
    expect(await readProgress(progress('{"id":"not-an-id"}\n'))).toEqual({ error: null, id: null });
  });

  it('answers no id when a line names an error', async () => {
    expect(await readProgress(progress(`{"id":"${id}"}\n{"error":"denied"}\n`))).toEqual({ error: 'denied', id: null });
  });
});
