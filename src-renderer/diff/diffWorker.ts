/**
 * The diff worker: word diffs off the page's thread, so a long message never freezes the UI.
 * A job's texts arrive in pieces; complete jobs queue up and run one at a time; a `cancel` that
 * arrives before its job starts drops it (the view left, or asked for another pair), so the
 * worker never works for nobody.
 */
import type { DiffLayout } from '../navigation/route';
import { sideBySide } from './sideBySide';
import { diffTexts, type DiffLimits } from './textDiff';
import type { DiffWorkerReply, DiffWorkerRequest } from './protocol';

interface WorkerScope {
  onmessage: ((event: MessageEvent<DiffWorkerRequest>) => void) | null;
  postMessage(message: DiffWorkerReply): void;
}

interface Job {
  id: number;
  previousLength: number;
  limits: DiffLimits;
  preferLines: boolean;
  layout: DiffLayout;
  chunks: number;
  received: string[];
}

const scope = self as unknown as WorkerScope;
/** Jobs whose texts are still arriving. */
const arriving = new Map<number, Job>();
const queue: { id: number; previous: string; next: string; limits: DiffLimits; preferLines: boolean; layout: DiffLayout }[] = [];
let scheduled = false;

function runNext(): void {
  scheduled = false;
  const job = queue.shift();
  if (job === undefined) return;
  try {
    const result =
      job.layout === 'side-by-side' ? sideBySide(job.previous, job.next, job.limits) : diffTexts(job.previous, job.next, job.limits, job.preferLines);
    scope.postMessage({ id: job.id, result });
  } catch (error) {
    scope.postMessage({ id: job.id, error: error instanceof Error ? error.message : String(error) });
  }
  schedule();
}

/** One job per task, so cancels posted meanwhile are read before the next job starts. */
function schedule(): void {
  if (scheduled || queue.length === 0) return;
  scheduled = true;
  setTimeout(runNext, 0);
}

scope.onmessage = (event) => {
  const message = event.data;
  switch (message.type) {
    case 'diff':
      arriving.set(message.id, {
        id: message.id,
        previousLength: message.previousLength,
        limits: message.limits,
        preferLines: message.preferLines,
        layout: message.layout,
        chunks: message.chunks,
        received: [],
      });
      return;
    case 'chunk': {
      const job = arriving.get(message.id);
      if (!job) return;
      job.received.push(message.text);
      if (job.received.length < job.chunks) return;
      arriving.delete(job.id);
      const both = job.received.join('');
      queue.push({
        id: job.id,
        previous: both.slice(0, job.previousLength),
        next: both.slice(job.previousLength),
        limits: job.limits,
        preferLines: job.preferLines,
        layout: job.layout,
      });
      schedule();
      return;
    }
    case 'cancel': {
      arriving.delete(message.id);
      const index = queue.findIndex((job) => job.id === message.id);
      if (index !== -1) queue.splice(index, 1);
      return;
    }
  }
};
