/**
 * A full garbage collection on demand, for the one moment it pays: a long run's analysis has just
 * ended. Its working state (hundreds of thousands of call records) is garbage then, but V8
 * collects the old generation only when allocation pushes it to its limit, and what comes next
 * (building the query indexes, in SQLite's memory) allocates almost nothing on the heap: the
 * garbage would stay resident under it. What is live then is little, so the collection is short.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let collect: (() => void) | undefined;

export function collectGarbage(): void {
  if (collect === undefined) {
    // A context made after the flag is set has `gc` (the flag alone exposes nothing in this one).
    // The flag is the process's: set back at once, or every worker started later (the query
    // worker, the next trace's store) would have a global `gc` too.
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as () => void;
    setFlagsFromString('--no-expose-gc');
  }
  collect();
}
