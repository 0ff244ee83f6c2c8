/**
 * Where the window was: position, size and whether it was maximized, kept as JSON in the
 * user-data folder and restored only when it would still be reachable on a connected display.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { Rectangle } from 'electron';
import { z } from 'zod';

export const windowStateSchema = z.object({
  x: z.number(),
  y: z.number(),
  width: z.number().min(200).max(100_000),
  height: z.number().min(150).max(100_000),
  maximized: z.boolean(),
});
export type WindowState = z.infer<typeof windowStateSchema>;

/** The saved state, or null when there is none or it is not a valid state. */
export function readWindowState(file: string): WindowState | null {
  try {
    const parsed = windowStateSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export function writeWindowState(file: string, state: WindowState): void {
  const partial = `${file}.partial`;
  writeFileSync(partial, `${JSON.stringify(state)}\n`);
  renameSync(partial, file);
}

/** How much of the window must lie on one display, its top edge included, to be grabbed and moved. */
const reachable = { width: 100, height: 50 };

/**
 * The saved bounds if the window's top edge and a grabbable part of it fall on one of the
 * displays' work areas; null when it would open off screen (a display was unplugged or changed).
 */
export function restorableBounds(state: WindowState, workAreas: readonly Rectangle[]): Rectangle | null {
  const bounds = { x: state.x, y: state.y, width: state.width, height: state.height };
  const onScreen = workAreas.some((area) => {
    const overlapWidth = Math.min(bounds.x + bounds.width, area.x + area.width) - Math.max(bounds.x, area.x);
    const overlapHeight = Math.min(bounds.y + bounds.height, area.y + area.height) - Math.max(bounds.y, area.y);
    const topEdgeOnArea = bounds.y >= area.y && bounds.y < area.y + area.height;
    return topEdgeOnArea && overlapWidth >= reachable.width && overlapHeight >= reachable.height;
  });
  return onScreen ? bounds : null;
}
