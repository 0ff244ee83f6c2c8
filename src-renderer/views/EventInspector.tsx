/**
 * One event in full: its original record as a JSON tree, its normalized fields, the calls it
 * issued and the findings on it, and the original line (file name and line number) exactly as the
 * file holds it, control characters made visible — and credentials masked, until "Reveal secrets"
 * asks for this one event's record as written.
 */
import { useDeferredValue, useState } from 'react';
import type { ApiResponse, EventRow, RawRecord } from '../../shared/api';
import { formatUsd } from '../../shared/formatUsd';
import { mayHoldUnsafeIntegers, parseJsonExactly } from '../../shared/trace/exactIntegers';
import { useQuery } from '../api/useQuery';
import { SeverityBadge } from '../components/Badges';
import { baseName, formatBytes, formatDuration, humanize } from '../components/format';
import { JsonTree } from '../components/JsonTree';
import { RawLineToggle } from '../components/RawLine';
import { Failure, Loading } from '../components/States';
import { VisibleText } from '../components/VisibleText';
import { formatRoute, routes, type Route } from '../navigation/route';
import { SubAgentsOf } from './SubAgents';
import { EventContentView, useSearchPhrases } from './EventContentView';
import { SearchMatchBar } from './SearchMatchBar';

/** The request diff the inspected event leads to (a model request, or the response of a run whose requests are reconstructed). */
export interface DiffAction {
  route: Route;
  label: string;
  /** What the diff will show, when it is not the event itself. */
  hint: string | null;
}

/** What the inspector reads of a record at first; "show all" asks for up to the API's maximum. */
const firstBytes = 1024 * 1024;
const allBytes = 64 * 1024 * 1024;

export function EventInspector({
  traceId,
  eventId,
  onClose,
  diffAction = null,
  searchQuery = null,
}: {
  traceId: string;
  eventId: number;
  onClose: () => void;
  diffAction?: DiffAction | null;
  /** The search the event was opened from: highlighted in it, with the next match one key away. */
  searchQuery?: string | null;
}) {
  const [maxBytes, setMaxBytes] = useState(firstBytes);
  // Credentials come masked; revealed only on request, for the event shown. The run view keys the
  // inspector by event, so moving to another one (or back) starts masked again.
  const [revealSecrets, setRevealSecrets] = useState(false);
  const answer = useQuery(`event:${traceId}:${eventId}:${maxBytes}:${revealSecrets ? 'revealed' : 'masked'}`, (api) =>
    api.event({ traceId, eventId, maxBytes, revealSecrets }),
  );
  // The event's content (a JSON tree, its text) is rendered in the background: opened by a jump,
  // its answer comes right after the jump's position, and the row jumped to is placed and painted
  // first instead of waiting behind tens of milliseconds of the inspector's rendering.
  const detail = useDeferredValue(answer);
  return (
    <aside className="inspector" data-testid="event-inspector" data-event-id={eventId} data-state={detail.status} aria-label="Event inspector">
      <header className="inspector-header">
        <h2>Event</h2>
        <button type="button" className="icon-button" onClick={onClose} title="Close (Esc)" aria-label="Close the event">
          ✕
        </button>
      </header>
      {detail.status === 'ready' && searchQuery !== null && (
        <SearchMatchBar traceId={traceId} runPk={detail.data.runPk} eventId={eventId} step={detail.data.event.step} query={searchQuery} />
      )}
      {detail.status === 'loading' && <Loading what="the event" />}
      {detail.status === 'error' && <Failure what="the event" error={detail.error} />}
      {detail.status === 'ready' && (
        <EventDetail
          traceId={traceId}
          detail={detail.data}
          searchQuery={searchQuery}
          onShowAll={() => setMaxBytes(allBytes)}
          diffAction={diffAction}
          secrets={{ revealed: revealSecrets, toggle: () => setRevealSecrets(!revealSecrets) }}
        />
      )}
    </aside>
  );
}

