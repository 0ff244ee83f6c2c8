// The findings table's one writer (engine/store/findings.ts): each producer replaces only its own
// findings, and the SQL text helpers keep spliced values safe.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { deleteRunFindings, deleteSourceFindings, insertFinding, type NewFindingSqlRow } from '../../../src-main/engine/store/findings';
import { containsPattern, idList } from '../../../src-main/engine/store/sqlText';

function findingsDatabase(): Database.Database {
  const db = new Database(':memory:');
  db.exec(`CREATE TABLE findings (id INTEGER PRIMARY KEY, source_id INTEGER NOT NULL, options_key TEXT NOT NULL, run_pk INTEGER, kind TEXT NOT NULL,
    severity TEXT NOT NULL, step INTEGER, call_id TEXT, line INTEGER, message TEXT NOT NULL, details_json TEXT)`);
  return db;
}

const finding = (overrides: Partial<NewFindingSqlRow>): NewFindingSqlRow => ({
  source_id: 1,
  options_key: 'window=3;threshold=3',
  run_pk: 10,
  kind: 'dangling_call',
  severity: 'warning',
  step: 2,
  call_id: 'c1',
  line: 5,
  message: 'a message',
  details_json: null,
  ...overrides,
});

const kinds = (db: Database.Database): string[] =>
  db
    .prepare<[], { kind: string }>('SELECT kind FROM findings ORDER BY id')
    .all()
    .map((row) => row.kind);

describe('the findings table', () => {
  it('stores a finding as given, ids in insertion order', () => {
    const db = findingsDatabase();
    insertFinding(db, finding({ details_json: '{"limit":"max_turns"}' }));
    insertFinding(db, finding({ kind: 'secret_in_trace', severity: 'error', run_pk: null, step: null, call_id: null }));
    assert.deepEqual(db.prepare('SELECT id, run_pk, kind, severity, step, call_id, line, details_json FROM findings ORDER BY id').all(), [
      { id: 1, run_pk: 10, kind: 'dangling_call', severity: 'warning', step: 2, call_id: 'c1', line: 5, details_json: '{"limit":"max_turns"}' },
      { id: 2, run_pk: null, kind: 'secret_in_trace', severity: 'error', step: null, call_id: null, line: 5, details_json: null },
    ]);
  });

  it('replaces only the producer’s own findings: a run’s (of some kinds) or a source’s kind, under one options key', () => {
    const db = findingsDatabase();
    insertFinding(db, finding({ kind: 'dangling_call' }));
    insertFinding(db, finding({ kind: 'history_rewritten' }));
    insertFinding(db, finding({ kind: 'secret_in_trace' }));
    insertFinding(db, finding({ kind: 'dangling_call', options_key: 'window=5;threshold=3' }));
    insertFinding(db, finding({ kind: 'dangling_call', run_pk: 11 }));
    deleteRunFindings(db, 10, 'window=3;threshold=3', ['history_rewritten']);
    assert.deepEqual(kinds(db), ['dangling_call', 'secret_in_trace', 'dangling_call', 'dangling_call']);
    deleteSourceFindings(db, 1, 'window=3;threshold=3', 'secret_in_trace');
    assert.deepEqual(kinds(db), ['dangling_call', 'dangling_call', 'dangling_call']);
    deleteRunFindings(db, 10, 'window=3;threshold=3');
    assert.deepEqual(db.prepare('SELECT run_pk, options_key FROM findings ORDER BY id').all(), [
      { run_pk: 10, options_key: 'window=5;threshold=3' },
      { run_pk: 11, options_key: 'window=3;threshold=3' },
    ]);
  });
});

describe('SQL text', () => {
  it('splices only integer ids', () => {
    assert.equal(idList([1, 2, 30]), '1, 2, 30');
    assert.throws(() => idList([1, 1.5]), /integers/);
    assert.throws(() => idList([Number.NaN]), /integers/);
  });

  it('escapes LIKE pattern characters, so a search for them finds them literally', () => {
    assert.equal(containsPattern('50%_a\\b'), '%50\\%\\_a\\\\b%');
    const db = new Database(':memory:');
    const like = (value: string, text: string): boolean =>
      db.prepare<[string, string], { hit: number }>("SELECT ? LIKE ? ESCAPE '\\' AS hit").get(value, containsPattern(text))?.hit === 1;
    assert.equal(like('rate is 50% now', '50%'), true);
    assert.equal(like('rate is 500 now', '50%'), false);
    assert.equal(like('a_b', 'a_b'), true);
    assert.equal(like('axb', 'a_b'), false);
  });
});
