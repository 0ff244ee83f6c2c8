/**
 * Offline token estimates (docs/semantics.md §9): o200k_base counts from gpt-tokenizer, used only where the
 * trace records no usage, and always labelled "estimated" where shown — the provider's own
 * tokenizer and its per-message framing differ. Requests resend the whole history, so counts are
 * cached by message hash: each distinct message is tokenized once per run.
 */
import { createRequire } from 'node:module';
import { canonicalJson } from '../../../shared/trace/canonicalJson';
import type { RequestTokenCounts } from '../../../shared/requests/contextGrowth';
import { messageChars, messageIdentity, messageText, type NormalizedRequest, type RequestMessage } from '../../../shared/requests/normalizedRequest';

type CountTokens = (text: string) => number;
let loadedTokenizer: CountTokens | undefined;

/**
 * The tokenizer's tables take about 0.1 s to load: loaded on the first count, not by every thread
 * that imports the analysis (most runs record their usage and never need it).
 */
function countTokens(text: string): number {
  loadedTokenizer ??= (createRequire(import.meta.url)('gpt-tokenizer') as { countTokens: CountTokens }).countTokens;
  return loadedTokenizer(text);
}

/** Characters per token for relative sizes: the usual estimate for English and code. */
const CHARS_PER_TOKEN = 4;

/** A size in tokens from characters alone: where there is no text to tokenize, or only proportions matter. */
export function tokensForChars(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN);
}
/** Tokens an API adds around each message (role, separators): OpenAI documents 3–4 for chat messages. */
const MESSAGE_OVERHEAD_TOKENS = 4;
/**
 * Characters of message identities remembered (an identity holds its message's text); more start
 * the cache over (counts are only recomputed, never wrong).
 */
const CACHE_CHARS = 32 * 1024 * 1024;

export class TokenEstimator {
  private readonly byIdentity = new Map<string, number>();
  private cachedChars = 0;
  /**
   * Sizes by object: the engine hands a run's requests the same message and tool objects for what
   * each resends (requestBytes.ts), so every later request of a run is sized from what it adds.
   */
  private readonly charsOf = new WeakMap<object, number>();

  text(text: string): number {
    return text === '' ? 0 : countTokens(text);
  }

  message(message: RequestMessage): number {
    const identity = messageIdentity(message);
    const known = this.byIdentity.get(identity);
    if (known !== undefined) return known;
    const tokens = this.text(messageText(message)) + MESSAGE_OVERHEAD_TOKENS;
    if (this.cachedChars + identity.length > CACHE_CHARS) {
      this.byIdentity.clear();
      this.cachedChars = 0;
    }
    this.byIdentity.set(identity, tokens);
    this.cachedChars += identity.length;
    return tokens;
  }

  /**
   * Relative sizes of a request's parts, characters ÷ 4, for a request whose recorded usage they
   * are scaled to: the split needs proportions, not a tokenizer's exact counts.
   */
  sizes(request: NormalizedRequest): RequestTokenCounts {
    return {
      system: tokensForChars(request.system?.length ?? 0),
      tools: request.tools.length === 0 ? 0 : tokensForChars(this.toolChars(request.tools)),
      messages: request.messages.map((message) => tokensForChars(this.messageChars(message)) + MESSAGE_OVERHEAD_TOKENS),
    };
  }

  private messageChars(message: RequestMessage): number {
    let chars = this.charsOf.get(message);
    if (chars === undefined) {
      chars = messageChars(message);
      this.charsOf.set(message, chars);
    }
    return chars;
  }

  private toolChars(tools: NormalizedRequest['tools']): number {
    let chars = this.charsOf.get(tools);
    if (chars === undefined) {
      chars = JSON.stringify(tools).length;
      this.charsOf.set(tools, chars);
    }
    return chars;
  }

  /** Every part of a request, tokenized: what is shown as the estimate where no usage was recorded. */
  request(request: NormalizedRequest): RequestTokenCounts {
    return {
      system: request.system === null ? 0 : this.text(request.system),
      tools: request.tools.length === 0 ? 0 : this.text(canonicalJson(request.tools)),
      messages: request.messages.map((message) => this.message(message)),
    };
  }
}
