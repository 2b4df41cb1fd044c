import { createHash } from 'node:crypto';
import { basename, extname } from 'node:path';
import { lintSource } from '@secretlint/core';
import { secretLintProfiler } from '@secretlint/profiler';
import { creator as recommended } from '@secretlint/secretlint-rule-preset-recommend';
import type { SecretLintCoreConfig } from '@secretlint/types';
import { ENTROPY_RULE_ID, entropyRule } from './entropy-rule.js';
import type { Finding } from './findings.js';
import { readText, type FileEntry } from './walk-files.js';

// secretlint 12 marks a performance entry for every rule and file and keeps them all, searching
// them on every mark: O(n²) in files, most of a scan's time once there are a few hundred
// (secretlint#1633, fixed upstream by making the profiler opt-in, secretlint#1673). Nothing here
// reads the profile, so marking is switched off, as repomix does.
secretLintProfiler.mark = () => {};

// The rule set: secretlint's maintained recommended preset (cloud keys, tokens, private keys,
// connection strings, ...) with AWS key ids switched on (the preset reports only secret keys by
// default, and a key id beside its secret is how most leaks look), plus our entropy rule.
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
  private readonly seen = new Map<string, Hit[]>();
  private readonly files = new Map<string, Hit[] | 'binary'>();

  /** A file's findings, or null for a binary file (not scanned). */
  async scanFile(file: FileEntry, where: string): Promise<Finding[] | null> {
    let known = this.files.get(file.identity);
    if (known === undefined) {
      const text = await readText(file);
      known = text === null ? 'binary' : await this.hits(where, text);
      this.files.set(file.identity, known);
    }
    return known === 'binary' ? null : known.map((hit) => ({ where, ...hit }));
  }

  async scanText(where: string, content: string): Promise<Finding[]> {
    return (await this.hits(where, content)).map((hit) => ({ where, ...hit }));
  }

  private async hits(where: string, content: string): Promise<Hit[]> {
    // Some rules read the file's name (.npmrc, package.json, a .json key file): it is part of the key.
    const key = `${basename(where)}\0${createHash('sha1').update(content).digest('base64')}`;
    let hits = this.seen.get(key);
    if (!hits) {
      const result = await lintSource({
        source: { content, filePath: `/${where}`, ext: extname(where), contentType: 'text' },
        // Masked anyway: a rule's message quotes the secret, and no message is ever printed whole.
        options: { config, maskSecrets: true, noPhysicFilePath: true },
      });
      hits = result.messages.map((m) => ({ line: m.loc.start.line, rule: ruleName(m.ruleId, m.messageId) }));
      this.seen.set(key, hits);
    }
    return hits;
  }
}
