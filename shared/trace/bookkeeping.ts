/**
 * Bookkeeping events: records a format writes about itself — progress ticks, file snapshots,
 * queue operations, span markers, state and settings dumps, mirrors of what another record already
 * says — that carry no model or tool content. The timeline folds them away by default; they are
 * still stored, counted, searched and shown with "Show all events".
 *
 * Only `unknown` events can be bookkeeping: every canonical event is the loop itself (a request,
 * a response, a call, a result, the run's start or end). Which unknown events are bookkeeping is
 * decided per format from what each record means (docs/formats/<format>.md, "Bookkeeping"), by
 * the raw type the adapter gives them: an exact raw type, or a prefix ending in `/` for a family
 * (every `progress/<kind>`). An unknown event that is not listed here is shown: it may be input (a
 * user prompt, a developer message) or something the adapter does not know yet.
 *
 * Applied once, at ingest (traceIngester.ts): each event that is not bookkeeping gets its
 * position among those (`visible_index`), so the timeline pages over the rows it shows with one
 * index seek, as it does over all of them — filtering at query time would walk a 100,000-event
 * run's bookkeeping to find a page. The rules live here, pure and beside each other, so they are
 * read, tested and documented as one table rather than spread over the adapters.
 */

interface BookkeepingRule {
  /** Raw types that are bookkeeping as they are. */
  exact: readonly string[];
  /** Families of raw types: each prefix ends in `/` (or `:`) and matches every raw type it starts. */
  prefixes: readonly string[];
}

/** By format name (FormatAdapter.name). */
export const bookkeepingRules: Readonly<Record<string, BookkeepingRule>> = {
  'claude-code': {
    // `summary` is a session title Claude Code writes for its resume list; `system/turn_duration`
    // and `system/stop_hook_summary` time and report hooks. `system/compact_boundary` and
    // `system/local_command` stay: a compaction and a user's command change the run.
    exact: ['file-history-snapshot', 'summary', 'system/turn_duration', 'system/stop_hook_summary', 'progress', 'queue-operation'],
    // Hook, bash, MCP and sub-agent progress (the sub-agent's own file is its run), queued prompts.
    prefixes: ['progress/', 'queue-operation/'],
  },
  codex: {
    // Settings of each turn, turn markers, token counters, git snapshots, and the `event_msg`
    // mirrors of response items (the response items are the steps).
    exact: [
      'turn_context',
      'ghost_snapshot',
      'event_msg/token_count',
      'event_msg/task_started',
      'event_msg/task_complete',
      'event_msg/agent_message',
      'event_msg/agent_reasoning',
      'event_msg/agent_reasoning_raw_content',
      'event_msg/agent_reasoning_section_break',
      'turn.started',
      'item.updated',
    ],
    prefixes: [],
  },
  'inspect-ai': {
    // Span ends (a span's begin is its header row in the timeline's span tree), solver step
    // markers, and sandbox, state, store and info records. Model, tool, score, error, input,
    // approval and sample_init events stay.
    exact: ['event/span_end', 'event/step', 'event/sandbox', 'event/state', 'event/store', 'event/info'],
    prefixes: [],
  },
  cline: {
    // Git checkpoints Cline takes after each tool.
    exact: ['say/checkpoint_created'],
    prefixes: [],
  },
  openhands: {
    // The agent controller's state machine (loading, running, awaiting input, …).
    exact: [],
    prefixes: ['observation:agent_state_changed', 'action:change_agent_state'],
  },
};

/** Whether an event of `format` is bookkeeping (see the module comment). */
export function isBookkeeping(format: string, type: string, typeRaw: string): boolean {
  if (type !== 'unknown') return false;
  if (!Object.hasOwn(bookkeepingRules, format)) return false;
  const rule = bookkeepingRules[format]!;
  return rule.exact.includes(typeRaw) || rule.prefixes.some((prefix) => typeRaw.startsWith(prefix));
}
