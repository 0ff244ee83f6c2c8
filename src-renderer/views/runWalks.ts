/**
 * How the run view's keys move through a run: j / k from step to step (found by the server), n / p
 * from finding to finding, and d to the diff of the request at the cursor.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { EventRow, FindingRow, LoopscopeApi } from '../../shared/api';
import { useApi } from '../api/ApiContext';
import { errorMessage } from '../api/client';
import type { PagedRows } from '../api/usePagedRows';
import { routes, type RunRoute } from '../navigation/route';
import { navigate } from '../navigation/useRoute';
import { findingRoute, nextFinding } from './runModel';

/**
 * The walk through the run's findings (n / p, the header's markers): the finding it stands on,
 * left (`leaveFindings`) when the cursor moves by any other means, so n then goes on from the cursor.
 */
export function useFindingWalk(traceId: string, runPk: number, ordered: readonly FindingRow[], cursorLine: number | null) {
  const [activeFindingId, setActiveFindingId] = useState<number | null>(null);
  useEffect(() => setActiveFindingId(null), [runPk]);
  const goToFinding = useCallback(
    (finding: FindingRow) => {
      setActiveFindingId(finding.findingId);
      navigate(findingRoute(traceId, finding));
    },
    [traceId],
  );
  const leaveFindings = useCallback(() => setActiveFindingId(null), []);
  const moveFinding = (direction: 1 | -1) => {
    const next = nextFinding(ordered, activeFindingId, cursorLine, direction);
    if (next) goToFinding(next);
  };
  return { activeFindingId, goToFinding, moveFinding, leaveFindings };
}

/**
 * j / k: the next or previous step (`onMoved` once it is found). A run can have 250,000 steps: the
 * server finds the step, not a list held here. The walk goes on from the last step asked for, so
 * a held key walks on before each jump lands.
 */
export function useStepWalk(
  route: RunRoute,
  collapsed: number[],
  cursorStep: number | null,
  events: PagedRows<EventRow>,
  onMoved: () => void,
  onError: (message: string) => void,
): (direction: 1 | -1) => void {
  const api = useApi();
  const { traceId, runPk, showAll } = route;
  const inspectorOpen = route.eventId !== null;
  const pendingStep = useRef<number | null>(null);
  useEffect(() => {
    pendingStep.current = null;
  }, [route.step, route.eventId]);
  return (direction) => {
    const current = pendingStep.current ?? route.step ?? cursorStep;
    if (current === null && direction === -1) return;
    const asked = api.stepPosition({
      traceId,
      runPk,
      step: current ?? -1,
      direction: direction === 1 ? 'after' : 'before',
      hideBookkeeping: !showAll,
      collapsedSpans: collapsed,
    });
    pendingStep.current = current;
    void asked.then(
      async (target) => {
        if (target === null || pendingStep.current !== current) return;
        pendingStep.current = target.step;
        onMoved();
        if (!inspectorOpen) {
          navigate(routes.run(traceId, runPk, { step: target.step, showAll, collapsed }));
          return;
        }
        // The inspector follows the cursor: show the step's first event.
        const event = await events.load(target.index);
        if (pendingStep.current === target.step && event)
          navigate(routes.run(traceId, runPk, { step: target.step, eventId: event.eventId, showAll, collapsed }));
      },
      (error: unknown) => onError(errorMessage(error)),
    );
  };
}

/** d: the diff of the request at the cursor's event (or the nearest one at or before it), or a notice saying why there is none. */
export function openRequestDiff(
  api: LoopscopeApi,
  traceId: string,
  runPk: number,
  event: EventRow | undefined,
  setNotice: (notice: string | null) => void,
): void {
  if (!event) {
    setNotice('Select an event first (click it, or j / k), then press d to diff its request.');
    return;
  }
  setNotice(null);
  api.requestAt({ traceId, eventId: event.eventId }).then(
    (request) => {
      if (request === null) setNotice('This run has no model request (nor a model response to rebuild one from): there is nothing to diff.');
      else navigate(routes.requestDiff(traceId, runPk, request.eventId, { fromEventId: request.eventId === event.eventId ? null : event.eventId }));
    },
    (error: unknown) => setNotice(`Could not find the request: ${errorMessage(error)}`),
  );
}
