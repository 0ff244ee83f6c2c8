/**
 * Traces and runs: one row per run, windowed (only the pages around the viewport are fetched with
 * `runs` offset/limit), sorted and filtered by the server, refreshed while the trace is ingested.
 */
import { createColumnHelper, FlexRender, rowSortingFeature, tableFeatures, useTable, type Row, type SortingState, type Updater } from '@tanstack/react-table';
import { useVirtualizer, type VirtualItem } from '@tanstack/react-virtual';
import { memo, useEffect, useRef, useState, type ReactNode } from 'react';
import { runSortSchema, type RunRow } from '../../shared/api';
import { findingKindSchema, type FindingKind } from '../../shared/report';
import { runStatusSchema, type RunStatus } from '../../shared/trace/runStatus';
import { useApi, useReport } from '../api/ApiContext';
import { usePagedRows, useShownRows, type PagedRows } from '../api/usePagedRows';
import { FindingCounts, runSeverityClass, StatusBadge } from '../components/Badges';
import { formatCount, formatDuration, formatTokens, humanize } from '../components/format';
import { CostText } from '../components/CostText';
import { MiddleEllipsis } from '../components/MiddleEllipsis';
import { SortableHeaderCell } from '../components/SortableHeaderCell';
import { Empty, Failure } from '../components/States';
import { useLatest } from '../components/useLatest';
import { visibleText } from '../components/VisibleText';
import { useKeyboardRow } from '../keyboard/useKeyboardRow';
import { formatRoute, routes, type RouteParams } from '../navigation/route';
import { navigate, useSetTabParams } from '../navigation/useRoute';
import { preloadViews } from './lazyViews';
import { parseFilters, runsPageSize, runsRequest, takeFirstRuns, type RunsFilters } from './runsQuery';
import { RunName } from './SubAgents';

type RunSort = (typeof runSortSchema.options)[number];

interface WindowRow {
  index: number;
  run: RunRow;
}

const toWindowRow = (index: number, run: RunRow): WindowRow => ({ index, run });

const features = tableFeatures({
  rowSortingFeature,
  columnMeta: {} as { sort: RunSort | null; className: string },
  /** `findingsPending`: the trace is still being ingested, so finding counts are not known yet. */
  tableMeta: {} as { findingsPending: boolean },
});
const column = createColumnHelper<typeof features, WindowRow>();

const columns = column.columns([
  column.accessor((row) => row.run.runId, {
    id: 'run',
    header: 'Run',
    meta: { sort: 'first_line', className: 'col-run' },
    // Unsorted rows are already in file order: the first click must change something, so it reverses it.
    sortDescFirst: true,
    cell: (info) => <RunName run={info.row.original.run} />,
  }),
  column.accessor((row) => row.run.status, {
    id: 'status',
    header: 'Status',
    meta: { sort: 'status', className: 'col-status' },
    cell: (info) => <StatusBadge status={info.row.original.run.status} raw={info.row.original.run.statusRaw} />,
  }),
  column.accessor((row) => row.run.steps, {
    id: 'steps',
    header: 'Steps',
    meta: { sort: 'steps', className: 'col-number' },
    cell: (info) => <span title={`${formatCount(info.row.original.run.steps)} steps`}>{formatCount(info.row.original.run.steps)}</span>,
  }),
  column.accessor((row) => row.run.toolCalls, {
    id: 'toolCalls',
    header: 'Tool calls',
    meta: { sort: 'tool_calls', className: 'col-number' },
    cell: (info) => {
      const { run } = info.row.original;
      return <span title={`${formatCount(run.toolCalls)} tool calls, ${formatCount(run.toolResults)} results`}>{formatCount(run.toolCalls)}</span>;
    },
  }),
  column.accessor((row) => (row.run.inputTokens ?? 0) + (row.run.outputTokens ?? 0), {
    id: 'tokens',
    header: 'Tokens in / out',
    meta: { sort: 'tokens', className: 'col-number' },
    cell: (info) => {
      const tokens = formatTokens(info.row.original.run.inputTokens, info.row.original.run.outputTokens);
      return <span title={`${tokens} tokens (in / out)`}>{tokens}</span>;
    },
  }),
  column.accessor((row) => row.run.cost.usd, {
    id: 'cost',
    header: 'Cost',
    // Not sortable: a cost is priced as the page is read, not stored (prices depend on the user's price file).
    meta: { sort: null, className: 'col-number' },
    cell: (info) => <CostText cost={info.row.original.run.cost} what="the run's own responses" />,
  }),
  column.accessor((row) => row.run.durationMs, {
    id: 'duration',
    header: 'Duration',
    meta: { sort: 'duration', className: 'col-number' },
    cell: (info) => {
      const duration = formatDuration(info.row.original.run.durationMs, '—');
      return <span title={duration}>{duration}</span>;
    },
  }),
  column.accessor((row) => row.run.findings.error, {
    id: 'findings',
    header: 'Findings',
    meta: { sort: 'errors', className: 'col-findings' },
    cell: (info) =>
      info.table.options.meta?.findingsPending ? (
        <span className="muted" title="Findings are counted when reading is done">
          …
        </span>
      ) : (
        <FindingCounts findings={info.row.original.run.findings} />
      ),
  }),
  column.accessor((row) => row.run.file, {
    id: 'file',
    header: 'File',
    meta: { sort: null, className: 'col-file' },
    enableSorting: false,
    cell: (info) => {
      const { run } = info.row.original;
      // The format is the trace's (in the top bar): here it is only on hover, leaving the room to the file name.
      return <MiddleEllipsis text={run.file} kind="path" title={`${visibleText(run.file)}\n${run.format}`} />;
    },
  }),
]);

