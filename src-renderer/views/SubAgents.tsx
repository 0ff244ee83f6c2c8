/**
 * Sub-agents one click away: the run's sub-agent calls (a Claude Code Task and the run its result
 * names) are provided to the timeline and the inspector, which show on the call and on its result
 * "Open sub-agent run ↳", the child's summary (status, steps, findings), expandable to its answer
 * and first steps — or, when the child's transcript is not in the trace, where it was looked
 * for. A child run's header names the call that started it, with a link back to it.
 */
import { createContext, useContext, useEffect, useMemo, useState, type MouseEvent, type ReactNode } from 'react';
import type { ApiResponse, EventRow, RunRow, SubAgentCall } from '../../shared/api';
import { useApi } from '../api/ApiContext';
import { errorMessage } from '../api/client';
import { FindingCounts, StatusBadge } from '../components/Badges';
import { formatCount, formatDuration, humanize } from '../components/format';
import { CostText } from '../components/CostText';
import { VisibleText, visibleText } from '../components/VisibleText';
import { formatRoute, routes } from '../navigation/route';
import { childRunName, missingTranscriptNote } from './subAgentNames';
import { MiddleEllipsis } from '../components/MiddleEllipsis';
import '../styles/subagents.css';

interface SubAgents {
  traceId: string;
  byCall: ReadonlyMap<string, SubAgentCall>;
}

const SubAgentsContext = createContext<SubAgents>({ traceId: '', byCall: new Map() });

export function SubAgentsProvider({ traceId, subAgents, children }: { traceId: string; subAgents: readonly SubAgentCall[]; children: ReactNode }) {
  const value = useMemo(() => ({ traceId, byCall: new Map(subAgents.map((subAgent) => [subAgent.callId, subAgent])) }), [traceId, subAgents]);
  return <SubAgentsContext.Provider value={value}>{children}</SubAgentsContext.Provider>;
}

/** Links inside a timeline row go where they point; they must not also select the row. */
const stopRowClick = (event: MouseEvent) => event.stopPropagation();

function OpenSubAgentLink({ traceId, subAgent }: { traceId: string; subAgent: SubAgentCall }) {
  if (subAgent.child === null) {
    const note = missingTranscriptNote(subAgent.missing ?? { file: null, lookedIn: [] }, subAgent.childRunId);
    return (
      <span className="subagent-missing" data-testid="subagent-missing" title={visibleText(note)}>
        <VisibleText text={note} />
      </span>
    );
  }
  return (
    <a
      className="subagent-link"
      href={formatRoute(routes.run(traceId, subAgent.child.runPk))}
      onClick={stopRowClick}
      data-testid="open-subagent"
      title={`Open run ${visibleText(subAgent.childRunId)}`}
    >
      Open sub-agent run ↳
    </a>
  );
}

/** On a result chip (and wherever only the way there is wanted): the link, or the missing-transcript note. */
export function SubAgentLink({ callId }: { callId: string | null }) {
  const { traceId, byCall } = useContext(SubAgentsContext);
  const subAgent = callId === null ? undefined : byCall.get(callId);
  return subAgent === undefined ? null : <OpenSubAgentLink traceId={traceId} subAgent={subAgent} />;
}

/** On the call that started a sub-agent: the child summed up, expandable to its answer and first steps, and the link. */
export function SubAgentSummary({ callId }: { callId: string }) {
  const { traceId, byCall } = useContext(SubAgentsContext);
  const [expanded, setExpanded] = useState(false);
  const subAgent = byCall.get(callId);
  if (subAgent === undefined) return null;
  const { child } = subAgent;
  return (
    <div className="subagent-summary" data-testid="subagent-summary" data-call-id={callId}>
      {subAgent.label !== null && (
        <div className="subagent-label" title={visibleText(subAgent.label)}>
          <VisibleText text={subAgent.label} />
        </div>
      )}
      {child !== null && (
        <div className="subagent-facts">
          <StatusBadge status={child.status} raw="" />
          <span>{formatCount(child.steps)} steps</span>
          <span>{formatCount(child.toolCalls)} tool calls</span>
          {child.durationMs !== null && <span>{formatDuration(child.durationMs)}</span>}
          {(child.cost.usd !== null || child.cost.unpricedResponses > 0) && (
            <CostText cost={child.cost} what="the sub-agent and the sub-agents it started" testId="subagent-cost" />
          )}
          {child.findings.error + child.findings.warning + child.findings.info === 0 ? <span>no findings</span> : <FindingCounts findings={child.findings} />}
        </div>
      )}
      <div className="subagent-actions">
        <OpenSubAgentLink traceId={traceId} subAgent={subAgent} />
        {child !== null && (
          <button
            type="button"
            className="subagent-toggle"
            aria-expanded={expanded}
            data-testid="subagent-expand"
            onClick={(event) => {
              event.stopPropagation();
              setExpanded((open) => !open);
            }}
          >
            {expanded ? '▾ Hide its answer' : '▸ Its answer and first steps'}
          </button>
        )}
      </div>
      {expanded && child !== null && <SubAgentPreview traceId={traceId} runPk={child.runPk} answer={child.answer} />}
    </div>
  );
}

const previewEvents = 8;

