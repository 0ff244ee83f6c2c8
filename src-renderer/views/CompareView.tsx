/**
 * Two runs of the trace side by side (docs/semantics.md §16): each run's measures with B − A, then
 * their turns aligned one row per turn — the same, changed (the same tool with other arguments),
 * only in A, only in B — with the first divergence marked and scrolled to. Every turn opens its
 * step in its run.
 */
import { useEffect, useRef } from 'react';
import type { ApiResponse } from '../../shared/api';
import { useQuery } from '../api/useQuery';
import { StatusBadge } from '../components/Badges';
import { formatCount } from '../components/format';
import { comparedMeasures, divergenceSteps, firstDivergence, type DivergencePlace } from '../../shared/compare/comparedMeasures';
import { Failure, Loading } from '../components/States';
import { VisibleText, visibleText } from '../components/VisibleText';
import { formatRoute, routes, type Route } from '../navigation/route';
import '../styles/compare.css';

type CompareRoute = Extract<Route, { view: 'compare' }>;
type Comparison = ApiResponse<'compareRuns'>;
type ComparedRun = Comparison['a'];
type AlignedRow = Comparison['alignment']['rows'][number];

/** The two runs and their comparison: A in trace `traceId`, B in `traceIdB` (the same trace, or another). */
interface ComparedRuns {
  traceId: string;
  traceIdB: string;
  runPkA: number;
  runPkB: number;
  comparison: Comparison;
}

const opLabels: Record<AlignedRow['op'], string> = { same: 'same', changed: 'changed', removed: 'only in A', inserted: 'only in B' };

export function CompareView({ route, revision }: { route: CompareRoute; revision: number }) {
  const { traceId, runPkA, runPkB, traceIdB } = route;
  const comparison = useQuery(`compareRuns:${traceId}:${runPkA}:${traceIdB ?? ''}:${runPkB}:${revision}`, (api) =>
    api.compareRuns({ traceId, runPkA, runPkB, ...(traceIdB !== null ? { traceIdB } : {}) }),
  );
  return (
    <div className="scroll-pane compare-view" data-testid="compare-view" data-state={comparison.status}>
      {traceIdB === null ? (
        <a href={formatRoute(routes.trace(traceId))} className="back-link">
          ← Runs
        </a>
      ) : (
        <a href={formatRoute(routes.start())} className="back-link">
          ← Library
        </a>
      )}
      {comparison.status === 'error' && <Failure what="the comparison" error={comparison.error} />}
      {comparison.status === 'loading' && <Loading what="the comparison" />}
      {comparison.status === 'ready' && (
        <ComparisonBody traceId={traceId} traceIdB={traceIdB ?? traceId} runPkA={runPkA} runPkB={runPkB} comparison={comparison.data} />
      )}
    </div>
  );
}

