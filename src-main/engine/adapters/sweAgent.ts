/**
 * SWE-agent trajectories (`<instance>.traj`): one pretty-printed JSON document per run, read whole
 * (json-values framing: the document arrives as one record, so every event is anchored to it).
 *
 * `trajectory[]` holds one step per model call — including the calls SWE-agent requeried after a
 * format error, a blocked command or a shell syntax error, which never reach `history[]` — with the
 * action, its observation and, since 1.0, the `query` sent to the model. `history[]` holds the chat
 * messages: since 1.0 with function-calling `tool_calls[{id}]` and tool messages with
 * `tool_call_ids[]`. The trajectory gives the steps; the history gives the call ids. Thought/action
 * trajectories (0.x, or 1.x without function calling) have no call ids: each action gets a derived
 * id `<run>:step<n>` and is paired with the observation of its own step. `info.exit_status` is the
 * terminal status. A RetryAgent document (`attempts[]`) is one run per attempt. See
 * docs/formats/swe-agent.md.
 */
import { isRecord, type Emit, type AdaptedEvent, type DetectionSample, type FormatAdapter, type LineRef } from './formatAdapter';
import {
  callsIfAny,
  defined,
  modelRequest,
  modelResponse,
  runEnd,
  runStart,
  toolCallNotExecuted,
  toolResult,
  unknownEvent,
  type AdaptedToolCall,
} from './kit/events';
import { text, positive, fileStem, records, strings, type JsonObject } from './kit/jsonValues';
import { StepBuilder } from './kit/stepBuilder';

/** The file's name without its directory and trajectory suffix: SWE-agent names the file after the instance. */
export function runIdFromPath(path: string): string {
  return fileStem(path, /(\.traj)?(\.json)?$/i);
}

