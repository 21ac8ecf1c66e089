import { createServer } from 'node:http';
import { isConfigurationError, listenFailure, readStartupConfiguration } from '@framedesk/config';
import { createLogger, onShutdown, stopTracing } from '@framedesk/observability';
import { VideoProviderConfigError } from '@framedesk/video-provider';
import { createApp } from './app';
import { closeApiDependencies, createApiDependencies } from './dependencies';
import { metricsExposure } from './routes/health.routes';
import { storageProblemAtStart, sweepAtStart } from './startup';

function boot() {
  try {
    return readStartupConfiguration(process.env);
  } catch (error) {
    if (isConfigurationError(error)) refuse(error);
    throw error;
  }
}

function refuse(error: unknown): never {
  console.error(`api: refusing to start.\n${(error as Error).message}`);
  process.exit(1);
}

const { settings, config } = boot();
const logger = createLogger({ name: 'api', level: settings.LOG_LEVEL, format: settings.LOG_FORMAT });
let deps: ReturnType<typeof createApiDependencies>;
try {
  deps = createApiDependencies(settings, config, logger);
} catch (error) {
  // e.g. a configuration outside Cloudflare Stream's bounds (expiry 120–21600 s).
  if (error instanceof VideoProviderConfigError) refuse(error);
  throw error;
}
const server = createServer(createApp(deps));
server.requestTimeout = settings.REQUEST_TIMEOUT_SECONDS * 1000;
server.headersTimeout = 30_000;
server.keepAliveTimeout = 5_000;

// Storage first: when it refuses, the log says why in one line (and /readyz says the same).
void storageProblemAtStart(deps).then((problem) => {
  if (problem) {
    logger.error({ check: 'storage', cause: problem.cause }, problem.line);
    return;
  }
  sweepAtStart(deps).then(
    (removed) => removed > 0 && logger.info({ removed }, 'removed temporary files of unfinished uploads'),
    (error: unknown) => logger.warn({ err: error }, 'could not sweep temporary files of unfinished uploads'),
  );
});

server.once('error', (error: NodeJS.ErrnoException) =>
  refuse(new Error(listenFailure(error, { setting: 'API_PORT', host: settings.API_HOST, port: settings.API_PORT }))),
);
server.listen(settings.API_PORT, settings.API_HOST, () => {
  logger.info({ url: `http://${settings.API_HOST}:${settings.API_PORT}` }, 'api listening');
  logger.info(metricsExposure(settings).line);
});

onShutdown(logger, [
  // Stop accepting, let in-flight requests finish, then release connections.
  { name: 'http', run: () => new Promise<void>((resolve) => server.close(() => resolve())) },
  { name: 'dependencies', run: () => closeApiDependencies(deps) },
  // Last: the spans of everything above are sent before the process exits.
  { name: 'tracing', run: stopTracing },
]);
