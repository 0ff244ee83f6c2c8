/** Full-text search over the whole trace (the data, not the rows on screen); each hit links to its event. */
import { useCallback, useEffect } from 'react';
import type { SearchHit } from '../../shared/api';
import { useApi } from '../api/ApiContext';
import { usePagedRows } from '../api/usePagedRows';
import { formatCount, humanize } from '../components/format';
import { Highlighted } from '../components/Highlighted';
import { PagedList } from '../components/PagedList';
import { Empty, Failure } from '../components/States';
import { VisibleText, visibleText } from '../components/VisibleText';
import { formatRoute, routes } from '../navigation/route';

export function SearchView({ traceId, query, revision }: { traceId: string; query: string; revision: number }) {
  if (query === '') {
    return (
      <section className="list-view" data-testid="search-view" data-state="ready">
        <Empty title="Search the whole trace.">
          Type words in the search box (Ctrl+F or ⌘F) and press Enter: messages, tool arguments and results are searched.
        </Empty>
      </section>
    );
  }
  return <SearchResults traceId={traceId} query={query} revision={revision} />;
}

function SearchResults({ traceId, query, revision }: { traceId: string; query: string; revision: number }) {
  const api = useApi();
  const hits = usePagedRows(`search:${traceId}:${query}`, revision, (offset, limit) => api.search({ traceId, query, offset, limit }), 100);
  const renderRow = useCallback((hit: SearchHit) => <SearchHitItem traceId={traceId} hit={hit} query={query} />, [traceId, query]);
  const answered = hits.total !== null && hits.fresh && (hits.total === 0 || hits.rowAt(0) !== undefined);
  useEffect(() => {
    // After the paint that shows the answer: what the search benchmark times (scripts/bench-ui.ts).
    if (answered) requestAnimationFrame(() => performance.mark('loopscope:search-shown', { detail: { query, total: hits.total } }));
  }, [answered, query, hits.total]);
  return (
    <section
      className="list-view"
      data-testid="search-view"
      data-state={hits.error !== null ? 'error' : hits.total !== null && hits.fresh ? 'ready' : 'loading'}
      data-query={query}
    >
      {hits.error !== null && <Failure what="the search results" error={new Error(hits.error)} />}
      {hits.total === 0 && <Empty title="Nothing matches.">Every word must appear; the last one may be the start of a word. Try fewer or shorter words.</Empty>}
      {hits.total !== null && hits.total > 0 && (
        <p className="muted">
          {formatCount(hits.total)} event{hits.total === 1 ? '' : 's'} match “<VisibleText text={query} />
          ”.
        </p>
      )}
      <PagedList rows={hits} estimateSize={56} renderRow={renderRow} testId="search-results" label="Search results" />
    </section>
  );
}

/** A hit names where it is (step, tool, line) before the run id, which is the same for every hit of a one-run trace; the link keeps the query, so the event opens highlighted. */
function SearchHitItem({ traceId, hit, query }: { traceId: string; hit: SearchHit; query: string }) {
  const where = `${hit.step === null ? 'no step' : `step ${hit.step}`} · ${humanize(hit.type)}${hit.name === null ? '' : ` · ${hit.name}`} · line ${hit.line} · ${hit.runId}`;
  return (
    <a
      href={formatRoute(routes.run(traceId, hit.runPk, { step: hit.step, eventId: hit.eventId, query }))}
      className="list-row search-hit"
      data-testid="search-hit"
      data-event-id={hit.eventId}
    >
      <div className="muted search-hit-where" title={visibleText(where)}>
        <VisibleText text={where} />
      </div>
      <div className="snippet wrap-text">
        <Highlighted text={hit.snippet} ranges={hit.matches} />
      </div>
    </a>
  );
}
