import type { Logger } from '../../services/core/log.js';
import type { Engine } from './engine.js';
import { LABEL } from '../../services/contract/runner/copy-labels.js';

// The runner follows the engine's event stream for its own containers instead of polling each
// copy: an exit or OOM kill is known within milliseconds, so a start fails fast and a crashed
// copy's record is closed at once. A broken stream is reopened with backoff; because events may
// have been missed meanwhile, `onResume` asks the caller to reconcile.

export interface CopyExit {
  copyId: string;
  containerId: string;
  exitCode: number | null;
  oom: boolean;
}

export interface EventFollower {
  /** Settles once the stream first opened (or first failed to): reconcile after it, so nothing falls between. */
  ready: Promise<void>;
  stop(): void;
}

interface RawEvent {
  Type?: string;
  Action?: string;
  status?: string;
  id?: string;
  time?: number;
  Actor?: { ID?: string; Attributes?: Record<string, string> };
}

export function followEngineEvents(opts: {
  engine: Engine;
  runnerId: string;
  log: Logger;
  onExit: (exit: CopyExit) => void;
  onResume: () => void;
}): EventFollower {
  let stopped = false;
  let stream: NodeJS.ReadableStream | null = null;
  let delay = 250;
  let lastTime: number | undefined;
  // podman reports an OOM kill as its own event just before `die`; Docker likewise ('oom').
  const oomSeen = new Set<string>();
  let opened!: () => void;
  const ready = new Promise<void>((resolve) => (opened = resolve));

  const handle = (e: RawEvent) => {
    if (e.Type !== 'container') return;
    const action = e.Action ?? e.status ?? '';
    const id = e.Actor?.ID ?? e.id ?? '';
    const attrs = e.Actor?.Attributes ?? {};
    const copyId = attrs[LABEL.copy];
    if (e.time) lastTime = e.time;
    if (!copyId) return;
    if (action === 'oom') {
      oomSeen.add(id);
      return;
    }
    if (action !== 'die') return;
    const code = attrs.exitCode ?? attrs.containerExitCode;
    const exitCode = code === undefined ? null : Number(code);
    const oom = oomSeen.delete(id);
    opts.onExit({ copyId, containerId: id, exitCode, oom });
  };

  const open = async (resumed: boolean) => {
    if (stopped) return;
    try {
      const s = await opts.engine.events(opts.runnerId, lastTime);
      if (stopped) return (s as unknown as { destroy(): void }).destroy();
      stream = s;
      delay = 250;
      opened();
      if (resumed) opts.onResume();
      let buffered = '';
      s.on('data', (chunk: Buffer) => {
        buffered += chunk.toString('utf8');
        // One JSON object a line (podman) or back to back (Docker): split on line ends and on `}{`.
        const parts = buffered.replace(/}\s*{/g, '}\n{').split('\n');
        buffered = parts.pop() ?? '';
        for (const part of parts) {
          if (!part.trim()) continue;
          try {
            handle(JSON.parse(part) as RawEvent);
          } catch (err) {
            opts.log.warn({ err: (err as Error).message }, 'unreadable engine event');
          }
        }
        if (buffered.trim().endsWith('}')) {
          try {
            handle(JSON.parse(buffered) as RawEvent);
            buffered = '';
          } catch {
            // not complete yet
          }
        }
      });
      const reopen = () => {
        if (stream !== s) return;
        stream = null;
        if (!stopped) retry();
      };
      s.on('end', reopen);
      s.on('close', reopen);
      s.on('error', (err: Error) => {
        opts.log.warn({ err: err.message }, 'engine event stream broke');
        reopen();
      });
    } catch (err) {
      opts.log.warn({ err: (err as Error).message }, 'engine event stream not open');
      opened();
      retry();
    }
  };

  const retry = () => {
    const wait = delay;
    delay = Math.min(delay * 2, 10_000);
    setTimeout(() => void open(true), wait).unref();
  };

  void open(false);
  return {
    ready,
    stop() {
      stopped = true;
      (stream as unknown as { destroy?: () => void } | null)?.destroy?.();
      stream = null;
    },
  };
}
