/** Placeholder: the claude-code adapter is being written; it recognises nothing yet. */
import type { FormatAdapter } from './formatAdapter';

export const claudeCodeFormat: FormatAdapter = {
  name: 'claude-code',
  detect: () => null,
  createMapper: () => ({ map: () => ({ reason: 'the claude-code adapter is not written yet' }), finish() {} }),
};
