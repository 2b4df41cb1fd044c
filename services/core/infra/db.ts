import postgres from 'postgres';

export type Sql = postgres.Sql<Record<string, unknown>>;

/** The transaction inside `sql.begin`. */
export type Tx = postgres.TransactionSql<Record<string, unknown>>;

/** Anything a query runs on: the pool, or a transaction. */
export type Db = Sql | Tx;

// snake_case in SQL, camelCase in TypeScript, converted by the client for column names only.
// (postgres.camel would also rename keys inside json columns: a manifest's `run.env` key
// `DEMO_MODE` would come back as `DEMOMODE`, and app ids such as `sign-up` as `signUp`.)
const columnsOnly = { column: { from: postgres.toCamel, to: postgres.fromCamel } };

export function createSql(url: string, opts: { max?: number } = {}): Sql {
  return postgres(url, {
    max: opts.max ?? 10,
    transform: columnsOnly,
    onnotice: () => {},
    connection: { application_name: 'demo-rooms' },
  }) as unknown as Sql;
}
