import { isConfigurationError, listenFailure, readStartupConfiguration, SettingsError } from '@framedesk/config';
import {
  createLogger,
  createMetricsRegistry,
  onShutdown,
  registerReadinessGauge,
  stopTracing,
} from '@framedesk/observability';
import { startHealthServer } from './health-server';
import { buildHandlerRegistry, HandlerRegistryError } from './jobs/registry';
import { parseQueueSelection, startWorkerRuntime, type WorkerRuntime } from './runtime';

function refuse(message: string): never {
  console.error(`worker: refusing to start.\n${message}`);
  process.exit(1);
}

function boot() {
  try {
    const { settings, config } = readStartupConfiguration(process.env);
    const selection = parseQueueSelection(settings.WORKER_QUEUES);
    if (selection.unknown.length > 0) {
      throw new SettingsError(
        selection.unknown.map((name) => ({ path: '/WORKER_QUEUES', message: `unknown queue ${name}` })),
      );
    }
    buildHandlerRegistry();
    return { settings, config, queues: selection.queues };
  } catch (error) {
    if (isConfigurationError(error) || error instanceof HandlerRegistryError) refuse(error.message);
    throw error;
  }
}

const { settings, config, queues } = boot();
const logger = createLogger({ name: 'worker', level: settings.LOG_LEVEL, format: settings.LOG_FORMAT });
const metrics = createMetricsRegistry('worker');
let running = true;
let runtime: WorkerRuntime | undefined;
registerReadinessGauge(metrics, () => running && runtime?.ready() === true);
const health = startHealthServer({
  host: settings.API_HOST,
  port: settings.WORKER_HEALTH_PORT,
  metrics,
  healthy: () => running && runtime !== undefined,
  readiness: () => runtime?.readiness() ?? null,
});
health.once('error', (error: NodeJS.ErrnoException) =>
  refuse(
    listenFailure(error, { setting: 'WORKER_HEALTH_PORT', host: settings.API_HOST, port: settings.WORKER_HEALTH_PORT }),
  ),
);

onShutdown(logger, [
  {
    name: 'workers',
    run: async () => {
      running = false;
      await runtime?.close();
    },
  },
  { name: 'health', run: () => new Promise((r) => health.close(r)) },
  // Last: the spans of the jobs that just finished are sent before the process exits.
  { name: 'tracing', run: stopTracing },
]);

startWorkerRuntime({ settings, config, logger, metrics, queues }).then(
  (started) => {
    runtime = started;
    logger.info({ port: settings.WORKER_HEALTH_PORT }, 'worker started');
  },
  (error: unknown) => {
    logger.fatal({ err: error }, 'worker failed to start');
    process.exit(1);
  },
);
