/**
 * How a sub-agent's run is named where its parent is known: the part of its id after the
 * parent's (`<session>/agent-a3f9c21` under `<session>` reads `agent-a3f9c21`), so two children
 * of one session do not truncate to the same session id. Pure, for the runs table and headers.
 */
export function childRunName(runId: string, parentRunId: string): string {
  const prefix = `${parentRunId}/`;
  return runId.startsWith(prefix) && runId.length > prefix.length ? runId.slice(prefix.length) : runId;
}

/** "not found; looked in A and in B" for the folders a missing sub-agent transcript was looked for in. */
export function missingTranscriptNote(missing: { file: string | null; lookedIn: readonly string[] }, childRunId: string): string {
  const what = missing.file === null ? `sub-agent run ${childRunId}` : `sub-agent transcript ${missing.file}`;
  if (missing.lookedIn.length === 0) return `${what} is not in this trace`;
  return `${what} not found; looked in ${missing.lookedIn.join(' and in ')}`;
}