interface SecretsToggle {
  revealed: boolean;
  toggle: () => void;
}

function EventDetail({
  traceId,
  detail,
  searchQuery,
  onShowAll,
  diffAction,
  secrets,
}: {
  traceId: string;
  detail: ApiResponse<'event'>;
  searchQuery: string | null;
  onShowAll: () => void;
  diffAction: DiffAction | null;
  secrets: SecretsToggle;
}) {
  const { event, record } = detail;
  const holdsSecrets = detail.findings.some((finding) => finding.kind === 'secret_in_trace');
  // Requests always have the action, whatever the run view has worked out so far.
  const action =
    diffAction ??
    (event.type === 'model_request'
      ? { route: routes.requestDiff(traceId, detail.runPk, event.eventId), label: 'Diff with previous request', hint: null }
      : null);
  return (
    <div className="inspector-body">
      <h3 className="inspector-title">
        {/* An input record the format has no canonical type for is still what it is: a message to the model. */}
        {event.type === 'unknown' && event.lane === 'input' ? 'Input message' : humanize(event.type)}
        {event.typeRaw !== event.type && (
          <span className="muted">
            {' '}
            (written as <VisibleText text={event.typeRaw} />)
          </span>
        )}
      </h3>
      {action !== null && (
        <p className="inspector-actions">
          <a href={formatRoute(action.route)} className="button-link" data-testid="diff-with-previous" title="Compare this request with the previous one (d)">
            {action.label}
          </a>
          {action.hint !== null && <span className="muted"> — {action.hint}</span>} <kbd>d</kbd>
        </p>
      )}
      {detail.findings.length > 0 && (
        <section>
          <h4>Findings here</h4>
          <ul className="plain-list">
            {detail.findings.map((finding) => (
              <li key={finding.findingId} data-testid="inspector-finding" data-kind={finding.kind}>
                <SeverityBadge severity={finding.severity} /> <strong>{humanize(finding.kind)}</strong> <VisibleText text={finding.message} />
              </li>
            ))}
          </ul>
          {holdsSecrets && (
            <p className="inspector-actions">
              <button type="button" onClick={secrets.toggle} data-testid="reveal-secrets" aria-pressed={secrets.revealed}>
                {secrets.revealed ? 'Mask secrets' : 'Reveal secrets'}
              </button>{' '}
              <span className="muted">
                {secrets.revealed
                  ? 'The record below shows the credentials as the trace wrote them; Copy as JSON copies them too.'
                  : 'Credentials are masked in every view.'}
              </span>
            </p>
          )}
        </section>
      )}
      <EventContentView traceId={traceId} detail={detail} query={searchQuery} />
      <SubAgentsOf callIds={[event.callId, ...detail.calls.map((call) => call.callId)]} />
      <section>
        <h4>Normalized fields</h4>
        <NormalizedFields event={event} />
      </section>
      {record === null ? (
        <p className="muted">This event has no record of its own in the file.</p>
      ) : (
        <RecordView
          traceId={traceId}
          sourceId={event.sourceId}
          record={record}
          absorbedLines={detail.absorbedLines}
          onShowAll={onShowAll}
          searchQuery={searchQuery}
        />
      )}
    </div>
  );
}

/** A response's cost and where it came from (the trace's own figure, a price table, the user's prices), or why it has none. */
function responseCostText(cost: EventRow['cost']): string | null {
  if (cost === null) return null;
  return 'usd' in cost ? `${formatUsd(cost.usd)} (${cost.source})` : `no price: ${cost.unpriced}`;
}

