/**
 * Every tool call of the trace, like the Network panel of a browser's developer tools: sortable
 * columns (step, tool, result, latency), a text filter, j/k/Enter, and each tool's latency
 * distribution above the rows. Sorting and filtering are the server's (a trace can hold a million
 * calls); only the rows on screen are fetched and rendered. Everything chosen is in the URL.
 */
import { createColumnHelper, FlexRender, rowSortingFeature, tableFeatures, useTable, type Row, type SortingState, type Updater } from '@tanstack/react-table';
import type { VirtualItem } from '@tanstack/react-virtual';
import { memo, useEffect, useRef, useState, type ReactNode, type RefObject } from 'react';
import { callSortSchema, callStateSchema, type CallRow, type CallSort } from '../../shared/api';
import { useApi, useReport } from '../api/ApiContext';
import { usePagedRows, useShownRows } from '../api/usePagedRows';
import { useQuery } from '../api/useQuery';
import { CallStateBadge } from '../components/Badges';
import { commandOfArguments } from '../components/commandOfArguments';
import { formatCount, formatDuration, humanize } from '../components/format';
import { MiddleEllipsis } from '../components/MiddleEllipsis';
import { SortableHeaderCell } from '../components/SortableHeaderCell';
import { Empty, Failure } from '../components/States';
import { useWindowedVirtualizer } from '../components/useWindowedVirtualizer';
import { VisibleText, visibleText } from '../components/VisibleText';
import { useKeyboardRow } from '../keyboard/useKeyboardRow';
import { formatRoute, routes, type RouteParams } from '../navigation/route';
import { navigate, useSetTabParams } from '../navigation/useRoute';
import { CallLatencyPanel } from './CallLatencyPanel';
import '../styles/calls.css';

interface WindowRow {
  index: number;
  call: CallRow;
}

const toWindowRow = (index: number, call: CallRow): WindowRow => ({ index, call });

const features = tableFeatures({
  rowSortingFeature,
  columnMeta: {} as { sort: CallSort | null; className: string },
});
const column = createColumnHelper<typeof features, WindowRow>();

const runColumn = column.accessor((row) => row.call.runId, {
  id: 'run',
  header: 'Run',
  meta: { sort: null, className: 'col-run' },
  enableSorting: false,
  // Cut in the middle: the runs of one session (its sub-agents) differ only at the end of their ids.
  cell: (info) => <MiddleEllipsis text={info.row.original.call.runId} kind="id" />,
});

const callColumnDefs = [
  column.accessor((row) => row.call.step, {
    id: 'step',
    header: 'Step',
    meta: { sort: 'step', className: 'col-number' },
    cell: (info) => {
      const { call } = info.row.original;
      return <span title={`step ${call.step ?? '—'} · line ${call.line}`}>{call.step ?? '—'}</span>;
    },
  }),
  column.accessor((row) => row.call.name, {
    id: 'tool',
    header: 'Tool',
    meta: { sort: 'tool', className: 'col-tool' },
    cell: (info) => (
      <span title={`${visibleText(info.row.original.call.name)}\ncall id ${visibleText(info.row.original.call.callId)}`}>
        <VisibleText text={info.row.original.call.name} />
      </span>
    ),
  }),
  column.accessor((row) => row.call.argsSummary, {
    id: 'arguments',
    header: 'Arguments',
    meta: { sort: null, className: 'col-arguments' },
    enableSorting: false,
    cell: (info) => {
      const { call } = info.row.original;
      const text = call.argsError ?? call.argsSummary ?? '';
      // A shell call reads as the command it ran, not as the JSON around it.
      const command = call.argsError === null ? commandOfArguments(call.argsSummary) : null;
      return (
        <span className={`mono ${call.argsError !== null ? 'chip-error' : ''}`} title={visibleText(text)} data-testid="call-arguments">
          <VisibleText text={command !== null ? `$ ${command}` : text} />
        </span>
      );
    },
  }),
  column.accessor((row) => row.call.state, {
    id: 'result',
    header: 'Result',
    meta: { sort: 'state', className: 'col-result' },
    cell: (info) => {
      const { call } = info.row.original;
      return (
        <>
          <CallStateBadge state={call.state} errorCode={call.errorCode} />
          {call.errorLine !== null && (
            <span className="call-error-line mono" title={visibleText(call.errorLine)} data-testid="call-error-line">
              {' '}
              <VisibleText text={call.errorLine} />
            </span>
          )}
        </>
      );
    },
  }),
  column.accessor((row) => row.call.latencyMs, {
    id: 'latency',
    header: 'Latency',
    meta: { sort: 'latency', className: 'col-number numeric' },
    // The slowest first: what a latency column is clicked for.
    sortDescFirst: true,
    cell: (info) => {
      const { call } = info.row.original;
      if (call.latencyMs !== null) return <span title={`${call.latencyMs} ms`}>{formatDuration(call.latencyMs, '—')}</span>;
      // Answered, but the trace records no duration for it: never shown as a made-up 0 ms (docs/semantics.md §11).
      if (call.state === 'ok' || call.state === 'error') {
        return (
          <span className="muted" title="The trace records no duration for this call" data-testid="latency-not-recorded">
            not recorded
          </span>
        );
      }
      return '—';
    },
  }),
];

