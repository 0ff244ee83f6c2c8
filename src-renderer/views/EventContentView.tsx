/**
 * What an event says, read for a person, at the top of the inspector: a result's Output (decoded
 * text with line numbers, or markdown drawn as its structure, with exit code and duration), the
 * Arguments of each call an event issued (pretty JSON, a shell command as the command line) with
 * the call's result Output beside it, the call a result answers, and a prompt's or task's text.
 * The JSON tree and the raw line below stay the record as written.
 */
import { useMemo, useState } from 'react';
import type { ApiResponse, CallRow, EventContent } from '../../shared/api';
import { phrasesOf, queryWords, type Phrase } from '../../shared/searchMatches';
import { readableArguments } from '../../shared/toolArguments';
import { decodeToolOutput, looksLikeMarkdown, type DecodedOutput } from '../../shared/toolOutput';
import { useQuery } from '../api/useQuery';
import { CallStateBadge } from '../components/Badges';
import { formatDuration } from '../components/format';
import { MarkdownText } from '../components/MarkdownText';
import { OutputText } from '../components/OutputText';
import { VisibleText } from '../components/VisibleText';
import { formatRoute, routes } from '../navigation/route';
import '../styles/event-content.css';

type EventDetail = ApiResponse<'event'>;

/** The search's words as the index matches them; none without a search. */
export function useSearchPhrases(query: string | null): readonly Phrase[] {
  return useMemo(() => (query === null ? [] : phrasesOf(queryWords(query))), [query]);
}

export function EventContentView({ traceId, detail, query }: { traceId: string; detail: EventDetail; query: string | null }) {
  const phrases = useSearchPhrases(query);
  const { event, content, answers } = detail;
  return (
    <>
      {answers !== null && <AnsweredCall traceId={traceId} runPk={detail.runPk} call={answers} query={query} />}
      {event.type === 'tool_result' && content !== null && (
        <section data-testid="event-output">
          <h4>Output</h4>
          <ResultOutput output={content.output} error={content.error} phrases={phrases} testId="output-text" />
        </section>
      )}
      {detail.calls.length > 0 && <IssuedCalls traceId={traceId} runPk={detail.runPk} calls={detail.calls} content={content} phrases={phrases} query={query} />}
      {content?.text != null && content.text.trim() !== '' && <EventText type={event.type} text={content.text} phrases={phrases} />}
    </>
  );
}

/** "Answers the Bash call toolu_…, issued at step 3": the way back from a result to its call. */
function AnsweredCall({ traceId, runPk, call, query }: { traceId: string; runPk: number; call: CallRow; query: string | null }) {
  return (
    <p className="inspector-actions answered-call" data-testid="answered-call">
      Answers the{' '}
      <strong>
        <VisibleText text={call.name} />
      </strong>{' '}
      call <code className="muted">{<VisibleText text={call.callId} />}</code>
      {call.step !== null && <> issued at step {call.step}</>} —{' '}
      <a href={formatRoute(routes.run(traceId, runPk, { step: call.step, eventId: call.eventId, query }))} data-testid="open-call">
        open the call
      </a>
    </p>
  );
}

function errorText(error: unknown): string | null {
  if (error === undefined || error === null) return null;
  if (typeof error === 'string') return error;
  if (typeof error === 'object') {
    const fields = error as Record<string, unknown>;
    const message = [fields['message'], fields['safe_message']].find((value) => typeof value === 'string');
    const code = typeof fields['code'] === 'string' ? fields['code'] : null;
    if (typeof message === 'string') return code === null ? message : `${code}: ${message}`;
    if (code !== null) return code;
  }
  return JSON.stringify(error);
}

/** Exit code and duration the output was wrapped with, as badges. */
function OutputFacts({ decoded }: { decoded: DecodedOutput }) {
  if (decoded.exitCode === null && decoded.durationMs === null && decoded.decodedFrom === null) return null;
  return (
    <p className="output-facts">
      {decoded.exitCode !== null && (
        <span className={`badge ${decoded.exitCode === 0 ? 'exit-ok' : 'exit-failed'}`} data-testid="output-exit-code">
          exit code {decoded.exitCode}
        </span>
      )}{' '}
      {decoded.durationMs !== null && (
        <span className="badge" data-testid="output-duration">
          {formatDuration(decoded.durationMs)}
        </span>
      )}{' '}
      {decoded.decodedFrom !== null && <span className="muted">decoded from {decoded.decodedFrom}</span>}
    </p>
  );
}

/**
 * A text view of markdown-looking text, drawn as structure by default; plain with line numbers
 * while a search is open, since that is where its matches are marked.
 */
function ReadableText({
  text,
  markdown,
  phrases,
  testId,
  label,
}: {
  text: string;
  markdown: boolean;
  phrases: readonly Phrase[];
  testId: string;
  label: string;
}) {
  const [rendered, setRendered] = useState(markdown && phrases.length === 0);
  return (
    <>
      {markdown && (
        <div className="view-toggle" role="group" aria-label={`${label}: how to show it`}>
          <button type="button" aria-pressed={rendered} onClick={() => setRendered(true)} data-testid="show-rendered">
            Rendered
          </button>
          <button type="button" aria-pressed={!rendered} onClick={() => setRendered(false)} data-testid="show-plain">
            Text
          </button>
        </div>
      )}
      {markdown && rendered ? (
        <MarkdownText text={text} testId={`${testId}-rendered`} />
      ) : (
        <OutputText text={text} phrases={phrases} testId={testId} label={label} />
      )}
    </>
  );
}

