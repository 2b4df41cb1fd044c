import { insertExit } from '../../services/data/copy-exits.sql.js';
import type { CopyRow } from '../../services/data/copies.sql.js';
import { terminalSafe } from '@demo-rooms/contract';
import type { RunnerContext } from '../service/runner-context.js';

// What a copy said before it died, kept for its builder (copy_exits): read from the engine
// before the container is removed, bounded, with run.env's secrets masked, and without terminal
// controls (the builder reads it in a terminal through `pitch logs`; a copy runs anyone's code).

/** The output kept per exit: its last lines, at most this many bytes of them. */
export const EXIT_LINES = 50;
export const EXIT_BYTES = 8 * 1024;

/** Names that say their value is a secret; any long value is treated as one too (an API key by another name). */
const secretName = /key|secret|token|pass|pwd|auth|credential|private|cookie|session|signature/i;
const longValue = 12;

/**
 * The last EXIT_LINES lines, at most EXIT_BYTES (cut at a line start), every secret-looking run.env value as `***`, and no
 * terminal control but \n and \t (CRLF ends a line as LF does).
 */
export function exitOutput(raw: string, env: Record<string, string>): string {
  // Controls go first, so a secret printed with escapes between its letters is still found whole.
  let text = terminalSafe(raw);
  const secrets = Object.entries(env)
    .filter(([name, value]) => value.length >= 4 && (secretName.test(name) || value.length >= longValue))
    .map(([, value]) => value)
    .sort((a, b) => b.length - a.length);
  for (const secret of secrets) text = text.split(secret).join('***');
  const lines = text.split('\n').map((l) => l.trimEnd());
  while (lines.length && !lines.at(-1)) lines.pop();
  let kept = lines.slice(-EXIT_LINES);
  while (kept.length > 1 && Buffer.byteLength(kept.join('\n')) > EXIT_BYTES) kept = kept.slice(1);
  const out = kept.join('\n');
  return Buffer.byteLength(out) > EXIT_BYTES ? Buffer.from(out).subarray(-EXIT_BYTES).toString('utf8') : out;
}

/**
 * Records a copy's own exit with its code and last output (`oom` as looksOom judged it). Best effort: a copy's end must not
 * wait on, or fail for, its post-mortem.
 */
export async function recordExit(
  ctx: RunnerContext,
  row: CopyRow,
  e: { exitCode: number | null; oom: boolean; healthy: boolean },
): Promise<void> {
  try {
    const container = row.containerId;
    const raw = container ? await ctx.engine.logTail(container, EXIT_LINES) : '';
    const run = await ctx.runs(row.buildId);
    await insertExit(ctx.sql, {
      copyId: row.id,
      workspaceId: row.workspaceId,
      projectId: row.projectId,
      buildId: row.buildId,
      healthy: e.healthy,
      exitCode: e.exitCode,
      oom: e.oom,
      output: exitOutput(raw, run.env),
    });
  } catch (err) {
    ctx.log.warn({ copyId: row.id, err: (err as Error).message }, 'exit not recorded');
  }
}
