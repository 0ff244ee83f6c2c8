import { useEffect, useState } from 'react';
import type { LoopscopeApi } from '../../shared/api';
import { useLatest } from '../components/useLatest';
import { useApi } from './ApiContext';

export type QueryState<T> = { status: 'loading'; data?: T } | { status: 'error'; error: unknown; data?: T } | { status: 'ready'; data: T };

/**
 * Loads `load(api)` whenever `key` changes (the key names everything the request depends on, so
 * no dependency list can go stale). The previous data stays visible while the next loads, so a
 * refresh does not blank the view; an answer that arrives after the key moved on is dropped.
 */
export function useQuery<T>(key: string | null, load: (api: LoopscopeApi) => Promise<T>): QueryState<T> {
  const api = useApi();
  const [state, setState] = useState<{ key: string | null; query: QueryState<T> }>({ key, query: { status: 'loading' } });
  // `key` stands for everything `load` reads: a new `load` (one per render) asks for nothing new.
  const latestLoad = useLatest(load);

  useEffect(() => {
    if (key === null) return;
    let current = true;
    latestLoad.current(api).then(
      (data) => {
        if (current) setState({ key, query: { status: 'ready', data } });
      },
      (error: unknown) => {
        if (current) setState((previous) => ({ key, query: { status: 'error', error, data: previous.query.data } }));
      },
    );
    return () => {
      current = false;
    };
  }, [api, key, latestLoad]);

  if (state.key !== key && state.query.status !== 'loading') return { status: 'loading', data: state.query.data };
  return state.query;
}
