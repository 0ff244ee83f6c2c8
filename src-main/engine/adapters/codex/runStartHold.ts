/**
 * The hold on a Codex run's run_start, until the run's model is known.
 *
 * A run_start is a run's first event and names its model, yet two Codex shapes write the model
 * only after lines that already become events: a rollout in its first `turn_context` (after
 * `session_meta` and, in some versions, the first messages), the older `codex exec --json` in
 * `session_configured` (after the config and prompt lines, and with the session id that becomes
 * the run id). So the run_start and every event after it wait here, and the line that names the
 * model (or the first model output, when none does) completes the run_start and lets them out in
 * their order. The `codex exec --json` of 0.44+ starts with `thread.started` and is not held.
 */
import type { Emit, MappedEvent } from '../formatAdapter';
import type { RunStart } from './readerBasics';

/** How many events may wait for the run's first model to be known before the run starts anyway. */
const MAX_HELD_EVENTS = 1000;

/** What the line that releases the hold adds to the run_start, each only where it is not set yet. */
export interface RunStartPatch {
  runId?: string | undefined;
  model?: string | undefined;
  task?: unknown;
}

export class RunStartHold {
  private runStart: RunStart | null = null;
  /** The run_start and the events after it, while the hold lasts; null once released (or never held). */
  private held: MappedEvent[] | null = null;

  constructor(private readonly emit: Emit) {}

  get started(): boolean {
    return this.runStart !== null;
  }

  /** Emits the run_start (a `run_start` event), or holds it with `hold`. */
  begin(mapped: MappedEvent & { event: RunStart }, hold: boolean): void {
    this.runStart = mapped.event;
    if (hold) this.held = [mapped];
    else this.emit(mapped);
  }

  /**
   * Completes the held run_start and emits what waited; with `runId`, every held event moves to
   * that run. Returns false when nothing was held, and then changes nothing.
   */
  release(patch: RunStartPatch): boolean {
    const held = this.held;
    if (held === null || this.runStart === null) return false;
    this.held = null;
    if (patch.model !== undefined && this.runStart.config && this.runStart.config.model === undefined) this.runStart.config.model = patch.model;
    if (patch.task !== undefined && this.runStart.task === undefined) this.runStart.task = patch.task;
    if (patch.runId !== undefined) for (const mapped of held) mapped.event.run_id = patch.runId;
    for (const mapped of held) this.emit(mapped);
    return true;
  }

  /** The run's task, while the run_start is still held (the first user message). */
  setTaskIfHeld(task: unknown): void {
    if (this.held !== null && this.runStart !== null && this.runStart.task === undefined) this.runStart.task = task;
  }

  /** Emits an event, or holds it behind the run_start. */
  emitOrHold(mapped: MappedEvent): void {
    if (this.held === null) {
      this.emit(mapped);
      return;
    }
    this.held.push(mapped);
    if (this.held.length > MAX_HELD_EVENTS) this.release({});
  }
}
