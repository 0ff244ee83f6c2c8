/** Placeholder: the codex adapter is being written; it recognises nothing yet. */
import type { FormatAdapter } from './formatAdapter';

export const codexFormat: FormatAdapter = {
  name: 'codex',
  detect: () => null,
  createMapper: () => ({ map: () => ({ reason: 'the codex adapter is not written yet' }), finish() {} }),
};
