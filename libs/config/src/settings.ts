import { resolve } from 'node:path';
import { RETENTION_PATTERN } from '@framedesk/domain';
import { type Static, Type } from '@sinclair/typebox';
import { type GroupMapping, parseGroupMapping } from './group-mapping';
import { parseSentinels } from './redis-target';
import { parseTrustProxy, type TrustProxy } from './trust-proxy';
import { compileValidator, stringEnum, type Violation } from './validation';

const str = (defaultValue: string, description: string) => Type.String({ default: defaultValue, description });
const int = (defaultValue: number, description: string, minimum = 0) =>
  Type.Integer({ default: defaultValue, minimum, description });
const optionalStr = (description: string) => Type.Optional(Type.String({ minLength: 1, description }));
const bool = (defaultValue: boolean, description: string) => Type.Boolean({ default: defaultValue, description });
const retention = (status: string) =>
  Type.String({
    default: 'never',
    pattern: RETENTION_PATTERN,
    description: `Default retention of a ${status} frame's media after its last change (<n>d or never); channels may set their own`,
  });

/**
 * Operational settings (DESIGN.md §2): everything that is not project configuration, read from
 * environment variables once at boot. The README's env table is generated from this schema
 * (`node tools/env-table.mjs`) and checked by a test, so the two cannot drift apart.
 */
