// An in-process API on a database, Redis prefix and storage root of its own, for the video path;
// uploads are opened by the submissions service, as POST /v1/media-uploads does.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProjectConfig } from '@framedesk/config';
import type { MediaUpload } from '@framedesk/contracts';
import type { Database } from '@framedesk/db';
import { type AgentCaller, submissionsService } from '@framedesk/submissions';
import { makeClip } from '@framedesk/testing';
import { type FakeCloudflare, signWebhook, startFakeCloudflare, type UploadProtocol } from '@framedesk/video-provider';
import { afterAll, beforeAll } from 'vitest';
import type { ApiDependencies } from '../src/dependencies';
import { runIdempotent } from '../src/http/idempotency';
import { startTestServer } from './test-dependencies';

export interface SeededUpload {
  readonly uploadId: string;
  readonly submissionId: string;
  readonly uploadUrl: string;
}

export interface VideoHarness {
  readonly url: string;
  readonly deps: ApiDependencies;
  readonly db: Database;
  readonly storageRoot: string;
  /** A submission in `waiting_for_upload` with a session from the configured provider. */
  seedUpload(input: { byteSize: number; protocol: UploadProtocol; expiresAt?: Date }): Promise<SeededUpload>;
  /** An API key of the agent `bot` that owns the seeded uploads. */
  agentKey(): Promise<string>;
  /** The submission's row as it stands. */
  statusOf(submissionId: string): ReturnType<Database['repos']['submissions']['findById']>;
  close(): Promise<void>;
}

export async function startVideoHarness(
  options: { env?: Record<string, string>; config?: (config: ProjectConfig) => ProjectConfig } = {},
): Promise<VideoHarness> {
  const server = await startTestServer(options);
  const { url, deps, config, storageRoot } = server;
  const db = deps.db;
  let bot: Promise<{ caller: AgentCaller; key: string }> | undefined;
  // The agent `bot`, allowed on `news`, with a key of its own.
  const agentBot = () =>
    (bot ??= (async () => {
      const agent = (await db.repos.agents.findBySlug('bot')) ?? (await db.repos.agents.create('bot'));
      const { channel } = await db.repos.channels.ensure('news');
      await db.repos.agents.allowChannels(agent.id, [channel.id]);
      const { key, row } = await deps.apiKeys.issue(agent.id);
      return { caller: { apiKeyId: row.id, agentId: agent.id, agentSlug: 'bot' }, key };
    })());
  return {
    url,
    deps,
    db,
    storageRoot,
    async seedUpload(input) {
      const { caller } = await agentBot();
      const expiresMs = config.delivery.vendor_stream_upload_expires_seconds * 1000;
      // The service picks the protocol by size and dates the expiry from its clock: the harness
      // sets both through the service's own inputs.
      const service = submissionsService({
        db,
        storage: deps.storage,
        queues: deps.queues,
        videoProvider: deps.videoProvider,
        logger: deps.logger,
        variantUrl: () => url,
        config: {
          ...config,
          media: { ...config.media, small_video_max_bytes: input.protocol === 'tus' ? 0 : Number.MAX_SAFE_INTEGER },
        },
        ...(input.expiresAt ? { now: () => new Date(input.expiresAt!.getTime() - expiresMs) } : {}),
      });
      const request = {
        agent_slug: 'bot',
        channel_slug: 'news',
        media_type: 'video' as const,
        filename: 'clip.mp4',
        content_type: 'video/mp4',
        byte_size: input.byteSize,
        date: '20260101',
      };
      const idempotency = { apiKeyId: caller.apiKeyId, key: randomUUID(), fingerprint: 'seed', lockMs: 60_000 };
      const created = await runIdempotent(db, { ...idempotency, retentionMs: 3_600_000 }, (token) =>
        service.createVideoUpload({ caller, request, idempotency: token }),
      );
      const upload = created.body as MediaUpload;
      return { uploadId: upload.id, submissionId: upload.submission_id, uploadUrl: upload.upload_url };
    },
    async agentKey() {
      return (await agentBot()).key;
    },
    statusOf: (submissionId) => db.repos.submissions.findById(submissionId),
    close: () => server.close(),
  };
}

export interface CloudflareVideoHarness extends VideoHarness {
  /** The local fake of Stream's API the API talks to (its documented wire format). */
  readonly fake: FakeCloudflare;
  /** A Stream webhook posted to the API, signed with the harness's secret (or `secret`), at `time`. */
  notify(body: object, options?: { secret?: string; time?: number }): Promise<Response>;
}

/**
 * The video harness on the `cloudflare` provider, against a fresh fake of Stream: webhooks signed
 * with `secret`; `env` adds settings. Closing it closes both.
 */
export async function startCloudflareVideoHarness(
  secret: string,
  env: Record<string, string> = {},
): Promise<CloudflareVideoHarness> {
  const fake = await startFakeCloudflare();
  let harness: VideoHarness;
  try {
    harness = await startVideoHarness({
      env: { ...fake.settings(secret), ...env },
    });
  } catch (error) {
    await fake.close();
    throw error;
  }
  return {
    ...harness,
    fake,
    notify(body, options = {}) {
      const raw = JSON.stringify(body);
      const time = options.time ?? Math.floor(Date.now() / 1000);
      return fetch(`${harness.url}/provider-events/vendor-stream`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'Webhook-Signature': signWebhook(options.secret ?? secret, raw, time),
        },
        body: raw,
      });
    },
    async close() {
      await harness.close();
      await fake.close();
    },
  };
}

/**
 * A harness and a 2-second clip for the enclosing `describe`: started before its tests, closed
 * (and the clip removed) after them. Read `harness` and `clip` inside the tests.
 */
export function useVideoHarness(): { readonly harness: VideoHarness; readonly clip: Buffer } {
  const context = {} as { harness: VideoHarness; clip: Buffer };
  let dir: string | undefined;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fd-clips-'));
    context.clip = readFileSync(makeClip(dir, 'clip.mp4', 2));
    context.harness = await startVideoHarness();
  });
  afterAll(async () => {
    await context.harness?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return context;
}
