/**
 * A run's header: its name, status and sections, its numbers, budget use, task, parent and
 * sub-agents, and its findings (one marker per kind, walked with n / p).
 */
import { memo } from 'react';
import type { ApiResponse, FindingRow } from '../../shared/api';
import { useReport } from '../api/ApiContext';
import { SeverityBadge, StatusBadge } from '../components/Badges';
import { baseName, formatCount, formatDuration, formatTokens, humanize } from '../components/format';
import { CostText } from '../components/CostText';
import { MiddleEllipsis } from '../components/MiddleEllipsis';
import { VisibleText, visibleText } from '../components/VisibleText';
import { useQuery } from '../api/useQuery';
import { formatRoute, routes, type RunSection } from '../navigation/route';
import { navigate } from '../navigation/useRoute';
import { lastListRoute } from './lastListRoute';
import type { RunFindings } from './runModel';
import { SubAgentOrigin } from './SubAgents';
import { childRunName } from './subAgentNames';
import { FindingMarker } from './Timeline';

type RunDetail = ApiResponse<'run'>;

function budgetLabel(name: string): string {
  return humanize(name.replace(/_ms$/, '').replace(/_usd$/, ' (USD)'));
}

/** Memoized: moving the cursor re-renders the run view, and nothing of the header changes with it. */
export const RunHeader = memo(function RunHeader({
  traceId,
  detail,
  findings,
  activeFindingId,
  onSelectFinding,
  section,
}: {
  traceId: string;
  detail: RunDetail;
  findings: RunFindings;
  activeFindingId: number | null;
  onSelectFinding: (finding: FindingRow) => void;
  section: RunSection;
}) {
  const { run } = detail;
  return (
    <header className="run-header" data-testid="run-header">
      <RunTitle traceId={traceId} run={run} section={section} />
      <RunFacts detail={detail} />
      {detail.budgets.length > 0 && (
        <div className="budgets">
          {detail.budgets.map((budget) => (
            <span key={budget.name} className={`budget ${budget.exceeded ? 'budget-exceeded' : ''}`} data-testid="budget" data-exceeded={budget.exceeded}>
              {budgetLabel(budget.name)} {formatCount(budget.used)}/{formatCount(budget.limit)}
              {budget.exceeded && ' — budget exceeded'}
            </span>
          ))}
        </div>
      )}
      {detail.task !== null && (
        // One line (its line breaks as spaces); the tooltip has it whole, line by line.
        <p className="run-task" title={detail.task.split('\n').map(visibleText).join('\n')} data-testid="run-task">
          <span className="muted">Task: </span>
          <VisibleText text={detail.task.replace(/\s+/g, ' ').trim()} />
        </p>
      )}
      <SubAgentOrigin traceId={traceId} detail={detail} />
      {detail.children.length > 0 && <SubAgentLinks traceId={traceId} detail={detail} />}
      {findings.ordered.length > 0 && <FindingSummary ordered={findings.ordered} activeFindingId={activeFindingId} onSelectFinding={onSelectFinding} />}
      {findings.ofRun.length > 0 && (
        <ul className="plain-list run-level-findings">
          {findings.ofRun.map((finding) => (
            <li key={finding.findingId}>
              <SeverityBadge severity={finding.severity} /> <VisibleText text={finding.message} />
            </li>
          ))}
        </ul>
      )}
    </header>
  );
});

/** Back to the list, the run's name and status, its two sections (timeline, requests), and how its status was written. */
function RunTitle({ traceId, run, section }: { traceId: string; run: RunDetail['run']; section: RunSection }) {
  const report = useReport();
  return (
    <div className="run-title">
      <a href={formatRoute(lastListRoute(traceId))} className="back-link" title="Back to the list (Esc)">
        ← Back
      </a>
      <h2>
        {/* A sub-agent is told apart by its own part of the id; the line below names its parent. */}
        <MiddleEllipsis text={run.parent === null ? run.runId : childRunName(run.runId, run.parent.runId)} kind="id" title={visibleText(run.runId)} />
      </h2>
      <StatusBadge status={run.status} raw={run.statusRaw} />
      <nav className="tabs run-sections" aria-label="Run views">
        <a
          href={formatRoute(routes.run(traceId, run.runPk))}
          className={`tab ${section === 'timeline' ? 'tab-active' : ''}`}
          aria-current={section === 'timeline' ? 'page' : undefined}
          data-testid="run-section-timeline"
        >
          Timeline
        </a>
        <a
          href={formatRoute(routes.runRequests(traceId, run.runPk))}
          className={`tab ${section === 'requests' ? 'tab-active' : ''}`}
          aria-current={section === 'requests' ? 'page' : undefined}
          data-testid="run-section-requests"
        >
          Requests &amp; context growth
        </a>
      </nav>
      {report === undefined && <CompareWith traceId={traceId} runPk={run.runPk} />}
      <span className="muted" data-testid="status-raw">
        {run.status === 'running' ? (
          'still being written: no terminal event yet'
        ) : run.statusRaw === '' ? (
          'no terminal status was written'
        ) : (
          <>
            written as “<VisibleText text={run.statusRaw} />”
          </>
        )}
      </span>
    </div>
  );
}