export const settingsSchema = Type.Object(
  {
    FRAMEDESK_CONFIG: optionalStr(
      'Project configuration file; default config/project.json, else config/project.example.json',
    ),
    NODE_ENV: stringEnum(['development', 'production', 'test'] as const, {
      default: 'development',
      description: 'production refuses a placeholder or short (< 32 bytes) SESSION_SECRET',
    }),
    DATABASE_URL: str('postgresql://postgres@127.0.0.1:5432/framedesk', 'PostgreSQL connection string'),
    DATABASE_POOL_SIZE: int(10, 'Connections per process', 1),
    DATABASE_READ_URL: optionalStr(
      "Streaming replicas for reads that may be a moment stale (review queue and timeline pages, Team view, audit export, policy simulate, agent feedback record, ops page, cluster gauges), e.g. HAProxy's read-only port or a managed reader endpoint; unset: every read on DATABASE_URL",
    ),
    DATABASE_READ_MAX_LAG_BYTES: int(
      16 * 1024 * 1024,
      'A replica further behind the primary than this (WAL bytes to replay) is not read from; reads fall back to the primary (counted in framedesk_db_replica_fallback_reads_total)',
    ),
    REDIS_URL: str(
      'redis://127.0.0.1:6379',
      'Redis connection string (queues, rate limits) when one Redis serves; ignored when REDIS_SENTINELS is set',
    ),
    REDIS_SENTINELS: str(
      '',
      'Redis under Sentinel: comma-separated Sentinels (host:port,…); every connection of every process then asks them for the primary',
    ),
    REDIS_SENTINEL_NAME: str('framedesk', "The primary's name the Sentinels monitor (with REDIS_SENTINELS)"),
    REDIS_SENTINEL_PASSWORD: optionalStr(
      'Password of the Sentinels themselves (with REDIS_SENTINELS), when they require one',
    ),
    REDIS_PASSWORD: optionalStr(
      'Password of the Redis servers under Sentinel (with REDIS_SENTINELS); with REDIS_URL put it in the URL',
    ),
    REDIS_PREFIX: Type.String({
      default: '{framedesk}',
      pattern: '^(\\{[A-Za-z0-9_-]+\\}|[A-Za-z0-9_-]+)$',
      description:
        'Prefix of every Redis key (queues included); braces are added when missing, so all keys share one Redis Cluster hash slot',
    }),
    API_HOST: str('127.0.0.1', 'Address the API listens on (0.0.0.0 in containers)'),
    API_PORT: int(3000, 'API port; it also serves the built workbench', 0),
    WORKBENCH_PORT: int(5173, 'Workbench dev server port (npm start)', 0),
    WORKER_HEALTH_PORT: int(
      9464,
      'Worker /healthz, /readyz and /metrics port; each worker on one machine needs its own',
      0,
    ),
    WORKER_CONCURRENCY: int(
      2,
      'Jobs one worker process runs at once, per queue; for new images (the image intake), images decoding at once, as many more being read, stored and recorded meanwhile',
      1,
    ),
    WORKER_QUEUES: str('all', 'Comma-separated queues this worker serves, or all'),
    WORKER_CRASH_LIMIT: int(
      3,
      'Runs of one frame whose worker ended while it ran alone (a crash, out of memory, a kill) before the frame fails processing_crashed and is not run again',
      1,
    ),
    WORKER_TEST_CRASH_SUBMISSION: str(
      '',
      'Tests only, ignored unless NODE_ENV=test: the worker kills itself (SIGKILL) when it starts processing this submission id, as a poison image would',
    ),
    WORKER_READINESS_INTERVAL_SECONDS: int(
      30,
      'How often a worker checks what its queues need (ffprobe/ffmpeg, storage, PostgreSQL, Redis)',
      1,
    ),
    STORAGE_DRIVER: stringEnum(['fs', 's3'] as const, {
      default: 'fs',
      description: 'fs (local directory) or s3 (any S3-compatible store)',
    }),
    STORAGE_FS_ROOT: str('.data/storage', 'Root directory of the fs driver; one folder per bucket'),
    S3_ENDPOINT: optionalStr('S3-compatible endpoint, e.g. https://<account>.r2.cloudflarestorage.com'),
    S3_REGION: str('auto', 'S3 region (auto for R2)'),
    S3_ACCESS_KEY_ID: optionalStr('S3 access key id'),
    S3_SECRET_ACCESS_KEY: optionalStr('S3 secret access key'),
    S3_FORCE_PATH_STYLE: bool(true, 'Path-style bucket addressing (Ceph RGW, MinIO)'),
    VIDEO_PROVIDER: stringEnum(['local', 'cloudflare'] as const, {
      default: 'local',
      description: 'local (served by the API) or cloudflare (Cloudflare Stream)',
    }),
    CLOUDFLARE_API_BASE: str('https://api.cloudflare.com/client/v4', 'Cloudflare API base address'),
    CLOUDFLARE_ACCOUNT_ID: optionalStr('Cloudflare account id (VIDEO_PROVIDER=cloudflare)'),
    CLOUDFLARE_API_TOKEN: optionalStr('Cloudflare API token with Stream:Edit (VIDEO_PROVIDER=cloudflare)'),
    CLOUDFLARE_WEBHOOK_SECRET: optionalStr('Secret returned when the Stream webhook was registered'),
    CLOUDFLARE_WEBHOOK_MAX_AGE_SECONDS: int(
      300,
      'Stream notifications signed longer ago than this are refused (replay protection)',
      1,
    ),
    FFPROBE_PATH: str('ffprobe', 'ffprobe executable'),
    FFMPEG_PATH: str('ffmpeg', 'ffmpeg executable'),
    SESSION_SECRET: Type.String({
      default: 'development-only-secret-change-me',
      minLength: 16,
      description: 'Signs media URLs and upload tokens; required in production',
    }),
    SESSION_TTL_HOURS: int(12, 'Reviewer session lifetime', 1),
    TRUST_PROXY: Type.String({
      default: 'false',
      description:
        'Proxies in front of the API whose X-Forwarded-* are believed: false, a hop count (1), or addresses/CIDRs, comma-separated; true is refused. Any proxy makes cookies Secure',
    }),
    PASSWORD_LOGIN: bool(
      true,
      'Reviewers may sign in with a password; false leaves only single sign-on (and BREAK_GLASS_ADMIN_EMAIL)',
    ),
    BREAK_GLASS_ADMIN_EMAIL: optionalStr(
      'With PASSWORD_LOGIN=false, the one admin account that may still sign in with a password (the identity provider is down)',
    ),
    INVITE_TTL_HOURS: int(72, 'How long an invite link from the People screen stays valid', 1),
    REVIEW_STREAMS_PER_SESSION: int(
      4,
      'Live event streams (GET /review/events) one reviewer session may hold open on one API process; a new one past it closes the oldest',
      1,
    ),
    REVIEW_STREAMS_PER_REVIEWER: int(
      10,
      'Live event streams one reviewer may hold open on one API process, all sessions together; a new one past it closes the oldest',
      1,
    ),
    OIDC_ISSUER_URL: optionalStr(
      'OpenID Connect issuer for single sign-on (https; http only on loopback); the redirect URL is {api.base_url}/review/oidc/callback',
    ),
    OIDC_CLIENT_ID: optionalStr('Client id registered at the OpenID Provider (required with OIDC_ISSUER_URL)'),
    OIDC_CLIENT_SECRET: optionalStr('Client secret (client_secret_basic); without it a public client with PKCE only'),
    OIDC_PROVIDER_NAME: str('single sign-on', 'Names the provider on the sign-in button: "Sign in with <name>"'),
    OIDC_SCOPES: str(
      'openid email profile',
      'Scopes asked for at sign-in; add groups where the provider needs a scope for the groups claim (Okta)',
    ),
    OIDC_AUTO_PROVISION: bool(
      false,
      'Create an account (role reviewer, no channels) for a person the provider vouches for and Framedesk does not know yet',
    ),
    OIDC_GROUPS_CLAIM: str('groups', 'The ID token or userinfo claim that lists the groups OIDC_GROUP_MAPPING reads'),
    OIDC_GROUP_MAPPING: Type.String({
      default: '',
      description:
        'Provisioning from groups, comma-separated: group=role:admin, group=channel:<slug> (applied when an account is created)',
    }),
    OIDC_REQUIRE_VERIFIED_EMAIL: bool(
      true,
      'Match people by email only when the provider says it is verified (email_verified or Entra ID xms_edov)',
    ),
    RATE_LIMIT_PER_MINUTE: int(600, 'Requests per API key per minute (over MCP: every call of a batch counts)', 1),
    MCP_BATCH_MAX: int(10, 'Most JSON-RPC messages in one /mcp request (a batch); 400 above', 1),
    MCP_CONCURRENT_PER_KEY: int(
      4,
      'Concurrent /mcp and GET /v1/agents/{slug}/feedback requests per API key on one API process (one count for both); 429 with Retry-After beyond',
      1,
    ),
    MCP_LIST_MAX_BYTES: int(
      256 * 1024,
      'Largest list_submissions page over MCP, in bytes of JSON: fewer rows and a next_cursor beyond',
      1024,
    ),
    MEDIA_RATE_LIMIT_PER_MINUTE: int(
      1200,
      'Media requests (signed /media links, video originals and their Range requests) per reviewer per minute (links without a reviewer: per client address); 429 past it',
      1,
    ),
    INVALID_API_KEYS_PER_MINUTE: int(
      30,
      'Requests with an invalid API key per client address per minute; past it 429 before any database lookup',
      1,
    ),
    METRICS_TOKEN: optionalStr(
      'When set, GET /metrics on the API requires Authorization: Bearer <this token>; unset in production, /metrics leaves out the cluster gauges (channel names and backlogs)',
    ),
    LOGIN_ATTEMPTS_PER_15_MINUTES: int(
      10,
      'Failed reviewer logins per (email, address) and per address (IPv6: per /64); 429 past it',
      1,
    ),
    LOGIN_CONCURRENT_CHECKS: int(
      2,
      'Reviewer password checks (scrypt) one API process runs at once; 4 per slot may wait, the rest get 503',
      1,
    ),
    VIDEO_MAX_BYTES: int(4 * 1024 ** 3, 'Largest video byte_size accepted at upload-session creation (413 above)', 1),
    AGENT_OPEN_UPLOADS_MAX: int(
      20,
      'Open (unfinished, unexpired) video upload sessions per agent, with expired ones whose partial bytes are not deleted yet (429 quota_exceeded above)',
      1,
    ),
    AGENT_OPEN_UPLOAD_BYTES_MAX: int(
      16 * 1024 ** 3,
      "Bytes declared by one agent's open video upload sessions together, with expired ones whose partial bytes are not deleted yet (429 quota_exceeded above)",
      1,
    ),
    REQUEST_TIMEOUT_SECONDS: int(120, 'Longest a request body may take to arrive', 1),
    IDEMPOTENCY_RETENTION_HOURS: int(24, 'How long idempotent responses are replayable', 1),
    RECONCILE_AFTER_SECONDS: int(120, 'Age after which a non-terminal submission without a live job is re-enqueued', 1),
    RECONCILE_INTERVAL_SECONDS: int(30, 'How often the reconciler looks for submissions without a live job', 1),
    WORKER_LOCK_SECONDS: int(
      30,
      'Job lock (BullMQ jobs and image intake entries); a job whose worker died is handed to another after this long',
      2,
    ),
    NEAR_DUPLICATE_MAX_DISTANCE: Type.Integer({
      default: 10,
      minimum: 0,
      maximum: 15,
      description: 'Largest Hamming distance (of 64 bits) at which an earlier frame counts as a near-duplicate',
    }),
    // The default is libs/media's DEFAULT_IMAGE_ENCODE_EFFORT (chosen by the variants benchmark; a test keeps them equal).
    IMAGE_ENCODE_EFFORT: Type.Integer({
      default: 2,
      minimum: 0,
      maximum: 6,
      description:
        'WebP effort of image variants, 0 (least CPU) to 6 (smallest files); 2 costs about half the CPU of 4 for a few % more bytes (docs/performance.md)',
    }),
    NEAR_DUPLICATE_WINDOW_DAYS: int(90, 'How far back near-duplicates of a frame are looked for in its channel', 1),
    SCORING_URL: optionalStr(
      'Scoring service a review policy reads `scores` from (docs/policies.md): the worker posts each frame of a channel whose policy reads scores; unset: no scores',
    ),
    SCORING_TIMEOUT_MS: int(
      2000,
      'How long the worker waits for the scoring service; after that the rules see no scores and the frame goes to people',
      1,
    ),
    SIMULATE_CONCURRENT: int(
      2,
      'Policy simulations (POST /review/channels/{slug}/policy/simulate) one API process runs at once; 503 busy with Retry-After beyond',
      1,
    ),
    SIMULATE_DEADLINE_SECONDS: int(
      60,
      'Longest a policy simulation (API and CLI) runs; past it, it stops (503 deadline_exceeded)',
      1,
    ),
    TEAM_VIEW_CONCURRENT: int(
      2,
      'Team view reads (GET /review/team) one API process runs at once; 503 busy with Retry-After beyond',
      1,
    ),
    POLICY_CHECK_SECONDS: int(
      5,
      "How often a worker (or the API, finishing a provider's video) checks whether a channel's review policy changed (0: before every frame, one indexed read each)",
      0,
    ),
    RETENTION_REJECTED: retention('rejected'),
    RETENTION_FAILED: retention('failed'),
    RETENTION_PROMOTED: retention('promoted'),
    RETENTION_INTERVAL_SECONDS: int(300, 'How often the retention purge runs; one run works at most this long', 1),
    RETENTION_BATCH_SIZE: int(100, 'Frames the retention purge deletes per batch (one transaction each)', 1),
    RETENTION_DELETES_PER_SECOND: int(
      200,
      "Most deletions (stored objects and the video provider's copies) the retention purge makes per second",
      1,
    ),
    WORKBENCH_DIST: str('apps/workbench/dist', 'Built workbench the API serves at /'),
    CORS_ORIGINS: Type.String({
      default: '',
      description: 'Comma-separated origins allowed to call the agent API from a browser; empty: none',
    }),
    LOG_LEVEL: stringEnum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, {
      default: 'info',
      description: 'pino log level',
    }),
    LOG_FORMAT: stringEnum(['json', 'pretty'] as const, {
      default: 'json',
      description: 'json: one JSON object per line; pretty: one readable line per event (development, `npm start`)',
    }),
  },
  { additionalProperties: true },
);

