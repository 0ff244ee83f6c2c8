/** How the API names a trace: by its file's absolute path, hashed. */
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';

/** Stable for a path across launches, so a URL naming a trace still names it after a restart. */
export function traceIdFor(path: string): string {
  return createHash('sha256').update(resolve(path)).digest('hex').slice(0, 16);
}
