/** Placeholder: the agents-span-events adapter is being written; it recognises nothing yet. */
import type { FormatAdapter } from './formatAdapter';

export const agentsSpanEventsFormat: FormatAdapter = {
  name: 'agents-span-events',
  detect: () => null,
  createMapper: () => ({ map: () => ({ reason: 'the agents-span-events adapter is not written yet' }), finish() {} }),
};
