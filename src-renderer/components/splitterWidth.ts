/** The event inspector's width limits, in px: the inspector stays readable and the timeline's lanes stay usable. */
export const inspectorWidthLimits = { min: 300, default: 520, timelineMin: 480 } as const;

/** The divider's own width, in px. */
export const dividerWidth = 7;

/** `width` within the limits for a run body `containerWidth` px wide (the divider included). */
export function clampInspectorWidth(width: number, containerWidth: number): number {
  const max = Math.max(inspectorWidthLimits.min, containerWidth - inspectorWidthLimits.timelineMin - dividerWidth);
  return Math.min(max, Math.max(inspectorWidthLimits.min, width));
}

/** A width read back from storage: the default when missing or not a positive number. */
export function parseStoredWidth(stored: string | null): number {
  const width = stored === null ? Number.NaN : Number(stored);
  return Number.isFinite(width) && width > 0 ? width : inspectorWidthLimits.default;
}
