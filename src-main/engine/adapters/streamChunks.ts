/** Placeholder: the stream-chunks adapter is being written; it recognises nothing yet. */
import type { FormatAdapter } from './formatAdapter';

export const streamChunksFormat: FormatAdapter = {
  name: 'stream-chunks',
  detect: () => null,
  createMapper: () => ({ map: () => ({ reason: 'the stream-chunks adapter is not written yet' }), finish() {} }),
};
