import type Docker from 'dockerode';

// One call over dockerode's own connection to the engine, for what dockerode has no method for:
// podman's libpod API (its pull and push with tlsVerify, a container's mount, a kill that does not
// wait out StopTimeout) and a path's stat header. The engine's reply is the body, or its stream.

export interface EngineCall {
  method: 'GET' | 'HEAD' | 'POST' | 'DELETE';
  /** The path with its trailing `?`: dockerode appends the query after it. */
  path: string;
  query?: Record<string, string | number | boolean>;
  /** A JSON body; podman's libpod POSTs want one, even empty. */
  body?: object;
  /** The reply as a stream (progress lines, or a reply whose headers are read). */
  stream?: boolean;
  signal?: AbortSignal;
  /** Each status the engine may answer: true is a success, a string the error's words. */
  statusCodes: Record<number, true | string>;
}

export function engineDial(docker: Docker, call: EngineCall): Promise<unknown> {
  return new Promise((resolve, reject) =>
    docker.modem.dial(
      {
        path: call.path,
        method: call.method,
        options: { _query: call.query ?? {}, ...(call.body ? { _body: call.body } : {}) },
        isStream: call.stream ?? false,
        ...(call.signal ? { abortSignal: call.signal } : {}),
        statusCodes: call.statusCodes,
      },
      (err, reply) => (err ? reject(err) : resolve(reply)),
    ),
  );
}

/** The most of an engine's progress kept (characters): a few lines a layer; past it only the end, where an error comes. */
const PROGRESS_KEPT = 1 << 20;

/**
 * Reads an engine's progress lines (podman's libpod pull and push: JSON a line) to their end;
 * answers the error one of them names (null when none does), and the image id the last of them
 * names (podman's pull ends with `{"id": …}`), so the pull needs no inspect after it. A line
 * that is not JSON is skipped.
 */
export async function readProgress(stream: AsyncIterable<unknown>): Promise<{ error: string | null; id: string | null }> {
  let text = '';
  for await (const chunk of stream) text = (text + (chunk as Buffer).toString('utf8')).slice(-PROGRESS_KEPT);
  let id: string | null = null;
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const said = JSON.parse(line) as { error?: unknown; id?: unknown };
      if (typeof said.error === 'string' && said.error) return { error: said.error, id: null };
      if (typeof said.id === 'string' && /^(sha256:)?[0-9a-f]{64}$/.test(said.id)) id = said.id;
    } catch {}
  }
  return { error: null, id };
}

/** readProgress's error alone. */
export async function progressError(stream: AsyncIterable<unknown>): Promise<string | null> {
  return (await readProgress(stream)).error;
}