const sortByColumn = new Map(columns.map((definition) => [definition.id, definition.meta?.sort ?? null]));
const columnBySort = new Map([...sortByColumn].filter(([, sort]) => sort !== null).map(([id, sort]) => [sort, id]));

const rowHeight = 40;

/** The File column only when the trace has several files (sub-agent transcripts): with one, it says the same on every row, and the top bar already names it. */
const oneFileColumns = columns.filter((definition) => definition.id !== 'file');

/** The table's sorting as the URL says it, and the change a header click makes to the URL. */
function runSorting(filters: RunsFilters, setParams: (changes: Record<string, string | undefined>) => void) {
  // No arrow until the user sorts: rows in file order are not "sorted by run".
  const sorting: SortingState = filters.sorted ? [{ id: columnBySort.get(filters.sort) ?? 'run', desc: filters.descending }] : [];
  const onSortingChange = (updater: Updater<SortingState>) => {
    const next = (typeof updater === 'function' ? updater(sorting) : updater)[0];
    const sort = next ? sortByColumn.get(next.id) : null;
    setParams({ sort: sort ?? undefined, desc: next?.desc ? '1' : undefined });
  };
  return { sorting, onSortingChange };
}

/** The scroll box and the window of rows drawn in it. */
function useRunWindow(count: number) {
  const scrollElement = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scrollElement.current,
    estimateSize: () => rowHeight,
    overscan: 10,
    // The sticky header row sits above the rows in the same scroll box: a row scrolled to the bottom edge must clear it.
    scrollPaddingEnd: rowHeight,
  });
  const items = virtualizer.getVirtualItems();
  const first = items[0]?.index ?? 0;
  const last = items[items.length - 1]?.index ?? 0;
  return { scrollElement, virtualizer, items, first, last };
}

