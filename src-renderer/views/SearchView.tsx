/** Full-text search over the whole trace (the data, not the rows on screen); each hit links to its event. */
import { useCallback, useEffect, type ReactNode } from 'react';
import type { SearchHit } from '../../shared/api';
import { useApi } from '../api/ApiContext';
import { usePagedRows } from '../api/usePagedRows';
import { formatCount, humanize } from '../components/format';
import { PagedList } from '../components/PagedList';
import { Empty, Failure } from '../components/States';
import { VisibleText } from '../components/VisibleText';
import { formatRoute, routes } from '../navigation/route';

export function SearchView({ traceId, query, revision }: { traceId: string; query: string; revision: number }) {
  if (query === '') {
    return (
      <section className="list-view" data-testid="search-view" data-state="ready">
        <Empty title="Search the whole trace.">Type words in the search box (Ctrl+F or ⌘F) and press Enter: messages, tool arguments and results are searched.</Empty>
      </section>
    );
  }
  return <SearchResults traceId={traceId} query={query} revision={revision} />;
}

function SearchResults({ traceId, query, revision }: { traceId: string; query: string; revision: number }) {
  const api = useApi();
  const hits = usePagedRows(`search:${traceId}:${query}`, revision, (offset, limit) => api.search({ traceId, query, offset, limit }), 100);
  const renderRow = useCallback((hit: SearchHit) => <SearchHitItem traceId={traceId} hit={hit} />, [traceId]);
  const answered = hits.total !== null && hits.fresh && (hits.total === 0 || hits.rowAt(0) !== undefined);
  useEffect(() => {
    // After the paint that shows the answer: what the search benchmark times (scripts/bench-ui.ts).
    if (answered) requestAnimationFrame(() => performance.mark('loopscope:search-shown', { detail: { query, total: hits.total } }));
  }, [answered, query, hits.total]);
  return (
    <section className="list-view" data-testid="search-view" data-state={hits.error !== null ? 'error' : hits.total !== null && hits.fresh ? 'ready' : 'loading'} data-query={query}>
      {hits.error !== null && <Failure what="the search results" error={new Error(hits.error)} />}
      {hits.total === 0 && <Empty title="Nothing matches.">Every word must appear; the last one may be the start of a word. Try fewer or shorter words.</Empty>}
      {hits.total !== null && hits.total > 0 && (
        <p className="muted">
          {formatCount(hits.total)} event{hits.total === 1 ? '' : 's'} match “<VisibleText text={query} />”.
        </p>
      )}
      <PagedList rows={hits} estimateSize={56} renderRow={renderRow} testId="search-results" label="Search results" />
    </section>
  );
}

function SearchHitItem({ traceId, hit }: { traceId: string; hit: SearchHit }) {
  return (
    <a href={formatRoute(routes.run(traceId, hit.runPk, { step: hit.step, eventId: hit.eventId }))} className="list-row search-hit" data-testid="search-hit" data-event-id={hit.eventId}>
      <div className="muted">
        <VisibleText text={hit.runId} /> · {humanize(hit.type)} · {hit.step === null ? 'no step' : `step ${hit.step}`} · line {hit.line}
      </div>
      <div className="snippet wrap-text">
        <Highlighted text={hit.snippet} ranges={hit.matches} />
      </div>
    </a>
  );
}

/** `text` with the [start, end) `ranges` marked: text spans, never markup from the server. */
function Highlighted({ text, ranges }: { text: string; ranges: readonly (readonly [number, number])[] }) {
  const parts: ReactNode[] = [];
  let position = 0;
  for (const [start, end] of [...ranges].sort((a, b) => a[0] - b[0])) {
    const from = Math.max(start, position);
    const to = Math.min(end, text.length);
    if (to <= from) continue;
    if (from > position) parts.push(<VisibleText key={`t${position}`} text={text.slice(position, from)} />);
    parts.push(
      <mark key={`m${from}`}>
        <VisibleText text={text.slice(from, to)} />
      </mark>,
    );
    position = to;
  }
  if (position < text.length) parts.push(<VisibleText key={`t${position}`} text={text.slice(position)} />);
  return <>{parts}</>;
}
