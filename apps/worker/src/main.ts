import { ConfigError, loadSettings, readProjectConfig, resolveProjectConfigPath, SettingsError } from '@framedesk/config';
import { createLogger, createMetricsRegistry, onShutdown } from '@framedesk/observability';
import { startHealthServer } from './health-server';

function boot() {
  try {
    const settings = loadSettings(process.env);
    const config = readProjectConfig(resolveProjectConfigPath(settings.FRAMEDESK_CONFIG, settings.workspaceRoot));
    return { settings, config };
  } catch (error) {
    if (error instanceof ConfigError || error instanceof SettingsError) {
      console.error(`worker: refusing to start.\n${error.message}`);
      process.exit(1);
    }
    throw error;
  }
}

const { settings } = boot();
const logger = createLogger({ name: 'worker', level: settings.LOG_LEVEL });
const metrics = createMetricsRegistry('worker');
let running = true;
const health = startHealthServer({ host: settings.API_HOST, port: settings.WORKER_HEALTH_PORT, metrics, healthy: () => running });
logger.info({ port: settings.WORKER_HEALTH_PORT }, 'worker started');

onShutdown(logger, [
  { name: 'health', run: async () => { running = false; await new Promise((r) => health.close(r)); } },
]);
