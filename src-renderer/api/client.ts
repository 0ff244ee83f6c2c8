/**
 * The renderer's `LoopscopeApi`, over whichever transport the page was started with: the Electron
 * preload bridge (`window.loopscope`), HTTP to `loopscope serve`, or an HTML report's recorded
 * answers (src-renderer/report/). Each carries the same
 * `{method, request}` → response exchange; every response is validated with its zod schema here,
 * so the views only ever see data the contract describes.
 */
import { apiErrorSchema, apiMethods, type ApiMethod, type ApiResponse, type LoopscopeApi, type LoopscopeBridge } from '../../shared/api';

/**
 * A call the views made that failed, as they show it: `code` is machine-readable (an API error code
 * from the answer, or `unreachable`, `http_<status>`, `invalid_response` when no usable answer
 * came), `message` is for the user.
 */
export class ApiCallError extends Error {
  readonly code: string;

  constructor(code: string, message: string) {
    super(message);
    this.name = 'ApiCallError';
    this.code = code;
  }
}

/** Carries a request (parsed: its defaults filled in) to whatever answers it. */
export type Transport = (method: ApiMethod, request: unknown) => Promise<unknown>;

function bridgeTransport(bridge: LoopscopeBridge): Transport {
  return async (method, request) => {
    const reply = await bridge.call(method, request);
    const failure = apiErrorSchema.safeParse(reply);
    if (failure.success) throw new ApiCallError(failure.data.error.code, failure.data.error.message);
    return reply;
  };
}

/** `api/<method>` relative to the page, whose URL ends in `/<token>/`: the token stays in every request. */
function httpTransport(): Transport {
  return async (method, request) => {
    let response: Response;
    try {
      response = await fetch(`api/${method}`, {
        method: 'POST',
        body: JSON.stringify(request),
        headers: { 'content-type': 'application/json' },
      });
    } catch {
      throw new ApiCallError('unreachable', 'The Loopscope server is not answering. Is `loopscope serve` still running? Start it again and reload this page.');
    }
    const body: unknown = await response.json().catch(() => undefined);
    if (response.ok) return body;
    const failure = apiErrorSchema.safeParse(body);
    if (failure.success) throw new ApiCallError(failure.data.error.code, failure.data.error.message);
    throw new ApiCallError(`http_${response.status}`, `The Loopscope server answered ${response.status} ${response.statusText} to ${method}.`);
  };
}

async function call<M extends ApiMethod>(transport: Transport, method: M, request: unknown): Promise<ApiResponse<M>> {
  const schemas = apiMethods[method];
  const reply = await transport(method, schemas.request.parse(request));
  const parsed = schemas.response.safeParse(reply);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ApiCallError(
      'invalid_response',
      `The answer to ${method} does not match the API contract (${issue ? `${issue.path.join('.')}: ${issue.message}` : 'unknown mismatch'}).`,
    );
  }
  return parsed.data as ApiResponse<M>;
}

/** The API over the Electron bridge when the preload exposed one, else over HTTP. */
export function pageTransport(bridge: LoopscopeBridge | undefined = window.loopscope): Transport {
  return bridge ? bridgeTransport(bridge) : httpTransport();
}

/** The API over `transport` (by default the page's: see `pageTransport`), each answer checked against its schema. */
export function createApiClient(transport: Transport = pageTransport()): LoopscopeApi {
  const methods = Object.keys(apiMethods) as ApiMethod[];
  return Object.fromEntries(methods.map((method) => [method, (request: unknown) => call(transport, method, request)])) as LoopscopeApi;
}

/** What to tell the user about any failure: the API's own message, or the error's. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
