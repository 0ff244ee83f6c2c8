/**
 * The event inspector's width limits, in px: the inspector stays readable and the timeline's lanes
 * stay usable. Until the user drags it, the inspector takes `defaultShare` of the run body, at most
 * `defaultMax` (so at 1024 px the four lanes keep most of the room).
 */
export const inspectorWidthLimits = { min: 300, timelineMin: 480, defaultShare: 0.4, defaultMax: 520 } as const;

/** The divider's own width, in px. */
export const dividerWidth = 7;

/** `width` within the limits for a run body `containerWidth` px wide (the divider included). */
export function clampInspectorWidth(width: number, containerWidth: number): number {
  const max = Math.max(inspectorWidthLimits.min, containerWidth - inspectorWidthLimits.timelineMin - dividerWidth);
  return Math.min(max, Math.max(inspectorWidthLimits.min, width));
}

/** The inspector's width before the user chose one. */
export function defaultInspectorWidth(containerWidth: number): number {
  return clampInspectorWidth(Math.min(inspectorWidthLimits.defaultMax, Math.round(containerWidth * inspectorWidthLimits.defaultShare)), containerWidth);
}

/** A width read back from storage: null (none chosen) when missing or not a positive number. */
export function parseStoredWidth(stored: string | null): number | null {
  const width = stored === null ? Number.NaN : Number(stored);
  return Number.isFinite(width) && width > 0 ? width : null;
}
