import { MiddleEllipsis } from './MiddleEllipsis';
import { visibleText } from './VisibleText';
import '../styles/layout.css';

/**
 * Where something is: "run · step 3 · line 14". The run id gives way (cut in the middle) before the
 * step and the line, which tell rows of one run apart; the whole is on hover. `runId` undefined: the
 * list has one run, so only the step and the line are shown.
 */
export function RunStepLine({ runId, step, line }: { runId?: string | null; step: number | null; line: number | null }) {
  const where = [step !== null ? `step ${step}` : null, line !== null ? `line ${line}` : null].filter((part) => part !== null).join(' · ');
  if (runId === undefined) {
    return (
      <span className="run-step-line" title={where}>
        <span className="run-step-line-where">{where}</span>
      </span>
    );
  }
  const run = runId ?? 'no run';
  const suffix = where === '' ? '' : ` · ${where}`;
  return (
    <span className="run-step-line">
      <MiddleEllipsis text={run} kind="id" title={`${visibleText(run)}${suffix}`} />
      <span className="run-step-line-where">{suffix}</span>
    </span>
  );
}
