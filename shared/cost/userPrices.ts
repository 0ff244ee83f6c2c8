/**
 * A user price file: prices for models the public price table does not know (a private model, a
 * self-hosted one) or that the user pays differently for (docs/semantics.md §18).
 *
 *   { "models": [ { "provider": "acme", "model": "acme-coder-*", "input_mtok": 1.0, "output_mtok": 4.0,
 *                   "cache_read_mtok": 0.1, "cache_write_mtok": 1.25 } ] }
 *
 * Objects are strict, unlike the trace schemas: a misspelt `cache_read_mtoks` ignored would price
 * every cache read at the input price without a word, so an unknown key is an error.
 */
import { z } from 'zod';

/** USD per million tokens. */
const usdPerMillionTokens = z.number().nonnegative();

const userPriceSchema = z.strictObject({
  /** The provider as the trace names it, compared without case; absent: any provider. */
  provider: z.string().trim().min(1).optional(),
  /** A model id, compared without case; `*` stands for any run of characters. */
  model: z.string().trim().min(1),
  input_mtok: usdPerMillionTokens,
  output_mtok: usdPerMillionTokens,
  /** Absent: cache reads cost what other input tokens cost. */
  cache_read_mtok: usdPerMillionTokens.optional(),
  /** Absent: cache writes cost what other input tokens cost. */
  cache_write_mtok: usdPerMillionTokens.optional(),
});

export const userPricesSchema = z.strictObject({ models: z.array(userPriceSchema) });

export type UserPrices = z.infer<typeof userPricesSchema>;
export type UserPrice = UserPrices['models'][number];

/** Reads a user price file; throws an Error naming the file and what is wrong, at which path. */
export function parseUserPrices(text: string, fileName: string): UserPrices {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`${fileName}: not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  const parsed = userPricesSchema.safeParse(json);
  if (parsed.success) return parsed.data;
  // Every problem at once: the file is small, and fixing it one error per run is tedious.
  const problems = parsed.error.issues.map((issue) => `${issue.path.length === 0 ? '(top level)' : issue.path.join('.')}: ${issue.message}`);
  throw new Error(`${fileName}: ${problems.join('; ')}`);
}

/** `acme-coder-*` → /^acme-coder-.*$/i: every other character stands for itself. */
export function userModelPattern(model: string): RegExp {
  const source = model
    .split('*')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}$`, 'i');
}

/** Whether a price entry applies to a response of this provider (as recorded) and model id. */
export function userPriceMatches(entry: UserPrice, provider: string | undefined, model: string): boolean {
  if (entry.provider !== undefined && entry.provider.toLowerCase() !== provider?.toLowerCase()) return false;
  return userModelPattern(entry.model).test(model);
}
