/**
 * The page's side of the diff worker: one worker for the page, started on the first diff, each
 * diff a promise. When the browser refuses the worker (a policy, an old shell), the diff runs on
 * the page instead, and the result says so (`thread: 'page'`); the refusal is a console error, which
 * the desktop app writes to its log, so a broken worker shows instead of a quietly slower page.
 */
import type { DiffLayout } from '../navigation/route';
import { pieces, type DiffResult, type DiffWorkerReply, type DiffWorkerRequest } from './protocol';
import { sideBySide } from './sideBySide';
import { defaultDiffLimits, diffTexts, type DiffLimits } from './textDiff';

export type BackgroundDiffResult = DiffResult & { thread: 'worker' | 'page' };

interface Pending {
  previous: string;
  next: string;
  limits: DiffLimits;
  preferLines: boolean;
  layout: DiffLayout;
  resolve: (result: BackgroundDiffResult) => void;
  reject: (error: Error) => void;
}

let worker: Worker | null | undefined;
let nextId = 1;
const pending = new Map<number, Pending>();

function onPage(job: Pending): void {
  // A task of its own, so the caller's render finishes first.
  setTimeout(() => {
    try {
      const result =
        job.layout === 'side-by-side' ? sideBySide(job.previous, job.next, job.limits) : diffTexts(job.previous, job.next, job.limits, job.preferLines);
      job.resolve({ ...result, thread: 'page' });
    } catch (error) {
      job.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }, 0);
}

function reportWorkerRefused(reason: string): void {
  console.error(`Loopscope: the diff worker could not start (${reason}); diffs run on the page`);
}

/** The worker failed as a whole (it could not load): every diff waiting on it runs on the page. */
function abandonWorker(): void {
  worker?.terminate();
  worker = null;
  const waiting = [...pending.values()];
  pending.clear();
  for (const job of waiting) onPage(job);
}

/**
 * Diffs run on the page from now on, with no worker tried: an HTML report is one file, and a
 * worker needs a file (or a blob: URL its strict policy does not allow) to start from.
 */
export function runDiffsOnPage(): void {
  worker = null;
}

function diffWorker(): Worker | null {
  if (worker !== undefined) return worker;
  try {
    worker = new Worker(new URL('./diffWorker.ts', import.meta.url), { type: 'module', name: 'loopscope-diff' });
  } catch (error) {
    reportWorkerRefused(error instanceof Error ? error.message : String(error));
    worker = null;
    return worker;
  }
  worker.onmessage = (event: MessageEvent<DiffWorkerReply>) => {
    const reply = event.data;
    const job = pending.get(reply.id);
    if (!job) return;
    pending.delete(reply.id);
    if ('error' in reply) job.reject(new Error(reply.error));
    else job.resolve({ ...reply.result, thread: 'worker' });
  };
  worker.onerror = (event) => {
    event.preventDefault();
    reportWorkerRefused(event.message || 'it failed to load');
    abandonWorker();
  };
  return worker;
}

export interface BackgroundDiff {
  result: Promise<BackgroundDiffResult>;
  /** The caller no longer wants it: a diff not started yet is dropped. */
  cancel(): void;
}

/** `preferLines`: diff line by line first (JSON), see `diffTexts`; `layout`: a word diff or two columns of lines (sideBySide.ts). */
export function diffInBackground(
  previous: string,
  next: string,
  options: { limits?: DiffLimits; preferLines?: boolean; layout?: DiffLayout } = {},
): BackgroundDiff {
  const limits = options.limits ?? defaultDiffLimits;
  const preferLines = options.preferLines ?? false;
  const layout = options.layout ?? 'words';
  const id = nextId;
  nextId += 1;
  let settle: Pick<Pending, 'resolve' | 'reject'> | undefined;
  const result = new Promise<BackgroundDiffResult>((resolve, reject) => (settle = { resolve, reject }));
  const job: Pending = { previous, next, limits, preferLines, layout, ...settle! };
  const target = diffWorker();
  if (target === null) {
    onPage(job);
    return { result, cancel: () => undefined };
  }
  pending.set(id, job);
  const chunks = [...pieces(previous), ...pieces(next)];
  target.postMessage({
    type: 'diff',
    id,
    previousLength: previous.length,
    nextLength: next.length,
    chunks: chunks.length,
    limits,
    preferLines,
    layout,
  } satisfies DiffWorkerRequest);
  // The first piece now, each next one in a task of its own: the page stays free between them.
  let sent = 0;
  const sendPiece = (): void => {
    if (!pending.has(id) || worker !== target) return;
    target.postMessage({ type: 'chunk', id, text: chunks[sent]! } satisfies DiffWorkerRequest);
    sent += 1;
    if (sent < chunks.length) setTimeout(sendPiece, 0);
  };
  sendPiece();
  return {
    result,
    cancel: () => {
      if (!pending.delete(id)) return;
      worker?.postMessage({ type: 'cancel', id } satisfies DiffWorkerRequest);
    },
  };
}
