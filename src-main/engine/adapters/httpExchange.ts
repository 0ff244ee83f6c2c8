/** Placeholder: the http-exchange adapter is being written; it recognises nothing yet. */
import type { FormatAdapter } from './formatAdapter';

export const httpExchangeFormat: FormatAdapter = {
  name: 'http-exchange',
  detect: () => null,
  createMapper: () => ({ map: () => ({ reason: 'the http-exchange adapter is not written yet' }), finish() {} }),
};
