/**
 * The read model of a trace database: every read of its tables, typed by row (`…SqlRow`), in one
 * place. The report (report/buildReport.ts), the analyses and the API (through the engine's entry,
 * engine/index.ts) read through it; the writes stay with their table's module.
 */
export { budgetFindingDetails, findingGroups, findingMessages, findingPage, findingsOnLine, findingsWithIds, reportFindings } from './findings';
export type { FindingFilter, FindingListSqlRow, ReportFindingSqlRow } from './findings';
export { callAnsweredBy, callLatencySamples, callOfRun, callPage, callsIssuedBy, callsIssuedByOrNamed, issuedCallsBetween, timedCalls } from './calls';
export type { CallListSqlRow, CallPageQuery, CallState, IssuedCallSqlRow, WaterfallCallSqlRow } from './calls';
export {
  absorbedLineLocation,
  absorbedLinesAfter,
  callStarts,
  childRunResults,
  contentEvent,
  diffEventInSources,
  eventCount,
  eventInSources,
  eventsBetween,
  firstPositionOfStep,
  historyEventsPage,
  modelRequestEvents,
  previousRequestEventId,
  requestsUpTo,
  responseCount,
  callCount,
  runHasModelRequest,
  summarizedUnknownEvents,
  timedResponses,
  usageEvents,
} from './events';
export type {
  ContentEventSqlRow,
  DiffEventSqlRow,
  EventListSqlRow,
  EventPosition,
  HistoryEventSqlRow,
  RequestEventSqlRow,
  TimedResponseSqlRow,
  UsageEventSqlRow,
} from './events';
export { reportParseErrors, parseErrorPage } from './parseErrors';
export type { ParseErrorListSqlRow } from './parseErrors';
export { lineRecordLocation, RawLineReader, readRawLine, recordsFrom, SourceChangedError } from './rawLines';
export type { LocationSqlRow, RawLine } from './rawLines';
export { requestFindingRows, requestNearEvent, requestsAnalyzedForRun, runRequestRows, runRequestSummaryRows } from './requests';
export type { RequestSqlRow, RequestSummarySqlRow } from './requests';
export { responseUsages, runResponseUsages } from './responseUsage';
export type { ResponseUsageSqlRow } from './responseUsage';
export { childRunCandidates, isResponseEvent, parentRunsOf, reportRuns, runCounters, runIdOf, runListRow, runPage, runPksOfSource, subAgentRun } from './runs';
export type { ChildRunCandidateSqlRow, ParentRunSqlRow, ReportRunSqlRow, RunListSqlRow, RunPageQuery, RunSort, SubAgentRunSqlRow } from './runs';
export { searchHitReader, searchPage, searchRunCounts, searchTerms } from './search';
export type { SearchHitSqlRow } from './search';
export { sourceSecrets } from './secrets';
export type { FoundSecretSqlRow } from './secrets';
export { reportSource, sourceFormat, sourcePath, sourcePathAndFormat, sourcePaths, sourceTotals } from './sources';
export type { ReportSourceSqlRow } from './sources';
export { spanExtents, spansBegunBy } from './spans';
export type { SpanHeaderSqlRow } from './spans';
export { nearestStep } from './steps';
export { comparableTurns } from './turns';
export { callToolName, summaryCalls } from './summaryFacts';
export type { SummaryCallSqlRow } from './summaryFacts';
