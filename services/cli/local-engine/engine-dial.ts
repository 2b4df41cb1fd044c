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
