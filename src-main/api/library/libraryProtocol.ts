/** Messages between the API host and its library worker (libraryWorker.ts), validated on arrival. */
import { z } from 'zod';
import { libraryStatusSchema } from '../../../shared/library/libraryApi';
import { analysisOptionsSchema } from '../../../shared/report';
import { userPricesSchema } from '../../../shared/cost/userPrices';

/** What the worker is started with (workerData). */
export const libraryWorkerDataSchema = z.object({
  roots: z.array(z.string().min(1)).min(1),
  libraryDbPath: z.string().min(1),
  cacheDir: z.string().min(1),
  analysis: analysisOptionsSchema,
  /** The user price file's prices (docs/semantics.md §18); null: the built-in table only. */
  userPrices: userPricesSchema.nullable(),
  rescanMs: z.number().int().positive().nullable(),
  concurrency: z.number().int().positive(),
  /** A file written to within this long is followed (libraryIndexer.ts); null: every file is read once. */
  followIdleMs: z.number().int().positive().nullable(),
});
export type LibraryWorkerData = z.infer<typeof libraryWorkerDataSchema>;

/** From the host: stop after the files being indexed, then end. */
export const libraryStopSchema = z.object({ type: z.literal('stop') });

/** From the worker: where indexing is; `stopped` once it has ended its work. */
export const libraryWorkerMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('status'), status: libraryStatusSchema }),
  z.object({ type: z.literal('stopped') }),
  z.object({ type: z.literal('failed'), message: z.string() }),
]);
export type LibraryWorkerMessage = z.infer<typeof libraryWorkerMessageSchema>;
