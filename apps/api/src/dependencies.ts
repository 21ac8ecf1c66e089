import { join } from 'node:path';
import {
  apiKeysService,
  type ApiKeysService,
  createRateLimiter,
  failureCounter,
  type FailureCounter,
  type RateLimiter,
  signMediaUrl,
} from '@framedesk/access';
import type { ProjectConfig, Settings } from '@framedesk/config';
import { accessChangeListener, type AccessChangeListener, createDatabase, type Database } from '@framedesk/db';
import {
  clusterDatabaseSources,
  createMetricsRegistry,
  countFailOpen,
  createPipelineMetrics,
  createRedisOutageMetrics,
  type Logger,
  type PipelineMetrics,
  type RedisOutageMetrics,
  Registry,
  registerClusterGauges,
  registerReplicaMetrics,
  withTransitionMetrics,
} from '@framedesk/observability';
import { DomainError } from '@framedesk/domain';
import {
  createQueueProducer,
  createRedis,
  type QueueProducer,
  type Redis,
  RedisLocker,
  reviewChangePublisher,
  type ReviewChangeSubscriber,
  reviewChangeSubscriber,
  withReviewChanges,
} from '@framedesk/queues';
import { createStorage, createTusStore, type ObjectStorage } from '@framedesk/storage';
import {
  createVideoService,
  createVideoUploadService,
  type VideoService,
  type VideoUploadService,
  withPublicOnPromotion,
} from '@framedesk/submissions';
import { setImageEncodeEffort } from '@framedesk/media';
import { type PolicyCache, policyCache, scoringClient } from '@framedesk/policies';
import {
  requestValidators,
  type RequestValidators,
  submissionsService,
  type SubmissionsService,
} from '@framedesk/submissions';
import { createVideoProvider, type VideoProvider } from '@framedesk/video-provider';
import type { Locker } from '@tus/utils';
import { SessionTusStore } from './http/tus-store';

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
  /**
   * The cluster gauges (queues, statuses, every channel's backlog), apart: /metrics serves them
   * only as metricsExposure allows (in production, only with METRICS_TOKEN).
   */
  readonly clusterMetrics: Registry;
  /** Transitions, failures and review decisions counted where they happen. */
  readonly pipeline: PipelineMetrics;
  /** Rate limiters failing open and live-queue resyncs during a Redis outage or failover. */
  readonly redisOutage: RedisOutageMetrics;
  readonly apiKeys: ApiKeysService;
  readonly videoProvider: VideoProvider;
  /** The local provider's receiving end (upload URLs) and provider notifications. */
  readonly videoUploads: VideoUploadService;
  /** Resumable partials, reachable by every API instance (S3 multipart or a shared fs volume). */
  readonly tusStore: SessionTusStore;
  /** One writer per upload session across instances (Redis). */
  readonly uploadLocker: Locker;
  readonly video: VideoService;
  /** The channels' review policies as this process routes with them (a provider's finished video). */
  readonly policyCache: PolicyCache;
  /** The agent API. */
  readonly submissions: SubmissionsService;
  readonly validators: RequestValidators;
  readonly rateLimiter: RateLimiter;
  /** Invalid API keys per client address, refused before any database lookup past the limit. */
  readonly invalidKeys: FailureCounter;
  /** Reviewers whose role, channels or sessions changed (PostgreSQL LISTEN): open event streams re-check. */
  readonly accessChanges: AccessChangeListener;
  /**
   * Status changes from every instance, for open workbenches (GET /review/events): one reading
   * connection, opened with the first stream and closed with the rest of the process's connections.
   */
  readonly reviewChanges: ReviewChangeSubscriber;
}

