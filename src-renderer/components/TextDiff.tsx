/**
 * A changed text shown as its word diff: inserted words in `<ins>`, deleted ones in `<del>`, long
 * unchanged stretches folded to their edges (a 2 MB message with three edits shows the edits,
 * not 2 MB); or, when the diff was asked for side by side, as two columns of numbered lines
 * (SideBySideDiff.tsx). When jsdiff gave up, both sides in full, with the reason.
 */
import { useState } from 'react';
import type { DiffPart } from '../diff/textDiff';
import type { TextDiffState } from '../diff/useTextDiffs';
import type { DiffLayout } from '../navigation/route';
import { formatCount } from './format';
import { SideBySideDiff } from './SideBySideDiff';
import { VisibleText } from './VisibleText';

/** Unchanged text longer than this is folded, keeping `foldContext` characters next to each change. */
const foldAbove = 1600;
const foldContext = 300;
/** Inserted, deleted or side-by-side text longer than this shows its start and a "show all". */
const longText = 20_000;

export function TextDiff({
  previous,
  next,
  state,
  layout = 'words',
  testId = 'text-diff',
}: {
  previous: string;
  next: string;
  state: TextDiffState | undefined;
  layout?: DiffLayout;
  testId?: string;
}) {
  if (state === undefined) {
    return (
      <div className="text-diff text-diff-pending" data-testid={testId} data-state="pending" role="status">
        <span className="spinner" aria-hidden="true" /> Diffing {formatCount(previous.length + next.length)} characters{' '}
        {layout === 'words' ? 'word by word' : 'line by line'}…
      </div>
    );
  }
  if (state.kind === 'failed') return <SideBySide testId={testId} previous={previous} next={next} reason={`The word diff failed: ${state.message}`} />;
  if (state.kind === 'gave-up') return <SideBySide testId={testId} previous={previous} next={next} reason={state.reason} />;
  if (state.kind === 'lines') {
    return (
      <div className="text-diff" data-testid={testId} data-state="ready" data-method={state.json ? 'json-lines' : 'lines'} data-thread={state.thread}>
        <SideBySideDiff rows={state.rows} json={state.json} />
      </div>
    );
  }
  return (
    <div className="text-diff" data-testid={testId} data-state="ready" data-method={state.method} data-thread={state.thread}>
      <div className="text-diff-body wrap-text">
        {state.parts.map((part, index) => (
          <Part key={index} part={part} first={index === 0} last={index === state.parts.length - 1} />
        ))}
      </div>
    </div>
  );
}

function Part({ part, first, last }: { part: DiffPart; first: boolean; last: boolean }) {
  if (part.added) {
    return (
      <ins className="diff-ins">
        <LongText text={part.value} markNewlines />
      </ins>
    );
  }
  if (part.removed) {
    return (
      <del className="diff-del">
        <LongText text={part.value} markNewlines />
      </del>
    );
  }
  return <Unchanged text={part.value} first={first} last={last} />;
}

/** Unchanged text, folded to the context next to the changes around it. */
function Unchanged({ text, first, last }: { text: string; first: boolean; last: boolean }) {
  const [open, setOpen] = useState(false);
  if (open || text.length <= foldAbove) return <VisibleText text={text} plainNewlines />;
  const head = first ? '' : text.slice(0, foldContext);
  const tail = last ? '' : text.slice(text.length - foldContext);
  const hidden = text.length - head.length - tail.length;
  return (
    <>
      <VisibleText text={head} plainNewlines />
      <button type="button" className="diff-fold" onClick={() => setOpen(true)} data-testid="diff-fold" title="Show the unchanged text">
        ⋯ {formatCount(hidden)} unchanged characters ⋯
      </button>
      <VisibleText text={tail} plainNewlines />
    </>
  );
}

/**
 * Text that can be long: its first `limit` characters, and a button for the rest. `markNewlines`:
 * a newline also shows as `\n` (inserted or deleted text, where a line break is a change).
 */
export function LongText({ text, limit = longText, markNewlines = false }: { text: string; limit?: number; markNewlines?: boolean }) {
  const [all, setAll] = useState(false);
  const newlines = markNewlines ? { keepNewlines: true } : { plainNewlines: true };
  if (all || text.length <= limit) return <VisibleText text={text} {...newlines} />;
  return (
    <>
      <VisibleText text={text.slice(0, limit)} {...newlines} />
      <button type="button" className="link-button diff-more" onClick={() => setAll(true)}>
        … show all {formatCount(text.length)} characters
      </button>
    </>
  );
}

function SideBySide({ previous, next, reason, testId }: { previous: string; next: string; reason: string; testId: string }) {
  return (
    <div className="text-diff text-diff-gave-up" data-testid={testId} data-state="gave-up">
      <div className="banner banner-warning" data-testid="diff-gave-up-reason">
        {reason}
      </div>
      <div className="side-by-side">
        <div className="side side-previous">
          <div className="side-label muted">Before ({formatCount(previous.length)} characters)</div>
          <div className="wrap-text">
            <LongText text={previous} />
          </div>
        </div>
        <div className="side side-next">
          <div className="side-label muted">After ({formatCount(next.length)} characters)</div>
          <div className="wrap-text">
            <LongText text={next} />
          </div>
        </div>
      </div>
    </div>
  );
}