function ComparisonBody({ traceId, traceIdB, runPkA, runPkB, comparison }: ComparedRuns) {
  const { a, b, alignment } = comparison;
  const divergence = firstDivergence(comparison);
  return (
    <>
      <h2 className="compare-title">Comparing two runs</h2>
      <table className="compare-measures" data-testid="compare-measures">
        <thead>
          <tr>
            <th scope="col" />
            <th scope="col">
              A · <a href={formatRoute(routes.run(traceId, runPkA))}>{<VisibleText text={a.run_id} />}</a>
            </th>
            <th scope="col">
              B · <a href={formatRoute(routes.run(traceIdB, runPkB))}>{<VisibleText text={b.run_id} />}</a>
            </th>
            <th scope="col" className="numeric">
              B − A
            </th>
          </tr>
        </thead>
        <tbody>
          <tr>
            <th scope="row">Status</th>
            <td>
              <StatusBadge status={a.status} raw={a.status_raw} />
            </td>
            <td>
              <StatusBadge status={b.status} raw={b.status_raw} />
            </td>
            <td className="numeric">{a.status === b.status ? 'same' : 'changed'}</td>
          </tr>
          {comparedMeasures(comparison).map((measure) => (
            <tr key={measure.label} data-testid="compare-measure" data-measure={measure.label}>
              <th scope="row">{measure.label}</th>
              <td className="numeric">{measure.a}</td>
              <td className="numeric">{measure.b}</td>
              <td className="numeric" data-testid="compare-delta">
                {measure.change}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className={`banner ${divergence === null ? 'banner-info' : 'banner-warning'}`} data-testid="first-divergence">
        {divergence === null ? (
          <>The runs take the same {formatCount(alignment.rows.length)} turns.</>
        ) : (
          <>
            <strong>First divergence</strong> at {divergenceSteps(divergence).join(' / ')}: {divergenceWhat[divergence.row.op]}.{' '}
            <span className="muted">
              {Math.round(alignment.similarity * 100)} % alike over {formatCount(alignment.rows.length)} aligned turns.
            </span>{' '}
            <SeenBefore traceIdA={traceId} traceIdB={traceIdB} runPkB={runPkB} a={divergence.turnA} b={divergence.turnB} />
          </>
        )}
      </p>
      <AlignedTurns traceId={traceId} traceIdB={traceIdB} runPkA={runPkA} runPkB={runPkB} comparison={comparison} />
    </>
  );
}

/**
 * What each run had seen when it diverged: the request B's divergent turn answered against the one
 * A's did, as a request diff (rebuilt from the trace's events where its format logs no requests).
 * Shown when both runs have a turn there with its request analyzed.
 */
function SeenBefore({
  traceIdA,
  traceIdB,
  runPkB,
  a,
  b,
}: {
  traceIdA: string;
  traceIdB: string;
  runPkB: number;
  a: ComparedRun['turns'][number] | null;
  b: ComparedRun['turns'][number] | null;
}) {
  const before = a?.request_event_id ?? null;
  const after = b?.request_event_id ?? null;
  if (before === null || after === null) return null;
  return (
    <a
      href={formatRoute(routes.requestDiff(traceIdB, runPkB, after, { previousEventId: before, previousTraceId: traceIdA }))}
      data-testid="divergence-requests"
    >
      What each had seen: B's request against A's
    </a>
  );
}

const divergenceWhat: Record<DivergencePlace['row']['op'], string> = {
  changed: 'B does something different',
  removed: 'B has no turn for this one',
  inserted: 'B takes a turn A does not',
  same: '',
};

function AlignedTurns({ traceId, traceIdB, runPkA, runPkB, comparison }: ComparedRuns) {
  const { a, b, alignment } = comparison;
  const divergence = useRef<HTMLTableRowElement>(null);
  useEffect(() => {
    // Only when it is below the first screen: the measures above it stay in view otherwise.
    divergence.current?.scrollIntoView({ block: 'nearest' });
  }, [comparison]);
  return (
    <table className="compare-turns" data-testid="compare-turns">
      <thead>
        <tr>
          <th scope="col">A</th>
          <th scope="col" className="compare-op-head" aria-label="How the turns compare" />
          <th scope="col">B</th>
        </tr>
      </thead>
      <tbody>
        {alignment.rows.map((row, index) => (
          <tr
            key={index}
            ref={index === alignment.first_divergence ? divergence : undefined}
            className={`compare-row compare-${row.op} ${index === alignment.first_divergence ? 'compare-divergence' : ''}`}
            data-testid="compare-row"
            data-op={row.op}
            data-step-a={row.a === null ? '' : a.turns[row.a]!.step}
            data-step-b={row.b === null ? '' : b.turns[row.b]!.step}
            data-divergence={index === alignment.first_divergence ? 'true' : undefined}
          >
            <td>{row.a !== null && <TurnCell traceId={traceId} runPk={runPkA} turn={a.turns[row.a]!} calls={row.calls} side="a" />}</td>
            <td className="compare-op" title={opLabels[row.op]}>
              {{ same: '=', changed: '~', removed: '−', inserted: '+' }[row.op]}
            </td>
            <td>{row.b !== null && <TurnCell traceId={traceIdB} runPk={runPkB} turn={b.turns[row.b]!} calls={row.calls} side="b" />}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function TurnCell({
  traceId,
  runPk,
  turn,
  calls,
  side,
}: {
  traceId: string;
  runPk: number;
  turn: ComparedRun['turns'][number];
  calls: AlignedRow['calls'];
  side: 'a' | 'b';
}) {
  // How each of this side's calls fared against the other side's (same, changed, only here).
  const callOps = new Map(calls.flatMap((call) => (call[side] === null ? [] : [[call[side], call.op] as const])));
  return (
    <a className="compare-turn" href={formatRoute(routes.run(traceId, runPk, { step: turn.step }))} title={`Open step ${turn.step} of this run`}>
      <span className="compare-step">{turn.step}</span>
      {turn.calls.length === 0 ? (
        <span className="muted">{turn.outcome === 'final' ? 'answers' : turn.outcome}</span>
      ) : (
        <span className="compare-calls">
          {turn.calls.map((call, index) => (
            <span
              key={index}
              className={`compare-call compare-call-${callOps.get(index) ?? 'same'}`}
              title={`${visibleText(call.tool)}(${visibleText(call.args)})`}
              data-testid="compare-call"
            >
              <strong>
                <VisibleText text={call.tool} />
              </strong>
              <span className="compare-args">
                (<VisibleText text={call.args} />)
              </span>
            </span>
          ))}
        </span>
      )}
    </a>
  );
}
