import type { ProjectConfig, Settings } from '@framedesk/config';
import { createDatabase, type Database } from '@framedesk/db';
import { configureImageProcessing, setImageEncodeEffort } from '@framedesk/media';
import { type Logger, type Registry, withTransitionMetrics } from '@framedesk/observability';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { join } from 'node:path';
import {
  createQueueProducer,
  type QueueProducer,
  createRedis,
  createWorkerStatusStore,
  reviewChangePublisher,
  withReviewChanges,
  QUEUE_NAMES,
  type QueueName,
  type Redis,
  type WorkerReadinessReport,
} from '@framedesk/queues';
import { createStorage, createTusStore, type ObjectStorage } from '@framedesk/storage';
import { policyCache, type PolicyObserver, scoringClient } from '@framedesk/policies';
import {
  createVideoService,
  imageProcessingService,
  nearDuplicateSettings,
  publicVariantService,
  reconcilerService,
  withPublicOnPromotion,
} from '@framedesk/submissions';
import { mediaRepairService, retentionDefaults, retentionService } from '@framedesk/lifecycle';
import { createVideoProvider } from '@framedesk/video-provider';
import type { AnyJobHandler, WorkerDeps } from './jobs/job-handler';
import { buildHandlerRegistry, JOB_HANDLERS } from './jobs/registry';
import { queueConsumers } from './queue-consumers';
import { createQueueGates } from './queue-gates';
import { checkNeeds, needsOf } from './readiness';
import { createWorkerMetrics } from './worker-metrics';

const SWEEP_EVERY_MS = 3600_000;
/** Schedulers are re-declared this often, so a flushed Redis gets its periodic jobs back. */
const scheduleRefreshMs = (reconcileSeconds: number) => Math.min(60_000, Math.max(1_000, reconcileSeconds * 2_000));

export interface WorkerRuntimeOptions {
  readonly settings: Settings;
  readonly config: ProjectConfig;
  readonly logger: Logger;
  readonly metrics: Registry;
  /** Queues served; default: all. */
  readonly queues?: readonly QueueName[];
  /** Replaces the handlers (tests). */
  readonly handlers?: readonly AnyJobHandler[];
  /** Replaces the storage driver from settings (tests). */
  readonly storage?: ObjectStorage;
  /** Back-off of jobs held up by a server fault (default: 5 s doubling to 5 min; tests shorten it). */
  readonly serverFaultBackoff?: { readonly baseMs: number; readonly maxMs: number };
}

export interface WorkerRuntime {
  readonly deps: WorkerDeps;
  /** Counts of this process's workers' events, for tests and logs. */
  readonly stats: { stalled: number; completed: number; failed: number; serverFaults: number };
  /** True when every served queue is being consumed (`/readyz`). */
  ready(): boolean;
  /** Per queue: consumed, or not and why; null before the first check. */
  readiness(): WorkerReadinessReport | null;
  /** Checks what the queues need now instead of at the next interval. */
  checkReadiness(): Promise<void>;
  /** Stops taking jobs, lets running ones finish, releases connections. */
  close(): Promise<void>;
}

/** `all` or a comma-separated list; returns the queues and any unknown names. */
export function parseQueueSelection(value: string): { queues: QueueName[]; unknown: string[] } {
  const names = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (names.length === 0 || names.includes('all')) return { queues: [...QUEUE_NAMES], unknown: [] };
  const unknown = names.filter((n) => !(QUEUE_NAMES as readonly string[]).includes(n));
  return { queues: QUEUE_NAMES.filter((q) => names.includes(q)), unknown };
}

/** The review policies' cache and scoring hook (docs/policies.md). */
function workerPolicies(db: Database, settings: Settings, observer?: PolicyObserver, logger?: Logger) {
  return {
    cache: policyCache(db, {
      checkEveryMs: settings.POLICY_CHECK_SECONDS * 1000,
      // Its channel's frames are held for people until the policy is set again (docs/policies.md).
      onBroken: (channelId, version, problems) =>
        logger?.error(
          { channel_id: channelId, version, problems },
          'stored policy does not compile; frames held for people',
        ),
    }),
    ...(settings.SCORING_URL
      ? { scoring: scoringClient({ url: settings.SCORING_URL, timeoutMs: settings.SCORING_TIMEOUT_MS }) }
      : {}),
    ...(observer ? { observer } : {}),
  };
}

/** What every job handler is handed: the database, storage, queues and the services over them. */
function createWorkerDeps(
  base: Pick<WorkerDeps, 'settings' | 'config' | 'db' | 'queues' | 'storage'>,
  redis: Redis,
  observer?: PolicyObserver,
  logger?: Logger,
): WorkerDeps {
  const { settings, config, db, queues, storage } = base;
  // The API's tus store (same bucket, Redis prefix and expiry), to delete expired sessions' partials.
  const tus = createTusStore(settings, {
    bucket: config.storage.vendor_originals_bucket,
    redis,
    prefix: settings.REDIS_PREFIX,
    expirationMs: (config.delivery.vendor_stream_upload_expires_seconds + 86_400) * 1000,
  });
  const nearDuplicates = nearDuplicateSettings(settings);
  // Throws at start-up when the configuration does not fit the chosen driver.
  const provider = createVideoProvider(settings, config);
  // One cache and scoring hook for images and videos alike.
  const policies = workerPolicies(db, settings, observer, logger);
  return {
    ...base,
    images: imageProcessingService({
      db,
      storage,
      config,
      nearDuplicates,
      policies,
    }),
    reconciler: reconcilerService({ db, queues, reconcileAfterSeconds: settings.RECONCILE_AFTER_SECONDS }),
    video: createVideoService({
      db,
      storage,
      queues,
      provider,
      config,
      tools: { ffprobePath: settings.FFPROBE_PATH, ffmpegPath: settings.FFMPEG_PATH },
      nearDuplicates,
      policies,
    }),
    retention: retentionService({
      db,
      storage,
      provider,
      defaults: retentionDefaults(settings),
      batchSize: settings.RETENTION_BATCH_SIZE,
      deletesPerSecond: settings.RETENTION_DELETES_PER_SECOND,
    }),
    repair: mediaRepairService({ db, storage, config }),
    uploadPartials: { db, discardTus: tus.discard, spoolDir: join(settings.STORAGE_FS_ROOT, '.uploads') },
    publicVariant: publicVariantService({ db, storage, config }),
  };
}

