// The first thing an app's main.ts runs (imported as `@framedesk/observability/start-tracing`, a
// second entry of this lib, so that importing it loads neither pino nor prom-client: the SDK has
// to hook those, express, pg, ioredis and http before anything imports them).
//
// Configuration is the OpenTelemetry standard's own environment variables, read by the SDK
// (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL, OTEL_SERVICE_NAME,
// OTEL_TRACES_SAMPLER[_ARG], OTEL_BSP_*, OTEL_SDK_DISABLED …). They are the one exception to
// "settings come from libs/config": operators and collectors know them by these names, the SDK
// reads them itself, and whether to load the SDK at all must be known before settings.ts loads.
import { setActiveTracing } from './tracing-state';

export type TracingEnvironment = Readonly<Record<string, string | undefined>>;

/** Query parameters whose values never reach a span: our media links' signatures, tus tokens, S3's. */
const REDACTED_QUERY_PARAMETERS = [
  'signature',
  'token',
  'sig',
  'Signature',
  'AWSAccessKeyId',
  'X-Amz-Signature',
  'X-Amz-Credential',
  'X-Amz-Security-Token',
];

/** Paths scraped every few seconds: tracing them would bury the frames' traces. */
const UNTRACED_PATHS = /^\/(healthz|readyz|metrics)(\?|$)/;

/** Tracing is on when an OTLP endpoint is set and nothing switches it off. */
export function tracingRequested(env: TracingEnvironment): boolean {
  if ((env['OTEL_SDK_DISABLED'] ?? '').trim().toLowerCase() === 'true') return false;
  const exporters = (env['OTEL_TRACES_EXPORTER'] ?? '').split(',').map((s) => s.trim());
  if (exporters.includes('none')) return false;
  return Boolean(env['OTEL_EXPORTER_OTLP_ENDPOINT'] || env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']);
}

/**
 * The ESM loader hook the instrumentations patch imported packages through, limited to the
 * packages they ask for (import-in-the-middle's message channel), registered before any of them
 * is imported.
 */
async function registerImportHooks(): Promise<() => Promise<void>> {
  const { register } = await import('node:module');
  const { createAddHookMessageChannel } = await import('import-in-the-middle');
  const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
  register('import-in-the-middle/hook.mjs', import.meta.url, registerOptions);
  return waitForAllMessagesAcknowledged;
}

async function instrumentations(env: TracingEnvironment) {
  const [http, express, pg, ioredis, pino] = await Promise.all([
    import('@opentelemetry/instrumentation-http'),
    import('@opentelemetry/instrumentation-express'),
    import('@opentelemetry/instrumentation-pg'),
    import('@opentelemetry/instrumentation-ioredis'),
    import('@opentelemetry/instrumentation-pino'),
  ]);
  return [
    new http.HttpInstrumentation({
      ignoreIncomingRequestHook: (request) => UNTRACED_PATHS.test(request.url ?? ''),
      redactedQueryParams: REDACTED_QUERY_PARAMETERS,
      redactedQueryParamsServer: REDACTED_QUERY_PARAMETERS,
    }),
    // Route handlers, not each router and middleware (helmet, CORS …): their time shows in the parent.
    new express.ExpressInstrumentation({
      ignoreLayersType: [express.ExpressLayerType.MIDDLEWARE, express.ExpressLayerType.ROUTER],
    }),
    // Statements are parameterised: values (metadata bodies among them) are never recorded.
    new pg.PgInstrumentation({ requireParentSpan: true }),
    // The command only: its arguments can be job data, keys and tokens.
    new ioredis.IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: (command) => command }),
    // trace_id and span_id on every line written inside a span; the lines stay on stdout.
    new pino.PinoInstrumentation({ disableLogSending: !env['OTEL_LOGS_EXPORTER'] }),
  ];
}

/**
 * Starts the OpenTelemetry SDK for `service` when `tracingRequested(env)`; otherwise returns at
 * once, having loaded nothing. Call it, and await it, before importing the rest of the app.
 */
export async function startTracing(service: 'api' | 'worker', env: TracingEnvironment): Promise<boolean> {
  if (!tracingRequested(env)) return false;
  const acknowledged = await registerImportHooks();
  const [api, { NodeSDK }] = await Promise.all([import('@opentelemetry/api'), import('@opentelemetry/sdk-node')]);
  const named = env['OTEL_SERVICE_NAME'] || /(^|,)\s*service\.name=/.test(env['OTEL_RESOURCE_ATTRIBUTES'] ?? '');
  const sdk = new NodeSDK({
    ...(named ? {} : { serviceName: `framedesk-${service}` }),
    instrumentations: await instrumentations(env),
    // Traces only, unless asked for: metrics are Prometheus' (/metrics), logs are stdout's.
    ...(env['OTEL_METRICS_EXPORTER'] ? {} : { metricReaders: [] }),
    ...(env['OTEL_LOGS_EXPORTER'] ? {} : { logRecordProcessors: [] }),
  });
  sdk.start();
  await acknowledged();
  setActiveTracing({ api, tracer: api.trace.getTracer('framedesk'), shutdown: () => sdk.shutdown() });
  return true;
}
