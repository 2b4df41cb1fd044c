import type { IncomingMessage } from 'node:http';
import type Docker from 'dockerode';
import { http, onUnixSocket } from '../node-http.js';
import { loadDockerode } from './dockerode-lazy-parts.js';

// An engine on this machine's unix socket, answered over node:http for the calls a container
// redeploy makes on its way to the rehearsal copy and after it (issue 48): an image's inspect, tag
// and removal; a container's create, inspect, start, logs and removal; the containers' listing; the
// ping; and the libpod calls the tool dials itself (engine-dial.ts: the pull, a container's mount,
// kill and removal). Loading dockerode held the head start's thread 0.03 s before its pull, on the
// chain of a redeploy that only this thread runs (docs/scale.md, "Session 43"). Each call answers,
// and fails, as dockerode's does: its status codes, and an error carrying the engine's reply
// (`json`, `statusCode`), as socket-engine.int.test.ts holds them against dockerode's. Anything
// else asked of the engine (a build, a save, a progress reader) is dockerode's own, loaded then.

/** Each status a call may answer: true is a success, a string the error's words (dockerode's `statusCodes`). */
type Statuses = Record<number, true | string>;

interface Call {
  method: 'GET' | 'HEAD' | 'POST' | 'DELETE';
  path: string;
  query?: Record<string, unknown>;
  body?: unknown;
  /** The reply as its stream (once its status is a success). */
  stream?: boolean;
  signal?: AbortSignal;
  statusCodes: Statuses;
}

/** A query as dockerode writes it: scalars as they are, anything else as JSON; undefined left out. */
function queryOf(query: Record<string, unknown> = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    params.set(name, typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value));
  }
  return params.toString();
}

const parsed = (buffer: Buffer): unknown => {
  try {
    return JSON.parse(buffer.toString('utf8'));
  } catch {
    return null;
  }
};

/** The error dockerode's modem makes of a status the call does not take. */
function engineError(status: number, statusCodes: Statuses, json: unknown): Error {
  const cause = json as { message?: string; error?: string } | string | null;
  const words = typeof cause === 'object' && cause !== null ? (cause.message ?? cause.error ?? '') : String(cause ?? '');
  const reason = statusCodes[status];
  return Object.assign(new Error(`(HTTP code ${status}) ${typeof reason === 'string' ? reason : 'unexpected'} - ${words} `), {
    reason,
    statusCode: status,
    json,
  });
}

const body = (res: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('error', reject);
    res.on('end', () => resolve(Buffer.concat(chunks)));
  });

