/**
 * The start page of a library (docs/ui.md "The library"): every run of every trace under the
 * directories Loopscope was given, with what they add up to above them — runs by status, findings
 * by kind, runs over time, tokens, cost, duration and steps per run, tools — and the failure
 * signatures across runs. Every chart has its table, sortable; a filter narrows all of them at
 * once and lives in the URL; a signature drills down to its runs; two runs picked in the table
 * open side by side; a search looks through every trace.
 */
import { useEffect, useState } from 'react';
import type { ApiResponse, Cost } from '../../shared/api';
import { formatUsd } from '../../shared/formatUsd';
import type {
  LibraryAggregates,
  LibraryDistribution,
  LibraryFilter,
  LibraryRun,
  LibrarySignature,
  LibrarySort,
  LibraryStatus,
} from '../../shared/library/libraryApi';
import { findingKindSchema } from '../../shared/report';
import { runStatusSchema } from '../../shared/trace/runStatus';
import { BarChart } from '../charts/BarChart';
import { CostText, costTitle } from '../components/CostText';
import { useQuery } from '../api/useQuery';
import { FindingCounts, StatusBadge } from '../components/Badges';
import { formatCount, formatDuration, formatTokens, humanize } from '../components/format';
import { Highlighted } from '../components/Highlighted';
import { MiddleEllipsis } from '../components/MiddleEllipsis';
import { SortableTable, type SortableColumn } from '../components/SortableTable';
import { Empty, Failure, Loading } from '../components/States';
import { VisibleText, visibleText } from '../components/VisibleText';
import { formatRoute, routes, type RouteParams } from '../navigation/route';
import { useSetStartParams } from '../navigation/useRoute';
import { filterParams, isFiltered, parseLibraryFilter, parseLibraryOrder, type LibraryOrder } from './libraryQuery';
import '../styles/library.css';

/** Runs listed per page of the library's table. */
const RUNS_PER_PAGE = 100;
/** Signatures listed; the rest are counted. */
const SIGNATURES_LISTED = 50;

type SetParams = (changes: Record<string, string | undefined>) => void;

export function LibraryView({ status, params }: { status: LibraryStatus; params: RouteParams }) {
  const filter = parseLibraryFilter(params);
  const order = parseLibraryOrder(params);
  const setParams = useSetStartParams(params);
  const filterKey = JSON.stringify(filter);
  const aggregates = useQuery(`libraryAggregates:${filterKey}:${status.revision}`, (api) => api.libraryAggregates({ filter }));
  return (
    <div className="library" data-testid="library" data-revision={status.revision}>
      <IndexingStatus status={status} />
      <LibrarySearch />
      <Filters filter={filter} facets={aggregates.data?.facets ?? null} setParams={setParams} />
      {aggregates.status === 'error' && <Failure what="the library's aggregates" error={aggregates.error} />}
      {aggregates.data === undefined ? (
        <Loading what="the library" />
      ) : (
        <Aggregates aggregates={aggregates.data} filter={filter} setParams={setParams} ready={aggregates.status === 'ready'} />
      )}
      <Signatures filter={filter} revision={status.revision} setParams={setParams} />
      <LibraryRuns filter={filter} order={order} revision={status.revision} setParams={setParams} />
    </div>
  );
}