const callColumns = column.columns(callColumnDefs);
const withRunColumns = column.columns([runColumn, ...callColumnDefs]);
const sortByColumn = new Map(withRunColumns.map((definition) => [definition.id, definition.meta?.sort ?? null]));
const columnBySort = new Map([...sortByColumn].filter(([, sort]) => sort !== null).map(([id, sort]) => [sort, id]));

const rowHeight = 36;
const pageSize = 200;

function parseCallParams(params: RouteParams) {
  const state = callStateSchema.safeParse(params.state);
  const sort = callSortSchema.safeParse(params.sort);
  return {
    name: params.tool || undefined,
    state: state.success ? state.data : undefined,
    text: params.text ?? '',
    sort: sort.success ? sort.data : ('position' as const),
    descending: params.desc === '1',
  };
}

/** The tool names of the whole trace and each tool's latency distribution, whatever the filters. */
function useTraceTools(traceId: string, revision: number) {
  const names = useQuery(`callNames:${traceId}:${revision}`, (client) => client.calls({ traceId, limit: 1 }).then((page) => page.names));
  const latency = useQuery(`callLatency:${traceId}:${revision}`, (client) => client.callLatency({ traceId }));
  return { names, latency };
}

/** The table's sorting as the URL says it, and the change a header click makes to the URL. */
function callSorting(filters: ReturnType<typeof parseCallParams>, setParams: (changes: Record<string, string | undefined>) => void) {
  const sorting: SortingState = filters.sort === 'position' ? [] : [{ id: columnBySort.get(filters.sort) ?? 'step', desc: filters.descending }];
  const onSortingChange = (updater: Updater<SortingState>) => {
    const next = (typeof updater === 'function' ? updater(sorting) : updater)[0];
    const sort = next ? sortByColumn.get(next.id) : null;
    setParams({ sort: sort ?? undefined, desc: sort && next?.desc ? '1' : undefined });
  };
  return { sorting, onSortingChange };
}

/** The scroll box and the window of rows drawn in it: `first` and `last` are indexes in the whole list. */
function useCallWindow(count: number) {
  const scrollElement = useRef<HTMLDivElement>(null);
  const { virtualizer, start, scrollToIndex } = useWindowedVirtualizer({
    count,
    getScrollElement: () => scrollElement.current,
    estimateSize: rowHeight,
    overscan: 10,
  });
  const items = virtualizer.getVirtualItems();
  const first = start + (items[0]?.index ?? 0);
  const last = start + (items[items.length - 1]?.index ?? 0);
  return { scrollElement, virtualizer, start, scrollToIndex, items, first, last };
}

/**
 * j/k/Enter over the rows, and the selected row takes the focus once it is drawn: Enter then opens
 * it, wherever the focus was before (on the Calls tab just clicked, Enter would otherwise follow
 * that link again).
 */
function useFocusedKeyboardRow(options: {
  identity: string;
  count: number;
  scrollElement: RefObject<HTMLDivElement | null>;
  scrollToIndex: (index: number, align: 'auto') => void;
  open: (index: number | null) => void;
}): number | null {
  const { identity, count, scrollElement, scrollToIndex, open } = options;
  const focusPending = useRef(false);
  const selected = useKeyboardRow({
    identity,
    count,
    scrollTo: (index) => {
      focusPending.current = true;
      scrollToIndex(index, 'auto');
    },
    open,
  });
  useEffect(() => {
    if (!focusPending.current || selected === null) return;
    const row = scrollElement.current?.querySelector<HTMLElement>(`[data-row-index="${selected}"]`);
    if (!row) return;
    focusPending.current = false;
    row.focus({ preventScroll: true });
  });
  return selected;
}

