/**
 * Two requests of two runs compared (docs/semantics.md §9, §16: what each had seen at their first
 * divergence). Within a run, a message's call id and a reconstructed message's line say which one
 * it is; across runs they are each run's own names for its own events, and would make every tool
 * message of the other run look removed and added again. So each side is made comparable first.
 */
import type { NormalizedRequest, RequestMessage } from './normalizedRequest';

/** How a reconstructed message names its line (engine/derive/requestHistory.ts): last, so it can be left out. */
export function withPlaceholderLine(text: string, line: number): string {
  return `${text} · line ${line}`;
}

const placeholderLine = / · line \d+$/;

/**
 * The request with its call ids renamed by order of first appearance (`call 1`, `call 2`, … — a
 * call and the result that answers it keep one name) and, when it was reconstructed, its messages'
 * lines left out.
 */
export function comparableAcrossRuns(request: NormalizedRequest): NormalizedRequest {
  const names = new Map<string, string>();
  const rename = (callId: string): string => {
    let name = names.get(callId);
    if (name === undefined) {
      name = `call ${names.size + 1}`;
      names.set(callId, name);
    }
    return name;
  };
  const messages = request.messages.map((message): RequestMessage => ({
    ...message,
    content: request.reconstructed
      ? message.content.map((part) => (part.type === 'text' ? { ...part, text: part.text.replace(placeholderLine, '') } : part))
      : message.content,
    toolCalls: message.toolCalls.map((call) => ({ ...call, callId: rename(call.callId) })),
    toolCallId: message.toolCallId === null ? null : rename(message.toolCallId),
  }));
  return { ...request, messages };
}
