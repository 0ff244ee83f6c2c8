import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
import { migrate } from '../src-main/engine/store/schema';
import { TraceWriter } from '../src-main/engine/store/traceWriter';
rmSync('/tmp/sb.sqlite', { force: true });
const db = new Database('/tmp/sb.sqlite'); db.pragma('journal_mode = WAL'); db.pragma('synchronous = NORMAL');
migrate(db);
const w = new TraceWriter(db);
const t = performance.now();
for (let i = 1; i <= 50000; i++) {
  w.addEvent({ id: i, source_id: 1, run_pk: i % 100, line: i, byte_offset: i * 4000, byte_length: 4000, type: 'tool_result', type_raw: 'tool_result', step: 3, step_id: null, ts: '2025-01-01T00:00:00.000Z', call_id: 'call_abc' + i, name: 'get_order', outcome: null, finish_reason: null, tool_call_count: null, input_tokens: null, output_tokens: null, latency_ms: 12, result_ok: 1, error_code: null, result_hash: 'abcdef0123456789', progress: null, summary: 'x'.repeat(200), payload: null });
}
w.flush();
console.log('50k rows', (performance.now() - t).toFixed(0), 'ms');
