import { createContext, useContext } from 'react';
import type { LoopscopeApi } from '../../shared/api';

export const ApiContext = createContext<LoopscopeApi | null>(null);

export function useApi(): LoopscopeApi {
  const api = useContext(ApiContext);
  if (!api) throw new Error('useApi outside <ApiContext.Provider>');
  return api;
}
