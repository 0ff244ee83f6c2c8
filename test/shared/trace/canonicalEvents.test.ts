/**
 * The canonical event schema as users meet it (docs/trace-format.schema.json is generated from
 * it): which events are accepted, which field a rejection names, and the helpers every reader
 * shares (event-type spellings, tool errors, API errors).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  apiErrorFacts,
  canonicalEventSchema,
  canonicalEventType,
  canonicalEventTypes,
  describeApiError,
  eventTypeAliases,
  idText,
  isErrorResult,
  modelOutcomeSchema,
  namesModelInput,
  permissionDecisionSchema,
} from '../../../shared/trace/canonicalEvents';

/** The dotted path of each field the schema rejects; [] when the event is accepted. */
function rejectedFields(event: Record<string, unknown>): string[] {
  const result = canonicalEventSchema.safeParse(event);
  return result.success ? [] : result.error.issues.map((issue) => issue.path.join('.'));
}

/** The smallest valid event of each type: only its required fields. */
const minimal: Record<string, Record<string, unknown>> = {
  run_start: { type: 'run_start' },
  model_request: { type: 'model_request' },
  model_response: { type: 'model_response' },
  stream_fragment: { type: 'stream_fragment' },
  tool_call_start: { type: 'tool_call_start', call_id: 'call_1' },
  tool_result: { type: 'tool_result', call_id: 'call_1' },
  tool_call_not_executed: { type: 'tool_call_not_executed', call_id: 'call_1' },
  run_end: { type: 'run_end' },
};

/** Per field: [field path, values it accepts, values it rejects]. */
type FieldRule = [path: string, good: readonly unknown[], bad: readonly unknown[]];

const id: [readonly unknown[], readonly unknown[]] = [
  ['call_1', 'x', 7, 0],
  ['', true, null, {}],
];
const text: [readonly unknown[], readonly unknown[]] = [
  ['', 'gpt-4o'],
  [4, null, {}],
];
const nullableText: [readonly unknown[], readonly unknown[]] = [
  ['', 'x', null],
  [4, {}],
];
const timestamp: [readonly unknown[], readonly unknown[]] = [
  ['2025-06-03T14:21:07.452Z', 1748960467],
  [true, null, {}],
];
const count: [readonly unknown[], readonly unknown[]] = [
  [0, 3],
  [-1, 1.5, '3', null],
];
const nonnegative: [readonly unknown[], readonly unknown[]] = [
  [0, 12.5],
  [-0.5, '835'],
];
const positiveInt: [readonly unknown[], readonly unknown[]] = [
  [1, 8],
  [0, -1, 2.5, '8'],
];
const positive: [readonly unknown[], readonly unknown[]] = [
  [0.01, 60000],
  [0, -1, '1'],
];
const flag: [readonly unknown[], readonly unknown[]] = [
  [true, false],
  ['true', 1],
];
const list: [readonly unknown[], readonly unknown[]] = [
  [[], [1, 'a']],
  [{}, 'a'],
];
const record: [readonly unknown[], readonly unknown[]] = [
  [{}, { temperature: 0 }],
  [[], 'a', 3],
];
const anything: [readonly unknown[], readonly unknown[]] = [['x', 1, { a: 1 }, [1], null], []];

function rules(...entries: [string, [readonly unknown[], readonly unknown[]]][]): FieldRule[] {
  return entries.map(([path, [good, bad]]) => [path, good, bad]);
}

const base = rules(['run_id', id], ['step', count], ['step_id', id], ['ts', timestamp]);

const usage = (prefix: string): FieldRule[] =>
  rules(
    ...(['input_tokens', 'output_tokens', 'cached_input_tokens', 'total_tokens', 'cost_usd', 'prompt_tokens', 'completion_tokens'] as const).map(
      (field): [string, [readonly unknown[], readonly unknown[]]] => [
        `${prefix}.${field}`,
        [
          [0, 1234.5],
          [-1, '100'],
        ],
      ],
    ),
  );

