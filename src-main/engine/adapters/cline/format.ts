/**
 * Cline task history: `ui_messages.json`, one JSON array of UI messages `{ts, type: say|ask,
 * say|ask, text, …}` per task. See docs/formats/cline.md. This file detects the document and
 * names its run; the folder's other files do the mapping:
 *
 * - records.ts reads a UI message into typed fields (and the call a tool message makes);
 * - mapper.ts maps message by message: a model step starts at each `say:"api_req_started"` (its
 *   text holds the step's usage and the user content sent with the request); the messages after
 *   it — reasoning, text, tools, commands, completion_result — are the model's response;
 * - steps.ts closes a step into one model_response and derives the task's end;
 * - results.ts matches calls to results. Cline writes no tool call ids: each tool or command
 *   message is a call whose id is synthesized from its position in the array (`msg-<index>`). Its
 *   result is the `[<tool> …] Result:` block that the next api_req_started's request carries for
 *   it, in order, else the UI's own evidence (command output, an error message).
 */
import { basename, dirname, extname } from 'node:path';
import { isRecord, type FormatAdapter } from '../formatAdapter';
import type { JsonObject as Json } from '../kit/jsonValues';
import { ClineMapper } from './mapper';

/** `tasks/<taskId>/ui_messages.json` → the task id; another name → the file's name. */
function runIdOf(path: string): string {
  const directory = basename(dirname(path));
  if (/^\d{10,}$/.test(directory)) return directory;
  const name = basename(path, extname(path));
  return name === '' ? 'cline' : name;
}

function isClineMessage(value: unknown): boolean {
  if (!isRecord(value) || typeof value['ts'] !== 'number') return false;
  return (value['type'] === 'say' && typeof value['say'] === 'string') || (value['type'] === 'ask' && typeof value['ask'] === 'string');
}

/** The first bytes of a document too large to be complete in the detection sample. */
const HEAD_SIGNATURE = /^\s*\[\s*\{\s*"ts"\s*:\s*\d{10,}\s*,\s*"type"\s*:\s*"(?:say|ask)"\s*,\s*"(?:say|ask)"\s*:\s*"[a-z_]+"/;

export const clineFormat: FormatAdapter = {
  name: 'cline',
  framing: 'json-values',
  streamedArrays: [''],
  detect(sample) {
    const document = sample.framedValues[0];
    if (Array.isArray(document)) {
      const head = document.slice(0, 50);
      const messages = head.filter(isClineMessage).length;
      if (head.length > 0 && messages === head.length) {
        const first = document[0] as Json;
        return `Cline task history (ui_messages.json): a JSON array of ${document.length} UI messages {ts, type: say|ask, …}${first['say'] === 'task' ? ', starting with say:"task"' : ''}`;
      }
      return null;
    }
    if (sample.framedValues.length === 0 && HEAD_SIGNATURE.test(sample.head)) {
      return 'Cline task history (ui_messages.json): a JSON array of UI messages {ts, type: say|ask, …} (from its first bytes)';
    }
    return null;
  },
  createMapper({ path }) {
    return new ClineMapper(runIdOf(path));
  },
};
