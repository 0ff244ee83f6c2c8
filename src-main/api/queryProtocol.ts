/** Messages between the API host and its query worker, validated on arrival. */
import { z } from 'zod';
import { userPricesSchema } from '../../shared/cost/userPrices';
import type { ApiMethod } from '../../shared/api';

/** The API methods answered from a trace database (the others are the host's own: traces, dialogs, recent files). */
export const queryMethods = [
  'runs',
  'run',
  'runEvents',
  'eventPosition',
  'stepPosition',
  'requestAt',
  'event',
  'calls',
  'callLatency',
  'findings',
  'parseErrors',
  'traceCost',
  'rawLine',
  'search',
  'requestDiff',
  'requests',
  'runWaterfall',
] as const satisfies readonly ApiMethod[];
export type QueryMethod = (typeof queryMethods)[number];

export function isQueryMethod(method: ApiMethod): method is QueryMethod {
  return (queryMethods as readonly string[]).includes(method);
}

/** The API methods answered from the library database (library/libraryQueries.ts). */
export const libraryQueryMethods = ['libraryRuns', 'libraryAggregates', 'librarySignatures', 'librarySearch'] as const satisfies readonly ApiMethod[];
export type LibraryQueryMethod = (typeof libraryQueryMethods)[number];

export function isLibraryQueryMethod(method: ApiMethod): method is LibraryQueryMethod {
  return (libraryQueryMethods as readonly string[]).includes(method);
}

/** What the worker is started with (its `workerData`). */
export const queryWorkerSettingsSchema = z.object({
  /** The user price file's prices (docs/semantics.md §18), when the host has one: every cost the worker answers uses them. */
  userPrices: userPricesSchema.optional(),
});
export type QueryWorkerSettings = z.infer<typeof queryWorkerSettingsSchema>;

/** The trace a query reads: its database and the scope of its rows. */
export const queryTraceSchema = z.object({
  dbPath: z.string().min(1),
  sourceIds: z.array(z.number().int()).min(1),
  optionsKey: z.string(),
});
export type QueryTrace = z.infer<typeof queryTraceSchema>;

/** From the host to the worker. */
export const queryRequestSchema = z.discriminatedUnion('kind', [
  /** An API method answered from the database; `request` is parsed again with the method's schema. */
  z.object({ kind: z.literal('api'), id: z.number().int(), method: z.enum(queryMethods), trace: queryTraceSchema, request: z.unknown() }),
  /** An API method answered from the library database; `request` is parsed again with the method's schema. */
  z.object({ kind: z.literal('library'), id: z.number().int(), libraryDbPath: z.string().min(1), method: z.enum(libraryQueryMethods), request: z.unknown() }),
  /** The path of the trace the library knows by `traceId` (null: none), to open it when one of its runs is. */
  z.object({ kind: z.literal('libraryTrace'), id: z.number().int(), libraryDbPath: z.string().min(1), traceId: z.string() }),
  /** Two runs side by side (`compareRuns`), each in its trace: the same one, or two. */
  z.object({
    kind: z.literal('compare'),
    id: z.number().int(),
    a: z.object({ trace: queryTraceSchema, runPk: z.number().int() }),
    b: z.object({ trace: queryTraceSchema, runPk: z.number().int() }),
  }),
  /** A request diff whose left side is a request of another trace (`requestDiff` with `previousTraceId`); `request` is parsed again. */
  z.object({ kind: z.literal('requestDiffAcross'), id: z.number().int(), trace: queryTraceSchema, previousTrace: queryTraceSchema, request: z.unknown() }),
  /** The format and counts of an ingested trace (for its summary). */
  z.object({ kind: z.literal('summary'), id: z.number().int(), trace: queryTraceSchema }),
  /** Close the connection to a database that is about to be rewritten (a reload); answered once closed. */
  z.object({ kind: z.literal('release'), id: z.number().int(), dbPath: z.string() }),
  /** Close every connection and end the thread (see engine/workers/endWorker.ts); not answered. */
  z.object({ kind: z.literal('end') }),
]);
export type QueryRequest = z.infer<typeof queryRequestSchema>;

/** From the worker to the host: a result, or an error with an API error code. */
export const queryReplySchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), id: z.number().int(), result: z.unknown() }),
  z.object({ ok: z.literal(false), id: z.number().int(), code: z.string(), message: z.string() }),
]);
export type QueryReply = z.infer<typeof queryReplySchema>;
