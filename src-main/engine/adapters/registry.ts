/**
 * The formats Loopscope reads, in detection order: the most specific first, so that a format whose
 * records could pass for another's is claimed by its own adapter.
 */
import { agentsSpanEventsFormat } from './agentsSpanEvents';
import { canonicalDocumentFormat, canonicalFormat } from './canonical/format';
import { clineFormat } from './cline/format';
import { claudeCodeFormat } from './claudeCode/format';
import { codexFormat } from './codex/format';
import { geminiCliFormat } from './geminiCli';
import { httpExchangeFormat } from './httpExchange/format';
import { inspectAiFormat } from './inspectAi';
import { miniSweAgentFormat } from './miniSweAgent';
import { openaiExportFormat } from './openaiExports';
import { openHandsFormat } from './openHands';
import { otelConsoleFormat } from './otel/consoleFormat';
import { otelOtlpFormat } from './otel/otlpFormat';
import { streamChunksFormat } from './streamChunks/format';
import { sweAgentFormat } from './sweAgent';
import type { DetectionSample, FormatAdapter } from './formatAdapter';

export const formatAdapters: readonly FormatAdapter[] = [
  claudeCodeFormat,
  codexFormat,
  httpExchangeFormat,
  streamChunksFormat,
  agentsSpanEventsFormat,
  otelOtlpFormat,
  otelConsoleFormat,
  openaiExportFormat,
  clineFormat,
  sweAgentFormat,
  miniSweAgentFormat,
  openHandsFormat,
  geminiCliFormat,
  inspectAiFormat,
  canonicalDocumentFormat,
  canonicalFormat,
];

export function formatNames(): string[] {
  return formatAdapters.map((adapter) => adapter.name);
}

export function adapterNamed(name: string): FormatAdapter | undefined {
  return formatAdapters.find((adapter) => adapter.name === name);
}

export type Detection = { adapter: FormatAdapter; reason: string } | { adapter: null; reason: string };

export function detectFormat(sample: DetectionSample): Detection {
  for (const adapter of formatAdapters) {
    const reason = adapter.detect(sample);
    if (reason !== null) return { adapter, reason };
  }
  const seen = sample.values.length === 0 ? 'no JSON record in its first lines' : `${sample.values.length} JSON records in its first lines`;
  return { adapter: null, reason: `no known trace format (tried ${formatNames().join(', ')}); the file has ${seen}` };
}
