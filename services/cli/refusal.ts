import { ApiError, ContractError, operationWords } from '@demo-rooms/contract/errors';

/**
 * An expected failure: printed as one or two plain lines on stderr and exit 1, never a stack
 * trace. `detail` is shown only with --verbose.
 */
export class Refusal extends Error {
  readonly hint?: string;
  readonly detail: string[];

  constructor(message: string, hint?: string, detail: string[] = []) {
    super(message);
    this.hint = hint;
    this.detail = detail;
    this.name = 'Refusal';
  }
}

/** The status of the platform's refusal behind a Refusal, if one is. */
export function refusedStatus(err: unknown): number | null {
  return err instanceof Refusal && err.cause instanceof ApiError ? err.cause.status : null;
}

/** The lines a refusal of the platform reads as: what was being done, its `error` and reason, and a hint. */
export function apiRefusal(doing: string, err: ApiError): Refusal {
  const { body, status } = err;
  const reason = body.reason ? ` (reason: ${body.reason})` : '';
  const refusal = new Refusal(`${doing}: the platform refused with ${status} ${body.error}${reason}`, hintFor(err), verboseBody(err));
  refusal.cause = err;
  return refusal;
}

function hintFor({ status, body }: ApiError): string | undefined {
  if (status === 401) return 'sign in with `pitch login`, or give a token with PP_TOKEN or --token';
  if (status === 402) {
    // Plans are changed by the platform's operators for now: the hint leads to the page that shows
    // the plan and its limits, not to a purchase that does not exist yet.
    const upgrade = body.upgrade ? `the ${body.upgrade} plan allows more` : 'no plan allows more';
    return `limit ${body.limit ?? '?'} of the ${body.plan ?? 'current'} plan; ${upgrade} (your plan and its limits: Usage in the web app)`;
  }
  if (status === 403 && body.action) return `your role cannot ${operationWords(body.action)}`;
  if (body.detail) return body.detail;
  const first = body.issues?.[0];
  if (first) return `${first.path}: ${first.message}${body.issues!.length > 1 ? ` (and ${body.issues!.length - 1} more)` : ''}`;
  return undefined;
}

function verboseBody(err: ApiError): string[] {
  return [`reply body: ${JSON.stringify(err.body)}`];
}

/** Text from elsewhere (an engine's error, a build's last line) kept to the one line it is printed on. */
const oneLine = (text: string) => text.replace(/\s*\n\s*/g, ' ').trim();

/** Any error as the lines to print; unexpected ones say so, and show their stack only with --verbose. */
export function describeFailure(err: unknown, verbose: boolean): string[] {
  if (err instanceof Refusal) {
    return [
      `pitch: ${oneLine(err.message)}`,
      ...(err.hint ? [`  ${oneLine(err.hint)}`] : []),
      ...(verbose ? err.detail.map((d) => `  ${d}`) : []),
    ];
  }
  if (err instanceof ApiError) return describeFailure(apiRefusal('the request', err), verbose);
  if (err instanceof ContractError) {
    return [
      `pitch: the platform's reply to ${err.operation} does not fit the contract`,
      `  is the platform newer than this tool? ${verbose ? err.message : 'run with --verbose for the fields'}`,
    ];
  }
  const network = networkProblem(err);
  if (network) return [`pitch: ${network}`, '  is the platform running? choose it with --api URL or PITCH_API'];
  const message = err instanceof Error ? err.message : String(err);
  if (verbose && err instanceof Error && err.stack) return [`pitch: unexpected failure: ${oneLine(message)}`, err.stack];
  return [`pitch: unexpected failure: ${oneLine(message)}`, '  run again with --verbose for details'];
}

/** fetch wraps connection failures in a TypeError whose cause carries the system code. */
function networkProblem(err: unknown): string | null {
  const cause = (err as { cause?: { code?: string; address?: string; port?: number; hostname?: string } } | null)?.cause;
  const code = cause?.code ?? (err as { code?: string } | null)?.code;
  if (code === 'ECONNREFUSED') return `cannot reach the platform: connection refused${cause?.port ? ` on port ${cause.port}` : ''}`;
  if (code === 'ENOTFOUND') return `cannot reach the platform: no such host ${cause?.hostname ?? ''}`.trim();
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'the connection to the platform broke off';
  if (code === 'ETIMEDOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') return 'cannot reach the platform: the connection timed out';
  // Any other failure of fetch itself (a port browsers block, a TLS problem) names its cause.
  if (err instanceof TypeError && err.message === 'fetch failed')
    return `cannot reach the platform: ${(cause as Error | undefined)?.message ?? 'the request failed'}`;
  return null;
}