export function RunsTable(props: { traceId: string; params: RouteParams; revision: number; ingesting: boolean; oneFile: boolean }) {
  const { traceId, params, revision, ingesting, oneFile } = props;
  const api = useApi();
  const filters = parseFilters(params);
  const setParams = useSetTabParams(traceId, 'runs', params);

  const request = runsRequest(traceId, filters);
  const identity = JSON.stringify(request);
  const runs = usePagedRows(
    identity,
    revision,
    (offset, limit) => takeFirstRuns(identity, offset, limit) ?? api.runs({ ...request, offset, limit }),
    runsPageSize,
  );
  const { sorting, onSortingChange } = runSorting(filters, setParams);

  const count = runs.total ?? 0;
  const { scrollElement, virtualizer, items, first, last } = useRunWindow(count);
  const data = useShownRows(runs, first, last, toWindowRow);

  const table = useTable({
    features,
    columns: oneFile ? oneFileColumns : columns,
    data,
    getRowId: (row) => String(row.run.runPk),
    state: { sorting },
    onSortingChange,
    meta: { findingsPending: ingesting },
    manualSorting: true,
    enableMultiSort: false,
    // Once sorted, a header click flips the order, never removes it (file order is the unsorted state).
    enableSortingRemoval: false,
  });
  const rowsByIndex = new Map(table.getRowModel().rows.map((row) => [row.original.index, row]));

  const selected = useKeyboardRow({
    identity,
    count,
    scrollTo: (index) => virtualizer.scrollToIndex(index, { align: 'auto' }),
    open: (index) => {
      const run = index === null ? undefined : runs.rowAt(index);
      if (run) navigate(routes.run(traceId, run.runPk));
    },
  });
  const state = useRunsShown(runs, first, ingesting);

  const filtered = filters.status !== undefined || filters.findingKind !== undefined || filters.text !== '';
  const gridClass = oneFile ? 'runs-grid runs-grid-one-file' : 'runs-grid';
  return (
    <section className="runs-view" data-testid="runs-view" data-state={state} data-total={runs.total ?? ''}>
      <RunFilters
        status={filters.status}
        findingKind={filters.findingKind}
        text={filters.text}
        total={runs.total}
        inFileOrder={!filters.sorted}
        onChange={setParams}
      />
      {runs.error !== null && <Failure what="the runs" error={new Error(runs.error)} />}
      <div ref={scrollElement} className="grid-scroll" role="table" aria-label="Runs" aria-rowcount={count}>
        <div className={`grid-row grid-header ${gridClass}`} role="row">
          {table.getHeaderGroups()[0]?.headers.map((header) => (
            <SortableHeaderCell
              key={header.id}
              column={header.column}
              className={header.column.columnDef.meta?.className ?? ''}
              sortable={header.column.columnDef.meta?.sort != null}
              testId={`sort-${header.id}`}
            >
              <table.FlexRender header={header} />
            </SortableHeaderCell>
          ))}
        </div>
        <RunGridBody
          items={items}
          totalSize={virtualizer.getTotalSize()}
          rowsByIndex={rowsByIndex}
          selected={selected}
          ingesting={ingesting}
          traceId={traceId}
          gridClass={gridClass}
        />
        {runs.total === 0 && (
          <NoRuns
            traceId={traceId}
            filtered={filtered}
            ingesting={ingesting}
            onClearFilters={() => setParams({ status: undefined, kind: undefined, text: undefined })}
          />
        )}
      </div>
    </section>
  );
}

/**
 * Whether the runs are on screen, said three ways: the view's `data-state`, which it returns;
 * `data-ready` on the body, for the browser tests; and the `loopscope:runs-shown` mark, which the
 * reopen and progressive-ingest benchmarks time (scripts/bench-ui.ts). Once they are, the other
 * views' code is fetched in the background.
 */
function useRunsShown(runs: PagedRows<RunRow>, first: number, ingesting: boolean): 'error' | 'ready' | 'loading' {
  const count = runs.total ?? 0;
  const shown = runs.total !== null && (count === 0 || runs.rowAt(first) !== undefined);
  useEffect(() => {
    if (shown) document.body.dataset.ready = 'true';
  }, [shown]);
  // For the benchmarks: runs on screen, or the final word that there are none — not an empty
  // table while the ingest has found none yet.
  const runsShown = shown && (count > 0 || (!ingesting && runs.fresh));
  // Once per time the runs appear: not again for every row the ingest adds.
  const latestCount = useLatest(count);
  useEffect(() => {
    if (!runsShown) return;
    const runCount = latestCount.current;
    requestAnimationFrame(() => performance.mark('loopscope:runs-shown', { detail: { runs: runCount } }));
    preloadViews();
  }, [runsShown, latestCount]);
  return runs.error !== null ? 'error' : shown && runs.fresh && !ingesting ? 'ready' : 'loading';
}

/** The empty list says why it is empty: the filters, an ingest that has found no run yet, or a file none of whose lines made a run. */
function NoRuns({ traceId, filtered, ingesting, onClearFilters }: { traceId: string; filtered: boolean; ingesting: boolean; onClearFilters: () => void }) {
  return (
    <Empty title={filtered ? 'No run matches these filters.' : ingesting ? 'No runs yet.' : 'This trace has no runs.'}>
      {filtered ? (
        <button type="button" className="link-button" onClick={onClearFilters}>
          Clear the filters
        </button>
      ) : ingesting ? (
        'Runs appear here as the file is read.'
      ) : (
        <>
          No line of the file became an event of a run. See <a href={formatRoute(routes.trace(traceId, 'parse-errors'))}>Parse errors</a> for what could not be
          read.
        </>
      )}
    </Empty>
  );
}