function NormalizedFields({ event }: { event: EventRow }) {
  const fields: [string, string][] = [
    ['step', event.step === null ? '—' : String(event.step)],
    ['line', String(event.line)],
    ['time', event.ts ?? '—'],
    ['lane', event.lane],
  ];
  const optional: [string, string | null][] = [
    ['call id', event.callId],
    ['name', event.name],
    ['outcome', event.outcome],
    ['finish reason', event.finishReason],
    ['input tokens', event.inputTokens === null ? null : String(event.inputTokens)],
    ['output tokens', event.outputTokens === null ? null : String(event.outputTokens)],
    ['cost', responseCostText(event.cost)],
    // A response or result whose trace records no duration says so, rather than hide it or show 0 ms (docs/semantics.md §11).
    ['latency', formatDuration(event.latencyMs, event.type === 'tool_result' || event.type === 'model_response' ? 'not recorded' : null)],
    ['result', event.resultOk === null ? null : event.resultOk ? 'ok' : 'error'],
    ['error code', event.errorCode],
    ['summary', event.summary],
  ];
  for (const [name, value] of optional) if (value !== null) fields.push([name, value]);
  return (
    <dl className="fields" data-testid="normalized-fields">
      {fields.map(([name, value]) => (
        <div key={name} className="field">
          <dt>{name}</dt>
          <dd className="wrap-text">
            <VisibleText text={value} />
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** The record's JSON; an integer beyond 2^53 stays its digits as written, in the tree and when copied. */
function parseRecord(record: RawRecord): { ok: true; value: unknown } | { ok: false } {
  if (record.truncated || record.stale) return { ok: false };
  try {
    return { ok: true, value: mayHoldUnsafeIntegers(record.text) ? parseJsonExactly(record.text, (digits) => JSON.rawJSON(digits)) : JSON.parse(record.text) };
  } catch {
    return { ok: false };
  }
}

function RecordView({
  traceId,
  sourceId,
  record,
  absorbedLines,
  onShowAll,
  searchQuery,
}: {
  traceId: string;
  sourceId: number;
  record: RawRecord;
  absorbedLines: number[];
  onShowAll: () => void;
  searchQuery: string | null;
}) {
  const parsed = parseRecord(record);
  const phrases = useSearchPhrases(searchQuery);
  const [copied, setCopied] = useState<string | null>(null);
  const copy = () => {
    const text = parsed.ok ? JSON.stringify(parsed.value, null, 2) : record.text;
    navigator.clipboard.writeText(text).then(
      () => setCopied('Copied'),
      () => setCopied('The clipboard refused: select the raw line and copy it instead'),
    );
  };
  return (
    <>
      <section>
        <div className="section-heading">
          <h4>Original record</h4>
          <button type="button" onClick={copy} disabled={record.stale} data-testid="copy-json">
            Copy as JSON
          </button>
          {copied !== null && (
            <span className="muted" role="status">
              {copied}
            </span>
          )}
        </div>
        {record.stale && (
          <div className="banner banner-warning" role="alert">
            The file changed (or is gone) since it was read, so its bytes no longer match this event. Reload the trace to read it again.
          </div>
        )}
        {record.truncated && (
          <div className="banner banner-warning">
            This record is longer than {formatBytes(record.text.length)}; only its start is shown.{' '}
            <button type="button" className="link-button" onClick={onShowAll}>
              show all ({formatBytes(record.length)})
            </button>
          </div>
        )}
        {parsed.ok && <JsonTree value={parsed.value} highlight={phrases} />}
      </section>
      <section>
        <h4>
          Raw line —{' '}
          <span title={record.file} data-testid="raw-line-location">
            <VisibleText text={baseName(record.file)} />:{record.line}
          </span>{' '}
          <span className="muted">
            (byte {record.offset}, {formatBytes(record.length)})
          </span>
        </h4>
        {!record.stale && (
          <pre className="raw-line" data-testid="raw-line">
            <VisibleText text={record.text} />
            {record.truncated && '…'}
          </pre>
        )}
        {absorbedLines.length > 0 && (
          <>
            <p className="muted">Lines folded into this event:</p>
            <ul className="plain-list">
              {absorbedLines.map((line) => (
                <li key={line}>
                  line {line} <RawLineToggle traceId={traceId} sourceId={sourceId} line={line} />
                </li>
              ))}
            </ul>
          </>
        )}
      </section>
    </>
  );
}