export type Settings = Readonly<Omit<Static<typeof settingsSchema>, 'TRUST_PROXY' | 'OIDC_GROUP_MAPPING'>> & {
  readonly TRUST_PROXY: TrustProxy;
  readonly OIDC_GROUP_MAPPING: GroupMapping;
  readonly workspaceRoot: string;
};

export const DEVELOPMENT_SESSION_SECRET = 'development-only-secret-change-me';
/** Shorter secrets are refused in production (256 bits, the HMAC-SHA256 key size). */
export const MIN_PRODUCTION_SECRET_BYTES = 32;
// Values copied from examples and templates rather than generated.
const PLACEHOLDER_SECRET = /change[-_ ]?me|changeit|placeholder|example|^secret$|^password$|^(.)\1*$/i;

function sessionSecretProblem(secret: string): string | null {
  // Unset, it is the development default: say so, not "a placeholder" the operator never wrote.
  if (secret === DEVELOPMENT_SESSION_SECRET)
    return 'is not set (the development default is refused in production); set a secret of your own (e.g. openssl rand -base64 48)';
  if (PLACEHOLDER_SECRET.test(secret))
    return 'is a placeholder; set a secret of your own in production (e.g. openssl rand -base64 48)';
  if (Buffer.byteLength(secret) < MIN_PRODUCTION_SECRET_BYTES)
    return `must be at least ${MIN_PRODUCTION_SECRET_BYTES} bytes in production (e.g. openssl rand -base64 48)`;
  return null;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** Single sign-on and password settings that only make sense together. */
function signInProblems(settings: Static<typeof settingsSchema>): Violation[] {
  const problems: Violation[] = [];
  const issuer = settings.OIDC_ISSUER_URL;
  if (issuer) {
    let url: URL | null = null;
    try {
      url = new URL(issuer);
    } catch {
      problems.push({ path: '/OIDC_ISSUER_URL', message: 'is not a URL' });
    }
    if (url && url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.has(url.hostname)))
      problems.push({ path: '/OIDC_ISSUER_URL', message: 'must be https (http only on a loopback address)' });
    if (!settings.OIDC_CLIENT_ID)
      problems.push({ path: '/OIDC_CLIENT_ID', message: 'is required when OIDC_ISSUER_URL is set' });
  }
  if (!settings.PASSWORD_LOGIN && !issuer)
    problems.push({
      path: '/PASSWORD_LOGIN',
      message: 'false needs OIDC_ISSUER_URL: otherwise nobody could sign in',
    });
  return problems;
}