const budgets = (prefix: string): FieldRule[] =>
  rules(
    [`${prefix}.max_turns`, positiveInt],
    [`${prefix}.max_steps`, positiveInt],
    [`${prefix}.max_tool_calls`, positiveInt],
    [`${prefix}.deadline_ms`, positive],
    [`${prefix}.deadline`, timestamp],
    [`${prefix}.max_output_tokens`, positiveInt],
    [`${prefix}.max_input_tokens`, positiveInt],
    [`${prefix}.max_cost_usd`, positive],
    [`${prefix}.max_context_tokens`, positiveInt],
  );

const fieldRules: Record<string, FieldRule[]> = {
  run_start: [
    ...base,
    ...rules(
      ['config', record],
      ['config.provider', text],
      ['config.model', text],
      ['config.versions', record],
      ['config.budgets', record],
      ['budgets', record],
      ['task', anything],
    ),
    ...budgets('budgets'),
    ...budgets('config.budgets'),
  ],
  model_request: [...base, ...rules(['model', text], ['provider', text], ['system', anything], ['messages', list], ['tools', list], ['params', record])],
  model_response: [
    ...base,
    ...rules(
      [
        'outcome',
        [
          ['final', 'tool_calls', 'refusal', 'incomplete'],
          ['FINAL', 'done', '', null],
        ],
      ],
      ['text', nullableText],
      [
        'tool_calls',
        [
          [[], [{ call_id: 'c_1', name: 'search' }]],
          [{}, 'search'],
        ],
      ],
      ['finish_reason', nullableText],
      ['refusal', nullableText],
      ['incomplete_reason', text],
      ['usage', record],
      ['latency_ms', nonnegative],
      ['response_id', text],
      ['model', text],
      [
        'api_error',
        [
          ['overloaded', { status: 529 }, {}],
          [529, true, null],
        ],
      ],
      [
        'api_error.status',
        [
          [529, 200],
          [529.5, '529'],
        ],
      ],
      ['api_error.type', text],
      ['api_error.code', text],
      ['api_error.message', text],
    ),
    ...usage('usage'),
  ],
  stream_fragment: [
    ...base,
    ...rules(
      ['response_id', text],
      ['index', count],
      ['call_id', id],
      ['name', text],
      ['arguments_delta', text],
      ['text_delta', text],
      ['finish_reason', nullableText],
    ),
  ],
  tool_call_start: [
    ...base,
    ...rules(
      ['call_id', id],
      ['name', text],
      ['arguments', anything],
      [
        'permission',
        [
          ['allowed', 'denied', 'asked', 'auto', 'ask_once'],
          [true, 1, null],
        ],
      ],
    ),
  ],
  tool_result: [
    ...base,
    ...rules(
      ['call_id', id],
      ['name', text],
      ['status', text],
      ['output', anything],
      [
        'error',
        [
          ['boom', {}, { code: 'E1', message: 'no such file' }],
          [500, true, null],
        ],
      ],
      ['error.code', text],
      ['error.retryable', flag],
      ['error.safe_message', text],
      ['error.details_ref', text],
      ['error.message', text],
      ['latency_ms', nonnegative],
      ['progress', flag],
      ['child_run_id', id],
    ),
  ],
  tool_call_not_executed: [...base, ...rules(['call_id', id], ['name', text], ['reason', text])],
  run_end: [
    ...base,
    ...rules(['status', text], ['hitCap', flag], ['output', anything], ['limit', text], ['reason', text], ['steps', count], ['tool_calls', count]),
  ],
};

/** `event` with `value` at the dotted `path`, parents created as objects. */
function withField(event: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const copy = structuredClone(event);
  const keys = path.split('.');
  let parent = copy;
  for (const key of keys.slice(0, -1)) {
    if (typeof parent[key] !== 'object' || parent[key] === null) parent[key] = {};
    parent = parent[key] as Record<string, unknown>;
  }
  parent[keys.at(-1) as string] = value;
  return copy;
}

