/** Prepared statements kept per connection: preparing costs more than running a small query, and the same few run many times. */
import type Database from 'better-sqlite3';

const statementCache = new WeakMap<Database.Database, Map<string, Database.Statement>>();

export function prepared<Params extends unknown[], Row>(db: Database.Database, sql: string): Database.Statement<Params, Row> {
  let cache = statementCache.get(db);
  if (cache === undefined) {
    cache = new Map();
    statementCache.set(db, cache);
  }
  let statement = cache.get(sql);
  if (statement === undefined) {
    statement = db.prepare(sql);
    cache.set(sql, statement);
  }
  return statement as unknown as Database.Statement<Params, Row>;
}
