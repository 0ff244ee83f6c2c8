/**
 * Problems reading the file's lines — a line that did not become an event, or a bad field of one
 * that did (docs/semantics.md §10): where (file, line, byte), why, an excerpt, and the raw line on request.
 */
import { useCallback } from 'react';
import type { ParseErrorRow } from '../../shared/api';
import { useApi } from '../api/ApiContext';
import { usePagedRows } from '../api/usePagedRows';
import { baseName, formatBytes, formatCount } from '../components/format';
import { PagedList } from '../components/PagedList';
import { RawLineToggle } from '../components/RawLine';
import { Empty, Failure } from '../components/States';
import { VisibleText } from '../components/VisibleText';

export function ParseErrorsView({ traceId, revision }: { traceId: string; revision: number }) {
  const api = useApi();
  const errors = usePagedRows(`parseErrors:${traceId}`, revision, (offset, limit) => api.parseErrors({ traceId, offset, limit }), 200);
  const renderRow = useCallback((row: ParseErrorRow) => <ParseErrorItem traceId={traceId} row={row} />, [traceId]);
  return (
    <section
      className="list-view"
      data-testid="parse-errors-view"
      data-state={errors.error !== null ? 'error' : errors.total !== null && errors.fresh ? 'ready' : 'loading'}
    >
      {errors.error !== null && <Failure what="the parse errors" error={new Error(errors.error)} />}
      {errors.total === 0 && <Empty title="Every line of this trace was read.">No line was cut, malformed or something other than an event.</Empty>}
      {errors.total !== null && errors.total > 0 && (
        <p className="muted">
          {formatCount(errors.total)} problem{errors.total === 1 ? '' : 's'} reading lines; each says whether its line still loaded as an event.
        </p>
      )}
      <PagedList rows={errors} estimateSize={64} renderRow={renderRow} testId="parse-errors-list" label="Parse errors" />
    </section>
  );
}

function ParseErrorItem({ traceId, row }: { traceId: string; row: ParseErrorRow }) {
  return (
    <div className="list-row parse-error" data-testid="parse-error-row" data-line={row.line}>
      <div>
        <strong title={row.file}>
          <VisibleText text={baseName(row.file)} />:{row.line}
        </strong>{' '}
        <span className="muted">
          byte {formatCount(row.offset)}, {formatBytes(row.length)}
          {row.loaded ? ' · still loaded as an event' : ' · not loaded'}
        </span>
      </div>
      <div className="wrap-text">
        <VisibleText text={row.message} />
      </div>
      <div className="mono excerpt wrap-text">
        <VisibleText text={row.excerpt} />
      </div>
      <RawLineToggle traceId={traceId} sourceId={row.sourceId} line={row.line} />
    </div>
  );
}