/** `replay_config` is a JSON string in SWE-agent 1.x files (`model_dump_json()`), an object in some. */
function parseReplayConfig(value: unknown): JsonObject | undefined {
  if (isRecord(value)) return value;
  if (typeof value !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(value);
    return isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function isTrajectoryStep(value: unknown): boolean {
  return isRecord(value) && typeof value['action'] === 'string' && ('observation' in value || 'response' in value || 'thought' in value);
}

function isHistoryMessage(value: unknown): boolean {
  return isRecord(value) && typeof value['role'] === 'string' && ('agent' in value || 'message_type' in value || 'is_demo' in value);
}

/** A SWE-agent document: trajectory steps, or agent-tagged history messages, or a RetryAgent's attempts of those. */
function looksLikeSweAgent(value: unknown): string | null {
  if (!isRecord(value)) return null;
  const trajectory = value['trajectory'];
  if (Array.isArray(trajectory) && trajectory.length > 0 && isTrajectoryStep(trajectory[0])) {
    return 'SWE-agent trajectory: a document with trajectory[] steps {action, observation, thought}';
  }
  const history = value['history'];
  if (Array.isArray(history) && history.length > 0 && history.slice(0, 3).every(isHistoryMessage)) {
    return 'SWE-agent trajectory: a document with history[] messages {role, agent, message_type}';
  }
  const attempts = value['attempts'];
  if (Array.isArray(attempts) && attempts.length > 0 && looksLikeSweAgent(attempts[0]) !== null) {
    return `SWE-agent RetryAgent trajectory: ${attempts.length} attempts[] with trajectory[] steps`;
  }
  return null;
}

/**
 * A document too large for the detection sample: its first 64 KiB open a top-level object whose
 * first members are `environment`/`attempts`/`trajectory`/`history`, with trajectory steps or
 * agent-tagged messages in view.
 */
function headLooksLikeSweAgent(head: string): boolean {
  if (!/^\s*\{\s*("environment"\s*:\s*"[^"]*"\s*,\s*)?"(trajectory|history|attempts)"\s*:\s*\[/.test(head)) return false;
  const step = /"action"\s*:\s*"/.test(head) && /"(observation|thought|response)"\s*:/.test(head);
  const message = /"role"\s*:\s*"(system|user|assistant|tool)"/.test(head) && /"(agent|message_type)"\s*:\s*"/.test(head);
  return step || message;
}

const BUDGET_EXIT_LIMITS: Readonly<Record<string, string>> = {
  exit_cost: 'max_cost_usd',
  exit_context: 'max_context_tokens',
  exit_total_execution_time: 'deadline',
};

/** The budget an exit status names: `exit_cost` and its autosubmitted form `submitted (exit_cost)`. */
function limitOf(status: string): string | undefined {
  const inner = /^submitted \((\w+)\)$/.exec(status.trim())?.[1] ?? status.trim();
  return BUDGET_EXIT_LIMITS[inner];
}

/** The command an action runs: SWE-agent dispatches on its first word (`open`, `edit`, `submit`, or a shell program). */
function commandName(action: string): string {
  return action.trim().split(/\s+/, 1)[0] || '(empty action)';
}

/**
 * Harness-made final steps: 0.x writes `exit_cost`/`exit_context`/… as the action, 1.x an empty one
 * (only on a run that ended: a run cut during a requery also ends with an empty action).
 */
function isExitMarker(action: string, isLast: boolean, ended: boolean): boolean {
  const trimmed = action.trim();
  return (trimmed === '' && isLast && ended) || /^exit_[a-z_]+$/.test(trimmed);
}

function functionCalls(message: JsonObject | undefined): AdaptedToolCall[] {
  if (message === undefined) return [];
  return records(message['tool_calls']).flatMap((call) => {
    const id = text(call['id']);
    const fn = isRecord(call['function']) ? call['function'] : undefined;
    if (id === undefined || fn === undefined) return [];
    return [{ call_id: id, name: text(fn['name']) ?? '(unnamed)', arguments: fn['arguments'] }];
  });
}

class RunMapper {
  private readonly steps = new StepBuilder();
  /** The last call that got a result, for a derived end (`submit` with its output recorded). */
  private lastAnswered: { name: string; step: number } | null = null;

  constructor(
    private readonly runId: string,
    private readonly line: LineRef,
    private readonly emit: Emit,
    private readonly model: string | undefined,
  ) {}

  out(event: AdaptedEvent, typeRaw: string): void {
    this.emit({ event, typeRaw, line: this.line });
  }

  unknown(typeRaw: string): void {
    this.out(unknownEvent(typeRaw, { run_id: this.runId, step: this.steps.stepSoFar }), typeRaw);
  }

  private response(typeRaw: string, fields: { text: string | undefined; calls: AdaptedToolCall[]; thought?: string | undefined; incomplete?: string }): void {
    const { calls } = fields;
    this.steps.issued(calls);
    this.out(
      modelResponse({
        run_id: this.runId,
        step: this.steps.step,
        outcome: fields.incomplete !== undefined ? 'incomplete' : undefined,
        incomplete_reason: fields.incomplete,
        text: fields.text ?? null,
        tool_calls: callsIfAny(calls),
        model: this.model,
        thought: fields.thought !== fields.text ? fields.thought : undefined,
      }),
      typeRaw,
    );
  }

  private result(typeRaw: string, callId: string, name: string | undefined, output: unknown, latencyMs: number | undefined): void {
    const step = this.steps.stepOf(callId);
    this.out(toolResult({ run_id: this.runId, step, call_id: callId, name, output, latency_ms: latencyMs }), typeRaw);
    if (name !== undefined) this.lastAnswered = { name, step };
  }

  /** Steps from `trajectory[]`, call ids from the `history[]` messages that match them. */
  mapTrajectory(trajectory: unknown[], history: unknown[], ended: boolean): void {
    const messages = records(history).filter((message) => message['is_demo'] !== true);
    const assistants = messages.map((message, index) => ({ message, index })).filter(({ message }) => message['role'] === 'assistant');
    const historyKnown = assistants.length > 0;
    // Every step reached the history: pair them by position. Otherwise some steps were requeried
    // and are missing there: a step matches the next history message with its action or its text.
    const positional = trajectory.length === assistants.length;
    let next = 0;
    trajectory.forEach((value, index) => {
      if (!isRecord(value)) {
        this.unknown('trajectory/step (not an object)');
        return;
      }
      const action = text(value['action']) ?? '';
      const response = text(value['response']);
      const thought = text(value['thought']);
      // The history message of this step, when the step reached the history (requeried ones do not).
      const candidate = assistants[next];
      const matched =
        candidate !== undefined &&
        (positional || (response !== undefined && candidate.message['content'] === response) || candidate.message['action'] === value['action']);
      if (matched) next += 1;
      if (isExitMarker(action, index === trajectory.length - 1, ended)) {
        // Written by the harness on its way out (cost, context, errors): not a model call.
        this.unknown(action.trim() === '' ? 'trajectory/exit' : `trajectory/${action.trim()}`);
        return;
      }
      const step = this.steps.next();
      const query = value['query'];
      if (Array.isArray(query) && query.length > 0) {
        this.out(modelRequest({ run_id: this.runId, step, messages: query, model: this.model }), 'trajectory/query');
      }
      let calls = matched ? functionCalls(candidate.message) : [];
      if (calls.length === 0 && action.trim() !== '') {
        calls = [{ call_id: `${this.runId}:step${step}`, name: commandName(action), arguments: { action: action.trim() } }];
      }
      if (calls.length === 0) {
        this.response('trajectory/step', {
          text: response ?? thought,
          calls,
          thought,
          incomplete:
            index === trajectory.length - 1
              ? 'no action could be parsed from the response (format error); the trajectory ends here'
              : 'no action could be parsed from the response; SWE-agent requeried the model (format error)',
        });
        return;
      }
      this.response('trajectory/step', { text: response ?? thought, calls, thought });
      if (historyKnown && !matched) {
        for (const call of calls) {
          this.out(
            toolCallNotExecuted({
              run_id: this.runId,
              step,
              call_id: call.call_id,
              name: call.name,
              reason:
                'SWE-agent requeried the model instead of running this action (format error, blocked command or shell syntax error): the step is in trajectory[] but not in history[]',
            }),
            'trajectory/step',
          );
        }
        return;
      }
      // The observation message after the matched assistant message names the calls it answers.
      const observation = matched ? messages[candidate.index + 1] : undefined;
      const answered = observation !== undefined && observation['role'] === 'tool' ? strings(observation['tool_call_ids']) : [];
      const seconds = value['execution_time'];
      const latencyMs = typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : undefined;
      const names = new Map(calls.map((call) => [call.call_id, call.name]));
      for (const callId of answered.length > 0 ? answered : calls.map((call) => call.call_id)) {
        this.result('trajectory/observation', callId, names.get(callId), value['observation'], latencyMs);
      }
    });
    for (const { message } of assistants.slice(next)) this.unknown(`history/assistant (not in trajectory: ${commandName(text(message['action']) ?? '')})`);
  }

  /** A document with `history[]` only (demonstrations): messages in order, results after their calls. */
  mapHistory(history: unknown[]): void {
    let pending: AdaptedToolCall[] = [];
    for (const message of history) {
      if (!isRecord(message)) {
        this.unknown('history/message (not an object)');
        continue;
      }
      if (message['is_demo'] === true) continue;
      const role = text(message['role']) ?? '(no role)';
      if (role === 'assistant') {
        const step = this.steps.next();
        const action = text(message['action']) ?? '';
        let calls = functionCalls(message);
        if (calls.length === 0 && action.trim() !== '') {
          calls = [{ call_id: `${this.runId}:step${step}`, name: commandName(action), arguments: { action: action.trim() } }];
        }
        this.response('history/assistant', { text: text(message['content']) ?? text(message['thought']), calls, thought: text(message['thought']) });
        pending = calls;
        continue;
      }
      const ids = strings(message['tool_call_ids']);
      if (role === 'tool' && ids.length > 0) {
        const names = new Map(pending.map((call) => [call.call_id, call.name]));
        for (const callId of ids) this.result('history/tool', callId, names.get(callId), message['content'], undefined);
        pending = pending.filter((call) => !ids.includes(call.call_id));
        continue;
      }
      if (role === 'user' && pending.length > 0 && pending.every((call) => call.call_id.startsWith(`${this.runId}:step`))) {
        // Thought/action history: the observation is the next user message.
        const call = pending.shift()!;
        this.result('history/user', call.call_id, call.name, message['content'], undefined);
        continue;
      }
      this.unknown(`history/${text(message['message_type']) ?? role}`);
    }
  }

  mapEnd(info: JsonObject | undefined): void {
    const status = info === undefined ? undefined : text(info['exit_status']);
    if (status !== undefined && status.trim() !== '') {
      this.out(
        runEnd({
          run_id: this.runId,
          step: this.steps.step,
          status,
          limit: limitOf(status),
          model_stats: isRecord(info?.['model_stats']) ? info['model_stats'] : undefined,
        }),
        'info/exit_status',
      );
      return;
    }
    if (this.lastAnswered?.name === 'submit' && this.lastAnswered.step === this.steps.step) {
      this.out(
        runEnd({
          run_id: this.runId,
          step: this.steps.step,
          status: 'submitted',
          reason: 'derived: the document has no info.exit_status; its last action is submit and its output (the patch) is recorded',
        }),
        'history/submit',
      );
    }
  }
}

function mapDocument(doc: JsonObject, runId: string, line: LineRef, emit: Emit): void {
  const replay = parseReplayConfig(doc['replay_config']);
  const agent = isRecord(replay?.['agent']) ? replay['agent'] : undefined;
  const modelConfig = isRecord(agent?.['model']) ? agent['model'] : undefined;
  const model = text(modelConfig?.['name']);
  const info = isRecord(doc['info']) ? doc['info'] : undefined;
  const mapper = new RunMapper(runId, line, emit, model);

  // The call limit is a turn budget the steps count. The cost limit is kept apart, not declared as
  // a budget: SWE-agent records no cost per call, so no counter could show it (only a run total).
  const callLimit = positive(modelConfig?.['per_instance_call_limit']);
  const costLimit = positive(modelConfig?.['per_instance_cost_limit']);
  const version = text(info?.['swe_agent_version']);
  if (model !== undefined || callLimit !== undefined || costLimit !== undefined || version !== undefined) {
    mapper.out(
      runStart({
        run_id: runId,
        config: defined({
          model,
          budgets: callLimit !== undefined ? { max_turns: callLimit } : undefined,
          per_instance_cost_limit: costLimit,
          versions: version !== undefined ? { 'swe-agent': version } : undefined,
          environment: text(doc['environment']),
        }),
      }),
      'replay_config',
    );
  }

  const trajectory = Array.isArray(doc['trajectory']) ? doc['trajectory'] : [];
  const history = Array.isArray(doc['history']) ? doc['history'] : [];
  const ended = typeof info?.['exit_status'] === 'string' && info['exit_status'].trim() !== '';
  if (trajectory.length > 0) mapper.mapTrajectory(trajectory, history, ended);
  else mapper.mapHistory(history);
  mapper.mapEnd(info);
}

function problemStatementId(doc: JsonObject): string | undefined {
  const statement = parseReplayConfig(doc['replay_config'])?.['problem_statement'];
  return isRecord(statement) ? text(statement['id']) : undefined;
}

export const sweAgentFormat: FormatAdapter = {
  name: 'swe-agent',
  framing: 'json-values',
  detect(sample: DetectionSample) {
    const first = sample.framedValues[0];
    if (first !== undefined) return looksLikeSweAgent(first);
    if (headLooksLikeSweAgent(sample.head)) return 'SWE-agent trajectory: the document opens with trajectory[]/history[] of actions and observations';
    return null;
  },
  createMapper({ path }) {
    const fileRunId = runIdFromPath(path);
    let documents = 0;
    return {
      map(value, line, emit) {
        if (looksLikeSweAgent(value) === null || !isRecord(value)) {
          return { reason: 'not a SWE-agent trajectory: expected an object with trajectory[], history[] or attempts[]' };
        }
        documents += 1;
        const base = (problemStatementId(value) ?? fileRunId) + (documents > 1 ? `#${documents}` : '');
        const attempts = Array.isArray(value['attempts']) ? value['attempts'] : [];
        if (attempts.length === 0) {
          mapDocument(value, base, line, emit);
          return undefined;
        }
        // RetryAgent: each attempt is a run; the top-level trajectory is a copy of the chosen one.
        attempts.forEach((attempt, index) => {
          if (isRecord(attempt)) mapDocument(attempt, `${base}/attempt_${index}`, line, emit);
          else emit({ event: unknownEvent('attempts[] (not an object)', { run_id: `${base}/attempt_${index}` }), typeRaw: 'attempts[]', line });
        });
        const info = isRecord(value['info']) ? value['info'] : undefined;
        const best = info?.['best_attempt_idx'];
        if (typeof best === 'number' && Number.isInteger(best) && best >= 0 && best < attempts.length) {
          const typeRaw = 'trajectory (top-level copy of the attempt the retry loop chose)';
          emit({ event: unknownEvent(typeRaw, { run_id: `${base}/attempt_${best}` }), typeRaw, line });
        }
        return undefined;
      },
      finish() {},
    };
  },
};
