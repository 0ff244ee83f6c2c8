/**
 * Where `--otlp` keeps the traces it receives (docs/otlp.md): one OTLP JSON file in the cache's
 * `otlp/` folder, which the library follows as one of its directories, so a received run is a run
 * of a trace like any other (reopened, searched, compared, exported).
 */
import { z } from 'zod';
import { join } from 'node:path';

export function receivedTracesDir(cacheDir: string): string {
  return join(cacheDir, 'otlp');
}

export function receivedTracesFile(cacheDir: string): string {
  return join(receivedTracesDir(cacheDir), 'received.jsonl');
}

/** `--otlp [PORT]` and `--otlp-token T`: the port absent, 4318 when free. */
export const otlpSettingSchema = z.strictObject({ port: z.number().int().min(0).max(65535).optional(), token: z.string().min(1).optional() });
export type OtlpSetting = z.infer<typeof otlpSettingSchema>;

/** The environment variable `loopscope open --otlp` hands the setting to the desktop app in (JSON). */
export const otlpVariable = 'LOOPSCOPE_OTLP';