function ResultOutput({ output, error, phrases, testId }: { output: unknown; error: unknown; phrases: readonly Phrase[]; testId: string }) {
  const decoded = useMemo(() => decodeToolOutput(output), [output]);
  const written = errorText(error);
  // An error that only restates the exit code the badge shows says nothing more.
  const failure = written !== null && decoded.exitCode !== null && new RegExp(`exit code ${decoded.exitCode}$`).test(written) ? null : written;
  return (
    <>
      <OutputFacts decoded={decoded} />
      {failure !== null && (
        <p className="output-error" data-testid="output-error">
          <VisibleText text={failure} />
        </p>
      )}
      {output === undefined || output === null ? (
        <p className="muted">The result records no output.</p>
      ) : (
        <ReadableText
          key={String(phrases.length > 0)}
          text={decoded.text}
          markdown={decoded.kind === 'markdown'}
          phrases={phrases}
          testId={testId}
          label="Tool output"
        />
      )}
    </>
  );
}

function IssuedCalls({
  traceId,
  runPk,
  calls,
  content,
  phrases,
  query,
}: {
  traceId: string;
  runPk: number;
  calls: readonly CallRow[];
  content: EventContent | null;
  phrases: readonly Phrase[];
  query: string | null;
}) {
  return (
    <section data-testid="issued-calls">
      <h4>Tool calls issued</h4>
      {calls.map((call) => {
        const written = content?.arguments.find((argument) => argument.callId === call.callId);
        return (
          <IssuedCall
            key={call.callIndex}
            traceId={traceId}
            runPk={runPk}
            call={call}
            written={written === undefined ? null : written.value}
            phrases={phrases}
            query={query}
          />
        );
      })}
    </section>
  );
}

/** One call: its Arguments, and beside them its result's Output, fetched when the call has one. */
function IssuedCall({
  traceId,
  runPk,
  call,
  written,
  phrases,
  query,
}: {
  traceId: string;
  runPk: number;
  call: CallRow;
  written: unknown;
  phrases: readonly Phrase[];
  query: string | null;
}) {
  const args = useMemo(() => (written === null ? null : readableArguments(written)), [written]);
  return (
    <div className="call-pair" data-testid="issued-call" data-call-id={call.callId}>
      <div className="call-pair-head">
        <strong>
          <VisibleText text={call.name} />
        </strong>{' '}
        <CallStateBadge state={call.state} errorCode={call.errorCode} /> <code className="muted">{<VisibleText text={call.callId} />}</code>
      </div>
      <div className="call-pair-body">
        <div className="call-arguments" data-testid="event-arguments">
          <h5>Arguments</h5>
          {call.argsError !== null && (
            <p className="output-error">
              <VisibleText text={call.argsError} />
            </p>
          )}
          {args === null ? (
            call.argsSummary !== null && (
              <p className="wrap-text">
                <VisibleText text={call.argsSummary} />
              </p>
            )
          ) : (
            <>
              {args.command !== null && (
                <pre className="call-command" data-testid="call-command" title="The command the call runs">
                  <span className="muted" aria-hidden="true">
                    ${' '}
                  </span>
                  <VisibleText text={args.command} plainNewlines />
                </pre>
              )}
              <OutputText text={args.pretty} phrases={phrases} testId="arguments-json" label="Arguments" />
            </>
          )}
        </div>
        <div className="call-result">
          {call.answerEventId === null ? (
            <p className="muted">{call.state === 'dangling' ? 'No result was recorded for this call.' : 'No result.'}</p>
          ) : (
            <CallResult traceId={traceId} runPk={runPk} call={call} answerEventId={call.answerEventId} phrases={phrases} query={query} />
          )}
        </div>
      </div>
    </div>
  );
}

function CallResult({
  traceId,
  runPk,
  call,
  answerEventId,
  phrases,
  query,
}: {
  traceId: string;
  runPk: number;
  call: CallRow;
  answerEventId: number;
  phrases: readonly Phrase[];
  query: string | null;
}) {
  const result = useQuery(`event:${traceId}:${answerEventId}:call-result`, (api) => api.event({ traceId, eventId: answerEventId }));
  // The result's own step once known (a result belongs to the step of the call it answers until then).
  const step = result.status === 'ready' ? result.data.event.step : call.step;
  const label = call.state === 'unexecuted' ? 'not-executed mark' : 'result';
  return (
    <>
      <h5>
        {call.state === 'unexecuted' ? 'Not executed' : 'Result'}{' '}
        <a href={formatRoute(routes.run(traceId, runPk, { step, eventId: answerEventId, query }))} data-testid="open-result">
          → {label}
        </a>
      </h5>
      {result.status === 'loading' && <p className="muted">Loading the {label}…</p>}
      {result.status === 'error' && <p className="muted">The {label} could not be read.</p>}
      {result.status === 'ready' &&
        (result.data.content === null ? (
          result.data.event.summary !== null && (
            <p className="wrap-text">
              <VisibleText text={result.data.event.summary} />
            </p>
          )
        ) : (
          <ResultOutput output={result.data.content.output} error={result.data.content.error} phrases={phrases} testId="call-result-output" />
        ))}
    </>
  );
}

const textTitles: Readonly<Record<string, string>> = { model_response: 'Text', run_start: 'Task', unknown: 'Prompt' };

function EventText({ type, text, phrases }: { type: string; text: string; phrases: readonly Phrase[] }) {
  const title = textTitles[type] ?? 'Text';
  return (
    <section data-testid="event-text">
      <h4>{title}</h4>
      <ReadableText key={String(phrases.length > 0)} text={text} markdown={looksLikeMarkdown(text)} phrases={phrases} testId="event-text-body" label={title} />
    </section>
  );
}