export class SettingsError extends Error {
  constructor(readonly violations: readonly Violation[]) {
    super(`Invalid environment:\n${violations.map((v) => `  ${v.path.slice(1)}: ${v.message}`).join('\n')}`);
    this.name = 'SettingsError';
  }
}

const validateSettings = compileValidator(settingsSchema, { coerceTypes: true, useDefaults: true });
const KNOWN = new Set(Object.keys(settingsSchema.properties));

/**
 * `{name}`: a Redis Cluster hashes only the part in braces, so every key of one installation
 * (BullMQ's multi-key scripts included) lands in one slot.
 */
export function hashTagged(prefix: string): string {
  return prefix.startsWith('{') ? prefix : `{${prefix}}`;
}

/** Reads and validates the environment once. Nothing else in the code base touches process.env. */
export function loadSettings(env: NodeJS.ProcessEnv, workspaceRoot = process.cwd()): Settings {
  const input: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(env))
    if (KNOWN.has(key) && value !== undefined && value !== '') input[key] = value;
  const result = validateSettings(input);
  if (!result.ok) throw new SettingsError(result.violations);
  const settings = result.value;
  const violations: Violation[] = [];
  const secretProblem = settings.NODE_ENV === 'production' ? sessionSecretProblem(settings.SESSION_SECRET) : null;
  if (secretProblem) violations.push({ path: '/SESSION_SECRET', message: secretProblem });
  const trustProxy = parseTrustProxy(settings.TRUST_PROXY);
  if (!trustProxy.ok) violations.push({ path: '/TRUST_PROXY', message: trustProxy.message });
  if (settings.STORAGE_DRIVER === 's3' && !settings.S3_ENDPOINT) {
    violations.push({ path: '/S3_ENDPOINT', message: 'is required when STORAGE_DRIVER=s3' });
  }
  const groupMapping = parseGroupMapping(settings.OIDC_GROUP_MAPPING);
  if (!groupMapping.ok) violations.push({ path: '/OIDC_GROUP_MAPPING', message: groupMapping.message });
  violations.push(...signInProblems(settings));
  if (settings.REDIS_SENTINELS && parseSentinels(settings.REDIS_SENTINELS) === null) {
    violations.push({ path: '/REDIS_SENTINELS', message: 'must be host:port pairs separated by commas' });
  }
  if (settings.VIDEO_PROVIDER === 'cloudflare') {
    for (const key of ['CLOUDFLARE_ACCOUNT_ID', 'CLOUDFLARE_API_TOKEN'] as const) {
      if (!settings[key]) violations.push({ path: `/${key}`, message: 'is required when VIDEO_PROVIDER=cloudflare' });
    }
  }
  if (violations.length > 0) throw new SettingsError(violations);
  return Object.freeze({
    ...settings,
    REDIS_PREFIX: hashTagged(settings.REDIS_PREFIX),
    TRUST_PROXY: trustProxy.ok ? trustProxy.value : false,
    OIDC_GROUP_MAPPING: groupMapping.ok ? groupMapping.value : [],
    workspaceRoot: resolve(workspaceRoot),
  });
}

/** Rows of the README's env table: name, default, meaning. */
export function settingsTable(): { name: string; defaultValue: string; description: string }[] {
  return Object.entries(settingsSchema.properties).map(([name, schema]) => {
    const s = schema as { default?: unknown; description?: string };
    return { name, defaultValue: s.default === undefined ? '' : String(s.default), description: s.description ?? '' };
  });
}
