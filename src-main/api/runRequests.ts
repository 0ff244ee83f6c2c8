/** The `requests` method: a run's stored requests (engine/derive/requestAnalysis.ts) and its context growth. */
import type Database from 'better-sqlite3';
import type { ApiResponse } from '../../shared/api';
import { contextGrowth, growthShape } from '../../shared/requests/contextGrowth';
import { storedRunRequests } from '../engine';
import { ApiError } from './apiError';

export function runRequests(db: Database.Database, runPk: number): ApiResponse<'requests'> {
  const records = storedRunRequests(db, runPk);
  if (records === null) throw new ApiError('unavailable', 'the requests of this trace were not analyzed: its file changed while it was being read; reload it');
  const counted = records.filter((record) => record.inputTokens !== null);
  const growth = contextGrowth(counted.map((record) => record.inputTokens!));
  return {
    requests: records.map((record) => ({
      index: record.index,
      eventId: record.eventId,
      line: record.line,
      step: record.step,
      reconstructed: record.reconstructed,
      messages: record.messages,
      appendedMessages: record.appendedMessages,
      rewrite: record.rewrite,
      prefixChange: record.prefixChange,
      compaction: record.compaction,
      inputTokens: record.inputTokens,
      inputTokensSource: record.inputTokensSource,
      cachedInputTokens: record.cachedInputTokens,
      outputTokens: record.outputTokens,
      added: record.added,
    })),
    growth: {
      requestIndices: counted.map((record) => record.index),
      cumulative: growth.cumulative,
      steps: growth.growth,
      fit:
        growth.fit === null
          ? null
          : {
              ...growth.fit,
              shape: growthShape(
                growth.fit,
                records.some((record) => record.compaction !== null),
              ),
            },
      typicalGrowth: growth.typicalGrowth,
      // Steps name requests by their index in the run, not in the counted series.
      largestGrowth: growth.largestGrowth.map((step) => ({ ...step, requestIndex: counted[step.requestIndex]!.index })),
    },
  };
}
