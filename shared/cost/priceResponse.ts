/**
 * What a model response cost, from the token counts its trace recorded (docs/semantics.md §18):
 * a user price file first, then the price table of `@pydantic/genai-prices`, whose data ships with
 * the package (no network), so prices are those of the installed version.
 *
 * Token counts as Loopscope records them, which are also genai-prices' own: `input_tokens` is the
 * whole prompt, cache reads and cache writes included; `output_tokens` the whole output, reasoning
 * included. The parts with a price of their own are taken out of their total and priced apart;
 * whatever is left is priced at the total's price.
 */
import {
  calcPrice,
  findProvider,
  type ConditionalPrice,
  type ModelPrice,
  type PriceCalculation,
  type Provider,
  type TieredPrices,
} from '@pydantic/genai-prices';
import { userPriceMatches, type UserPrices } from './userPrices';

export interface ResponseUsage {
  provider: string | null;
  model: string | null;
  /** The whole prompt: uncached tokens, cache reads and cache writes. */
  input_tokens: number | null;
  /** The part of `input_tokens` read from the prompt cache. */
  cached_input_tokens: number | null;
  /** The part of `input_tokens` written to the prompt cache. */
  cache_write_tokens: number | null;
  /** The whole output, reasoning included. */
  output_tokens: number | null;
  /** The part of `output_tokens` that was reasoning. */
  reasoning_tokens: number | null;
}

export type ResponsePrice =
  | {
      status: 'priced';
      usd: number;
      source: 'user' | 'genai-prices';
      /** The model as the price table names it (for a user price, its `model` as written). */
      priced_as: string;
    }
  | { status: 'no_price'; reason: string };

/** USD per million tokens (per thousand for `requests_kcount`), flat or by the prompt's size. */
type Rate = number | TieredPrices;

/** A response's counts, a missing one as 0. */
type Counts = { input: number; cacheRead: number; cacheWrite: number; output: number; reasoning: number };

/** How one (provider, model) pair is priced: looked up once, then only the arithmetic per response. */
type Lookup = { source: 'user' | 'genai-prices'; pricedAs: string; prices: ModelPrice | Dated } | { reason: string };

const noUserPrices: UserPrices = { models: [] };
const lookups = new WeakMap<UserPrices, Map<string, Lookup>>();
/** Distinct pairs are few in real traces; the bound only keeps a hostile one from growing without end. */
const maxLookups = 10_000;

const countFields = ['input_tokens', 'cached_input_tokens', 'cache_write_tokens', 'output_tokens', 'reasoning_tokens'] as const;

export function priceResponse(usage: ResponseUsage, options: { userPrices?: UserPrices; at?: Date } = {}): ResponsePrice {
  if (usage.model === null || usage.model === '') return noPrice('no model recorded');
  if (countFields.every((field) => usage[field] === null)) return noPrice('no usage recorded');
  for (const field of countFields) {
    const value = usage[field];
    if (value !== null && !(Number.isFinite(value) && value >= 0)) return noPrice(`invalid ${field}: ${value}`);
  }
  // A count not recorded is none: a response that records only its output tokens has them priced.
  const counts: Counts = {
    input: usage.input_tokens ?? 0,
    cacheRead: usage.cached_input_tokens ?? 0,
    cacheWrite: usage.cache_write_tokens ?? 0,
    output: usage.output_tokens ?? 0,
    reasoning: usage.reasoning_tokens ?? 0,
  };
  // Counts that contradict each other have no price: any price would be a guess at which is wrong.
  if (counts.cacheRead + counts.cacheWrite > counts.input) {
    return noPrice(`cache reads and writes (${counts.cacheRead + counts.cacheWrite}) exceed the input tokens (${counts.input})`);
  }
  if (counts.reasoning > counts.output) return noPrice(`reasoning tokens (${counts.reasoning}) exceed the output tokens (${counts.output})`);

  const userPrices = options.userPrices ?? noUserPrices;
  let cache = lookups.get(userPrices);
  if (cache === undefined) lookups.set(userPrices, (cache = new Map()));
  const key = `${usage.provider ?? ''}\u0000${usage.model}`;
  let lookup = cache.get(key);
  if (lookup === undefined) {
    if (cache.size >= maxLookups) cache.clear();
    lookup = lookUp(usage.provider, usage.model, userPrices);
    cache.set(key, lookup);
  }
  if ('reason' in lookup) return noPrice(lookup.reason);

  let prices: ModelPrice;
  if (lookup.prices instanceof Dated) {
    try {
      prices = lookup.prices.at(options.at);
    } catch (error) {
      return noPrice(`price table error for "${lookup.pricedAs}": ${message(error)}`);
    }
  } else {
    prices = lookup.prices;
  }
  const usd = usdFor(prices, counts, lookup.pricedAs);
  return typeof usd === 'string' ? noPrice(usd) : { status: 'priced', usd, source: lookup.source, priced_as: lookup.pricedAs };
}

/**
 * The arithmetic genai-prices' `calcPrice` does for these five counts (a test holds the two equal over
 * its whole table), done here because `calcPrice` costs 10–20 µs a call, seconds over a million
 * responses. A part without a price of its own stays in its total: cache tokens of a model without
 * cache prices cost what input tokens cost, reasoning without a reasoning price what output costs.
 */
