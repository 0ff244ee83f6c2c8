import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
for (const mode of ['WAL', 'OFF', 'MEMORY']) {
  rmSync('/tmp/sb2.sqlite', { force: true }); rmSync('/tmp/sb2.sqlite-wal', { force: true });
  const db = new Database('/tmp/sb2.sqlite'); db.pragma(`journal_mode = ${mode}`); db.pragma('synchronous = NORMAL');
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, a INTEGER, b INTEGER, c TEXT, d TEXT, e TEXT)');
  const st = db.prepare('INSERT INTO t VALUES (?, ?, ?, ?, ?, ?)');
  const t = performance.now();
  db.transaction(() => { for (let i = 1; i <= 50000; i++) st.run(i, i, i, 'abc', 'x'.repeat(200), null); })();
  console.log(mode, '50k rows', (performance.now() - t).toFixed(0), 'ms');
}
const db = new Database(':memory:');
db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, a INTEGER, b INTEGER, c TEXT, d TEXT, e TEXT)');
const st = db.prepare('INSERT INTO t VALUES (?, ?, ?, ?, ?, ?)');
let t = performance.now();
db.transaction(() => { for (let i = 1; i <= 50000; i++) st.run(i, i, i, 'abc', 'x'.repeat(200), null); })();
console.log('memory 50k rows', (performance.now() - t).toFixed(0), 'ms');
t = performance.now();
for (let i = 0; i < 50000; i++) db.prepare('SELECT 1');
console.log('50k noop prepares', (performance.now() - t).toFixed(0));
