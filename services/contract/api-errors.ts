import type { z } from 'zod';
import type { ErrorBody } from './errors.schema.js';

// The client's two errors, in a file of their own: the pitch tool's refusals tell them apart
// (services/cli/refusal.ts) before anything loads the route table, whose schemas are most of the
// contract's load (`@demo-rooms/contract/errors`; issue 48, the container redeploy's head start).

export class ApiError extends Error {
  readonly status: number;
  readonly body: ErrorBody;

  constructor(status: number, body: ErrorBody) {
    super(`${status} ${body.error}${body.reason ? ` (${body.reason})` : ''}`);
    this.status = status;
    this.body = body;
    this.name = 'ApiError';
  }
}

export class ContractError extends Error {
  readonly operation: string;
  readonly issues: z.core.$ZodIssue[];

  constructor(operation: string, issues: z.core.$ZodIssue[]) {
    super(`reply of ${operation} does not fit the contract: ${issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    this.operation = operation;
    this.issues = issues;
    this.name = 'ContractError';
  }
}

/** An operation's name as words, for a 403's `action` (`setBrand` → "set brand"). */
export const operationWords = (operation: string): string => operation.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
