import { Refusal } from '../refusal.js';

/** One secret found: where (a file, or a variable of the start environment), the line, and the rule. Never the value. */
export interface Finding {
  where: string;
  line: number;
  rule: string;
}

export function formatFinding(finding: Finding): string {
  return `${finding.where}${finding.line > 0 ? `:${finding.line}` : ''} (${finding.rule})`;
}

const FILE_ADVICE = 'remove it (a demo takes mock settings only), or mark a false alarm with a `secretlint-disable-line` comment';

/** JSON holds no comment (issue 47: the advice above could not be followed in a .json file). */
const JSON_ADVICE =
  'remove it or give it a made-up value (a demo takes mock settings only); JSON holds no comment, so a false alarm there is silenced by changing the value or by keeping the file out of what is deployed';

const adviceFor = (finding: Finding) => (/\.json$/i.test(finding.where) ? JSON_ADVICE : FILE_ADVICE);

/** For the start environment, where no comment can go. */
export const ENV_ADVICE = "a copy's environment takes mock settings only: give the demo a made-up value";

/** The deploy stops on the first scan that finds anything: the first finding named, the rest counted. */
export function secretsRefusal(scanned: string, findings: Finding[], advice = adviceFor(findings[0])): Refusal {
  const rest = findings.length - 1;
  return new Refusal(
    `a secret in ${scanned}: ${formatFinding(findings[0])}`,
    `${rest > 0 ? `and ${rest} more; ` : ''}${advice}`,
    findings.slice(1).map(formatFinding),
  );
}
