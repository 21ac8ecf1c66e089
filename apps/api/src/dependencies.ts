import { apiKeysService, type ApiKeysService } from '@framedesk/access';
import type { ProjectConfig, Settings } from '@framedesk/config';
import { createDatabase, type Database } from '@framedesk/db';
import { createMetricsRegistry, type Logger, type Registry } from '@framedesk/observability';
import { createQueueProducer, createRedis, type QueueProducer, type Redis } from '@framedesk/queues';
import { createFsStorage, type ObjectStorage } from '@framedesk/storage';

/** Everything the API's routes are built from; tests build their own. */
export interface ApiDependencies {
  readonly settings: Settings;
  readonly config: ProjectConfig;
  readonly logger: Logger;
  readonly db: Database;
  readonly redis: Redis;
  readonly queues: QueueProducer;
  readonly storage: ObjectStorage;
  readonly metrics: Registry;
  readonly apiKeys: ApiKeysService;
}

export function createApiDependencies(settings: Settings, config: ProjectConfig, logger: Logger): ApiDependencies {
  const db = createDatabase({ url: settings.DATABASE_URL, poolSize: settings.DATABASE_POOL_SIZE });
  const redis = createRedis(settings.REDIS_URL, 'producer');
  redis.on('error', (error) => logger.warn({ err: error }, 'redis error'));
  return {
    settings,
    config,
    logger,
    db,
    redis,
    queues: createQueueProducer(redis, settings.REDIS_PREFIX),
    storage: createFsStorage(settings.STORAGE_FS_ROOT),
    metrics: createMetricsRegistry('api'),
    apiKeys: apiKeysService(db),
  };
}

export async function closeApiDependencies(deps: ApiDependencies): Promise<void> {
  await deps.apiKeys.flushLastUsed().catch(() => undefined);
  await deps.queues.close();
  deps.redis.disconnect();
  await deps.db.close();
}