/** One call on the socket: the reply's JSON (or its bytes when not JSON), or its stream. */
function engineCall(socketPath: string, call: Call): Promise<unknown> {
  const query = queryOf(call.query);
  const bare = call.path.replace(/\?$/, '');
  const path = query ? `${bare}${bare.includes('?') ? '&' : '?'}${query}` : bare;
  const payload = call.body === undefined ? undefined : JSON.stringify(call.body);
  const headers = payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) };
  return new Promise((resolve, reject) => {
    const req = http().request({ ...onUnixSocket(socketPath), method: call.method, path, headers, signal: call.signal }, (res) => {
      const status = res.statusCode ?? 0;
      if (call.stream && call.statusCodes[status] === true) return resolve(res);
      body(res).then((bytes) => {
        const json = parsed(bytes) ?? bytes;
        if (call.statusCodes[status] === true) resolve(json);
        else reject(engineError(status, call.statusCodes, json));
      }, reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** dockerode's answers for a container's and an image's calls, beyond which each adds its own. */
const CONTAINER: Statuses = { 200: true, 404: 'no such container', 500: 'server error' };
const IMAGE: Statuses = { 200: true, 404: 'no such image', 500: 'server error' };

/** dockerode's `modem.dial` for the calls engine-dial.ts makes (path with its `?`, `_query`, `_body`). */
interface DialOptions {
  path: string;
  method: Call['method'];
  options?: { _query?: Record<string, unknown>; _body?: unknown };
  isStream?: boolean;
  abortSignal?: AbortSignal;
  statusCodes: Statuses;
}

/**
 * A dockerode-shaped engine on `socketPath`: the calls above over node:http, and any other
 * property taken from a real dockerode on the same socket, made (and loaded) at its first use.
 */
export function socketEngine(socketPath: string): Docker {
  let real: Docker | undefined;
  const dockerode = (): Docker => {
    if (!real) {
      const Dockerode = loadDockerode();
      real = new Dockerode({ socketPath });
    }
    return real;
  };
  const call: Caller = (c) => engineCall(socketPath, c);
  const container = (id: string) => containerOn(call, id, () => dockerode().getContainer(id));
  const engine = {
    modem: modemOn(call, socketPath, () => dockerode().modem),
    ping: () => call({ method: 'GET', path: '/_ping', statusCodes: { 200: true, 500: 'server error' } }),
    getImage: (name: string) => imageOn(call, name, () => dockerode().getImage(name)),
    getContainer: container,
    listContainers: (opts?: object) =>
      call({
        method: 'GET',
        path: '/containers/json',
        query: { ...opts },
        statusCodes: { 200: true, 400: 'bad parameter', 500: 'server error' },
      }),
    async createContainer(options: Docker.ContainerCreateOptions) {
      const made = (await call({
        method: 'POST',
        path: '/containers/create',
        query: { name: options.name },
        body: options,
        statusCodes: { 200: true, 201: true, 404: 'no such image', 406: 'impossible to attach', 500: 'server error' },
      })) as { Id: string };
      return container(made.Id);
    },
  };
  return withFallback(engine, dockerode) as unknown as Docker;
}

type Caller = (call: Call) => Promise<unknown>;

/** A container's calls (`full`: dockerode's own container, for the others). */
function containerOn(call: Caller, id: string, full: () => Docker.Container) {
  const path = `/containers/${encodeURIComponent(id)}`;
  const gone = { 404: CONTAINER[404], 500: CONTAINER[500] };
  return withFallback(
    {
      id,
      inspect: (opts?: object) => call({ method: 'GET', path: `${path}/json`, query: { ...opts }, statusCodes: CONTAINER }),
      start: () => call({ method: 'POST', path: `${path}/start`, statusCodes: { 204: true, 304: 'container already started', ...gone } }),
      remove: (opts?: object) =>
        call({ method: 'DELETE', path, query: { ...opts }, statusCodes: { 204: true, 400: 'bad parameter', ...gone } }),
      // A followed log is a stream dockerode demultiplexes: its own.
      logs: (opts?: { follow?: boolean }) =>
        opts?.follow
          ? full().logs({ ...opts, follow: true })
          : call({ method: 'GET', path: `${path}/logs`, query: { ...opts }, statusCodes: CONTAINER }),
    },
    full,
  );
}

/** An image's calls (`full`: dockerode's own image, for the others). */
function imageOn(call: Caller, name: string, full: () => Docker.Image) {
  const path = `/images/${encodeURIComponent(name)}`;
  return withFallback(
    {
      name,
      inspect: () => call({ method: 'GET', path: `${path}/json`, statusCodes: IMAGE }),
      tag: (opts: { repo: string; tag?: string }) =>
        call({
          method: 'POST',
          path: `${path}/tag`,
          query: opts,
          statusCodes: { ...IMAGE, 201: true, 400: 'bad parameter', 409: 'conflict' },
        }),
      remove: (opts?: object) => call({ method: 'DELETE', path, query: { ...opts }, statusCodes: { ...IMAGE, 409: 'conflict' } }),
    },
    full,
  );
}

/** The modem's `dial`, as engine-dial.ts calls it, and its socket (`full`: dockerode's modem, for the others). */
function modemOn(call: Caller, socketPath: string, full: () => object) {
  return withFallback(
    {
      socketPath,
      dial(options: DialOptions, callback: (err: unknown, reply?: unknown) => void) {
        const { _query: query, _body: body } = options.options ?? {};
        const { method, path, isStream: stream, abortSignal: signal, statusCodes } = options;
        call({ method, path, query, body, stream, signal, statusCodes }).then(
          (reply) => callback(null, reply),
          (err: unknown) => callback(err),
        );
      },
    },
    full,
  );
}

/** `light`, with any property it lacks taken from `full()` (bound to it when a function). */
function withFallback<T extends object>(light: T, full: () => object): T {
  return new Proxy(light, {
    get(target, key, receiver) {
      if (key in target) return Reflect.get(target, key, receiver);
      // Not a promise: `await` and a promise's resolution ask every object for its `then`.
      if (key === 'then') return undefined;
      const whole = full() as Record<string | symbol, unknown>;
      const value = whole[key];
      return typeof value === 'function' ? value.bind(whole) : value;
    },
  });
}
