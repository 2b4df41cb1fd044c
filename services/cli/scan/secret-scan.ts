import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import type { Finding } from './findings.js';
import { linterHere, type Linter } from './scan-thread.js';
import { readText, type FileEntry } from './walk-files.js';

// The rule set (secretlint's recommended preset with AWS key ids, and our entropy rule) is in
// lint-source.ts, run in a thread of its own when the deploy started one (scan-thread.ts).

/** `@secretlint/secretlint-rule-aws` + `AWSAccessKeyID` read as `AWSAccessKeyID, secretlint aws`. */
function ruleName(ruleId: string, messageId: string): string {
  const short = ruleId.replace(/^@secretlint\/secretlint-rule-/, 'secretlint ');
  return `${messageId}, ${short}`;
}

type Hit = Omit<Finding, 'where'>;

/**
 * Scans text with the rule set. The scan runs on the project, then on the output or image, which
 * mostly hold the same files: results are kept by content hash, and by file identity so a file
 * the build left alone is not even read again.
 */
export class SecretScanner {
  // Promises, so a file or text asked twice at once (the head start's scan of the project folder,
  // then the deploy's) is read and linted once.
  private readonly seen = new Map<string, Promise<Hit[]>>();
  private readonly files = new Map<string, Promise<Hit[] | 'binary'>>();

  /** `linter`: where texts go through the rules (a deploy's scan thread; this thread by default). */
  private readonly linter: Linter;

  constructor(linter: Linter = linterHere) {
    this.linter = linter;
  }

  /** A file's findings, or null for a binary file (not scanned). */
  async scanFile(file: FileEntry, where: string): Promise<Finding[] | null> {
    let known = this.files.get(file.identity);
    if (known === undefined) {
      known = readText(file).then<Hit[] | 'binary'>((text) => (text === null ? 'binary' : this.hits(where, text)));
      this.files.set(file.identity, known);
      // A read that failed is tried again by whoever asks next.
      known.catch(() => this.files.delete(file.identity));
    }
    const hits = await known;
    return hits === 'binary' ? null : hits.map((hit) => ({ where, ...hit }));
  }

  async scanText(where: string, content: string): Promise<Finding[]> {
    return (await this.hits(where, content)).map((hit) => ({ where, ...hit }));
  }

  private async hits(where: string, content: string): Promise<Hit[]> {
    // Some rules read the file's name (.npmrc, package.json, a .json key file): it is part of the key.
    const key = `${basename(where)}\0${createHash('sha1').update(content).digest('base64')}`;
    let hits = this.seen.get(key);
    if (!hits) {
      hits = this.linter.lint(where, content).then((found) => found.map((m) => ({ line: m.line, rule: ruleName(m.ruleId, m.messageId) })));
      this.seen.set(key, hits);
      hits.catch(() => this.seen.delete(key));
    }
    return hits;
  }
}
