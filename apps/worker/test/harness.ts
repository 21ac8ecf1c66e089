import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadSettings, type ProjectConfig, type Settings } from '@framedesk/config';
import { createDatabase, type Database } from '@framedesk/db';
import { newId, type SubmissionStatus } from '@framedesk/domain';
import { createLogger, createMetricsRegistry } from '@framedesk/observability';
import { createQueueProducer, createRedis, type QueueProducer, type Redis } from '@framedesk/queues';
import { createFsStorage, type ObjectStorage, storageKeys } from '@framedesk/storage';
import {
  type ConfigChange,
  createTestDatabase,
  createTestRedisPrefix,
  exampleProjectConfig,
  type TestDatabase,
  testRedisUrl,
} from '@framedesk/testing';
import { startWorkerRuntime, type WorkerRuntime, type WorkerRuntimeOptions } from '../src/runtime';

const workspaceRoot = resolve(import.meta.dirname, '../../..');

export type { ConfigChange };
export const exampleConfig = exampleProjectConfig;

/**
 * A database, Redis prefix and storage directory of this test file's own, with helpers to seed
 * image submissions the way the API leaves them (row + original in storage) and to run workers.
 */
export async function createWorkerHarness(extraEnv: Record<string, string> = {}) {
  const database: TestDatabase = await createTestDatabase();
  const redisPrefix = createTestRedisPrefix();
  const storageRoot = await mkdtemp(join(tmpdir(), 'fd-worker-'));
  const env: Record<string, string> = {
    NODE_ENV: 'test',
    DATABASE_URL: database.url,
    DATABASE_POOL_SIZE: '4',
    REDIS_URL: testRedisUrl(),
    REDIS_PREFIX: redisPrefix.prefix,
    STORAGE_FS_ROOT: join(storageRoot, 'storage'),
    LOG_LEVEL: 'silent',
    ...extraEnv,
  };
  const settings: Settings = loadSettings(env, workspaceRoot);
  const db: Database = createDatabase({ url: database.url, poolSize: 4 });
  const storage: ObjectStorage = createFsStorage(settings.STORAGE_FS_ROOT);
  const redis: Redis = createRedis(settings, 'worker');
  const producer: QueueProducer = createQueueProducer(redis, settings.REDIS_PREFIX);
  const config = await exampleConfig();
  const bucket = config.storage.vendor_originals_bucket;
  const runtimes: WorkerRuntime[] = [];

  const agent = await db.repos.agents.create('test-agent');
  const { channel } = await db.repos.channels.ensure('test-channel');

  /** The submission row and its first event, as the API writes them. */
  const createSubmission = (
    repos: Database['repos'],
    id: string,
    mediaType: 'image' | 'video',
    status: 'received' | 'waiting_for_upload',
  ) =>
    repos.submissions.create(
      {
        id,
        status,
        mediaType,
        agentId: agent.id,
        channelId: channel.id,
        date: '20261122',
        metadata: {},
        visibility: 'promotion_eligible',
      },
      { type: 'agent', id: agent.id },
    );

  async function seed(bytes: Buffer, mediaType: 'image' | 'video'): Promise<string> {
    const id = newId('submission');
    const contentType = mediaType === 'image' ? 'image/png' : 'video/mp4';
    const key = storageKeys.original(id, mediaType === 'image' ? 'png' : 'mp4');
    const stored = await storage.put(bucket, key, bytes, { contentType });
    await db.transaction(async (repos) => {
      await createSubmission(repos, id, mediaType, mediaType === 'image' ? 'received' : 'waiting_for_upload');
      await repos.mediaObjects.upsert({
        submissionId: id,
        kind: 'original',
        name: 'original',
        bucket,
        key,
        contentType,
        byteSize: stored.byteSize,
        sha256: stored.sha256,
      });
    });
    if (mediaType === 'video')
      await db.transition({ id, to: 'media_processing', actor: { type: 'system' }, onlyFrom: ['waiting_for_upload'] });
    return id;
  }

  return {
    env,
    settings,
    db,
    storage,
    producer,
    redis,
    bucket,
    storageRoot,
    /** One SQL statement on this test's database (see TestDatabase.query). */
    query: database.query,

    /** An image submission in `received` with its original stored, as the API leaves it. */
    seedImage: (png: Buffer) => seed(png, 'image'),

    /** A video submission in `media_processing` with its original stored, as the local upload leaves it. */
    seedVideo: (bytes: Buffer) => seed(bytes, 'video'),

    /** A video submission `waiting_for_upload` with its (local) upload session ending at `expiresAt`. */
    async seedUpload(expiresAt: Date): Promise<string> {
      const id = newId('submission');
      await db.transaction(async (repos) => {
        await createSubmission(repos, id, 'video', 'waiting_for_upload');
        const uploadId = newId('upload');
        await repos.mediaUploads.create({
          id: uploadId,
          submissionId: id,
          provider: 'local',
          providerRef: uploadId,
          uploadUrl: `http://127.0.0.1/uploads/basic/${uploadId}`,
          protocol: 'basic',
          byteSize: 1000,
          contentType: 'video/mp4',
          filename: 'clip.mp4',
          tokenHash: null,
          expiresAt,
        });
      });
      return id;
    },

    async waitForStatus(id: string, statuses: readonly SubmissionStatus[], timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const row = await db.repos.submissions.findById(id);
        if (row && statuses.includes(row.status)) return row;
        if (Date.now() > deadline)
          throw new Error(`${id} is ${row?.status}, not ${statuses.join('|')}, after ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },

    async startRuntime(
      options: Partial<Omit<WorkerRuntimeOptions, 'settings'>> & {
        config?: ProjectConfig;
        settings?: Partial<Settings>;
      } = {},
    ) {
      const runtime = await startWorkerRuntime({
        logger: createLogger({ name: 'worker-test', level: 'silent' }),
        metrics: createMetricsRegistry('worker-test'),
        storage,
        ...options,
        settings: { ...settings, ...options.settings },
        config: options.config ?? config,
      });
      runtimes.push(runtime);
      return runtime;
    },

    /** Deletes every Redis key of this test (queues, jobs, schedulers): a Redis flush. */
    flushRedis: () => redisPrefix.cleanup(),

    async cleanup() {
      await Promise.all(runtimes.map((r) => r.close().catch(() => undefined)));
      await producer.close();
      redis.disconnect();
      await db.close();
      await database.drop();
      await redisPrefix.cleanup();
      await rm(storageRoot, { recursive: true, force: true });
    },
  };
}

export type WorkerHarness = Awaited<ReturnType<typeof createWorkerHarness>>;
