/**
 * A tool call's arguments as a person reads them: the JSON pretty-printed, and a shell command
 * (`command` or `cmd`, a string or an argv array, as Codex's shell and exec_command tools and
 * Claude Code's Bash tool write it) as the command line one would type.
 */

export interface ReadableArguments {
  /** The arguments as indented JSON; a string that is not JSON stays as written. */
  pretty: string;
  /** Whether `pretty` is JSON (false: arguments written as text that does not parse). */
  json: boolean;
  /** The shell command the call runs, when its arguments name one. */
  command: string | null;
}

/** Characters a POSIX shell reads as they are, unquoted. */
const plainWord = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** One argv element as a shell would need it typed: bare when safe, else in single quotes. */
export function shellQuote(word: string): string {
  if (word !== '' && plainWord.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * An argv as one command line. `bash -lc SCRIPT` (and `sh -c`, `zsh -lc`, …) is shown as its
 * script: the wrapper is how the harness runs every command, the script is what it ran.
 */
export function commandLine(argv: readonly string[]): string {
  const [shell, flag, script, ...rest] = argv;
  if (shell !== undefined && flag !== undefined && script !== undefined && rest.length === 0 && /(^|\/)(ba|z|da|k)?sh$/.test(shell) && /^-[a-z]*c$/.test(flag))
    return script;
  return argv.map(shellQuote).join(' ');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The command named by `command` or `cmd`: a string as written, an argv of strings joined. */
function commandOf(args: Record<string, unknown>): string | null {
  for (const key of ['command', 'cmd']) {
    const value = args[key];
    if (typeof value === 'string' && value.trim() !== '') return value;
    if (Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === 'string')) return commandLine(value as string[]);
  }
  return null;
}

/** `args`: as the call carries them, an object or a JSON string (OpenAI formats), or undefined. */
export function readableArguments(args: unknown): ReadableArguments {
  let value: unknown = args ?? {};
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value) as unknown;
    } catch {
      return { pretty: args as string, json: false, command: null };
    }
  }
  return { pretty: JSON.stringify(value, null, 2) ?? String(value), json: true, command: isRecord(value) ? commandOf(value) : null };
}
