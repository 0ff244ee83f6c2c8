/**
 * Small vocabularies and content builders for the synthetic trace generator. The point is
 * realistic *shape and size* (multi-KB tool outputs, growing histories), not realistic prose.
 */
import type { Prng } from './prng';

export const providers = [
  { provider: 'openai', model: 'gpt-4.1', style: 'openai' },
  { provider: 'openai', model: 'gpt-4o-mini', style: 'openai' },
  { provider: 'anthropic', model: 'claude-sonnet-4-5', style: 'anthropic' },
  { provider: 'anthropic', model: 'claude-haiku-4-5', style: 'anthropic' },
  { provider: 'google', model: 'gemini-2.5-pro', style: 'google' },
] as const;
export type ProviderStyle = (typeof providers)[number]['style'];

export const finishReasons: Record<ProviderStyle, { stop: string; tools: string; length: string; refusal: string }> = {
  openai: { stop: 'stop', tools: 'tool_calls', length: 'length', refusal: 'stop' },
  anthropic: { stop: 'end_turn', tools: 'tool_use', length: 'max_tokens', refusal: 'refusal' },
  google: { stop: 'STOP', tools: 'STOP', length: 'MAX_TOKENS', refusal: 'SAFETY' },
};

const dirs = [
  'src',
  'src/engine',
  'src/engine/ingest',
  'src/ui',
  'src/ui/components',
  'lib',
  'test',
  'test/fixtures',
  'scripts',
  'docs',
  'packages/core/src',
  'packages/cli/src',
];
const stems = [
  'index',
  'parser',
  'reader',
  'ingest',
  'store',
  'schema',
  'runTable',
  'timeline',
  'diff',
  'budget',
  'findings',
  'config',
  'worker',
  'cache',
  'adapter',
  'format',
  'utils',
  'session',
  'retry',
  'client',
];
const exts = ['.ts', '.tsx', '.js', '.json', '.md', '.py', '.go'];
const words = [
  'the',
  'loop',
  'request',
  'result',
  'tool',
  'call',
  'budget',
  'step',
  'parser',
  'cache',
  'stream',
  'fragment',
  'model',
  'history',
  'error',
  'retry',
  'limit',
  'token',
  'index',
  'file',
  'buffer',
  'offset',
  'line',
  'event',
  'schema',
  'value',
  'missing',
  'returns',
  'expected',
  'before',
  'after',
  'while',
  'when',
  'should',
  'because',
  'config',
  'timeout',
  'handler',
  'queue',
  'worker',
];
const identifiers = [
  'parseLine',
  'readChunk',
  'ingestFile',
  'openStore',
  'applyBudget',
  'classifyResponse',
  'joinFragments',
  'findDangling',
  'hashResult',
  'diffRequests',
  'normalizeStatus',
  'loadConfig',
  'retryWithBackoff',
  'scheduleWork',
  'flushBatch',
];
const types = ['Buffer', 'string', 'number', 'Event', 'RunRecord', 'StepInfo', 'Finding', 'Map<string, number>', 'Promise<void>', 'boolean'];
const tasks = [
  'Fix the failing test in {path} and make sure the whole suite passes.',
  'Find why {ident} is slow on large inputs and propose a patch.',
  'Add input validation to {ident} in {path}; keep the public API unchanged.',
  'Summarize the open issues that mention {word} and draft a reply for each.',
  'Refactor {path} so that {ident} no longer reads the whole file into memory.',
  'Investigate the flaky {word} test and report the root cause.',
];
const tags = ['bug', 'perf', 'ui', 'engine', 'docs', 'good-first-issue', 'regression', 'p1', 'p2', 'needs-repro'];

export function path(rng: Prng): string {
  return `${rng.pick(dirs)}/${rng.pick(stems)}${rng.pick(exts)}`;
}

