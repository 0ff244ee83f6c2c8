/** The hand-written row encoders must put every value in its table's column order, or rows land in the wrong columns. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import {
  decodeEvent,
  decodeToolCall,
  encodeEvent,
  encodeToolCall,
  eventColumns,
  toolCallColumns,
  type EventSqlRow,
  type ToolCallSqlRow,
} from '../../../src-main/engine/store/traceWriter';

/** A row whose every value names its own column. */
function selfNamed<Row>(columns: readonly (keyof Row & string)[]): Row {
  return Object.fromEntries(columns.map((column) => [column, column])) as Row;
}

it('encodes events in eventColumns order', () => {
  assert.deepEqual(encodeEvent(selfNamed<EventSqlRow>(eventColumns)), eventColumns);
});

it('encodes tool calls in toolCallColumns order', () => {
  assert.deepEqual(encodeToolCall(selfNamed<ToolCallSqlRow>(toolCallColumns)), toolCallColumns);
});

it('decodes what it encoded, every column back in its field', () => {
  const event = selfNamed<EventSqlRow>(eventColumns);
  assert.deepEqual(decodeEvent(encodeEvent(event)), event);
  const call = selfNamed<ToolCallSqlRow>(toolCallColumns);
  assert.deepEqual(decodeToolCall(encodeToolCall(call)), call);
});