/** The rows on screen, each at its place in the scrolled list: a placeholder until its page arrives. */
function RunGridBody(props: {
  items: VirtualItem[];
  totalSize: number;
  /** The table's rows by their index in the list. */
  rowsByIndex: ReadonlyMap<number, Row<typeof features, WindowRow>>;
  selected: number | null;
  ingesting: boolean;
  traceId: string;
  gridClass: string;
}) {
  const { items, totalSize, rowsByIndex, selected, ingesting, traceId, gridClass } = props;
  return (
    <div className="grid-body" style={{ height: totalSize }}>
      {items.map((item) => {
        const row = rowsByIndex.get(item.index);
        if (!row)
          return (
            <div
              key={item.key}
              className={`grid-row ${gridClass} row-placeholder`}
              style={{ transform: `translateY(${item.start}px)` }}
              role="row"
              aria-busy="true"
            />
          );
        return (
          <RunGridRow
            key={row.id}
            run={row.original.run}
            top={item.start}
            selected={item.index === selected}
            findingsPending={ingesting}
            cells={row.getAllCells().map((cell) => (
              <div key={cell.id} role="cell" className={`grid-cell ${cell.column.columnDef.meta?.className ?? ''}`}>
                <FlexRender cell={cell} />
              </div>
            ))}
            href={formatRoute(routes.run(traceId, row.original.run.runPk))}
            gridClass={gridClass}
          />
        );
      })}
    </div>
  );
}

interface RunGridRowProps {
  run: RunRow;
  top: number;
  selected: boolean;
  /** What the cells show besides the run (the table's meta). */
  findingsPending: boolean;
  cells: ReactNode;
  href: string;
  gridClass: string;
}

/** A row is a link to its run (click, middle-click, keyboard); its cells are a function of the run and the table's meta only. */
const RunGridRow = memo(
  function RunGridRow({ run, top, selected, cells, href, gridClass }: RunGridRowProps) {
    return (
      <a
        href={href}
        className={`grid-row ${gridClass} run-row ${runSeverityClass(run)} ${selected ? 'row-selected' : ''}`}
        style={{ transform: `translateY(${top}px)` }}
        role="row"
        data-testid="run-row"
        data-run-id={run.runId}
        data-run-pk={run.runPk}
        data-status={run.status}
        data-errors={run.findings.error}
      >
        {cells}
      </a>
    );
  },
  (previous, next) =>
    previous.run === next.run &&
    previous.top === next.top &&
    previous.selected === next.selected &&
    previous.findingsPending === next.findingsPending &&
    previous.href === next.href &&
    previous.gridClass === next.gridClass,
);

function RunFilters({
  status,
  findingKind,
  text,
  total,
  inFileOrder,
  onChange,
}: {
  status: RunStatus | undefined;
  findingKind: FindingKind | undefined;
  text: string;
  total: number | null;
  inFileOrder: boolean;
  onChange: (changes: Record<string, string | undefined>) => void;
}) {
  const report = useReport();
  const [draft, setDraft] = useState(text);
  useEffect(() => setDraft(text), [text]);
  // Typing filters after a pause, not on every key: each change is a request.
  useEffect(() => {
    if (draft === text) return;
    const timer = window.setTimeout(() => onChange({ text: draft || undefined }), 250);
    return () => window.clearTimeout(timer);
  }, [draft, text, onChange]);
  return (
    <div className="filters" role="group" aria-label="Filter runs">
      <ChoiceFilter label="Status" value={status} options={runStatusSchema.options} onSelect={(value) => onChange({ status: value })} testId="filter-status" />
      <ChoiceFilter
        label="Finding"
        value={findingKind}
        options={findingKindSchema.options}
        onSelect={(value) => onChange({ kind: value })}
        testId="filter-kind"
      />
      {report === undefined && (
        <label>
          Text{' '}
          <input
            type="text"
            value={draft}
            placeholder="run id, file or status"
            onChange={(event) => setDraft(event.target.value)}
            data-testid="filter-text"
            maxLength={500}
          />
        </label>
      )}
      <span className="muted filters-total" data-testid="runs-total">
        {total === null ? '' : `${formatCount(total)} run${total === 1 ? '' : 's'}${inFileOrder ? ', in file order' : ''}`}
      </span>
    </div>
  );
}

/** A filter over a fixed set of values, "any" meaning no filter. */
function ChoiceFilter(props: {
  label: string;
  value: string | undefined;
  options: readonly string[];
  onSelect: (value: string | undefined) => void;
  testId: string;
}) {
  return (
    <label>
      {props.label}{' '}
      <select value={props.value ?? ''} onChange={(event) => props.onSelect(event.target.value || undefined)} data-testid={props.testId}>
        <option value="">any</option>
        {props.options.map((option) => (
          <option key={option} value={option}>
            {humanize(option)}
          </option>
        ))}
      </select>
    </label>
  );
}
