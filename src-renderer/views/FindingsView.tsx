/**
 * Every finding of the trace, grouped by kind and severity (errors first), each a link to the exact
 * run, step and event. Inside a kind, identical findings fold into one line ("134× call Bash has
 * invalid arguments: arguments redacted") that lists its occurrences on expand, a page at a time.
 */
import { createContext, useContext, useState } from 'react';
import { z } from 'zod';
import type { CallRow, FindingRow } from '../../shared/api';
import { severityRank, type FindingKind, type Severity } from '../../shared/report';
import { fetchAll } from '../api/fetchAll';
import { useQuery } from '../api/useQuery';
import { CallStateBadge, SeverityBadge } from '../components/Badges';
import { formatCount, formatDuration, humanize } from '../components/format';
import { RunStepLine } from '../components/RunStepLine';
import { Empty, Failure, Loading } from '../components/States';
import { VisibleText, visibleText } from '../components/VisibleText';
import { formatRoute, routes } from '../navigation/route';
import { findingRoute } from './runModel';

const groupPageSize = 100;

/** Whether the trace has one run: its id would be the same on every finding, so only step and line are shown. */
const OneRunContext = createContext(false);

export function FindingsView({ traceId, revision }: { traceId: string; revision: number }) {
  const overview = useQuery(`findingGroups:${traceId}:${revision}`, (api) => api.findings({ traceId, limit: 1 }));
  const runCount = useQuery(`runCount:${traceId}:${revision}`, (api) => api.runs({ traceId, limit: 1 }).then((page) => page.total));
  if (overview.status === 'loading') return <Loading what="the findings" />;
  if (overview.status === 'error') return <Failure what="the findings" error={overview.error} />;
  const groups = [...overview.data.groups].sort((a, b) => severityRank[b.severity] - severityRank[a.severity] || a.kind.localeCompare(b.kind));
  const onlyInfo = groups.every((group) => group.severity === 'info');
  if (groups.length === 0) {
    return (
      <section className="findings-view" data-testid="findings-view" data-state="ready">
        <Empty title="No findings in this trace.">
          Every call got its result, no budget was exceeded, and every run ended. Parse errors, if any, are listed under Parse errors.
        </Empty>
      </section>
    );
  }
  return (
    <OneRunContext.Provider value={runCount.status === 'ready' && runCount.data === 1}>
      <section className="findings-view scroll-pane" data-testid="findings-view" data-state="ready">
        <p className="muted">
          {formatCount(overview.data.total)} finding{overview.data.total === 1 ? '' : 's'} in {groups.length} group{groups.length === 1 ? '' : 's'}.
        </p>
        {groups.map((group) => (
          <FindingGroup
            key={`${group.kind}:${group.severity}`}
            traceId={traceId}
            revision={revision}
            kind={group.kind}
            severity={group.severity}
            count={group.count}
            // Info is folded away behind errors and warnings; alone, it is what there is to read.
            initiallyOpen={group.severity !== 'info' || onlyInfo}
          />
        ))}
      </section>
    </OneRunContext.Provider>
  );
}

function FindingGroup(props: { traceId: string; revision: number; kind: FindingKind; severity: Severity; count: number; initiallyOpen: boolean }) {
  const { traceId, revision, kind, severity, count, initiallyOpen } = props;
  const [pages, setPages] = useState(1);
  const [open, setOpen] = useState(initiallyOpen);
  return (
    <section className={`finding-group severity-${severity}`} data-testid="finding-group" data-kind={kind} data-severity={severity}>
      <h3>
        <button type="button" className="group-toggle" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? '▾' : '▸'} <SeverityBadge severity={severity} /> {humanize(kind)} <span className="muted">({formatCount(count)})</span>
        </button>
      </h3>
      {open && (
        <ul className="finding-list">
          {Array.from({ length: pages }, (_, page) => (
            <TemplatePage
              key={page}
              traceId={traceId}
              revision={revision}
              kind={kind}
              severity={severity}
              offset={page * groupPageSize}
              onMore={page === pages - 1 ? () => setPages(pages + 1) : null}
            />
          ))}
        </ul>
      )}
    </section>
  );
}

/**
 * One page of a kind's groups of identical findings (same message once ids, numbers and locations
 * are masked: shared/findingTemplate.ts). A finding without twins is listed as itself; a group of
 * many shows its count and template, its occurrences on expand.
 */
function TemplatePage(props: { traceId: string; revision: number; kind: FindingKind; severity: Severity; offset: number; onMore: (() => void) | null }) {
  const { traceId, revision, kind, severity, offset, onMore } = props;
  const page = useQuery(`findingTemplates:${traceId}:${revision}:${kind}:${severity}:${offset}`, (api) =>
    api.findings({ traceId, kind, severity, templates: true, offset, limit: groupPageSize }),
  );
  if (page.status === 'loading') return <Loading what="findings" />;
  if (page.status === 'error') return <Failure what="findings" error={page.error} />;
  const remaining = page.data.total - offset - groupPageSize;
  return (
    <>
      {(page.data.templates ?? []).map((group) =>
        group.count === 1 ? (
          <FindingItem key={group.key} traceId={traceId} finding={group.first} />
        ) : (
          <TemplateGroup
            key={group.key}
            traceId={traceId}
            revision={revision}
            kind={kind}
            severity={severity}
            templateKey={group.key}
            template={group.template}
            count={group.count}
          />
        ),
      )}
      {onMore !== null && remaining > 0 && (
        <li>
          <button type="button" className="link-button" onClick={onMore}>
            Show {formatCount(Math.min(groupPageSize, remaining))} more of {formatCount(remaining)}
          </button>
        </li>
      )}
    </>
  );
}

