/**
 * `loopscope mcp`: the traces and the library over the Model Context Protocol, on stdio, for a
 * coding agent debugging its own runs. The same ApiHost the app's pages ask (files opened, the
 * directories kept as a library) answers every tool (src-main/mcp/mcpTools.ts). stdout is the
 * protocol: anything said goes to stderr. The server ends when stdin closes.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { ApiResponse, TraceSummary } from '../../shared/api';
import { createApiHost } from '../api/apiHost';
import { registerTools } from './mcpTools';

export interface McpOptions {
  cacheDir?: string;
  /** The directories kept as a library. */
  libraryRoots?: readonly string[];
  /** How long a tool waits for a trace to be read or the library indexed before answering with what there is (default 60 s). */
  readyTimeoutMs?: number;
  version: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Serves MCP on stdin/stdout until stdin closes. */
export async function serveMcp(files: readonly string[], options: McpOptions): Promise<void> {
  const hasLibrary = (options.libraryRoots?.length ?? 0) > 0;
  const host = createApiHost({
    shell: 'browser',
    version: options.version,
    canOpenPaths: false,
    // Files are read once: an agent asks about what is written now.
    idleAfterMs: null,
    ...(options.cacheDir !== undefined ? { cacheDir: options.cacheDir } : {}),
    ...(hasLibrary ? { library: { roots: options.libraryRoots ?? [] } } : {}),
  });
  for (const file of files) await host.open(file);
  const timeoutMs = options.readyTimeoutMs ?? 60_000;

  async function traceReady(traceId: string): Promise<string | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const trace = (await host.call('trace', { traceId })) as TraceSummary;
      if (trace.state !== 'ingesting') return undefined;
      if (Date.now() > deadline) {
        const { bytesRead, totalBytes } = trace.progress;
        return `[trace ${trace.name} is still being read (${bytesRead} of ${totalBytes} bytes): answers may be partial; ask again later]`;
      }
      await sleep(100);
    }
  }

  async function libraryReady(): Promise<string | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const status = (await host.call('libraryStatus', {})) as ApiResponse<'libraryStatus'>;
      if (status === null || status.state === 'idle') return undefined;
      if (Date.now() > deadline) return `[the library is still indexing (${status.indexed} of ${status.files} files): answers may be partial; ask again later]`;
      await sleep(100);
    }
  }

  const server = new McpServer(
    { name: 'loopscope', version: options.version },
    {
      instructions:
        'Loopscope reads agent-loop traces (JSONL event logs) and reports what went wrong: dangling tool calls, repeated actions, budget cut-offs, rewritten histories. Start with list_runs (filter by finding_kind or status), then get_run for a run and its findings, get_event for an event and its raw line, list_events for its timeline.',
    },
  );
  registerTools(server, { host, hasLibrary, traceReady, libraryReady });
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolveClosed) => {
    transport.onclose = () => resolveClosed();
    process.stdin.once('end', () => resolveClosed());
    process.stdin.once('close', () => resolveClosed());
  });
  await server.connect(transport);
  process.stderr.write(
    `loopscope: MCP server on stdio for ${files.length} file${files.length === 1 ? '' : 's'}${hasLibrary ? ` and a library of ${(options.libraryRoots ?? []).join(', ')}` : ''}\n`,
  );
  await closed;
  await server.close().catch(() => undefined);
  await host.close();
}
