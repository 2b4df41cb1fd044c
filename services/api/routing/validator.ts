import type { FastifySchemaCompiler } from 'fastify';
import type { z } from 'zod';
import { plainMessage, toProblems, formatPath } from '@demo-rooms/contract/manifest';
import type { Issue } from '@demo-rooms/contract';
import { notFound } from '../../core/rules/errors.js';

/** A request that does not fit its schema: each field that does not fit, as a person reads it. */
export class InvalidRequest extends Error {
  constructor(readonly issues: Issue[]) {
    super('invalid');
  }
}

/**
 * Validates params, query and body with their zod schemas. Issues are rendered by the same code
 * as manifest problems, so an unknown manifest field reads `manifest.controls: unknown field`
 * and a duplicate app id `manifest.apps[1].id`, whether the CLI or the platform finds it.
 */
export const validatorCompiler: FastifySchemaCompiler<z.ZodType> =
  ({ schema, httpPart }) =>
  (data) => {
    // A POST sent with no body at all (`curl -X POST`) is read as an empty object: a row whose
    // fields are all optional (readNotices) then does what it says, and one
    // with required fields names each of them rather than a bare "body is required".
    const input = httpPart === 'body' && data == null ? {} : data;
    const result = schema.safeParse(input, { error: plainMessage });
    if (result.success) {
      // Postgres text cannot hold NUL; a string carrying one is refused here rather than failing later.
      const nul = nulPaths(result.data);
      // An id with NUL in the path names nothing: 404 like any id that is not a UUID (never 400).
      if (nul.length && httpPart === 'params') return { error: notFound() };
      return nul.length
        ? { error: new InvalidRequest(nul.map((path) => ({ path, message: 'must not contain the NUL character' }))) }
        : { value: result.data };
    }
    const prefix = httpPart === 'body' ? [] : [httpPart === 'querystring' ? 'query' : (httpPart ?? 'body')];
    const issues = result.error.issues.flatMap((i) => toProblems({ ...i, path: [...prefix, ...i.path] }));
    return { error: new InvalidRequest(issues.map((i) => ({ path: i.path || 'body', message: i.message }))) };
  };

function nulPaths(value: unknown, path: (string | number)[] = []): string[] {
  if (typeof value === 'string') return value.includes('\u0000') ? [formatPath(path) || 'body'] : [];
  if (Array.isArray(value)) return value.flatMap((v, i) => nulPaths(v, [...path, i]));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => nulPaths(v, [...path, k]));
  return [];
}