/**
 * Declares the periodic maintenance jobs now and again every little while (a flushed Redis gets
 * them back). Not awaited: with Redis down the worker still starts (and says so on /readyz).
 */
function scheduleMaintenance(queues: QueueProducer, settings: Settings, logger: Logger): NodeJS.Timeout {
  const schedule = async () => {
    await queues.schedule('maintenance.reconcile', settings.RECONCILE_INTERVAL_SECONDS * 1000);
    await queues.schedule('maintenance.sweep', SWEEP_EVERY_MS);
    await queues.schedule('maintenance.retention', settings.RETENTION_INTERVAL_SECONDS * 1000);
  };
  const scheduleLogged = () =>
    void schedule().catch((error: unknown) => logger.warn({ err: error }, 'scheduling failed'));
  scheduleLogged();
  const refresh = setInterval(scheduleLogged, scheduleRefreshMs(settings.RECONCILE_INTERVAL_SECONDS));
  refresh.unref();
  return refresh;
}

/**
 * The worker process: for each selected queue, while its readiness gate is open, what consumes
 * it (queue-consumers.ts), all dispatching through the one handler registry.
 */
export async function startWorkerRuntime(options: WorkerRuntimeOptions): Promise<WorkerRuntime> {
  const { settings, config, logger } = options;
  const registry = buildHandlerRegistry(options.handlers ?? JOB_HANDLERS);
  configureImageProcessing();
  setImageEncodeEffort(settings.IMAGE_ENCODE_EFFORT);

  const connection = createRedis(settings, 'worker');
  connection.on('error', (error) => logger.warn({ err: error }, 'redis error'));
  const database = createDatabase({ url: settings.DATABASE_URL, poolSize: settings.DATABASE_POOL_SIZE });
  const queues = createQueueProducer(connection, settings.REDIS_PREFIX);
  const metrics = createWorkerMetrics(options.metrics, { queues, db: database });
  // Status changes (a frame now waiting for review) are announced to open workbenches, and counted.
  // A frame the system promotes (review not required, a review policy) gets its `public` made.
  const db: Database = withPublicOnPromotion(
    withTransitionMetrics(
      withReviewChanges(database, reviewChangePublisher(connection, settings.REDIS_PREFIX)),
      metrics.pipeline,
    ),
    queues,
    (error, submissionId) =>
      logger.warn({ err: error, submission_id: submissionId }, 'public variant not enqueued; made on request'),
  );
  const deps = createWorkerDeps(
    { settings, config, db, queues, storage: options.storage ?? createStorage(settings) },
    connection,
    {
      ...metrics.policies,
      ruleFailed(channel, failure) {
        metrics.policies.ruleFailed(channel, failure);
        logger.warn({ channel, ...failure }, 'policy rule evaluation failed');
      },
    },
    logger,
  );
  const { storage } = deps;
  const stats = { stalled: 0, completed: 0, failed: 0, serverFaults: 0 };
  const status = createWorkerStatusStore(connection, settings.REDIS_PREFIX);
  const backoff = options.serverFaultBackoff ?? { baseMs: 5_000, maxMs: 300_000 };

  const workerName = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const consume = queueConsumers({
    settings,
    logger,
    connection,
    workerName,
    db,
    processor: { registry, deps, metrics, stats, status, backoff },
  });
  const served = options.queues ?? [...QUEUE_NAMES];
  const intervalMs = settings.WORKER_READINESS_INTERVAL_SECONDS * 1000;
  const gates = createQueueGates({
    worker: workerName,
    queues: served,
    logger,
    intervalMs,
    needs: (queue) => needsOf(queue, settings),
    check: (needs) =>
      checkNeeds(needs, {
        settings,
        db,
        redis: connection,
        storage,
        bucket: config.storage.vendor_originals_bucket,
      }),
    consume,
    publish: (report) => status.publishReadiness(report, (intervalMs * 3) / 1000 + 5),
  });

  const refresh = served.includes('maintenance') ? scheduleMaintenance(queues, settings, logger) : undefined;
  await gates.check();
  logger.info(
    { queues: served, concurrency: settings.WORKER_CONCURRENCY, ready: gates.ready() },
    gates.ready() ? 'workers ready' : 'workers started; some queues wait for what they need',
  );

  return {
    deps,
    stats,
    ready: () => gates.ready(),
    readiness: () => gates.report(),
    checkReadiness: () => gates.check(),
    async close() {
      if (refresh) clearInterval(refresh);
      // close() waits for running jobs; a job that outlives the shutdown timeout is handed back
      // to the queue by the stalled check once its lock lapses.
      await gates.close();
      await queues.close();
      await connection.quit().catch(() => connection.disconnect());
      await db.close();
    },
  };
}