describe('canonical events: each type and its fields', () => {
  it('has the eight types of docs/semantics.md, each with a schema', () => {
    assert.deepEqual([...canonicalEventTypes].sort(), Object.keys(minimal).sort());
    assert.deepEqual(canonicalEventSchema.options.map((option) => option.shape.type.value).sort(), Object.keys(minimal).sort());
  });

  for (const [type, event] of Object.entries(minimal)) {
    it(`${type}: accepts the event with only its required fields, and keeps fields it does not know`, () => {
      assert.deepEqual(rejectedFields(event), []);
      const parsed = canonicalEventSchema.parse({ ...event, x_custom: { kept: true } });
      assert.equal(parsed.type, type);
      assert.deepEqual((parsed as Record<string, unknown>).x_custom, { kept: true });
    });

    it(`${type}: accepts good values and rejects bad ones, naming the field`, () => {
      for (const [path, good, bad] of fieldRules[type] ?? []) {
        for (const value of good) assert.deepEqual(rejectedFields(withField(event, path, value)), [], `${type}.${path} = ${JSON.stringify(value)}`);
        for (const value of bad) {
          const fields = rejectedFields(withField(event, path, value));
          // A field inside a union (a tool error, an API error) is named by the union's field.
          const names = (field: string): boolean => field === path || field.startsWith(`${path}.`) || path.startsWith(`${field}.`);
          assert.ok(
            fields.length > 0 && fields.every((field) => field !== '' && names(field)),
            `${type}.${path} = ${JSON.stringify(value)}: ${JSON.stringify(fields)}`,
          );
        }
      }
    });
  }

  it('rejects a call event without its call_id, naming the field', () => {
    for (const type of ['tool_call_start', 'tool_result', 'tool_call_not_executed']) assert.deepEqual(rejectedFields({ type }), ['call_id'], type);
  });

  it("rejects a response's tool call without its call_id or name, naming the call's field", () => {
    assert.deepEqual(rejectedFields({ type: 'model_response', tool_calls: [{ call_id: 'c_1' }] }), ['tool_calls.0.name']);
    assert.deepEqual(rejectedFields({ type: 'model_response', tool_calls: [{ name: 'search' }] }), ['tool_calls.0.call_id']);
    assert.deepEqual(
      rejectedFields({
        type: 'model_response',
        tool_calls: [
          { call_id: 'c_1', name: 'search', arguments: '{"q":1}' },
          { call_id: 2, name: 5 },
        ],
      }),
      ['tool_calls.1.name'],
    );
  });

  it('rejects an event of no canonical type', () => {
    assert.deepEqual(rejectedFields({ type: 'heartbeat' }), ['type']);
    assert.deepEqual(rejectedFields({}), ['type']);
  });
});

describe('enumerations', () => {
  it('has the four outcomes of docs/semantics.md §1', () => {
    assert.deepEqual([...modelOutcomeSchema.options].sort(), ['final', 'incomplete', 'refusal', 'tool_calls']);
  });

  it('has the four permission decisions', () => {
    assert.deepEqual([...permissionDecisionSchema.options].sort(), ['allowed', 'asked', 'auto', 'denied']);
  });
});

describe('idText', () => {
  it('writes string and number ids as the same text', () => {
    assert.equal(idText('call_7'), 'call_7');
    assert.equal(idText(7), '7');
    assert.equal(idText(7), idText('7'));
  });
});

