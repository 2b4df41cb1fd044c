import { enableCompileCache } from 'node:module';
import { extname } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import type { SecretLintCoreConfig } from '@secretlint/types';

// The rule set and the one call that runs it, loaded where the scan runs: in a worker thread of
// its own (scan-thread.ts), or in-process when no worker can start. This file is the worker's
// entry too, so it runs under Node's own type stripping as well as through tsx: it imports only
// packages statically, and entropy-rule.ts by its URL (Node resolves no `.js` to a `.ts` file).

/** What the rules said of one text: each finding's line, rule and message id (the secret itself never). */
export interface LintHit {
  line: number;
  ruleId: string;
  messageId: string;
}

type Lint = (where: string, content: string) => Promise<LintHit[]>;

let loaded: Promise<Lint> | null = null;

/** The rules, loaded on first use (secretlint's preset and its modules, most of a scan's start). */
function rules(): Promise<Lint> {
  loaded ??= (async () => {
    const [{ lintSource }, { secretLintProfiler }, { creator: recommended }, { ENTROPY_RULE_ID, entropyRule }] = await Promise.all([
      import('@secretlint/core'),
      import('@secretlint/profiler'),
      import('@secretlint/secretlint-rule-preset-recommend'),
      import(new URL('./entropy-rule.ts', import.meta.url).href) as Promise<typeof import('./entropy-rule.js')>,
    ]);
    // secretlint 12 marks a performance entry for every rule and file and keeps them all, searching
    // them on every mark: O(n²) in files, most of a scan's time once there are a few hundred
    // (secretlint#1633, fixed upstream by making the profiler opt-in, secretlint#1673). Nothing here
    // reads the profile, so marking is switched off, as repomix does.
    secretLintProfiler.mark = () => {};
    // secretlint's maintained recommended preset (cloud keys, tokens, private keys, connection
    // strings, ...) with AWS key ids switched on (the preset reports only secret keys by default,
    // and a key id beside its secret is how most leaks look), plus our entropy rule.
    const config: SecretLintCoreConfig = {
      rules: [
        {
          id: '@secretlint/secretlint-rule-preset-recommend',
          rule: recommended,
          rules: [{ id: '@secretlint/secretlint-rule-aws', options: { enableIDScanRule: true } }],
        },
        { id: ENTROPY_RULE_ID, rule: entropyRule },
      ],
    };
    return async (where, content) => {
      const result = await lintSource({
        source: { content, filePath: `/${where}`, ext: extname(where), contentType: 'text' },
        // Masked anyway: a rule's message quotes the secret, and no message is ever printed whole.
        options: { config, maskSecrets: true, noPhysicFilePath: true },
      });
      return result.messages.map((m) => ({ line: m.loc.start.line, ruleId: m.ruleId, messageId: m.messageId }));
    };
  })();
  return loaded;
}

/** One text through the rules, in this thread. */
export async function lintHere(where: string, content: string): Promise<LintHit[]> {
  return (await rules())(where, content);
}

/** A request to the scan's thread, and its answer. */
export interface LintRequest {
  id: number;
  where: string;
  content: string;
}
export type LintAnswer = { id: number; hits: LintHit[] } | { id: number; error: string } | { ready: boolean };

/** What marks the scan's own thread (a test runner's worker threads import this file too). */
export const LINT_THREAD = { pitchLintThread: true } as const;

/** The scan thread's workerData: its mark, and the tool's compile cache folder when it has one. */
export type LintThreadData = typeof LINT_THREAD & { compileCache?: string };

// As the scan thread's entry: load the rules at once (the thread was started ahead of its first
// text), then answer each text.
const threadData = workerData as LintThreadData | undefined;
if (parentPort && threadData?.pitchLintThread === true) {
  const port = parentPort;
  if (threadData.compileCache) {
    try {
      enableCompileCache(threadData.compileCache);
    } catch {
      // Without it the rules only load slower.
    }
  }
  rules().then(
    () => port.postMessage({ ready: true } satisfies LintAnswer),
    () => port.postMessage({ ready: false } satisfies LintAnswer),
  );
  port.on('message', (request: LintRequest) => {
    lintHere(request.where, request.content).then(
      (hits) => port.postMessage({ id: request.id, hits } satisfies LintAnswer),
      (err: unknown) => port.postMessage({ id: request.id, error: String((err as Error)?.message ?? err) } satisfies LintAnswer),
    );
  });
}
