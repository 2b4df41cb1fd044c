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
 * answers the error one of them names, or null when none does. A line that is not JSON is skipped.
 */
export async function progressError(stream: AsyncIterable<unknown>): Promise<string | null> {
  let text = '';
  for await (const chunk of stream) text = (text + (chunk as Buffer).toString('utf8')).slice(-PROGRESS_KEPT);
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const said = JSON.parse(line) as { error?: unknown };
      if (typeof said.error === 'string' && said.error) return said.error;
    } catch {}
  }
  return null;
}
