import type * as OtelApi from '@opentelemetry/api';

/**
 * The tracing this process runs, set once by `startTracing` when an OTLP endpoint is configured.
 * Undefined otherwise: every helper of `tracing.ts` then calls straight through, and
 * `@opentelemetry/api` is never even loaded (the type import above is erased).
 */
export interface ActiveTracing {
  readonly api: typeof OtelApi;
  readonly tracer: OtelApi.Tracer;
  /** Sends the spans still buffered and stops the SDK (on SIGTERM, before the process exits). */
  shutdown(): Promise<void>;
}

let active: ActiveTracing | undefined;

export function activeTracing(): ActiveTracing | undefined {
  return active;
}

export function setActiveTracing(tracing: ActiveTracing | undefined): void {
  active = tracing;
}
