/**
 * Runs `then` when the page is idle, at the latest after `timeoutMs`; returns what cancels it.
 * Browsers without requestIdleCallback (Safari, for `loopscope serve`) run it on a timer instead.
 */
export function whenIdle(then: () => void, timeoutMs: number): () => void {
  if (typeof window.requestIdleCallback === 'function') {
    const handle = window.requestIdleCallback(then, { timeout: timeoutMs });
    return () => window.cancelIdleCallback(handle);
  }
  const handle = window.setTimeout(then, Math.min(timeoutMs, 50));
  return () => window.clearTimeout(handle);
}
