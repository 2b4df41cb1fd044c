import type { Finding } from './findings.js';
import type { SecretScanner } from './secret-scan.js';

export interface EnvVariable {
  /** Where it is set, as printed: `pitch.json run.env` or `image ENV`. */
  from: string;
  name: string;
  value: string;
}

/**
 * The start environment a copy gets (the image's ENV, then run.env), scanned as `NAME="value"`
 * lines, one a variable, so each finding names its variable and never its value.
 */
export async function scanEnvironment(scanner: SecretScanner, variables: EnvVariable[]): Promise<Finding[]> {
  if (variables.length === 0) return [];
  const text = variables.map((v) => `${v.name}=${JSON.stringify(v.value)}`).join('\n');
  const found = await scanner.scanText('start environment', text);
  return found.map((finding) => {
    const variable = variables[finding.line - 1];
    return { where: `${variable.from} ${variable.name}`, line: 0, rule: finding.rule };
  });
}

/** `KEY=value` strings of an image's config as variables. */
export function imageEnv(env: string[] | undefined): EnvVariable[] {
  return (env ?? []).map((pair) => {
    const at = pair.indexOf('=');
    return { from: 'image ENV', name: at < 0 ? pair : pair.slice(0, at), value: at < 0 ? '' : pair.slice(at + 1) };
  });
}