function TemplateGroup(props: {
  traceId: string;
  revision: number;
  kind: FindingKind;
  severity: Severity;
  templateKey: string;
  template: string;
  count: number;
}) {
  const { traceId, revision, kind, severity, templateKey, template, count } = props;
  const [open, setOpen] = useState(false);
  const [pages, setPages] = useState(1);
  const shown = Math.min(count, pages * groupPageSize);
  return (
    <li className="finding-template" data-testid="finding-template" data-count={count}>
      <button type="button" className="group-toggle template-toggle" aria-expanded={open} onClick={() => setOpen(!open)} title={visibleText(template)}>
        {open ? '▾' : '▸'} <span className="template-count">{formatCount(count)}×</span> <VisibleText text={template} />
      </button>
      {open && (
        <ul className="finding-list">
          {Array.from({ length: Math.ceil(shown / groupPageSize) }, (_, page) => (
            <FindingPage
              key={page}
              traceId={traceId}
              revision={revision}
              kind={kind}
              severity={severity}
              templateKey={templateKey}
              offset={page * groupPageSize}
            />
          ))}
          {shown < count && (
            <li>
              <button type="button" className="link-button" onClick={() => setPages(pages + 1)}>
                Show {formatCount(Math.min(groupPageSize, count - shown))} more of {formatCount(count - shown)}
              </button>
            </li>
          )}
        </ul>
      )}
    </li>
  );
}

function FindingPage(props: { traceId: string; revision: number; kind: FindingKind; severity: Severity; templateKey: string; offset: number }) {
  const { traceId, revision, kind, severity, templateKey, offset } = props;
  const page = useQuery(`findings:${traceId}:${revision}:${kind}:${severity}:${templateKey}:${offset}`, (api) =>
    api.findings({ traceId, kind, severity, templateKey, offset, limit: groupPageSize }),
  );
  if (page.status === 'loading') return <Loading what="findings" />;
  if (page.status === 'error') return <Failure what="findings" error={page.error} />;
  return (
    <>
      {page.data.rows.map((finding) => (
        <FindingItem key={finding.findingId} traceId={traceId} finding={finding} />
      ))}
    </>
  );
}

function FindingItem({ traceId, finding }: { traceId: string; finding: FindingRow }) {
  const oneRun = useContext(OneRunContext);
  return (
    <li className="finding-item" data-testid="finding-item" data-kind={finding.kind} data-severity={finding.severity} data-run-id={finding.runId}>
      <a href={formatRoute(findingRoute(traceId, finding))} className="finding-link" data-testid="finding-link">
        <RunStepLine runId={oneRun && finding.runId !== null ? undefined : finding.runId} step={finding.step} line={finding.line} />
      </a>
      <div className="finding-message wrap-text">
        <VisibleText text={finding.message} />
      </div>
      {finding.kind === 'repeated_action' && <RepeatedCalls traceId={traceId} finding={finding} />}
    </li>
  );
}

const repeatedActionDetails = z.object({
  name: z.string(),
  arguments: z.string().nullable().optional(),
  calls: z.array(z.object({ call_id: z.string(), step: z.number().nullable(), line: z.number() })),
});

/** The repeated calls side by side: same tool and arguments, and what each returned. */
function RepeatedCalls({ traceId, finding }: { traceId: string; finding: FindingRow }) {
  const details = repeatedActionDetails.safeParse(finding.details);
  const name = details.success ? details.data.name : null;
  const calls = useQuery(name === null ? null : `repeatedCalls:${traceId}:${finding.runPk}:${name}`, (api) =>
    fetchAll((offset, limit) => api.calls({ traceId, runPk: finding.runPk ?? undefined, name: name ?? undefined, offset, limit })),
  );
  if (!details.success) return null;
  const byCall = new Map<string, CallRow>();
  if (calls.status === 'ready') for (const call of calls.data) if (!byCall.has(call.callId)) byCall.set(call.callId, call);
  return (
    <div className="repeated-calls" data-testid="repeated-calls">
      {details.data.calls.map((repeated, index) => {
        const call = byCall.get(repeated.call_id);
        return (
          <div key={`${repeated.call_id}:${repeated.line}`} className="repeated-call" data-testid="repeated-call">
            <div className="repeated-call-title">
              <strong>#{index + 1}</strong> <VisibleText text={details.data.name} /> · step {repeated.step ?? '—'} · line {repeated.line}
            </div>
            <div className="wrap-text mono">
              <VisibleText text={call?.argsSummary ?? details.data.arguments ?? ''} />
            </div>
            {call && (
              <div>
                <CallStateBadge state={call.state} errorCode={call.errorCode} />
                {call.latencyMs !== null && <span className="muted"> {formatDuration(call.latencyMs)}</span>}
                {call.answerEventId !== null && <ResultPreview traceId={traceId} eventId={call.answerEventId} runPk={call.runPk} />}
              </div>
            )}
          </div>
        );
      })}
    </div>
  );
}

function ResultPreview({ traceId, eventId, runPk }: { traceId: string; eventId: number; runPk: number }) {
  // The event's summary is what the comparison needs; the record itself stays on disk.
  const result = useQuery(`resultPreview:${traceId}:${eventId}`, (api) => api.event({ traceId, eventId, maxBytes: 1 }));
  return (
    <div className="result-preview">
      <a href={formatRoute(routes.run(traceId, runPk, { eventId }))}>result</a>
      {result.status === 'ready' && result.data.event.summary !== null && (
        <div className="wrap-text mono">
          <VisibleText text={result.data.event.summary} />
        </div>
      )}
    </div>
  );
}
