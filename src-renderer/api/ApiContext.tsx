import { createContext, useContext } from 'react';
import type { ApiResponse, LoopscopeApi } from '../../shared/api';

export const ApiContext = createContext<LoopscopeApi | null>(null);

export type ReportFacts = NonNullable<ApiResponse<'appInfo'>['report']>;

/**
 * Set in an HTML report (`loopscope export --html`): the views leave out what a report cannot
 * answer (search, text filters, reload, comparing runs), whose requests were not recorded.
 */
export const ReportContext = createContext<ReportFacts | undefined>(undefined);

/** The report's facts when the page is an HTML report, else undefined. */
export function useReport(): ReportFacts | undefined {
  return useContext(ReportContext);
}

export function useApi(): LoopscopeApi {
  const api = useContext(ApiContext);
  if (!api) throw new Error('useApi outside <ApiContext.Provider>');
  return api;
}