/** Runs offered to compare with: the trace's first ones, in file order (a longer list is not a menu). */
const compareCandidates = 200;

/** Opens this run beside another run of the trace (CompareView.tsx). */
function CompareWith({ traceId, runPk }: { traceId: string; runPk: number }) {
  const runs = useQuery(`compare-candidates:${traceId}`, (api) => api.runs({ traceId, offset: 0, limit: compareCandidates }));
  if (runs.status !== 'ready') return null;
  const others = runs.data.rows.filter((row) => row.runPk !== runPk);
  if (others.length === 0) return null;
  return (
    <select
      className="run-compare-with"
      aria-label="Compare this run with another run"
      title="Compare this run with another run of the trace"
      value=""
      onChange={(event) => {
        if (event.target.value !== '') navigate(routes.compare(traceId, runPk, Number(event.target.value)));
      }}
      data-testid="compare-with"
    >
      <option value="">Compare with…</option>
      {others.map((row) => (
        <option key={row.runPk} value={row.runPk}>
          {visibleText(row.runId)}
        </option>
      ))}
    </select>
  );
}

/** The run in numbers: steps, calls, tokens, duration, where it is in the file, and the limit it stopped on. */
function RunFacts({ detail }: { detail: RunDetail }) {
  const { run } = detail;
  return (
    <div className="run-facts">
      <span>{formatCount(run.steps)} steps</span>
      <span>
        {formatCount(run.toolCalls)} tool calls, {formatCount(run.toolResults)} results
      </span>
      <span>tokens {formatTokens(run.inputTokens, run.outputTokens)}</span>
      {[run.cost, detail.costWithSubAgents].some((cost) => cost !== null && (cost.usd !== null || cost.unpricedResponses > 0)) && (
        <span>
          cost <CostText cost={run.cost} what="the run's own responses" testId="run-cost" />
          {detail.costWithSubAgents !== null && (
            <>
              {' · with its sub-agents '}
              <CostText cost={detail.costWithSubAgents} what="the run and every sub-agent it started, rolled up" testId="run-cost-with-subagents" />
            </>
          )}
        </span>
      )}
      <span>{formatDuration(run.durationMs, '—')}</span>
      <span title={run.file}>
        <VisibleText text={baseName(run.file)} /> lines {run.firstLine}–{run.lastLine} · {run.format}
      </span>
      {detail.endLimit !== null && (
        <span className="budget-exceeded">
          stopped on <VisibleText text={detail.endLimit} />
        </span>
      )}
    </div>
  );
}

/** Links to the run's sub-agents, each named by its own part of the id and the call that started it. */
function SubAgentLinks({ traceId, detail }: { traceId: string; detail: RunDetail }) {
  return (
    <div className="run-family">
      <span>
        Sub-agents:{' '}
        {detail.children.map((child) => (
          <a key={child.runPk} href={formatRoute(routes.run(traceId, child.runPk))} className="child-link" title={visibleText(child.runId)}>
            <VisibleText text={childRunName(child.runId, detail.run.runId)} />
            {child.callId !== null && (
              <span className="muted">
                {' '}
                (call <VisibleText text={child.callId} />)
              </span>
            )}
          </a>
        ))}
      </span>
    </div>
  );
}

/**
 * The run's findings in the header: one marker per kind with its count (a run can have hundreds of
 * one kind), each opening the next finding of that kind; n / p walk them all in order.
 */
function FindingSummary({
  ordered,
  activeFindingId,
  onSelectFinding,
}: {
  ordered: readonly FindingRow[];
  activeFindingId: number | null;
  onSelectFinding: (finding: FindingRow) => void;
}) {
  const activeIndex = ordered.findIndex((finding) => finding.findingId === activeFindingId);
  const byKind = new Map<string, FindingRow[]>();
  for (const finding of ordered) byKind.set(finding.kind, [...(byKind.get(finding.kind) ?? []), finding]);
  return (
    <div className="run-findings" data-testid="run-findings">
      <span className="muted">Findings (n / p){activeIndex >= 0 ? ` — ${activeIndex + 1} of ${ordered.length}` : ''}:</span>
      {[...byKind.values()].map((ofKind) => {
        const active = ofKind.find((finding) => finding.findingId === activeFindingId);
        // The next one of this kind after the active finding, wrapping to the first.
        const next = ofKind.find((finding) => ordered.indexOf(finding) > activeIndex) ?? ofKind[0]!;
        return (
          <span key={ofKind[0]!.kind} className="finding-kind" data-testid="finding-kind" data-kind={ofKind[0]!.kind}>
            <FindingMarker finding={active ?? next} active={active !== undefined} onSelect={() => onSelectFinding(next)} />
            {ofKind.length > 1 && <span className="muted"> ×{ofKind.length}</span>}
          </span>
        );
      })}
    </div>
  );
}