function usdFor(prices: ModelPrice, counts: Counts, pricedAs: string): number | string {
  const input = prices['input_mtok'];
  const output = prices['output_mtok'];
  if (input === undefined && counts.input > 0) return `model "${pricedAs}" has no price for input tokens`;
  if (output === undefined && counts.output > 0) return `model "${pricedAs}" has no price for output tokens`;
  const cacheRead = prices['cache_read_mtok'];
  const cacheWrite = prices['cache_write_mtok'];
  const reasoning = prices['output_reasoning_mtok'];
  const perRequest = prices['requests_kcount'];
  // Tiered prices step up with the size of the whole prompt, for every kind of token.
  const part = (rate: Rate | undefined, tokens: number): number => (rate === undefined || tokens <= 0 ? 0 : (rateFor(rate, counts.input) * tokens) / 1e6);
  const uncached = counts.input - (cacheRead === undefined ? 0 : counts.cacheRead) - (cacheWrite === undefined ? 0 : counts.cacheWrite);
  const answer = counts.output - (reasoning === undefined ? 0 : counts.reasoning);
  return (
    part(input, uncached) +
    part(cacheRead, counts.cacheRead) +
    part(cacheWrite, counts.cacheWrite) +
    part(output, answer) +
    part(reasoning, counts.reasoning) +
    (perRequest === undefined ? 0 : rateFor(perRequest, counts.input) / 1000)
  );
}

/** A tier applies once the prompt is larger than its start; the highest such tier wins. */
function rateFor(rate: Rate, promptTokens: number): number {
  if (typeof rate === 'number') return rate;
  let price = rate.base;
  let from = -1;
  for (const tier of rate.tiers) {
    if (promptTokens > tier.start && tier.start > from) {
      price = tier.price;
      from = tier.start;
    }
  }
  return price;
}

/**
 * The user's prices first (first matching entry), then genai-prices' table. Each model id is tried
 * whole, then without its leading `provider/` prefixes one at a time (`openai/gpt-4o` → `gpt-4o`).
 * In the table, the recorded provider is tried first, when genai-prices knows it by its id or its
 * loose names (`vertex_ai`, `gemini` → google, `bedrock` → aws); then the provider genai-prices
 * finds by the model id itself, as a trace through a gateway may name the gateway, not the vendor.
 */
function lookUp(recordedProvider: string | null, model: string, userPrices: UserPrices): Lookup {
  const provider = recordedProvider?.trim() || undefined;
  const whole = model.trim();
  if (whole === '') return { reason: 'no model recorded' };
  const ids = [whole];
  for (let slash = whole.indexOf('/'); slash !== -1 && slash < whole.length - 1; slash = whole.indexOf('/', slash + 1)) {
    ids.push(whole.slice(slash + 1));
  }
  for (const id of ids) {
    const entry = userPrices.models.find((candidate) => userPriceMatches(candidate, provider, id));
    if (entry !== undefined) {
      const { input_mtok, output_mtok, cache_read_mtok, cache_write_mtok } = entry;
      return { source: 'user', pricedAs: entry.model, prices: { input_mtok, output_mtok, cache_read_mtok, cache_write_mtok } };
    }
  }
  try {
    const providerId = provider === undefined ? undefined : findProvider({ providerId: provider })?.id;
    // A providerId genai-prices does not know would make it give up, not look by model: never pass one.
    const attempts = [...(providerId === undefined ? [] : ids.map((id) => ({ id, providerId }))), ...ids.map((id) => ({ id, providerId: undefined }))];
    for (const { id, providerId } of attempts) {
      const found = calcPrice({}, id, providerId === undefined ? undefined : { providerId });
      if (found !== null) return tableLookup(found, id);
    }
  } catch (error) {
    return { reason: `price table error for "${whole}": ${message(error)}` };
  }
  return { reason: `model "${whole}" is not in the price table` };
}

function tableLookup({ provider, model }: PriceCalculation, modelId: string): Lookup {
  if (!Array.isArray(model.prices)) return { source: 'genai-prices', pricedAs: model.id, prices: model.prices };
  const only: Provider = { id: provider.id, name: provider.name, api_pattern: provider.api_pattern, models: [model] };
  return { source: 'genai-prices', pricedAs: model.id, prices: new Dated(only, modelId, model.prices) };
}

/**
 * The prices of a model whose prices change with the date, or the time of day: genai-prices picks
 * them for a response's time. Between two dates on which they change they stay the same, so they
 * are picked once per such period (a `calcPrice` costs 10–20 µs); by the time of day, every time.
 */
class Dated {
  /** When new prices start, in ms, ascending; null when they also change with the time of day. */
  private readonly starts: number[] | null = [];
  /** The prices of each period, by how many of `starts` it comes after, as they are first needed. */
  private readonly periods: (ModelPrice | undefined)[] = [];

  /** `provider` holds this one model: genai-prices then matches one model per response, not hundreds. */
  constructor(
    private readonly provider: Provider,
    private readonly modelId: string,
    prices: ConditionalPrice[],
  ) {
    const starts = new Set<number>();
    for (const { constraint } of prices) {
      if (constraint === undefined) continue;
      if (!('start_date' in constraint)) {
        this.starts = null;
        return;
      }
      // genai-prices compares a time with a start date as `time >= new Date(start_date)`; so does this.
      starts.add(new Date(constraint.start_date).getTime());
    }
    this.starts = [...starts].sort((a, b) => a - b);
  }

  /** Without a valid time, today's prices, as genai-prices does. */
  at(at: Date | undefined): ModelPrice {
    const time = at === undefined || Number.isNaN(at.getTime()) ? Date.now() : at.getTime();
    const period = this.starts === null ? -1 : this.starts.filter((start) => time >= start).length;
    const known = this.periods[period];
    if (known !== undefined) return known;
    const picked = calcPrice({}, this.modelId, { provider: this.provider, timestamp: new Date(time) });
    // It matched this very id when it was looked up.
    if (picked === null) throw new Error(`"${this.modelId}" no longer matches`);
    if (period >= 0) this.periods[period] = picked.model_price;
    return picked.model_price;
  }
}

function noPrice(reason: string): ResponsePrice {
  return { status: 'no_price', reason };
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
