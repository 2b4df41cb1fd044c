import type { Agent, IncomingMessage } from 'node:http';
import type { Transport, TransportReply } from '@demo-rooms/contract';
import { bodyAtMost, exchange, http, https } from '../node-http.js';

// The tool's calls to the platform go over node:http(s), not fetch. Node's fetch is the undici it
// bundles: its first use loads the Fetch classes (about 60 ms here), compiles its HTTP parser to
// WebAssembly, and after a few replies V8 recompiles that parser on a background thread (about
// 0.2 s of a core), which the process waits for before it exits. An unchanged redeploy is a handful
// of small JSON calls, and that was a third of what it cost beyond `pitch validate` (issue 48,
// item 3; docs/decisions/cli-deploy.md). node:http parses with the llhttp built into Node, and
// is loaded with require (node-http.ts), as its ESM import would load undici all the same.

/** How long a call may send or receive nothing before it fails, as undici's own default. */
const IDLE_MS = 300_000;
/** The most of a reply kept: the platform's replies are JSON of a few KB; more is not the platform. */
export const MAX_REPLY_BYTES = 32 * 1024 * 1024;

// Kept-alive connections: a deploy makes several calls in turn. A free socket is unref'd by the
// agent, so one left open holds no exit up. Each scheme's agent is made at its first call.
const agents = new Map<string, Agent>();
function agentFor(url: URL): Agent {
  let agent = agents.get(url.protocol);
  if (!agent) agents.set(url.protocol, (agent = new (url.protocol === 'https:' ? https() : http()).Agent({ keepAlive: true })));
  return agent;
}

/**
 * One call, as the contract's client makes it. Its failures take fetch's shape (a TypeError
 * "fetch failed" whose cause is the system error), so refusal.ts words both the same way.
 */
export const platformRequest: Transport = async (url, init) => {
  const body = typeof init.body === 'string' || init.body instanceof Uint8Array ? init.body : undefined;
  if (init.body !== undefined && body === undefined) throw new TypeError('the platform is sent text or bytes only');
  try {
    const target = new URL(url);
    const res = await exchange(target, { method: init.method, headers: init.headers, body, agent: agentFor(target), idleMs: IDLE_MS });
    return await readReply(res);
  } catch (cause) {
    throw new TypeError('fetch failed', { cause });
  }
};

async function readReply(res: IncomingMessage): Promise<TransportReply> {
  const text = (await bodyAtMost(res, MAX_REPLY_BYTES, () => new Error(`the reply is over ${MAX_REPLY_BYTES / 1024 / 1024} MiB`))).toString(
    'utf8',
  );
  return {
    status: res.statusCode ?? 0,
    statusText: res.statusMessage ?? '',
    text: async () => text,
    json: async () => JSON.parse(text),
  };
}
