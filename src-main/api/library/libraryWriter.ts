/**
 * The library database's writes (libraryDatabase.ts): a trace file's rows replaced whole when it is
 * indexed again, and removed when the file is gone. Each is one transaction, so a reader sees a
 * file's runs, findings and calls all old or all new.
 */
import type Database from 'better-sqlite3';
import type { TraceFacts } from './traceFacts';

export interface IndexedFile {
  path: string;
  traceId: string;
  size: number;
  mtimeMs: number;
}

export type FileOutcome =
  { state: 'indexed'; facts: TraceFacts; dbPath: string; sourceIds: number[] } | { state: 'skipped'; reason: string } | { state: 'failed'; reason: string };

/** A file as the library last indexed it. */
export interface KnownFile {
  size: number;
  mtimeMs: number;
  state: string;
  /** Why it could not be indexed (a failed file). */
  error: string | null;
}

/** The UTC day of an ISO timestamp; null when it is not one. */
function utcDay(timestamp: string | null): string | null {
  if (timestamp === null) return null;
  const millis = Date.parse(timestamp);
  return Number.isNaN(millis) ? null : new Date(millis).toISOString().slice(0, 10);
}

export class LibraryWriter {
  private readonly statements;

  constructor(private readonly db: Database.Database) {
    this.statements = {
      fileId: db.prepare<[string], number>('SELECT id FROM files WHERE path = ?').pluck(),
      runRows: db.prepare<[number], number>('SELECT id FROM runs WHERE file_id = ?').pluck(),
      deleteFindings: db.prepare<[number]>('DELETE FROM findings WHERE run_row = ?'),
      deleteCalls: db.prepare<[number]>('DELETE FROM calls WHERE run_row = ?'),
      deleteModels: db.prepare<[number]>('DELETE FROM run_models WHERE run_row = ?'),
      deleteRuns: db.prepare<[number]>('DELETE FROM runs WHERE file_id = ?'),
      deleteFile: db.prepare<[number]>('DELETE FROM files WHERE id = ?'),
      nextGeneration: db.prepare("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation'"),
      insertFile: db.prepare(
        `INSERT INTO files (path, trace_id, size, mtime_ms, state, error, format, db_path, source_ids, term_filter, indexed_at)
         VALUES (@path, @traceId, @size, @mtimeMs, @state, @error, @format, @dbPath, @sourceIds, @termFilter, @indexedAt)`,
      ),
      insertRun: db.prepare(
        `INSERT INTO runs (file_id, run_pk, run_id, file, directory, format, status, models, provider, task, started_at, started_day,
           duration_ms, steps, tool_calls, tool_errors, errors, warnings, infos, finding_kinds, input_tokens, output_tokens,
           cached_tokens, reasoning_tokens, cost_usd, unpriced_responses, wasted_usd, sub_agent_cost_usd, parent_run_id)
         VALUES (@fileId, @runPk, @runId, @file, @directory, @format, @status, @models, @provider, @task, @startedAt, @startedDay,
           @durationMs, @steps, @toolCalls, @toolErrors, @errors, @warnings, @infos, @findingKinds, @inputTokens, @outputTokens,
           @cachedTokens, @reasoningTokens, @costUsd, @unpricedResponses, @wastedUsd, @subAgentCostUsd, @parentRunId)`,
      ),
      insertModel: db.prepare<[number, string]>('INSERT INTO run_models (run_row, model) VALUES (?, ?)'),
      insertFinding: db.prepare(
        `INSERT INTO findings (run_row, kind, severity, tool, signature_key, signature_text, line, message)
         VALUES (@runRow, @kind, @severity, @tool, @signatureKey, @signatureText, @line, @message)`,
      ),
      insertCall: db.prepare<[number, string, string | null, number | null]>('INSERT INTO calls (run_row, tool, state, latency_ms) VALUES (?, ?, ?, ?)'),
    };
  }

  /** Every file the library holds, by path. */
  knownFiles(): Map<string, KnownFile> {
    const rows = this.db
      .prepare<[], { path: string; size: number; mtime_ms: number; state: string; error: string | null }>(
        'SELECT path, size, mtime_ms, state, error FROM files',
      )
      .all();
    return new Map(rows.map((row) => [row.path, { size: row.size, mtimeMs: row.mtime_ms, state: row.state, error: row.error }]));
  }