export function sentence(rng: Prng, minWords = 6, maxWords = 18): string {
  const n = rng.int(minWords, maxWords);
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(rng.pick(words));
  const text = out.join(' ');
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

export function paragraph(rng: Prng, sentences: number): string {
  const out: string[] = [];
  for (let i = 0; i < sentences; i++) out.push(sentence(rng));
  return out.join(' ');
}

export function task(rng: Prng): string {
  return rng.pick(tasks).replace('{path}', path(rng)).replace('{ident}', rng.pick(identifiers)).replace('{word}', rng.pick(words));
}

export const systemPrompt =
  'You are a careful software engineering agent. Use the tools to inspect and change the repository. ' +
  'Prefer small, verifiable steps. Never invent file contents: read them first. When a tool fails, read ' +
  'the error and decide whether a retry can help. Stop and answer when the task is done. ' +
  'Tool outputs may be truncated; page through large results instead of requesting everything at once. ' +
  'Report what you changed and how you verified it.';

interface ToolSpec {
  name: string;
  description: string;
  properties: Record<string, { type: string; description: string }>;
}

export const toolSpecs: readonly ToolSpec[] = [
  {
    name: 'read_file',
    description: 'Read a text file from the workspace.',
    properties: {
      path: { type: 'string', description: 'Path relative to the workspace root.' },
      offset: { type: 'integer', description: 'First line to read (1-based).' },
      limit: { type: 'integer', description: 'Maximum number of lines.' },
    },
  },
  {
    name: 'list_dir',
    description: 'List the entries of a directory with sizes and dates.',
    properties: { path: { type: 'string', description: 'Directory path.' }, recursive: { type: 'boolean', description: 'Descend into subdirectories.' } },
  },
  {
    name: 'search_code',
    description: 'Search the workspace for a regular expression.',
    properties: {
      query: { type: 'string', description: 'Regular expression.' },
      path: { type: 'string', description: 'Directory to search.' },
      max_results: { type: 'integer', description: 'Result cap.' },
    },
  },
  {
    name: 'run_tests',
    description: 'Run the test suite or a subset of it.',
    properties: { pattern: { type: 'string', description: 'Test name or file pattern.' } },
  },
  { name: 'http_get', description: 'Fetch a JSON document from the issue tracker API.', properties: { url: { type: 'string', description: 'Absolute URL.' } } },
  {
    name: 'write_file',
    description: 'Write a text file (overwrites).',
    properties: { path: { type: 'string', description: 'Path.' }, content: { type: 'string', description: 'Full new content.' } },
  },
];

export type ToolName = 'read_file' | 'list_dir' | 'search_code' | 'run_tests' | 'http_get' | 'write_file';

export function toolArguments(rng: Prng, name: ToolName): Record<string, unknown> {
  switch (name) {
    case 'read_file':
      return rng.chance(0.5) ? { path: path(rng) } : { path: path(rng), offset: rng.int(1, 400), limit: rng.pick([50, 100, 200]) };
    case 'list_dir':
      return { path: rng.pick(dirs), recursive: rng.chance(0.3) };
    case 'search_code':
      return { query: `${rng.pick(identifiers)}\\(`, path: rng.pick(dirs), max_results: rng.pick([20, 50, 100]) };
    case 'run_tests':
      return { pattern: rng.chance(0.5) ? `${rng.pick(stems)}.test` : '' };
    case 'http_get':
      return { url: `https://tracker.example.com/api/issues?label=${rng.pick(tags)}&page=${rng.int(1, 5)}` };
    case 'write_file':
      return { path: path(rng), content: codeLines(rng, rng.int(5, 25)) };
  }
}

function codeLine(rng: Prng): string {
  switch (rng.int(0, 5)) {
    case 0:
      return `export function ${rng.pick(identifiers)}(${rng.pick(words)}: ${rng.pick(types)}, ${rng.pick(words)}: ${rng.pick(types)}): ${rng.pick(types)} {`;
    case 1:
      return `  const ${rng.pick(words)}${rng.int(1, 9)} = await ${rng.pick(identifiers)}(${rng.pick(words)}, { ${rng.pick(words)}: ${rng.int(0, 4096)} });`;
    case 2:
      return `  // ${sentence(rng, 4, 12)}`;
    case 3:
      return `  if (${rng.pick(words)}.length > ${rng.int(1, 1000)}) throw new Error('${rng.pick(words)} ${rng.pick(words)}');`;
    case 4:
      return `  return ${rng.pick(identifiers)}(${rng.pick(words)}).${rng.pick(words)};`;
    default:
      return '}';
  }
}

export function codeLines(rng: Prng, n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(codeLine(rng));
  return out.join('\n');
}

const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** A tool output of roughly `targetBytes` bytes: text for some tools, a JSON object for others. */
export function toolOutput(rng: Prng, name: ToolName, targetBytes: number): string | Record<string, unknown> {
  switch (name) {
    case 'read_file': {
      const lines: string[] = [];
      let size = 0;
      for (let n = 1; size < targetBytes; n++) {
        const line = `${String(n).padStart(5, ' ')}\t${codeLine(rng)}`;
        lines.push(line);
        size += line.length + 1;
      }
      return lines.join('\n');
    }
    case 'list_dir': {
      const lines: string[] = [`total ${rng.int(8, 400)}`];
      let size = 0;
      while (size < targetBytes) {
        const mode = rng.chance(0.15) ? 'drwxr-xr-x' : '-rw-r--r--';
        const line = `${mode}  1 dev  staff  ${String(rng.int(0, 200_000)).padStart(7, ' ')} ${rng.pick(months)} ${String(rng.int(1, 28)).padStart(2, ' ')} ${String(rng.int(0, 23)).padStart(2, '0')}:${String(rng.int(0, 59)).padStart(2, '0')} ${path(rng)}`;
        lines.push(line);
        size += line.length + 1;
      }
      return lines.join('\n');
    }
    case 'search_code': {
      const matches: { path: string; line: number; text: string }[] = [];
      let size = 0;
      while (size < targetBytes) {
        const match = { path: path(rng), line: rng.int(1, 2000), text: codeLine(rng).trim() };
        matches.push(match);
        size += match.path.length + match.text.length + 40;
      }
      return { matches, total: matches.length + rng.int(0, 40), truncated: rng.chance(0.3) };
    }
    case 'run_tests': {
      const lines: string[] = [];
      let size = 0;
      let failed = 0;
      while (size < targetBytes) {
        const ok = rng.chance(0.93);
        if (!ok) failed++;
        const line = `${ok ? '  ✓' : '  ✗'} ${rng.pick(stems)} › ${sentence(rng, 3, 8)} (${rng.int(1, 900)} ms)`;
        lines.push(line);
        size += line.length + 1;
      }
      lines.push('', `Tests: ${failed} failed, ${lines.length - 1 - failed} passed, ${lines.length - 1} total`);
      return lines.join('\n');
    }
    case 'http_get': {
      const items: Record<string, unknown>[] = [];
      let size = 0;
      while (size < targetBytes) {
        const item = {
          id: rng.int(1000, 99_999),
          title: sentence(rng, 4, 10),
          state: rng.pick(['open', 'closed']),
          labels: [rng.pick(tags), rng.pick(tags)],
          comments: rng.int(0, 40),
          body: paragraph(rng, rng.int(1, 3)),
        };
        items.push(item);
        size += JSON.stringify(item).length;
      }
      return {
        status: 200,
        headers: { 'content-type': 'application/json', 'x-ratelimit-remaining': String(rng.int(0, 5000)) },
        body: { items, next_page: rng.chance(0.5) ? rng.int(2, 9) : null },
      };
    }
    case 'write_file':
      return { ok: true, bytes_written: rng.int(100, targetBytes * 4) };
  }
}

export const retryableErrors = [
  { code: 'TIMEOUT', safe_message: 'The tool did not answer within 30 s.' },
  { code: 'RATE_LIMITED', safe_message: 'Too many requests; retry after a short delay.' },
  { code: 'UNAVAILABLE', safe_message: 'The backing service is temporarily unavailable.' },
] as const;

export const fatalErrors = [
  { code: 'PERMISSION_DENIED', safe_message: 'Writing outside the workspace is not allowed.' },
  { code: 'NOT_FOUND', safe_message: 'The requested path does not exist.' },
  { code: 'INVALID_ARGUMENTS', safe_message: 'Arguments did not match the tool schema.' },
] as const;

export const garbageLines: readonly ((rng: Prng) => string)[] = [
  () => 'WARN pool: connection reset by peer, reconnecting',
  () => 'Traceback (most recent call last):',
  (rng) => `  File "/srv/agent/loop.py", line ${rng.int(10, 900)}, in run_step`,
  (rng) => `{"type":"tool_result","run_id":"run-${rng.hex(6)}","call_id":"call_${rng.hex(8)}","output":"${rng.pick(words)} ${rng.pick(words)}`,
  () => '\u001b[32m✓\u001b[0m flushed trace buffer',
  () => '--- log rotated ---',
  (rng) => `${rng.int(1_700_000_000, 1_760_000_000)} DEBUG ${rng.pick(identifiers)} took ${rng.int(1, 500)}ms`,
];