function SubAgentPreview({ traceId, runPk, answer }: { traceId: string; runPk: number; answer: string | null }) {
  const api = useApi();
  const [events, setEvents] = useState<{ rows: EventRow[]; total: number } | { error: string } | null>(null);
  useEffect(() => {
    let active = true;
    api.runEvents({ traceId, runPk, offset: 0, limit: previewEvents }).then(
      (page) => active && setEvents({ rows: page.rows, total: page.total }),
      (error: unknown) => active && setEvents({ error: errorMessage(error) }),
    );
    return () => {
      active = false;
    };
  }, [api, traceId, runPk]);
  return (
    <div className="subagent-preview" data-testid="subagent-preview">
      <div className="subagent-answer">
        <span className="muted">Answer: </span>
        {answer === null ? <span className="muted">no final answer</span> : <VisibleText text={answer} keepNewlines />}
      </div>
      {events === null ? (
        <p className="muted">Loading its first steps…</p>
      ) : 'error' in events ? (
        <p className="subagent-missing">Could not load its first steps: {events.error}</p>
      ) : (
        <ol className="subagent-steps">
          {events.rows.map((event) => (
            <li key={event.eventId}>
              <a href={formatRoute(routes.run(traceId, runPk, { step: event.step, eventId: event.eventId }))} onClick={stopRowClick}>
                {event.typeRaw === event.type ? humanize(event.type) : <VisibleText text={event.typeRaw} />}
                {event.step !== null && ` · step ${event.step}`}
              </a>
              {event.summary !== null && (
                <span className="subagent-step-summary" title={visibleText(event.summary)}>
                  {' '}
                  <VisibleText text={event.summary} />
                </span>
              )}
            </li>
          ))}
        </ol>
      )}
      {events !== null && !('error' in events) && events.total > events.rows.length && (
        <p className="muted subagent-more">… {formatCount(events.total - events.rows.length)} more events in the sub-agent run</p>
      )}
    </div>
  );
}

/** In the inspector: the sub-agents of the calls the event issued or answers. */
export function SubAgentsOf({ callIds }: { callIds: readonly (string | null)[] }) {
  const { byCall } = useContext(SubAgentsContext);
  const known = [...new Set(callIds)].filter((callId): callId is string => callId !== null && byCall.has(callId));
  if (known.length === 0) return null;
  return (
    <section data-testid="inspector-subagents">
      <h4>{known.length === 1 ? 'Sub-agent' : 'Sub-agents'}</h4>
      {known.map((callId) => (
        <SubAgentSummary key={callId} callId={callId} />
      ))}
    </section>
  );
}

/**
 * The run header's line for a sub-agent: its parent run, the call that started it (a link to that
 * call) and what the call asked; for a sub-agent transcript opened without its session, which
 * session and agent it is.
 */
export function SubAgentOrigin({ traceId, detail }: { traceId: string; detail: ApiResponse<'run'> }) {
  const { run, config } = detail;
  if (run.parent === null) {
    const agentId = typeof config?.['agent_id'] === 'string' ? config['agent_id'] : null;
    if (agentId === null) return null;
    const sessionId = typeof config?.['session_id'] === 'string' ? config['session_id'] : null;
    return (
      <p className="subagent-origin" data-testid="subagent-origin">
        Sub-agent <VisibleText text={agentId} />
        {sessionId !== null && (
          <>
            {' '}
            of session <VisibleText text={sessionId} />
          </>
        )}
        <span className="muted"> — its session's transcript is not open (it was not found beside this file)</span>
      </p>
    );
  }
  return (
    <p className="subagent-origin" data-testid="subagent-origin">
      Sub-agent of{' '}
      <a href={formatRoute(routes.run(traceId, run.parent.runPk))} data-testid="parent-run-link">
        <VisibleText text={run.parent.runId} />
      </a>
      <StartingCall traceId={traceId} parent={run.parent} />
      {run.parent.label !== null && (
        <span className="muted">
          {' '}
          · <VisibleText text={run.parent.label} />
        </span>
      )}
    </p>
  );
}

function StartingCall({ traceId, parent }: { traceId: string; parent: NonNullable<RunRow['parent']> }) {
  if (parent.callId === null) return <span className="muted"> · no call of it names this run</span>;
  const what = `${parent.callName ?? 'call'} call ${parent.callId}`;
  return (
    <>
      {' · started by '}
      {parent.callEventId === null ? (
        <VisibleText text={what} />
      ) : (
        <a href={formatRoute(routes.run(traceId, parent.runPk, { step: parent.callStep, eventId: parent.callEventId }))} data-testid="starting-call-link">
          <VisibleText text={what} />
        </a>
      )}
      {parent.callStep !== null && ` at step ${parent.callStep}`}
    </>
  );
}

/** A run's name in the runs table: a sub-agent's is its id after its parent's, indented under it, with what it was asked. */
export function RunName({ run }: { run: RunRow }) {
  const title = [run.runId, run.parent?.label ?? null, `lines ${run.firstLine}–${run.lastLine}`]
    .flatMap((part) => (part === null ? [] : [visibleText(part)]))
    .join('\n');
  if (run.parent === null) {
    return (
      <span className="run-id">
        <MiddleEllipsis text={run.runId} kind="id" title={title} />
      </span>
    );
  }
  return (
    <span className="run-id run-id-child" title={title} data-testid="child-run-name">
      <span className="muted">↳ </span>
      <VisibleText text={childRunName(run.runId, run.parent.runId)} />
      {run.parent.label !== null && (
        <span className="muted subagent-row-label">
          {' '}
          · <VisibleText text={run.parent.label} />
        </span>
      )}
    </span>
  );
}
