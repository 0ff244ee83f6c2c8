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
import { formatCount, formatDuration } from '../components/format';
import { Failure, Loading } from '../components/States';
import { VisibleText, visibleText } from '../components/VisibleText';
import { formatRoute, routes, type Route } from '../navigation/route';
import '../styles/compare.css';

type CompareRoute = Extract<Route, { view: 'compare' }>;
type Comparison = ApiResponse<'compareRuns'>;
type ComparedRun = Comparison['a'];
type AlignedRow = Comparison['alignment']['rows'][number];

const opLabels: Record<AlignedRow['op'], string> = { same: 'same', changed: 'changed', removed: 'only in A', inserted: 'only in B' };

export function CompareView({ route, revision }: { route: CompareRoute; revision: number }) {
  const { traceId, runPkA, runPkB } = route;
  const comparison = useQuery(`compareRuns:${traceId}:${runPkA}:${runPkB}:${revision}`, (api) => api.compareRuns({ traceId, runPkA, runPkB }));
  return (
    <div className="scroll-pane compare-view" data-testid="compare-view" data-state={comparison.status}>
      <a href={formatRoute(routes.trace(traceId))} className="back-link">
        ← Runs
      </a>
      {comparison.status === 'error' && <Failure what="the comparison" error={comparison.error} />}
      {comparison.status === 'loading' && <Loading what="the comparison" />}
      {comparison.status === 'ready' && <ComparisonBody traceId={traceId} runPkA={runPkA} runPkB={runPkB} comparison={comparison.data} />}
    </div>
  );
}

function signed(value: number | null, format: (magnitude: number) => string): string {
  if (value === null) return '?';
  if (value === 0) return '±0';
  return `${value > 0 ? '+' : '−'}${format(Math.abs(value))}`;
}

const dollars = (value: number): string => `$${value.toFixed(value < 1 ? 4 : 2)}`;
const findingTotal = (run: ComparedRun): number => run.findings.error + run.findings.warning + run.findings.info;

function ComparisonBody({ traceId, runPkA, runPkB, comparison }: { traceId: string; runPkA: number; runPkB: number; comparison: Comparison }) {
  const { a, b, delta, alignment } = comparison;
  const divergence = alignment.first_divergence === null ? null : alignment.rows[alignment.first_divergence]!;
  const measures: { label: string; value: (run: ComparedRun) => string; change: string }[] = [
    { label: 'Findings', value: (run) => formatCount(findingTotal(run)), change: signed(delta.findings, formatCount) },
    { label: 'Steps', value: (run) => formatCount(run.steps), change: signed(delta.steps, formatCount) },
    { label: 'Tool calls', value: (run) => formatCount(run.tool_calls), change: signed(delta.tool_calls, formatCount) },
    {
      label: 'Input tokens',
      value: (run) => (run.input_tokens === null ? '—' : formatCount(run.input_tokens)),
      change: signed(delta.input_tokens, formatCount),
    },
    {
      label: 'Output tokens',
      value: (run) => (run.output_tokens === null ? '—' : formatCount(run.output_tokens)),
      change: signed(delta.output_tokens, formatCount),
    },
    { label: 'Cost (recorded)', value: (run) => (run.cost_usd === null ? 'not recorded' : dollars(run.cost_usd)), change: signed(delta.cost_usd, dollars) },
    { label: 'Duration', value: (run) => formatDuration(run.duration_ms, '—'), change: signed(delta.duration_ms, formatDuration) },
  ];
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
              B · <a href={formatRoute(routes.run(traceId, runPkB))}>{<VisibleText text={b.run_id} />}</a>
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
          {measures.map((measure) => (
            <tr key={measure.label} data-testid="compare-measure" data-measure={measure.label}>
              <th scope="row">{measure.label}</th>
              <td className="numeric">{measure.value(a)}</td>
              <td className="numeric">{measure.value(b)}</td>
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
            <strong>First divergence</strong> at {divergenceWhere(divergence, a, b)}: {divergenceWhat(divergence)}.{' '}
            <span className="muted">
              {Math.round(alignment.similarity * 100)} % alike over {formatCount(alignment.rows.length)} aligned turns.
            </span>{' '}
            <SeenBefore traceId={traceId} runPkB={runPkB} a={divergenceTurn(a, divergence.a)} b={divergenceTurn(b, divergence.b)} />
          </>
        )}
      </p>
      <AlignedTurns traceId={traceId} runPkA={runPkA} runPkB={runPkB} comparison={comparison} />
    </>
  );
}

/** The turn of a side at the divergence row; null when that side has none there. */
function divergenceTurn(run: ComparedRun, index: number | null): ComparedRun['turns'][number] | null {
  return index === null ? null : (run.turns[index] ?? null);
}

/**
 * What each run had seen when it diverged: the request B's divergent turn answered against the one
 * A's did, as a request diff (rebuilt from the trace's events where its format logs no requests).
 * Shown when both runs have a turn there with its request analyzed.
 */
function SeenBefore({
  traceId,
  runPkB,
  a,
  b,
}: {
  traceId: string;
  runPkB: number;
  a: ComparedRun['turns'][number] | null;
  b: ComparedRun['turns'][number] | null;
}) {
  const before = a?.request_event_id ?? null;
  const after = b?.request_event_id ?? null;
  if (before === null || after === null) return null;
  return (
    <a href={formatRoute(routes.requestDiff(traceId, runPkB, after, { previousEventId: before }))} data-testid="divergence-requests">
      What each had seen: B's request against A's
    </a>
  );
}

function divergenceWhere(row: AlignedRow, a: ComparedRun, b: ComparedRun): string {
  const sides = [row.a === null ? null : `A step ${a.turns[row.a]!.step}`, row.b === null ? null : `B step ${b.turns[row.b]!.step}`];
  return sides.filter((side) => side !== null).join(' / ');
}

function divergenceWhat(row: AlignedRow): string {
  if (row.op === 'changed') return 'B does something different';
  if (row.op === 'removed') return 'B has no turn for this one';
  return 'B takes a turn A does not';
}

function AlignedTurns({ traceId, runPkA, runPkB, comparison }: { traceId: string; runPkA: number; runPkB: number; comparison: Comparison }) {
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
            <td>{row.b !== null && <TurnCell traceId={traceId} runPk={runPkB} turn={b.turns[row.b]!} calls={row.calls} side="b" />}</td>
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
