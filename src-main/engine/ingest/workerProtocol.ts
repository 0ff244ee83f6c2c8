/** Messages between the engine and its ingest worker, validated on arrival on both sides. */
import { z } from 'zod';

export const ingestRequestSchema = z.object({
  path: z.string(),
  cacheDir: z.string(),
  maxLineBytes: z.number().int().positive(),
  analysis: z.object({ window: z.number().int().min(1), threshold: z.number().int().min(1) }),
});
export type IngestRequest = z.infer<typeof ingestRequestSchema>;

const countersSchema = z.object({
  bytesRead: z.number(),
  totalBytes: z.number(),
  lines: z.number(),
  blankLines: z.number(),
  events: z.number(),
  parseErrors: z.number(),
});

export const workerMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('progress'), progress: countersSchema }),
  z.object({
    type: z.literal('done'),
    dbPath: z.string(),
    sourceId: z.number().int(),
    reused: z.boolean(),
  }),
  z.object({
    type: z.literal('failed'),
    /** A TraceFileError code, or `internal` for a bug. */
    code: z.string(),
    message: z.string(),
  }),
]);
export type WorkerMessage = z.infer<typeof workerMessageSchema>;
