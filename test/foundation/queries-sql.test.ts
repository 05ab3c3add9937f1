// SQL you can review (decisions 0331, 0425): each module's store statements are checked in as
// generated/queries/<m>.sql, so a change of SQL shows in the diff. This fails while a checked-in
// file differs from what the store files give, or one is left at the former place
// (src/modules/<m>/queries.sql); `npm run queries` writes them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { formerPath, modules, orphanSnapshots, queriesOf, snapshotPath, statementsOf } from '../helpers/queries-sql.ts';

test("every module's query snapshot is what its store files give (npm run queries writes them)", () => {
  const stale: string[] = [];
  for (const f of orphanSnapshots()) stale.push(`generated/queries/${f}: names no module`);
  for (const m of modules()) {
    if (existsSync(formerPath(m))) stale.push(`src/modules/${m}/queries.sql: snapshots live in generated/queries/ now (decision 0425)`);
    const path = snapshotPath(m);
    const fresh = queriesOf(m);
    const committed = existsSync(path) ? readFileSync(path, 'utf8') : undefined;
    if (fresh === committed) continue;
    if (fresh === undefined) {
      stale.push(`generated/queries/${m}.sql: the module has no store SQL any more`);
      continue;
    }
    if (committed === undefined) {
      stale.push(`generated/queries/${m}.sql: missing`);
      continue;
    }
    const a = committed.split('\n');
    const b = fresh.split('\n');
    let at = 0;
    while (a[at] === b[at]) at++;
    stale.push(`generated/queries/${m}.sql: line ${at + 1} is ${JSON.stringify(a[at] ?? '(end)')}, the store gives ${JSON.stringify(b[at] ?? '(end)')}`);
  }
  assert.deepEqual(stale, [], "a store's SQL changed: run npm run queries and commit the files under generated/queries/");
});

test('the scanner takes the first argument of .query( (the second of firstRow() and only those, whatever the text around it', () => {
  const src = [
    "// q.query('select 1 from commented')",
    '/* q.query(`select 2 from commented`) */',
    'const COLS = `a, b, c`;',
    'const WHERE = (p: string) => `org_id = ${p}`;',
    "const re = /`.query('x')/g;",
    'export const store = {',
    '  async get(q: Queryable, orgId: string): Promise<Row | null> {',
    "    const tick = '`';",
    '    const r = await q.query<{ n: number }>(',
    '      `select ${COLS} from t',
    "         where ${WHERE('$1')} and x = ${flag ? `'${tick}'` : '{}'}`,",
    '      [orgId],',
    '    );',
    '    return r.rows[0] ?? null;',
    '  },',
    "  list: (q: Queryable) => q.query(\"select 'it''s' from t\", []),",
    '  async one(q: Queryable, id: string) {',
    '    return firstRow<Row>(q, `select ${COLS} from t where id = $1`, [id]);',
    '  },',
    '  async dynamic(q: Queryable, sql: string) {',
    '    return q.query(sql, []);',
    '  },',
    '};',
    'function named(q: Queryable) {',
    "  const text = 'delete from t';",
    '  return q.query(text);',
    '}',
  ].join('\n');
  assert.deepEqual(
    statementsOf(src).map((s) => `${s.label}: ${s.sql}`),
    [
      'COLS: a, b, c',
      'WHERE: org_id = ${…}',
      'get: select ${COLS} from t\n  where ${WHERE(…)} and x = ${…}',
      "list: select 'it''s' from t",
      'one: select ${COLS} from t where id = $1',
      'dynamic: -- built at run time: sql',
      'named (text): delete from t',
    ],
  );
});
