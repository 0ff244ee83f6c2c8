/**
 * A small GenAI trace (an agent invocation, a model call, a tool call) through any span exporter of
 * the OpenTelemetry JS SDK: what a loop instrumented with OpenTelemetry sends, for the receiver's tests.
 */
import { ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';

/** Emits the trace of agent `agent` through `exporter`; resolves once it has been exported. */
export async function emitSmallAgentTrace(exporter: SpanExporter, agent: string): Promise<void> {
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'loopscope-test' }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('loopscope-test');
  const root = tracer.startSpan(`invoke_agent ${agent}`, { attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': agent } });
  // The parent passed explicitly: no context manager is registered in a test process.
  const inRoot = trace.setSpan(ROOT_CONTEXT, root);
  const callId = `${agent}-c1`;
  tracer
    .startSpan(
      'chat gpt-4o',
      {
        attributes: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.provider.name': 'openai',
          'gen_ai.request.model': 'gpt-4o',
          'gen_ai.usage.input_tokens': 100,
          'gen_ai.usage.output_tokens': 20,
          'gen_ai.output.messages': JSON.stringify([
            { role: 'assistant', parts: [{ type: 'tool_call', id: callId, name: 'get_order', arguments: { order_id: 'A-1' } }] },
          ]),
        },
      },
      inRoot,
    )
    .end();
  tracer
    .startSpan(
      'execute_tool get_order',
      { attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'get_order', 'gen_ai.tool.call.id': callId } },
      inRoot,
    )
    .end();
  root.end();
  // Flushed, not shut down: shutting an in-memory exporter down empties it.
  await provider.forceFlush();
}

/** The spans of agent `agent`'s trace, as an exporter receives them. */
export async function smallAgentSpans(agent: string): Promise<ReadableSpan[]> {
  const memory = new InMemorySpanExporter();
  await emitSmallAgentTrace(memory, agent);
  return memory.getFinishedSpans();
}