export function createApiDependencies(settings: Settings, config: ProjectConfig, logger: Logger): ApiDependencies {
  // Throws at start-up when the configuration does not fit the chosen driver (Cloudflare's expiry bounds).
  const videoProvider = createVideoProvider(settings, config);
  const redis = createRedis(settings, 'producer');
  redis.on('error', (error) => logger.warn({ err: error }, 'redis error'));
  const metrics = createMetricsRegistry('api');
  const pipeline = createPipelineMetrics(metrics);
  const redisOutage = createRedisOutageMetrics(metrics);
  // Status changes are announced to open workbenches (GET /review/events) on every instance, and counted.
  const database = createDatabase({
    url: settings.DATABASE_URL,
    poolSize: settings.DATABASE_POOL_SIZE,
    ...(settings.DATABASE_READ_URL
      ? { readUrl: settings.DATABASE_READ_URL, maxReadLagBytes: settings.DATABASE_READ_MAX_LAG_BYTES }
      : {}),
  });
  const queues = createQueueProducer(redis, settings.REDIS_PREFIX);
  // A frame a reviewer promotes gets its `public` variant made by the workers (issue 39).
  const db = withPublicOnPromotion(
    withTransitionMetrics(withReviewChanges(database, reviewChangePublisher(redis, settings.REDIS_PREFIX)), pipeline),
    queues,
    (error, submissionId) =>
      logger.warn({ err: error, submission_id: submissionId }, 'public variant not enqueued; made on request'),
  );
  // A `public` requested before its job ran is made here, at the workers' effort.
  setImageEncodeEffort(settings.IMAGE_ENCODE_EFFORT);
  const clusterMetrics = new Registry();
  clusterMetrics.setDefaultLabels({ service: 'api' });
  registerClusterGauges(clusterMetrics, { queues, ...clusterDatabaseSources(() => db.readRepos()) });
  // Where the reads that may be a moment stale go (DATABASE_READ_URL): fallbacks to the primary, lag.
  if (settings.DATABASE_READ_URL) registerReplicaMetrics(metrics, () => db.replicaStatus());
  const storage = createStorage(settings);
  // Variant links in GET resources: signed, valid for 15 minutes.
  const variantUrl = (submissionId: string, name: string) =>
    new URL(
      signMediaUrl(settings.SESSION_SECRET, { submissionId, name }, new Date(Date.now() + 15 * 60_000)),
      config.api.base_url,
    ).toString();
  const uploadLocker = new RedisLocker(redis, {
    prefix: settings.REDIS_PREFIX,
    // Logged: a lock held that long is a writer killed mid-request (its lock lapses) or stuck.
    // 423, never 409: a HEAD answer has no body for a code, and 409 to a HEAD says "complete".
    busyError: (uploadId) => {
      logger.warn({ upload_id: uploadId }, 'upload lock held by another request for 3 s: answered 423 upload_locked');
      return new DomainError('upload_locked', 'Another request holds this upload; HEAD again after Retry-After.', {
        headers: { 'Retry-After': '1' },
      });
    },
  });
  const tus = createTusStore(settings, {
    bucket: config.storage.vendor_originals_bucket,
    redis,
    prefix: settings.REDIS_PREFIX,
    // Sessions expire by their own expires_at (410); the store forgets partials a day later at most.
    expirationMs: (config.delivery.vendor_stream_upload_expires_seconds + 86_400) * 1000,
  });
  const tusStore = new SessionTusStore(tus.store, tus.discard);
  const submissions = submissionsService({
    db,
    storage,
    queues,
    videoProvider,
    config,
    logger,
    variantUrl,
    limits: {
      videoMaxBytes: settings.VIDEO_MAX_BYTES,
      openUploadsPerAgent: settings.AGENT_OPEN_UPLOADS_MAX,
      openUploadBytesPerAgent: settings.AGENT_OPEN_UPLOAD_BYTES_MAX,
    },
  });
  const policies = policyCache(db, { checkEveryMs: settings.POLICY_CHECK_SECONDS * 1000 });
  return {
    settings,
    config,
    logger,
    db,
    redis,
    queues,
    storage,
    metrics,
    clusterMetrics,
    pipeline,
    redisOutage,
    apiKeys: apiKeysService(db),
    videoProvider,
    videoUploads: createVideoUploadService({
      db,
      storage,
      queues,
      config,
      spoolDir: join(settings.STORAGE_FS_ROOT, '.uploads'),
      locker: uploadLocker,
      dropPartial: (uploadId) => tusStore.discard(uploadId),
      sweepPartials: () => tusStore.deleteExpired(),
      log: logger,
      transitions: pipeline,
    }),
    tusStore,
    uploadLocker,
    policyCache: policies,
    // A provider's webhook can finish a video here: routed by the channel's policy as the worker would.
    video: createVideoService({
      db,
      storage,
      queues,
      provider: videoProvider,
      config,
      policies: {
        cache: policies,
        ...(settings.SCORING_URL
          ? { scoring: scoringClient({ url: settings.SCORING_URL, timeoutMs: settings.SCORING_TIMEOUT_MS }) }
          : {}),
        // Counted in the same metrics as the worker's (framedesk_scoring_requests_total, _policy_routed_total).
        observer: pipeline.policies,
      },
    }),
    submissions,
    validators: requestValidators(config),
    rateLimiter: countFailOpen(
      createRateLimiter(redis, { prefix: settings.REDIS_PREFIX, limit: settings.RATE_LIMIT_PER_MINUTE }),
      'agent',
      redisOutage,
    ),
    invalidKeys: failureCounter(redis, {
      prefix: settings.REDIS_PREFIX,
      name: 'invalid-keys',
      limit: settings.INVALID_API_KEYS_PER_MINUTE,
      windowMs: 60_000,
    }),
    accessChanges: accessChangeListener(settings.DATABASE_URL, (error) =>
      logger.warn({ err: error }, 'listening for reviewer access changes failed; reconnecting'),
    ),
    reviewChanges: reviewChangeSubscriber(redis, settings.REDIS_PREFIX),
  };
}

export async function closeApiDependencies(deps: ApiDependencies): Promise<void> {
  await deps.apiKeys.flushLastUsed().catch(() => undefined);
  await deps.accessChanges.close();
  await deps.reviewChanges.close();
  await deps.queues.close();
  deps.redis.disconnect();
  await deps.db.close();
}
