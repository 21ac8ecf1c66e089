import type { Attributes, Context, Link, Span } from '@opentelemetry/api';
import { type ActiveTracing, activeTracing } from './tracing-state';

/**
 * What the rest of the code base knows of tracing: a few helpers that call straight through when
 * tracing is off (no endpoint configured: `@opentelemetry/api` is then never loaded). Attributes
 * are ids, slugs, kinds and outcomes; never keys, tokens, cookies or metadata bodies.
 */
export type SpanAttributes = Readonly<Record<string, string | number | boolean | null | undefined>>;

/** A W3C trace context (`traceparent`, optionally `tracestate`) carried in a job or a row. */
export type TraceCarrier = Readonly<Record<string, string>>;

type Kind = 'internal' | 'client' | 'consumer';

function defined(attributes: SpanAttributes): Attributes {
  const out: Attributes = {};
  for (const [name, value] of Object.entries(attributes)) if (value !== undefined && value !== null) out[name] = value;
  return out;
}

async function runInSpan<T>(tracing: ActiveTracing, span: Span, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    span.recordException(error instanceof Error ? error : String(error));
    span.setStatus({ code: tracing.api.SpanStatusCode.ERROR, message: (error as Error)?.message ?? String(error) });
    throw error;
  } finally {
    span.end();
  }
}

function startSpan<T>(
  tracing: ActiveTracing,
  name: string,
  options: { attributes: SpanAttributes; kind?: Kind; links?: Link[]; parent?: Context },
  work: () => Promise<T>,
): Promise<T> {
  const { api } = tracing;
  const parent = options.parent ?? api.context.active();
  const kind = { internal: api.SpanKind.INTERNAL, client: api.SpanKind.CLIENT, consumer: api.SpanKind.CONSUMER };
  const span = tracing.tracer.startSpan(
    name,
    { attributes: defined(options.attributes), kind: kind[options.kind ?? 'internal'], links: options.links ?? [] },
    parent,
  );
  return api.context.with(api.trace.setSpan(parent, span), () => runInSpan(tracing, span, work));
}

/** True when this process exports traces. */
export function tracingEnabled(): boolean {
  return activeTracing() !== undefined;
}

/**
 * Runs `work` in a child span of the current one; when tracing is off, or nothing is traced
 * now (a readiness check, a timer), just runs it.
 */
export function withSpan<T>(
  name: string,
  attributes: SpanAttributes,
  work: () => Promise<T>,
  kind: Kind = 'internal',
): Promise<T> {
  const tracing = activeTracing();
  if (!tracing || !tracing.api.trace.getActiveSpan()) return work();
  return startSpan(tracing, name, { attributes, kind }, work);
}

/** Adds attributes (a submission id, an outcome) to the span in progress: a request's, a job's. */
export function annotateSpan(attributes: SpanAttributes): void {
  const tracing = activeTracing();
  if (tracing) tracing.api.trace.getActiveSpan()?.setAttributes(defined(attributes));
}

/** The current trace context, to carry in a job so its span continues this trace; none when off. */
export function currentTraceCarrier(): TraceCarrier | undefined {
  const tracing = activeTracing();
  if (!tracing) return undefined;
  const carrier: Record<string, string> = {};
  tracing.api.propagation.inject(tracing.api.context.active(), carrier);
  return carrier['traceparent'] ? carrier : undefined;
}

/** The context `carrier` describes; a new trace's root when there is none. */
const contextOf = ({ api }: ActiveTracing, carrier: TraceCarrier | undefined): Context =>
  carrier ? api.propagation.extract(api.ROOT_CONTEXT, carrier) : api.ROOT_CONTEXT;

/**
 * Runs a job in a consumer span whose parent is `carrier` (the trace of the request that enqueued
 * it), or the root of a new trace when the job carries none.
 */
export function withJobSpan<T>(
  name: string,
  carrier: TraceCarrier | undefined,
  attributes: SpanAttributes,
  work: () => Promise<T>,
): Promise<T> {
  const tracing = activeTracing();
  if (!tracing) return work();
  return startSpan(tracing, name, { attributes, kind: 'consumer', parent: contextOf(tracing, carrier) }, work);
}

/**
 * Runs `work` in a child span linked to other traces (a review decision to the trace of the
 * frame it decides): the decision stays its own trace, and the frame's is one click away.
 */
export function withLinkedSpan<T>(
  name: string,
  linked: readonly (TraceCarrier | undefined)[],
  attributes: SpanAttributes,
  work: () => Promise<T>,
): Promise<T> {
  const tracing = activeTracing();
  if (!tracing) return work();
  const links: Link[] = linked
    .map((carrier) => tracing.api.trace.getSpanContext(contextOf(tracing, carrier)))
    .filter((context) => context !== undefined && tracing.api.isSpanContextValid(context))
    .map((context) => ({ context: context! }));
  return startSpan(tracing, name, { attributes, links }, work);
}

/** Sends buffered spans and stops the SDK; nothing to do when tracing is off. */
export async function stopTracing(): Promise<void> {
  await activeTracing()?.shutdown();
}
