/**
 * The shell command a call ran, from its arguments' summary (JSON, cut at 120 characters by the
 * engine): a `command` or `cmd` argument, a string or an argv array. A `bash -lc SCRIPT` argv is
 * its script (what the model wrote); any other argv is joined with spaces. A summary cut inside the
 * command gives the part before the cut, ending with `…`. Null when the arguments name no command.
 */
const shells = new Set(['bash', 'sh', 'zsh', 'dash', 'fish', '/bin/bash', '/bin/sh', '/bin/zsh', '/usr/bin/bash', '/usr/bin/env bash']);
const shellScriptFlags = new Set(['-c', '-lc', '-ic', '-lic', '-cl']);

/** A JSON string starting at `text[0]` (a quote): its value, and whether it was closed before the text ended. */
function readJsonString(text: string): { value: string; complete: boolean; length: number } | null {
  for (let index = 1; index < text.length; index += 1) {
    const char = text[index];
    if (char === '\\') {
      index += 1;
      continue;
    }
    if (char === '"') {
      try {
        return { value: JSON.parse(text.slice(0, index + 1)) as string, complete: true, length: index + 1 };
      } catch {
        return null;
      }
    }
  }
  // Cut before its closing quote: decode what is there, without a dangling escape.
  const partial = text.slice(1).replace(/\\u[0-9a-fA-F]{0,3}$|\\$/, '');
  try {
    return { value: JSON.parse(`"${partial}"`) as string, complete: false, length: text.length };
  } catch {
    return null;
  }
}

function commandOfArgv(parts: string[]): string {
  const [program, flag, script] = parts;
  if (parts.length === 3 && program !== undefined && shells.has(program) && flag !== undefined && shellScriptFlags.has(flag) && script !== undefined)
    return script;
  return parts.join(' ');
}

export function commandOfArguments(summary: string | null): string | null {
  if (summary === null) return null;
  const key = /^\s*\{\s*"(?:command|cmd)"\s*:\s*/.exec(summary) ?? /,\s*"(?:command|cmd)"\s*:\s*/.exec(summary);
  if (key === null) return null;
  let rest = summary.slice(key.index + key[0].length);
  if (rest.startsWith('"')) {
    const command = readJsonString(rest);
    return command === null ? null : command.complete ? command.value : `${command.value}…`;
  }
  if (!rest.startsWith('[')) return null;
  rest = rest.slice(1);
  const parts: string[] = [];
  for (;;) {
    rest = rest.trimStart();
    if (rest.startsWith(']')) return parts.length === 0 ? null : commandOfArgv(parts);
    if (!rest.startsWith('"')) return parts.length === 0 ? null : `${commandOfArgv(parts)} …`;
    const part = readJsonString(rest);
    if (part === null) return null;
    if (!part.complete) return `${commandOfArgv([...parts, part.value])}…`;
    parts.push(part.value);
    rest = rest.slice(part.length).trimStart();
    if (rest.startsWith(',')) rest = rest.slice(1);
  }
}