describe('canonicalEventType', () => {
  const spellings: Record<string, readonly string[]> = {
    run_start: ['run_start', 'run_started', 'Run.Started', 'RUN-START'],
    model_request: ['model_request', 'llm_request', 'LLM.Request'],
    model_response: ['model_response', 'llm_response', 'llm-response'],
    stream_fragment: ['stream_fragment', 'model_response_delta', 'stream_chunk', 'model.response.delta'],
    tool_call_start: ['tool_call_start', 'tool_start', 'tool_execution_start', 'tool.call.start'],
    tool_result: ['tool_result', 'tool_call_result', 'tool_end', ' Tool-End '],
    tool_call_not_executed: ['tool_call_not_executed', 'call_not_executed', 'tool_call_skipped', 'unexecuted_call'],
    run_end: ['run_end', 'run_ended', 'run_finished', 'run.finished'],
  };

  for (const [type, names] of Object.entries(spellings)) {
    it(`reads ${names.join(', ')} as ${type}`, () => {
      for (const name of names) assert.equal(canonicalEventType(name), type, name);
    });
  }

  it('has no alias beyond those', () => {
    assert.equal(
      Object.keys(eventTypeAliases).length,
      new Set(Object.values(spellings).flatMap((names) => names.map((name) => name.trim().toLowerCase().replace(/[.-]/g, '_')))).size,
    );
  });

  it('does not read bare words other formats use, or other separators', () => {
    for (const name of ['start', 'response', 'end', 'tool', 'run start', 'run/start', 'runstart', 'x_run_start'])
      assert.equal(canonicalEventType(name), undefined, name);
  });
});

describe('namesModelInput', () => {
  it("reads a user's or harness's prompt from the event type, in any case", () => {
    for (const type of ['user_message', 'HumanTurn', 'system_prompt', 'INPUT', 'instruction', 'task_given']) assert.equal(namesModelInput(type), true, type);
  });

  it('does not read other events as input', () => {
    for (const type of ['heartbeat', 'assistant_message', 'tool_output', 'log']) assert.equal(namesModelInput(type), false, type);
  });
});

describe('isErrorResult', () => {
  it('reads the status when there is one, in any case', () => {
    for (const status of ['ok', 'OK', 'success', 'Success']) assert.equal(isErrorResult({ status, error: 'ignored' }), false, status);
    for (const status of ['error', 'failed', 'timeout', '']) assert.equal(isErrorResult({ status }), true, status);
  });

  it('reads an error without a status', () => {
    assert.equal(isErrorResult({ error: 'boom' }), true);
    assert.equal(isErrorResult({ error: {} }), true);
    assert.equal(isErrorResult({}), false);
  });
});

describe('API errors', () => {
  it('reads a string as the message, an empty one as none', () => {
    assert.deepEqual(apiErrorFacts('Overloaded'), { status: null, type: null, message: 'Overloaded' });
    assert.deepEqual(apiErrorFacts(''), { status: null, type: null, message: null });
  });

  it('reads the status, the type (else the code) and the message of an object', () => {
    assert.deepEqual(apiErrorFacts({ status: 529, type: 'overloaded_error', code: 'E529', message: 'Overloaded' }), {
      status: 529,
      type: 'overloaded_error',
      message: 'Overloaded',
    });
    assert.deepEqual(apiErrorFacts({ code: 'rate_limit_exceeded' }), { status: null, type: 'rate_limit_exceeded', message: null });
    assert.deepEqual(apiErrorFacts({}), { status: null, type: null, message: null });
  });

  it('describes an API error in one line', () => {
    assert.equal(describeApiError({ status: 529, type: 'overloaded_error', message: 'Overloaded' }), 'HTTP 529 overloaded_error: Overloaded');
    assert.equal(describeApiError({ status: 429, type: null, message: 'Slow down' }), 'HTTP 429: Slow down');
    assert.equal(describeApiError({ status: null, type: 'overloaded_error', message: null }), 'overloaded_error');
    assert.equal(describeApiError({ status: 500, type: null, message: null }), 'HTTP 500');
    assert.equal(describeApiError({ status: null, type: null, message: 'Overloaded' }), 'Overloaded');
    assert.equal(describeApiError({ status: null, type: null, message: null }), 'an API error');
  });
});