export function CallsView({ traceId, params, revision }: { traceId: string; params: RouteParams; revision: number }) {
  const api = useApi();
  const filters = parseCallParams(params);
  const setParams = useSetTabParams(traceId, 'calls', params);
  const request = { traceId, name: filters.name, state: filters.state, text: filters.text || undefined, sort: filters.sort, descending: filters.descending };
  const identity = JSON.stringify(request);
  const calls = usePagedRows(identity, revision, (offset, limit) => api.calls({ ...request, offset, limit }), pageSize);
  const { names, latency } = useTraceTools(traceId, revision);
  // The run is a column only when there is more than one: inside one run it says the same on every row.
  const columns = latency.status === 'ready' && latency.data.runs > 1 ? withRunColumns : callColumns;

  const { sorting, onSortingChange } = callSorting(filters, setParams);

  const count = calls.total ?? 0;
  const { scrollElement, virtualizer, start, scrollToIndex, items, first, last } = useCallWindow(count);
  const data = useShownRows(calls, first, last, toWindowRow);

  const table = useTable({
    features,
    columns,
    data,
    getRowId: (row) => `${row.call.eventId}:${row.call.callIndex}`,
    state: { sorting },
    onSortingChange,
    manualSorting: true,
    enableMultiSort: false,
    // A third click goes back to log order.
    enableSortingRemoval: true,
  });
  const rowsByIndex = new Map(table.getRowModel().rows.map((row) => [row.original.index, row]));

  const selected = useFocusedKeyboardRow({
    identity,
    count,
    scrollElement,
    scrollToIndex,
    open: (index) => {
      const call = index === null ? undefined : calls.rowAt(index);
      if (call) navigate(callRoute(traceId, call));
    },
  });

  const filtered = filters.name !== undefined || filters.state !== undefined || filters.text !== '';
  const gridClass = `calls-grid ${columns === withRunColumns ? 'calls-grid-with-run' : ''}`;
  return (
    <section
      className="list-view calls-view"
      data-testid="calls-view"
      data-state={calls.error !== null ? 'error' : calls.total !== null && calls.fresh ? 'ready' : 'loading'}
      data-total={calls.total ?? ''}
    >
      <CallFilters filters={filters} names={names.status === 'ready' ? names.data : []} total={calls.total} onChange={setParams} />
      {latency.status === 'ready' && latency.data.tools.length > 0 && (
        <CallLatencyPanel
          tools={latency.data.tools}
          selectedTool={filters.name}
          onSelectTool={(name) => setParams({ tool: name === filters.name ? undefined : name })}
        />
      )}
      {calls.error !== null && <Failure what="the calls" error={new Error(calls.error)} />}
      <div ref={scrollElement} className="grid-scroll" role="table" aria-label="Tool calls" aria-rowcount={count} data-testid="calls-list">
        <div className={`grid-row grid-header ${gridClass}`} role="row">
          {table.getHeaderGroups()[0]?.headers.map((header) => (
            <SortableHeaderCell
              key={header.id}
              column={header.column}
              className={header.column.columnDef.meta?.className ?? ''}
              sortable={header.column.columnDef.meta?.sort != null}
              testId={`sort-calls-${header.id}`}
              title={header.column.getNextSortingOrder() === false ? 'Back to log order' : `Sort by ${String(header.column.columnDef.header).toLowerCase()}`}
            >
              <table.FlexRender header={header} />
            </SortableHeaderCell>
          ))}
        </div>
        <CallGridBody
          items={items}
          start={start}
          totalSize={virtualizer.getTotalSize()}
          rowsByIndex={rowsByIndex}
          selected={selected}
          traceId={traceId}
          gridClass={gridClass}
        />
        {calls.total === 0 && <NoCalls filtered={filtered} onClearFilters={() => setParams({ tool: undefined, state: undefined, text: undefined })} />}
      </div>
    </section>
  );
}

function NoCalls({ filtered, onClearFilters }: { filtered: boolean; onClearFilters: () => void }) {
  return (
    <Empty title={filtered ? 'No call matches these filters.' : 'No tool calls in this trace.'}>
      {filtered && (
        <button type="button" className="link-button" onClick={onClearFilters}>
          Clear the filters
        </button>
      )}
    </Empty>
  );
}

