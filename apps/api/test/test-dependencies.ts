// The one builder of ApiDependencies for the API's in-process test harnesses: a database, Redis
// key prefix and storage directory of their own, the example project configuration, and an HTTP
// server for the app.
import { createServer, type RequestListener, type Server } from 'node:http';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadSettings, type ProjectConfig } from '@framedesk/config';
import { createLogger } from '@framedesk/observability';
import { redisReady } from '@framedesk/queues';
import {
  createTestDatabase,
  createTestRedisPrefix,
  freePort,
  testRedisUrl,
  type TestDatabase,
} from '@framedesk/testing';
import { createApp } from '../src/app';
import { type ApiDependencies, closeApiDependencies, createApiDependencies } from '../src/dependencies';

export const workspaceRoot = resolve(import.meta.dirname, '../../..');

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests change any field of the example.
export type MutableConfig = ProjectConfig & Record<string, any>;

export interface TestDependenciesOptions {
  /** Extra environment, over the test defaults. */
  readonly env?: Record<string, string>;
  /** Changes to config/project.example.json: edit it in place, or return a new one. */
  readonly config?: (config: MutableConfig) => ProjectConfig | void;
  /** Replace dependencies before the app is built (fault injection). */
  readonly override?: (deps: ApiDependencies) => ApiDependencies;
  /** Run on this database (one on the Patroni engine) instead of a new one; dropped by `close()` all the same. */
  readonly database?: TestDatabase;
}

/** The API in this process on an ephemeral port, with everything it uses of its own. */
export interface TestServer {
  readonly url: string;
  readonly deps: ApiDependencies;
  readonly config: ProjectConfig;
  readonly database: TestDatabase;
  readonly redisPrefix: string;
  /** A temporary directory; the storage driver's root is `storage` inside it. */
  readonly storageRoot: string;
  close(): Promise<void>;
}

export async function startTestServer(options: TestDependenciesOptions = {}): Promise<TestServer> {
  const database = options.database ?? (await createTestDatabase());
  const redis = createTestRedisPrefix();
  const storageRoot = await mkdtemp(join(tmpdir(), 'framedesk-api-test-'));
  const release = async () => {
    await database.drop();
    await redis.cleanup();
    await rm(storageRoot, { recursive: true, force: true });
  };
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let deps: ApiDependencies;
  let config: ProjectConfig;
  try {
    const example = JSON.parse(
      await readFile(join(workspaceRoot, 'config/project.example.json'), 'utf8'),
    ) as MutableConfig;
    example.api.base_url = url;
    config = options.config?.(example) ?? example;
    const settings = loadSettings(
      {
        NODE_ENV: 'test',
        DATABASE_URL: database.url,
        DATABASE_POOL_SIZE: '5',
        REDIS_URL: testRedisUrl(),
        REDIS_PREFIX: redis.prefix,
        STORAGE_FS_ROOT: join(storageRoot, 'storage'),
        LOG_LEVEL: 'silent',
        WORKBENCH_DIST: join(storageRoot, 'no-workbench'),
        ...options.env,
      },
      workspaceRoot,
    );
    deps = createApiDependencies(settings, config, createLogger({ name: 'api-test', level: 'silent' }));
  } catch (error) {
    // A refused configuration: release what was set up before rethrowing.
    await release();
    throw error;
  }
  if (options.override) deps = options.override(deps);
  // On the test Redis (not one a test points elsewhere, dead on purpose): connected before the first
  // request, as a running API is long before its own. Until then the producer connection refuses
  // commands and the API fails open: no enqueue, no live event, 503 for a tus lock, which a busy
  // machine turned into a test failing by chance.
  if (!options.env?.['REDIS_URL'])
    await redisReady(deps.redis, 30_000).catch(async (error: unknown) => {
      await closeApiDependencies(deps).catch(() => undefined);
      await release();
      throw error;
    });
  const app: RequestListener = createApp(deps);
  const server: Server = createServer(app);
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()));
  return {
    url,
    deps,
    config,
    database,
    redisPrefix: redis.prefix,
    storageRoot,
    async close() {
      const closed = new Promise<void>((r) => server.close(() => r()));
      server.closeAllConnections();
      await closed;
      // With Redis unreachable BullMQ's close never settles; the process-level shutdown has its own time-out.
      await Promise.race([closeApiDependencies(deps), new Promise((r) => setTimeout(r, 3_000).unref())]);
      await deps.db.close().catch(() => undefined);
      await release();
    },
  };
}
