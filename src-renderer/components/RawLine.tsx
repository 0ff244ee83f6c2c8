import { useState } from 'react';
import { useQuery } from '../api/useQuery';
import { Failure, Loading } from './States';
import { VisibleText } from './VisibleText';

/** A line of a trace file exactly as written, fetched when asked for. */
export function RawLine({ traceId, sourceId, line }: { traceId: string; sourceId: number; line: number }) {
  const raw = useQuery(`rawLine:${traceId}:${sourceId}:${line}`, (api) => api.rawLine({ traceId, sourceId, line }));
  if (raw.status === 'loading') return <Loading what={`line ${line}`} />;
  if (raw.status === 'error') return <Failure what={`line ${line}`} error={raw.error} />;
  if (raw.data.stale)
    return <div className="banner banner-warning">The file changed since it was read; line {line} no longer holds what was read. Reload the trace.</div>;
  return (
    <pre className="raw-line" data-testid="raw-line">
      <VisibleText text={raw.data.text} />
      {raw.data.truncated && '…'}
    </pre>
  );
}

/** A "raw line" button that shows the line below it. */
export function RawLineToggle({ traceId, sourceId, line, label = 'raw line' }: { traceId: string; sourceId: number; line: number; label?: string }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" className="link-button" aria-expanded={open} onClick={() => setOpen(!open)} data-testid="raw-line-toggle">
        {open ? `hide ${label}` : `show ${label}`}
      </button>
      {open && <RawLine traceId={traceId} sourceId={sourceId} line={line} />}
    </>
  );
}
