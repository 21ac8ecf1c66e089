import * as api from '@opentelemetry/api';
import { node, tracing } from '@opentelemetry/sdk-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tracingRequested } from './start-tracing';
import { annotateSpan, currentTraceCarrier, tracingEnabled, withJobSpan, withLinkedSpan, withSpan } from './tracing';
import { setActiveTracing } from './tracing-state';

describe('tracingRequested: the standard variables decide', () => {
  it('is on with an OTLP endpoint (or a traces endpoint), off without one', () => {
    expect(tracingRequested({})).toBe(false);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: '' })).toBe(false);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
  });

  it('is off when OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none, whatever the endpoint', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(tracingRequested({ ...endpoint, OTEL_SDK_DISABLED: 'true' })).toBe(false);
    expect(tracingRequested({ ...endpoint, OTEL_SDK_DISABLED: 'TRUE ' })).toBe(false);
    expect(tracingRequested({ ...endpoint, OTEL_SDK_DISABLED: 'false' })).toBe(true);
    expect(tracingRequested({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' })).toBe(false);
  });
});

describe('tracing helpers, off', () => {
  it('call straight through and carry nothing', async () => {
    expect(tracingEnabled()).toBe(false);
    expect(await withSpan('x', {}, async () => 1)).toBe(1);
    expect(
      await withJobSpan(
        'x',
        { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
        {},
        async () => 2,
      ),
    ).toBe(2);
    expect(await withLinkedSpan('x', [], {}, async () => 3)).toBe(3);
    expect(currentTraceCarrier()).toBeUndefined();
    expect(() => annotateSpan({ a: 1 })).not.toThrow();
    await expect(withSpan('x', {}, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
  });
});

describe('tracing helpers, on (an in-memory exporter)', () => {
  const exporter = new tracing.InMemorySpanExporter();
  const provider = new node.NodeTracerProvider({ spanProcessors: [new tracing.SimpleSpanProcessor(exporter)] });
  beforeAll(() => {
    provider.register();
    setActiveTracing({ api, tracer: provider.getTracer('test'), shutdown: () => provider.shutdown() });
  });
  afterAll(async () => {
    setActiveTracing(undefined);
    await provider.shutdown();
  });
  const finished = (name: string) => exporter.getFinishedSpans().find((s) => s.name === name)!;
  const AGENT = { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' };

  it("continues the carried trace in a job's span, and nests child spans and their attributes in it", async () => {
    let carried: Record<string, string> | undefined;
    await withJobSpan(
      'process image.process',
      AGENT,
      { 'framedesk.submission_id': 'sub_1', unset: undefined },
      async () => {
        await withSpan('sharp.decode', { 'image.width': 64 }, async () => {
          carried = currentTraceCarrier();
        });
        annotateSpan({ 'framedesk.outcome': 'needs_review' });
      },
    );
    const job = finished('process image.process');
    const child = finished('sharp.decode');
    expect(job.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(job.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
    expect(job.kind).toBe(api.SpanKind.CONSUMER);
    expect(job.attributes).toEqual({ 'framedesk.submission_id': 'sub_1', 'framedesk.outcome': 'needs_review' });
    expect(child.parentSpanContext?.spanId).toBe(job.spanContext().spanId);
    expect(child.attributes).toEqual({ 'image.width': 64 });
    // What an enqueue inside the child would carry: the child's own context.
    expect(carried?.['traceparent']).toBe(`00-0af7651916cd43dd8448eb211c80319c-${child.spanContext().spanId}-01`);
  });

  it('starts a new trace for a job that carries none, and makes no orphan child spans outside any span', async () => {
    await withJobSpan('process maintenance.sweep', undefined, {}, async () => undefined);
    expect(finished('process maintenance.sweep').parentSpanContext).toBeUndefined();
    exporter.reset();
    expect(await withSpan('storage.write', {}, async () => 'written')).toBe('written');
    expect(exporter.getFinishedSpans()).toEqual([]);
  });

  it("links a decision's span to the frame's trace instead of joining it, and records a failure", async () => {
    await expect(
      withJobSpan('POST /review/…', undefined, {}, () =>
        withLinkedSpan('review.decision', [AGENT, undefined, { traceparent: 'garbage' }], {}, async () => {
          throw new Error('claimed by another reviewer');
        }),
      ),
    ).rejects.toThrow('claimed');
    const decision = finished('review.decision');
    expect(decision.spanContext().traceId).not.toBe('0af7651916cd43dd8448eb211c80319c');
    expect(decision.links.map((l) => l.context.spanId)).toEqual(['b7ad6b7169203331']);
    expect(decision.status.code).toBe(api.SpanStatusCode.ERROR);
    expect(decision.events.map((e) => e.name)).toContain('exception');
  });
});
