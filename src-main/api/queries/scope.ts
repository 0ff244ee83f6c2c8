/** What every API read is given: a read-only connection, the trace's scope and a parsed request. */
import type Database from 'better-sqlite3';
import type { ApiParsedRequest, ApiResponse } from '../../../shared/api';
import type { UserPrices } from '../../../shared/cost/userPrices';
import type { QueryMethod } from '../queryProtocol';

/** Which rows of the database belong to the trace, and which analysis its findings come from. */
export interface TraceScope {
  /** The trace file's source first, then the files opened with it. */
  sourceIds: readonly number[];
  /** `optionsKey` of the analysis options the host runs with. */
  optionsKey: string;
  /** The user price file's prices (docs/semantics.md §18), when the host was given one. */
  userPrices?: UserPrices;
}

export type Query<M extends QueryMethod> = (db: Database.Database, scope: TraceScope, request: ApiParsedRequest<M>) => ApiResponse<M>;