/** A call opens as its own event (the one that issued it), with its step, in its run. */
function callRoute(traceId: string, call: CallRow) {
  return routes.run(traceId, call.runPk, { step: call.step, eventId: call.eventId });
}

/** The rows on screen, each at its place in the scrolled window: a placeholder until its page arrives. */
function CallGridBody(props: {
  items: VirtualItem[];
  /** List index of the window's first row. */
  start: number;
  totalSize: number;
  /** The table's rows by their index in the list. */
  rowsByIndex: ReadonlyMap<number, Row<typeof features, WindowRow>>;
  selected: number | null;
  traceId: string;
  gridClass: string;
}) {
  const { items, start, totalSize, rowsByIndex, selected, traceId, gridClass } = props;
  return (
    <div className="grid-body" style={{ height: totalSize }}>
      {items.map((item) => {
        const index = start + item.index;
        const row = rowsByIndex.get(index);
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
          <CallGridRow
            key={row.id}
            call={row.original.call}
            index={index}
            top={item.start}
            selected={index === selected}
            className={gridClass}
            href={formatRoute(callRoute(traceId, row.original.call))}
            cells={row.getAllCells().map((cell) => (
              <div key={cell.id} role="cell" className={`grid-cell ${cell.column.columnDef.meta?.className ?? ''}`}>
                <FlexRender cell={cell} />
              </div>
            ))}
          />
        );
      })}
    </div>
  );
}

interface CallGridRowProps {
  call: CallRow;
  /** Its place in the list, for the keyboard's focus. */
  index: number;
  top: number;
  selected: boolean;
  className: string;
  href: string;
  cells: ReactNode;
}

/** A row is a link to its call (click, middle-click, keyboard). */
const CallGridRow = memo(
  function CallGridRow({ call, index, top, selected, className, href, cells }: CallGridRowProps) {
    return (
      <a
        href={href}
        className={`grid-row call-row ${className} ${call.state === 'error' || call.state === 'dangling' ? 'row-error' : ''} ${selected ? 'row-selected' : ''}`}
        style={{ transform: `translateY(${top}px)` }}
        role="row"
        aria-selected={selected}
        data-row-index={index}
        data-testid="call-row"
        data-call-state={call.state ?? ''}
        data-tool={call.name}
        data-call-id={call.callId}
      >
        {cells}
      </a>
    );
  },
  (previous, next) =>
    previous.call === next.call &&
    previous.index === next.index &&
    previous.top === next.top &&
    previous.selected === next.selected &&
    previous.className === next.className &&
    previous.href === next.href,
);

function CallFilters({
  filters,
  names,
  total,
  onChange,
}: {
  filters: ReturnType<typeof parseCallParams>;
  names: readonly string[];
  total: number | null;
  onChange: (changes: Record<string, string | undefined>) => void;
}) {
  const report = useReport();
  const [draft, setDraft] = useState(filters.text);
  useEffect(() => setDraft(filters.text), [filters.text]);
  // Typing filters after a pause, not on every key: each change is a request.
  useEffect(() => {
    if (draft === filters.text) return;
    const timer = window.setTimeout(() => onChange({ text: draft || undefined }), 250);
    return () => window.clearTimeout(timer);
  }, [draft, filters.text, onChange]);
  return (
    <div className="filters" role="group" aria-label="Filter calls">
      {report === undefined && (
        <label>
          Filter{' '}
          <input
            type="search"
            value={draft}
            placeholder="tool, call id, arguments or error"
            onChange={(event) => setDraft(event.target.value)}
            data-testid="filter-calls-text"
            maxLength={500}
            className="calls-filter-text"
          />
        </label>
      )}
      <label>
        Tool{' '}
        <select value={filters.name ?? ''} onChange={(event) => onChange({ tool: event.target.value })} data-testid="filter-tool">
          <option value="">any</option>
          {names.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </label>
      <label>
        State{' '}
        <select value={filters.state ?? ''} onChange={(event) => onChange({ state: event.target.value })} data-testid="filter-call-state">
          <option value="">any</option>
          {callStateSchema.options.map((state) => (
            <option key={state} value={state}>
              {humanize(state)}
            </option>
          ))}
        </select>
      </label>
      <span className="muted filters-total">{total === null ? '' : `${formatCount(total)} call${total === 1 ? '' : 's'}`}</span>
    </div>
  );
}