function IndexingStatus({ status }: { status: LibraryStatus }) {
  const indexing = status.state === 'indexing';
  return (
    <section className="library-status" data-testid="library-status" data-state={status.state} aria-live="polite">
      <div>
        Library of{' '}
        {status.roots.map((root, index) => (
          <span key={root}>
            {index > 0 && ', '}
            <code>
              <VisibleText text={root} />
            </code>
          </span>
        ))}
        {': '}
        {indexing ? (
          <>
            reading {formatCount(status.indexed)} of {formatCount(status.files)} files
            {status.current !== null && (
              <span className="muted">
                {' '}
                · <MiddleEllipsis text={status.current} kind="path" />
              </span>
            )}
          </>
        ) : (
          <>
            {formatCount(status.files - status.skipped)} trace files
            {status.skipped > 0 && <span className="muted"> ({formatCount(status.skipped)} other files are not traces)</span>}; new ones are picked up as they
            appear
          </>
        )}
      </div>
      {indexing && status.files > 0 && <progress max={status.files} value={status.indexed} aria-label="Files indexed" />}
      {status.failed > 0 && (
        <details className="inline-error">
          <summary>
            {formatCount(status.failed)} file{status.failed === 1 ? '' : 's'} could not be read
          </summary>
          <ul>
            {status.failures.map((failure) => (
              <li key={failure.path}>
                <VisibleText text={`${failure.path}: ${failure.reason}`} />
              </li>
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}

/** A filter over values, "any" meaning none; values the URL names but the list lacks stay selectable. */
function Choice(props: {
  label: string;
  value: string | undefined;
  options: readonly { value: string; label: string }[];
  onSelect: (value: string | undefined) => void;
  testId: string;
}) {
  const { label, value, options, onSelect, testId } = props;
  const listed = value === undefined || options.some((option) => option.value === value) ? options : [{ value, label: value }, ...options];
  return (
    <label>
      {label}{' '}
      <select value={value ?? ''} onChange={(event) => onSelect(event.target.value || undefined)} data-testid={testId}>
        <option value="">any</option>
        {listed.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </label>
  );
}

function Filters({ filter, facets, setParams }: { filter: LibraryFilter; facets: LibraryAggregates['facets'] | null; setParams: SetParams }) {
  const [draft, setDraft] = useState(filter.text ?? '');
  useEffect(() => setDraft(filter.text ?? ''), [filter.text]);
  useEffect(() => {
    if (draft === (filter.text ?? '')) return;
    // Typing filters after a pause: each change is a request for every view of the page.
    const timer = window.setTimeout(() => setParams({ [filterParams.text]: draft.trim() || undefined }), 250);
    return () => window.clearTimeout(timer);
  }, [draft, filter.text, setParams]);
  const facetOptions = (values: LibraryAggregates['facets']['formats'] | undefined, show: (value: string) => string = (value) => value) =>
    (values ?? []).map((entry) => ({ value: entry.value, label: `${show(entry.value)} (${formatCount(entry.runs)})` }));
  const set = (field: keyof LibraryFilter) => (value: string | undefined) => setParams({ [filterParams[field]]: value });
  return (
    <div className="filters library-filters" role="group" aria-label="Filter the library's runs">
      <Choice
        label="Status"
        value={filter.status}
        options={runStatusSchema.options.map((value) => ({ value, label: humanize(value) }))}
        onSelect={set('status')}
        testId="library-filter-status"
      />
      <Choice
        label="Finding"
        value={filter.findingKind}
        options={findingKindSchema.options.map((value) => ({ value, label: humanize(value) }))}
        onSelect={set('findingKind')}
        testId="library-filter-kind"
      />
      <Choice label="Format" value={filter.format} options={facetOptions(facets?.formats)} onSelect={set('format')} testId="library-filter-format" />
      <Choice label="Model" value={filter.model} options={facetOptions(facets?.models)} onSelect={set('model')} testId="library-filter-model" />
      <Choice
        label="Directory"
        value={filter.directory}
        options={facetOptions(facets?.directories)}
        onSelect={set('directory')}
        testId="library-filter-directory"
      />
      <label>
        From{' '}
        <input type="date" value={filter.from ?? ''} onChange={(event) => set('from')(event.target.value || undefined)} data-testid="library-filter-from" />
      </label>
      <label>
        To <input type="date" value={filter.to ?? ''} onChange={(event) => set('to')(event.target.value || undefined)} data-testid="library-filter-to" />
      </label>
      <label>
        Text{' '}
        <input
          type="text"
          value={draft}
          placeholder="run id, file, task, model"
          onChange={(event) => setDraft(event.target.value)}
          maxLength={500}
          data-testid="library-filter-text"
        />
      </label>
      {filter.signature !== undefined && (
        <span className="filter-chip" data-testid="library-filter-signature">
          runs of one failure signature{' '}
          <button type="button" className="link-button" onClick={() => setParams({ [filterParams.signature]: undefined })} aria-label="Show all signatures">
            ×
          </button>
        </span>
      )}
      {isFiltered(filter) && (
        <button
          type="button"
          className="link-button"
          data-testid="library-clear-filters"
          onClick={() => setParams(Object.fromEntries(Object.values(filterParams).map((param) => [param, undefined])))}
        >
          Clear filters
        </button>
      )}
    </div>
  );
}

/** A chart and its numbers: the chart first, the table a click away, both over the same rows. */
function ChartCard<T>(props: {
  title: string;
  testId: string;
  chart: React.ReactNode;
  rows: readonly T[];
  columns: readonly SortableColumn<T>[];
  rowKey: (row: T) => string;
  initialSort?: { id: string; descending: boolean };
  onRowClick?: (row: T) => void;
  note?: React.ReactNode;
}) {
  const [asTable, setAsTable] = useState(false);
  return (
    <section className="chart-card" data-testid={props.testId}>
      <header className="chart-card-header">
        <h3>{props.title}</h3>
        <button type="button" className="link-button" onClick={() => setAsTable(!asTable)} data-testid={`${props.testId}-toggle`} aria-pressed={asTable}>
          {asTable ? 'Chart' : 'Table'}
        </button>
      </header>
      {props.note}
      {props.rows.length === 0 ? (
        <p className="muted">None.</p>
      ) : asTable ? (
        <SortableTable
          rows={props.rows}
          columns={props.columns}
          rowKey={props.rowKey}
          caption={props.title}
          testId={`${props.testId}-table`}
          {...(props.initialSort ? { initialSort: props.initialSort } : {})}
          {...(props.onRowClick ? { onRowClick: props.onRowClick } : {})}
        />
      ) : (
        props.chart
      )}
    </section>
  );
}

const percent = (share: number): string => `${(share * 100).toFixed(share > 0 && share < 0.1 ? 1 : 0)} %`;

const perRunMeasures = {
  inputTokens: { label: 'Input tokens', format: (value: number) => formatCount(Math.round(value)) },
  outputTokens: { label: 'Output tokens', format: (value: number) => formatCount(Math.round(value)) },
  costUsd: { label: 'Cost', format: (value: number) => formatUsd(value) },
  wastedUsd: { label: 'Wasted cost', format: (value: number) => formatUsd(value) },
  durationMs: { label: 'Duration', format: (value: number) => formatDuration(value, '—') },
  steps: { label: 'Steps', format: (value: number) => formatCount(Math.round(value)) },
} as const;
type PerRunMeasure = keyof typeof perRunMeasures;

function Aggregates({ aggregates, filter, setParams, ready }: { aggregates: LibraryAggregates; filter: LibraryFilter; setParams: SetParams; ready: boolean }) {
  const [measure, setMeasure] = useState<PerRunMeasure>('inputTokens');
  if (aggregates.runs === 0)
    return (
      <Empty title={isFiltered(filter) ? 'No run matches these filters.' : 'No runs yet.'}>
        {isFiltered(filter) ? 'Change or clear the filters above.' : 'Runs appear here as their files are indexed.'}
      </Empty>
    );
  const distribution = aggregates.perRun[measure];
  const { format } = perRunMeasures[measure];
  return (
    <section className="library-aggregates" data-testid="library-aggregates" data-state={ready ? 'ready' : 'loading'} data-runs={aggregates.runs}>
      <p className="library-totals" data-testid="library-totals">
        <strong>{formatCount(aggregates.runs)}</strong> run{aggregates.runs === 1 ? '' : 's'} in <strong>{formatCount(aggregates.traces)}</strong> trace
        {aggregates.traces === 1 ? '' : 's'}
        {aggregates.perRun.costUsd.runs > 0 && (
          <>
            {' '}
            · <strong>{formatUsd(aggregates.perRun.costUsd.total)}</strong> over {formatCount(aggregates.perRun.costUsd.runs)} priced runs
            {aggregates.perRun.wastedUsd.total > 0 && (
              <span title="Responses that issued a repeated action's repeats, and every response after a budget was exhausted (docs/semantics.md §19)">
                , <strong data-testid="library-wasted">{formatUsd(aggregates.perRun.wastedUsd.total)}</strong> of it wasted on repeated actions and work after a
                budget ran out
              </span>
            )}
          </>
        )}
      </p>
      <div className="chart-grid">
        <ChartCard
          title="Runs by status"
          testId="chart-status"
          chart={
            <BarChart
              labels={aggregates.byStatus.map((row) => humanize(row.status))}
              categoryName="status"
              series={[{ label: 'runs', values: aggregates.byStatus.map((row) => row.runs), colorVariable: '--accent' }]}
              height={180}
              orientation="horizontal"
              ariaLabel="Runs by status"
              formatValue={formatCount}
            />
          }
          rows={aggregates.byStatus}
          rowKey={(row) => row.status}
          initialSort={{ id: 'runs', descending: true }}
          onRowClick={(row) => setParams({ [filterParams.status]: row.status })}
          columns={[
            { id: 'status', header: 'Status', sortValue: (row) => row.status, cell: (row) => <StatusBadge status={row.status} raw={row.status} /> },
            { id: 'runs', header: 'Runs', numeric: true, sortValue: (row) => row.runs, cell: (row) => formatCount(row.runs) },
            { id: 'share', header: 'Share', numeric: true, sortValue: (row) => row.runs, cell: (row) => percent(row.runs / aggregates.runs) },
          ]}
        />
        <ChartCard
          title="Findings by kind"
          testId="chart-findings"
          chart={
            <BarChart
              labels={aggregates.findingsByKind.map((row) => humanize(row.kind))}
              categoryName="kind"
              series={[
                { label: 'runs', values: aggregates.findingsByKind.map((row) => row.runs), colorVariable: '--warning' },
                { label: 'findings', values: aggregates.findingsByKind.map((row) => row.findings), colorVariable: '--fg-muted' },
              ]}
              height={180}
              orientation="horizontal"
              ariaLabel="Findings by kind: runs and findings"
              formatValue={formatCount}
            />
          }
          rows={aggregates.findingsByKind}
          rowKey={(row) => row.kind}
          initialSort={{ id: 'runs', descending: true }}
          onRowClick={(row) => setParams({ [filterParams.findingKind]: row.kind })}
          columns={[
            { id: 'kind', header: 'Kind', sortValue: (row) => row.kind, cell: (row) => humanize(row.kind) },
            { id: 'runs', header: 'Runs', numeric: true, sortValue: (row) => row.runs, cell: (row) => formatCount(row.runs) },
            { id: 'findings', header: 'Findings', numeric: true, sortValue: (row) => row.findings, cell: (row) => formatCount(row.findings) },
            { id: 'share', header: 'Share of runs', numeric: true, sortValue: (row) => row.runs, cell: (row) => percent(row.runs / aggregates.runs) },
          ]}
        />
        <ChartCard
          title={`Runs per ${aggregates.overTime.granularity}`}
          testId="chart-time"
          chart={
            <BarChart
              labels={aggregates.overTime.periods.map((row) => (aggregates.overTime.granularity === 'week' ? row.from : row.period))}
              categoryName={aggregates.overTime.granularity}
              series={[
                { label: 'runs', values: aggregates.overTime.periods.map((row) => row.runs), colorVariable: '--accent' },
                { label: 'ended badly', values: aggregates.overTime.periods.map((row) => row.failed), colorVariable: '--error' },
              ]}
              height={180}
              orientation="vertical"
              ariaLabel={`Runs per ${aggregates.overTime.granularity} they started in, and those that ended badly`}
              formatValue={formatCount}
            />
          }
          rows={aggregates.overTime.periods}
          rowKey={(row) => row.from}
          initialSort={{ id: 'period', descending: false }}
          onRowClick={(row) => setParams({ [filterParams.from]: row.from, [filterParams.to]: row.to })}
          columns={[
            { id: 'period', header: `${humanize(aggregates.overTime.granularity)} (UTC)`, sortValue: (row) => row.from, cell: (row) => row.period },
            { id: 'runs', header: 'Runs', numeric: true, sortValue: (row) => row.runs, cell: (row) => formatCount(row.runs) },
            { id: 'failed', header: 'Ended badly', numeric: true, sortValue: (row) => row.failed, cell: (row) => formatCount(row.failed) },
          ]}
        />
        <ChartCard
          title={`${perRunMeasures[measure].label} per run`}
          testId="chart-per-run"
          note={<PerRunNote measure={measure} onMeasure={setMeasure} distribution={distribution} format={format} />}
          chart={
            <BarChart
              labels={distribution.buckets.map((bucket) => bucketStart(bucket, format))}
              categoryName="from"
              series={[{ label: 'runs', values: distribution.buckets.map((bucket) => bucket.runs), colorVariable: '--info' }]}
              height={160}
              orientation="vertical"
              ariaLabel={`How ${perRunMeasures[measure].label.toLowerCase()} per run spread`}
              formatValue={formatCount}
            />
          }
          rows={distribution.buckets}
          rowKey={(bucket) => `${bucket.from}`}
          initialSort={{ id: 'from', descending: false }}
          columns={[
            { id: 'from', header: perRunMeasures[measure].label, sortValue: (bucket) => bucket.from, cell: (bucket) => bucketLabel(bucket, format) },
            { id: 'runs', header: 'Runs', numeric: true, sortValue: (bucket) => bucket.runs, cell: (bucket) => formatCount(bucket.runs) },
          ]}
        />
      </div>
      <ToolTable tools={aggregates.tools} />
    </section>
  );
}

/** A bucket on the chart's axis: where it starts, short (the table has the whole range). */
function bucketStart(bucket: LibraryDistribution['buckets'][number], format: (value: number) => string): string {
  return bucket.from === bucket.to ? format(bucket.from) : `≥${format(bucket.from)}`;
}

function bucketLabel(bucket: LibraryDistribution['buckets'][number], format: (value: number) => string): string {
  return bucket.from === bucket.to ? format(bucket.from) : `${format(bucket.from)}–${format(bucket.to)}`;
}

function PerRunNote(props: {
  measure: PerRunMeasure;
  onMeasure: (measure: PerRunMeasure) => void;
  distribution: LibraryDistribution;
  format: (value: number) => string;
}) {
  const { measure, onMeasure, distribution, format } = props;
  const shown = (value: number | null): string => (value === null ? '—' : format(value));
  return (
    <div className="per-run-note">
      <select value={measure} onChange={(event) => onMeasure(event.target.value as PerRunMeasure)} aria-label="Measure per run" data-testid="per-run-measure">
        {Object.entries(perRunMeasures).map(([value, { label }]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </select>{' '}
      <span className="muted" data-testid="per-run-summary">
        {distribution.runs === 0 ? (
          measure === 'costUsd' || measure === 'wastedUsd' ? (
            'no run has a price'
          ) : (
            'no run records it'
          )
        ) : (
          <>
            p50 {shown(distribution.p50)} · p95 {shown(distribution.p95)} · max {shown(distribution.max)} · total {format(distribution.total)} over{' '}
            {formatCount(distribution.runs)} runs
          </>
        )}
      </span>
    </div>
  );
}

function ToolTable({ tools }: { tools: LibraryAggregates['tools'] }) {
  const top = tools.slice(0, 12);
  return (
    <ChartCard
      title="Tools"
      testId="chart-tools"
      chart={
        <BarChart
          labels={top.map((tool) => tool.name)}
          categoryName="tool"
          series={[
            { label: 'calls', values: top.map((tool) => tool.calls), colorVariable: '--accent' },
            { label: 'errors', values: top.map((tool) => tool.errors), colorVariable: '--error' },
          ]}
          height={180}
          orientation="horizontal"
          ariaLabel="The most called tools: calls and errors"
          formatValue={formatCount}
        />
      }
      rows={tools}
      rowKey={(tool) => tool.name}
      initialSort={{ id: 'calls', descending: true }}
      columns={[
        { id: 'name', header: 'Tool', sortValue: (tool) => tool.name, cell: (tool) => <VisibleText text={tool.name} /> },
        { id: 'calls', header: 'Calls', numeric: true, sortValue: (tool) => tool.calls, cell: (tool) => formatCount(tool.calls) },
        { id: 'errors', header: 'Errors', numeric: true, sortValue: (tool) => tool.errors, cell: (tool) => formatCount(tool.errors) },
        { id: 'rate', header: 'Error rate', numeric: true, sortValue: (tool) => tool.errorRate, cell: (tool) => percent(tool.errorRate) },
        { id: 'p50', header: 'p50', numeric: true, sortValue: (tool) => tool.p50Ms, cell: (tool) => formatDuration(tool.p50Ms, '—') },
        { id: 'p95', header: 'p95', numeric: true, sortValue: (tool) => tool.p95Ms, cell: (tool) => formatDuration(tool.p95Ms, '—') },
      ]}
    />
  );
}

function Signatures({ filter, revision, setParams }: { filter: LibraryFilter; revision: number; setParams: SetParams }) {
  const signatures = useQuery(`librarySignatures:${JSON.stringify(filter)}:${revision}`, (api) => api.librarySignatures({ filter, limit: SIGNATURES_LISTED }));
  const data = signatures.data;
  return (
    <section className="library-signatures" data-testid="library-signatures" data-state={signatures.status} data-total={data?.total ?? ''}>
      <h2>Failure signatures</h2>
      {signatures.status === 'error' && <Failure what="the failure signatures" error={signatures.error} />}
      {data !== undefined && data.total === 0 && <p className="muted">No findings in these runs.</p>}
      {data !== undefined && data.total > 0 && (
        <>
          <SortableTable
            rows={data.rows}
            rowKey={(row) => row.key}
            caption="Failure signatures"
            testId="signature-table"
            initialSort={{ id: 'runs', descending: true }}
            columns={signatureColumns(filter, setParams)}
          />
          {data.total > data.rows.length && (
            <p className="muted">{formatCount(data.total - data.rows.length)} more signatures, each in fewer runs; narrow the filters to see them.</p>
          )}
        </>
      )}
    </section>
  );
}

function signatureColumns(filter: LibraryFilter, setParams: SetParams): SortableColumn<LibrarySignature>[] {
  return [
    { id: 'runs', header: 'Runs', numeric: true, sortValue: (row) => row.runs, cell: (row) => formatCount(row.runs) },
    { id: 'share', header: 'Share', numeric: true, sortValue: (row) => row.share, cell: (row) => percent(row.share) },
    { id: 'findings', header: 'Findings', numeric: true, sortValue: (row) => row.findings, cell: (row) => formatCount(row.findings) },
    { id: 'kind', header: 'Kind', sortValue: (row) => row.kind, cell: (row) => humanize(row.kind) },
    {
      id: 'text',
      header: 'Signature',
      sortValue: (row) => `${row.tool ?? ''} ${row.text}`,
      cell: (row) => (
        <span className="signature-text" title={visibleText(row.text)}>
          {row.tool !== null && (
            <code className="signature-tool">
              <VisibleText text={row.tool} />
            </code>
          )}{' '}
          <VisibleText text={row.text} />
        </span>
      ),
    },
    { id: 'first', header: 'First seen', sortValue: (row) => row.firstSeen, cell: (row) => shortTime(row.firstSeen) },
    { id: 'last', header: 'Last seen', sortValue: (row) => row.lastSeen, cell: (row) => shortTime(row.lastSeen) },
    {
      id: 'runsOf',
      header: 'Drill down',
      sortValue: (row) => row.key,
      cell: (row) => (
        <span className="signature-actions">
          {filter.signature === row.key ? (
            <span className="muted">shown below</span>
          ) : (
            <button type="button" className="link-button" data-testid="signature-runs" onClick={() => setParams({ [filterParams.signature]: row.key })}>
              {formatCount(row.runs)} run{row.runs === 1 ? '' : 's'}
            </button>
          )}{' '}
          · <a href={formatRoute(routes.run(row.example.traceId, row.example.runPk))}>example</a>
        </span>
      ),
    },
  ];
}

/** `2025-06-03 13:50`, or the text as the trace wrote it when it is not an ISO time. */
function shortTime(timestamp: string | null): string {
  if (timestamp === null) return '—';
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(timestamp);
  return match === null ? timestamp : `${match[1]} ${match[2]}`;
}

const runSortColumns: { sort: LibrarySort | null; header: string; className: string }[] = [
  { sort: null, header: '', className: 'col-pick' },
  { sort: 'file', header: 'Run', className: 'col-run' },
  { sort: 'status', header: 'Status', className: 'col-status' },
  { sort: null, header: 'Model', className: 'col-model' },
  { sort: 'steps', header: 'Steps', className: 'numeric' },
  { sort: 'tool_calls', header: 'Tool calls', className: 'numeric' },
  { sort: 'findings', header: 'Findings', className: 'col-findings' },
  { sort: 'input_tokens', header: 'Tokens in / out', className: 'numeric' },
  { sort: 'cost', header: 'Cost', className: 'numeric' },
  { sort: 'duration', header: 'Duration', className: 'numeric' },
  { sort: 'started', header: 'Started', className: 'col-started' },
];

function LibraryRuns({ filter, order, revision, setParams }: { filter: LibraryFilter; order: LibraryOrder; revision: number; setParams: SetParams }) {
  const [page, setPage] = useState(0);
  const [picked, setPicked] = useState<LibraryRun[]>([]);
  const identity = JSON.stringify([filter, order]);
  useEffect(() => setPage(0), [identity]);
  const runs = useQuery(`libraryRuns:${identity}:${page}:${revision}`, (api) =>
    api.libraryRuns({ filter, sort: order.sort, descending: order.descending, offset: page * RUNS_PER_PAGE, limit: RUNS_PER_PAGE }),
  );
  const data: ApiResponse<'libraryRuns'> | undefined = runs.data;
  const total = data?.total ?? null;
  const pages = total === null ? 1 : Math.max(1, Math.ceil(total / RUNS_PER_PAGE));
  const isPicked = (run: LibraryRun): boolean => picked.some((one) => one.traceId === run.traceId && one.runPk === run.runPk);
  const toggle = (run: LibraryRun): void =>
    setPicked((current) => (isPicked(run) ? current.filter((one) => !(one.traceId === run.traceId && one.runPk === run.runPk)) : [...current, run].slice(-2)));
  const [first, second] = picked;
  return (
    <section className="library-runs" data-testid="library-runs" data-state={runs.status} data-total={total ?? ''}>
      <header className="library-runs-header">
        <h2>Runs</h2>
        <span className="muted" data-testid="library-runs-total">
          {total === null ? '' : `${formatCount(total)} run${total === 1 ? '' : 's'}`}
        </span>
        <span className="library-compare">
          {picked.length < 2 ? (
            <span className="muted">Pick two runs to compare them{picked.length === 1 ? ' (one picked)' : ''}.</span>
          ) : (
            first !== undefined &&
            second !== undefined && (
              <a
                className="button primary"
                data-testid="library-compare"
                href={formatRoute(routes.compare(first.traceId, first.runPk, second.runPk, second.traceId))}
              >
                Compare <VisibleText text={first.runId} /> with <VisibleText text={second.runId} />
              </a>
            )
          )}
        </span>
      </header>
      {runs.status === 'error' && <Failure what="the library's runs" error={runs.error} />}
      <div className="table-scroll">
        <table className="library-runs-table">
          <thead>
            <tr>
              {runSortColumns.map((column) => {
                const active = column.sort !== null && column.sort === order.sort;
                return (
                  <th
                    key={column.header || 'pick'}
                    scope="col"
                    className={column.className}
                    aria-sort={column.sort === null ? undefined : active ? (order.descending ? 'descending' : 'ascending') : 'none'}
                  >
                    {column.sort === null ? (
                      column.header
                    ) : (
                      <button
                        type="button"
                        className="sort-button"
                        data-testid={`library-sort-${column.sort}`}
                        onClick={() =>
                          setParams({
                            sort: column.sort ?? undefined,
                            // A new column starts with its largest values (newest for the start time), a second click reverses.
                            desc: (active ? !order.descending : column.sort !== 'file' && column.sort !== 'status') ? '1' : '0',
                          })
                        }
                      >
                        {column.header}
                        <span className="sort-indicator">{active ? (order.descending ? ' ▼' : ' ▲') : ''}</span>
                      </button>
                    )}
                  </th>
                );
              })}
            </tr>
          </thead>
          <tbody>
            {(data?.rows ?? []).map((run) => (
              <LibraryRunRow key={`${run.traceId}:${run.runPk}`} run={run} picked={isPicked(run)} onPick={() => toggle(run)} />
            ))}
          </tbody>
        </table>
      </div>
      {total === 0 && <p className="muted">No run matches these filters.</p>}
      {pages > 1 && (
        <nav className="pager" aria-label="Pages of runs">
          <button type="button" disabled={page === 0} onClick={() => setPage(page - 1)} data-testid="library-page-previous">
            Previous
          </button>
          <span>
            page {formatCount(page + 1)} of {formatCount(pages)}
          </span>
          <button type="button" disabled={page + 1 >= pages} onClick={() => setPage(page + 1)} data-testid="library-page-next">
            Next
          </button>
        </nav>
      )}
    </section>
  );
}

function LibraryRunRow({ run, picked, onPick }: { run: LibraryRun; picked: boolean; onPick: () => void }) {
  const href = formatRoute(routes.run(run.traceId, run.runPk));
  return (
    <tr
      className={`library-run ${picked ? 'row-selected' : ''}`}
      data-testid="library-run"
      data-run-id={run.runId}
      data-status={run.status}
      data-trace-id={run.traceId}
      data-file={run.file}
    >
      <td className="col-pick">
        <input type="checkbox" checked={picked} onChange={onPick} aria-label={`Pick ${visibleText(run.runId)} to compare`} data-testid="library-pick" />
      </td>
      <td className="col-run">
        <a href={href} title={visibleText(`${run.file}\n${run.task ?? ''}`)}>
          <VisibleText text={run.runId} />
        </a>
        <div className="muted library-run-file">
          <MiddleEllipsis text={run.file} kind="path" />
        </div>
      </td>
      <td className="col-status">
        <StatusBadge status={run.status} raw={run.status} />
      </td>
      <td className="col-model">{run.models.length === 0 ? <span className="muted">—</span> : <VisibleText text={run.models.join(', ')} />}</td>
      <td className="numeric">{formatCount(run.steps)}</td>
      <td className="numeric">
        {formatCount(run.toolCalls)}
        {run.toolErrors > 0 && <span className="muted"> ({formatCount(run.toolErrors)} failed)</span>}
      </td>
      <td className="col-findings">
        <FindingCounts findings={run.findings} />
      </td>
      <td className="numeric">{formatTokens(run.inputTokens, run.outputTokens)}</td>
      <td className="numeric" data-testid="library-run-cost">
        <RunCost run={run} />
      </td>
      <td className="numeric">{formatDuration(run.durationMs, '—')}</td>
      <td className="col-started">{shortTime(run.startedAt)}</td>
    </tr>
  );
}

/** What a run's cost cell says on hover: where the number comes from and what is not in it. */
function libraryCostTitle(run: LibraryRun): string {
  const lines = [
    run.costUsd === null && run.unpricedResponses > 0
      ? `No price is known for ${run.models.join(', ') || 'its model'}`
      : costTitle(ownCost(run), 'its own responses'),
  ];
  if (run.wastedUsd !== null && run.wastedUsd > 0) lines.push(`${formatUsd(run.wastedUsd)} of it on repeated actions or after a budget ran out`);
  if (run.subAgentCostUsd !== null) lines.push(`its sub-agents: ${formatUsd(run.subAgentCostUsd)} more`);
  return lines.join('\n');
}

function ownCost(run: LibraryRun): Cost {
  return { usd: run.costUsd, unpricedResponses: run.unpricedResponses };
}

function RunCost({ run }: { run: LibraryRun }) {
  return (
    <>
      <CostText cost={ownCost(run)} what="its own responses" title={libraryCostTitle(run)} />
      {run.wastedUsd !== null && run.wastedUsd > 0 && <div className="library-wasted">{formatUsd(run.wastedUsd)} wasted</div>}
      {run.subAgentCostUsd !== null && <div className="muted">+{formatUsd(run.subAgentCostUsd)} sub-agents</div>}
    </>
  );
}

/** Search across every trace of the library; hits by trace and run, each opening its event. */
function LibrarySearch() {
  const [draft, setDraft] = useState('');
  const [query, setQuery] = useState('');
  useEffect(() => {
    const timer = window.setTimeout(() => setQuery(draft.trim()), 300);
    return () => window.clearTimeout(timer);
  }, [draft]);
  const results = useQuery(query === '' ? null : `librarySearch:${query}`, (api) => api.librarySearch({ query }));
  const data = query === '' ? undefined : results.data;
  const byTrace = new Map<string, NonNullable<typeof data>['hits']>();
  for (const hit of data?.hits ?? []) byTrace.set(hit.tracePath, [...(byTrace.get(hit.tracePath) ?? []), hit]);
  return (
    <section className="library-search" data-testid="library-search" data-state={query === '' ? 'idle' : results.status}>
      <label>
        Search every trace{' '}
        <input
          type="search"
          value={draft}
          onChange={(event) => setDraft(event.target.value)}
          placeholder="words in prompts, outputs, errors…"
          maxLength={500}
          data-testid="library-search-input"
        />
      </label>
      {query !== '' && results.status === 'error' && <Failure what="the search" error={results.error} />}
      {data !== undefined && (
        <div className="library-search-results" data-testid="library-search-results">
          <p className="muted">
            {data.hits.length === 0
              ? `No event matches in ${formatCount(data.tracesSearched)} traces.`
              : `${formatCount(data.hits.length)} run${data.hits.length === 1 ? '' : 's'} with matches${data.complete ? '' : ' (the first ones; refine the words to see others)'}, in ${formatCount(byTrace.size)} trace${byTrace.size === 1 ? '' : 's'}.`}
          </p>
          {[...byTrace].map(([tracePath, hits]) => (
            <div key={tracePath} className="search-trace" data-testid="library-search-trace">
              <h4>
                <MiddleEllipsis text={tracePath} kind="path" />
              </h4>
              {hits.map((hit) => (
                <div key={hit.runPk} className="search-run" data-testid="library-search-run" data-run-id={hit.runId}>
                  <div>
                    <a href={formatRoute(routes.run(hit.traceId, hit.runPk))}>
                      <VisibleText text={hit.runId} />
                    </a>{' '}
                    <StatusBadge status={hit.status} raw={hit.status} />{' '}
                    {hit.moreMatches > 0 && <span className="muted">+{formatCount(hit.moreMatches)} more matches</span>}
                  </div>
                  <ul>
                    {hit.matches.map((match) => (
                      <li key={match.eventId}>
                        <a href={formatRoute(routes.run(hit.traceId, hit.runPk, { eventId: match.eventId, query }))} className="search-snippet">
                          <span className="muted">
                            line {formatCount(match.line)} · {humanize(match.type)}
                            {match.name !== null && ` · ${visibleText(match.name)}`}
                          </span>{' '}
                          <Highlighted text={match.snippet} ranges={match.ranges} />
                        </a>
                      </li>
                    ))}
                  </ul>
                </div>
              ))}
            </div>
          ))}
        </div>
      )}
    </section>
  );
}
