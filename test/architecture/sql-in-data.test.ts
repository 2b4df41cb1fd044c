import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALLOWED, sqlOutsideData } from '../../infra/local/sql-in-data.mjs';

// The content half of the layering rule (`npm run layers` runs the same check): no postgres
// query template outside services/data in the real tree, and one in a probe tree is refused
// even though it imports no *.sql.ts file.

const root = path.resolve(import.meta.dirname, '../..');

describe('sql lives in services/data', () => {
  it('the platform writes no query outside services/data', () => {
    expect(sqlOutsideData(root, ['services', 'workers', 'runner'])).toEqual([]);
  });

  it('a probe with inline queries is refused, line by line; services/data and other tags are not', () => {
    const probe = path.join(root, 'test/fixtures/layering');
    expect(sqlOutsideData(probe, ['services'], [])).toEqual([
      'services/api/inline-query.ts:5: select * from projects where name = ${name}',
      'services/api/inline-query.ts:6: select pg_advisory_xact_lock(hashtext(${id}))',
    ]);
  });

  it('an allow-list entry names its exact query and its reason, and a stale one is refused', () => {
    for (const entry of ALLOWED) expect(entry.reason).not.toBe('');
    const probe = path.join(root, 'test/fixtures/layering');
    const lockOnly = [{ file: 'services/api/inline-query.ts', text: 'select pg_advisory_xact_lock(hashtext(${id}))', reason: 'probe' }];
    expect(sqlOutsideData(probe, ['services'], lockOnly)).toEqual([
      'services/api/inline-query.ts:5: select * from projects where name = ${name}',
    ]);
    const stale = [{ file: 'services/api/gone.ts', reason: 'probe' }];
    expect(sqlOutsideData(probe, ['services'], stale)).toContain('allow-list entry matches nothing: services/api/gone.ts');
  });
});