  /** The files with a run stored as `running`: followed while they were being written. */
  pathsWithRunningRuns(): string[] {
    return this.db.prepare<[], string>("SELECT DISTINCT f.path FROM runs r JOIN files f ON f.id = r.file_id WHERE r.status = 'running'").pluck().all();
  }

  private deleteFileRows(path: string): void {
    this.statements.nextGeneration.run();
    const fileId = this.statements.fileId.get(path);
    if (fileId === undefined) return;
    for (const runRow of this.statements.runRows.all(fileId)) {
      this.statements.deleteFindings.run(runRow);
      this.statements.deleteCalls.run(runRow);
      this.statements.deleteModels.run(runRow);
    }
    this.statements.deleteRuns.run(fileId);
    this.statements.deleteFile.run(fileId);
  }

  /** The file's rows, replacing what the library held of it. */
  replace(file: IndexedFile, outcome: FileOutcome): void {
    this.db.transaction(() => {
      this.deleteFileRows(file.path);
      const indexed = outcome.state === 'indexed' ? outcome : null;
      const fileId = Number(
        this.statements.insertFile.run({
          path: file.path,
          traceId: file.traceId,
          size: file.size,
          mtimeMs: file.mtimeMs,
          state: outcome.state,
          error: outcome.state === 'indexed' ? null : outcome.reason,
          format: indexed?.facts.format ?? null,
          dbPath: indexed?.dbPath ?? null,
          sourceIds: indexed === null ? null : JSON.stringify(indexed.sourceIds),
          termFilter: indexed?.facts.termFilter ?? null,
          indexedAt: new Date().toISOString(),
        }).lastInsertRowid,
      );
      if (indexed === null) return;
      const { facts } = indexed;
      const rowOfRun = new Map<number, number>();
      const kindsOfRun = new Map<number, Set<string>>();
      for (const finding of facts.findings) {
        const kinds = kindsOfRun.get(finding.runPk) ?? new Set<string>();
        kinds.add(finding.kind);
        kindsOfRun.set(finding.runPk, kinds);
      }
      for (const run of facts.runs) {
        const runRow = Number(
          this.statements.insertRun.run({
            fileId,
            runPk: run.runPk,
            runId: run.runId,
            file: run.file,
            directory: run.directory,
            format: facts.format,
            status: run.status,
            models: JSON.stringify(run.models),
            provider: run.provider,
            task: run.task,
            startedAt: run.startedAt,
            startedDay: utcDay(run.startedAt),
            durationMs: run.durationMs,
            steps: run.steps,
            toolCalls: run.toolCalls,
            toolErrors: run.toolErrors,
            errors: run.errors,
            warnings: run.warnings,
            infos: run.infos,
            findingKinds: JSON.stringify([...(kindsOfRun.get(run.runPk) ?? [])].toSorted()),
            inputTokens: run.inputTokens,
            outputTokens: run.outputTokens,
            cachedTokens: run.cachedTokens,
            reasoningTokens: run.reasoningTokens,
            costUsd: run.costUsd,
            unpricedResponses: run.unpricedResponses,
            wastedUsd: run.wastedUsd,
            subAgentCostUsd: run.subAgentCostUsd,
            parentRunId: run.parentRunId,
          }).lastInsertRowid,
        );
        rowOfRun.set(run.runPk, runRow);
        for (const model of run.models) this.statements.insertModel.run(runRow, model);
      }
      for (const finding of facts.findings) {
        const runRow = rowOfRun.get(finding.runPk);
        if (runRow === undefined) continue;
        const { kind, severity, tool, signatureKey, signatureText, line, message } = finding;
        this.statements.insertFinding.run({ runRow, kind, severity, tool, signatureKey, signatureText, line, message });
      }
      for (const call of facts.calls) {
        const runRow = rowOfRun.get(call.runPk);
        if (runRow !== undefined) this.statements.insertCall.run(runRow, call.tool, call.state, call.latencyMs);
      }
    })();
  }

  /** The file is gone: so are its rows. */
  remove(path: string): void {
    this.db.transaction(() => this.deleteFileRows(path))();
  }
}
