/**
 * Above the Calls list: how long each tool's calls took (count, p50, p95, max; shared/latencyStats.ts),
 * slowest tool first, each with a bar on one scale for the whole trace. A tool's name filters the
 * list to its calls; clicked again, it clears the filter.
 */
import type { ToolLatency } from '../../shared/api';
import { formatCount, formatDuration } from '../components/format';
import { VisibleText, visibleText } from '../components/VisibleText';

export function CallLatencyPanel({
  tools,
  selectedTool,
  onSelectTool,
}: {
  tools: readonly ToolLatency[];
  selectedTool: string | undefined;
  onSelectTool: (name: string) => void;
}) {
  const scale = Math.max(0, ...tools.map((tool) => tool.max ?? 0));
  const percent = (value: number | null) => (value === null || scale === 0 ? 0 : (value / scale) * 100);
  if (tools.every((tool) => tool.timed === 0)) {
    // A table of dashes would say nothing: say why there is no distribution (docs/semantics.md §11).
    return (
      <p className="call-latency call-latency-none muted" data-testid="call-latency">
        No call in this trace records how long it took, so there is no latency distribution.
      </p>
    );
  }
  return (
    <section className="call-latency" aria-label="Latency by tool" data-testid="call-latency">
      <table>
        <caption className="muted">Latency by tool: nearest-rank percentiles over the calls with a recorded duration</caption>
        <thead>
          <tr>
            <th scope="col">Tool</th>
            <th scope="col" className="col-number">
              Calls
            </th>
            <th scope="col" className="col-number">
              p50
            </th>
            <th scope="col" className="col-number">
              p95
            </th>
            <th scope="col" className="col-number">
              max
            </th>
            <th
              scope="col"
              className="call-latency-bar-head"
              aria-label="Distribution"
              title="Bar: p50 (dark), p95, max (light), on one scale for every tool"
            />
          </tr>
        </thead>
        <tbody>
          {tools.map((tool) => (
            <tr key={tool.name} className={tool.name === selectedTool ? 'row-selected' : ''} data-testid="tool-latency" data-tool={tool.name}>
              <th scope="row">
                <button
                  type="button"
                  className="link-button call-latency-tool"
                  aria-pressed={tool.name === selectedTool}
                  title={tool.name === selectedTool ? 'Show the calls of every tool' : `Show only the calls of ${visibleText(tool.name)}`}
                  onClick={() => onSelectTool(tool.name)}
                  data-testid="tool-latency-filter"
                >
                  <VisibleText text={tool.name} />
                </button>
              </th>
              <td
                className="col-number"
                title={tool.timed < tool.calls ? `${formatCount(tool.timed)} of ${formatCount(tool.calls)} with a recorded duration` : undefined}
              >
                {formatCount(tool.calls)}
              </td>
              <td className="col-number">{formatDuration(tool.p50, '—')}</td>
              <td className="col-number">{formatDuration(tool.p95, '—')}</td>
              <td className="col-number">{formatDuration(tool.max, '—')}</td>
              <td className="call-latency-bar-cell" aria-hidden="true">
                {tool.max !== null && (
                  <span className="call-latency-track">
                    <span className="call-latency-max" style={{ width: `${percent(tool.max)}%` }} />
                    <span className="call-latency-p95" style={{ width: `${percent(tool.p95)}%` }} />
                    <span className="call-latency-p50" style={{ width: `${percent(tool.p50)}%` }} />
                  </span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
