// The api's entry. Tracing starts first, when an OTLP endpoint is configured (OTEL_* variables,
// docs/operations.md "Observing Framedesk"): the SDK must hook http, express, pg, ioredis and pino
// before they are imported, so everything else is imported after it, dynamically (a static import
// would be evaluated first, and the bundle keeps it in a chunk of its own: tools/build.mjs).
// Without an endpoint nothing of OpenTelemetry is loaded.
import { startTracing } from '@framedesk/observability/start-tracing';

await startTracing('api', process.env);
await import('./api-process');
