// An in-process API on a database, Redis prefix and storage root of its own, for the video path.
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { generateApiKey } from '@framedesk/access';
import { loadSettings, type ProjectConfig, readProjectConfig } from '@framedesk/config';
import type { Database } from '@framedesk/db';
import { newId } from '@framedesk/domain';
import { createLogger } from '@framedesk/observability';
import { createTestDatabase, createTestRedisPrefix, testRedisUrl } from '@framedesk/testing';
import type { UploadProtocol } from '@framedesk/video-provider';
import { createApp } from '../src/app';
import { type ApiDependencies, closeApiDependencies, createApiDependencies } from '../src/dependencies';

const root = resolve(import.meta.dirname, '../../..');

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
  close(): Promise<void>;
}

/** A short real clip made by ffmpeg (testsrc). */
export function makeClip(dir: string, name: string, seconds: number): string {
  const path = join(dir, name);
  execFileSync('ffmpeg', [
    '-y',
    '-loglevel',
    'error',
    '-f',
    'lavfi',
    '-i',
    `testsrc=duration=${seconds}:size=320x240:rate=10`,
    '-pix_fmt',
    'yuv420p',
    path,
  ]);
  return path;
}

export async function startVideoHarness(
  options: { env?: Record<string, string>; config?: (config: ProjectConfig) => ProjectConfig } = {},
): Promise<VideoHarness> {
  const database = await createTestDatabase();
  const redis = createTestRedisPrefix();
  const storageRoot = await mkdtemp(join(tmpdir(), 'framedesk-video-'));
  let handler: RequestListener = (_req, res) => res.writeHead(503).end();
  const server: Server = createServer((req, res) => handler(req, res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const settings = loadSettings(
    {
      DATABASE_URL: database.url,
      REDIS_URL: testRedisUrl(),
      REDIS_PREFIX: redis.prefix,
      STORAGE_FS_ROOT: join(storageRoot, 'storage'),
      LOG_LEVEL: 'silent',
      ...options.env,
    },
    root,
  );
  const example = readProjectConfig(join(root, 'config/project.example.json'));
  const base: ProjectConfig = { ...example, api: { ...example.api, base_url: url } };
  const config = options.config ? options.config(base) : base;
  let deps: ApiDependencies;
  try {
    deps = createApiDependencies(settings, config, createLogger({ name: 'api-test', level: 'silent' }));
  } catch (error) {
    // A refused configuration: release what was set up before rethrowing.
    await new Promise<void>((r) => server.close(() => r()));
    await database.drop();
    await rm(storageRoot, { recursive: true, force: true });
    throw error;
  }
  handler = createApp(deps);
  const db = deps.db;
  return {
    url,
    deps,
    db,
    storageRoot,
    async seedUpload(input) {
      const submissionId = newId('submission');
      const uploadId = newId('upload');
      const expiresAt =
        input.expiresAt ?? new Date(Date.now() + config.delivery.vendor_stream_upload_expires_seconds * 1000);
      const session = await deps.videoProvider.createUpload({
        uploadId,
        submissionId,
        byteSize: input.byteSize,
        contentType: 'video/mp4',
        filename: 'clip.mp4',
        expiresAt,
        protocol: input.protocol,
        ...(config.media.video_max_duration_seconds
          ? { maxDurationSeconds: config.media.video_max_duration_seconds }
          : {}),
      });
      await db.transaction(async (repos) => {
        const { channel } = await repos.channels.ensure('news');
        const agent = (await repos.agents.findBySlug('bot')) ?? (await repos.agents.create('bot'));
        await repos.submissions.create(
          {
            id: submissionId,
            status: 'waiting_for_upload',
            mediaType: 'video',
            agentId: agent.id,
            channelId: channel.id,
            date: '20260101',
            metadata: {},
            visibility: 'promotion_eligible',
          },
          { type: 'agent', id: agent.id },
        );
        await repos.mediaUploads.create({
          id: uploadId,
          submissionId,
          provider: deps.videoProvider.name,
          providerRef: session.providerRef,
          uploadUrl: session.uploadUrl,
          protocol: input.protocol,
          byteSize: input.byteSize,
          contentType: 'video/mp4',
          filename: 'clip.mp4',
          tokenHash: session.tokenHash ?? null,
          expiresAt,
        });
      });
      return { uploadId, submissionId, uploadUrl: session.uploadUrl };
    },
    async agentKey() {
      const agent = (await db.repos.agents.findBySlug('bot')) ?? (await db.repos.agents.create('bot'));
      const { key, prefix, hash } = generateApiKey();
      await db.repos.apiKeys.create({ agentId: agent.id, prefix, hash });
      return key;
    },
    async close() {
      const closed = new Promise<void>((r) => server.close(() => r()));
      server.closeAllConnections();
      await closed;
      await closeApiDependencies(deps);
      await database.drop();
      await redis.cleanup();
      await rm(storageRoot, { recursive: true, force: true });
    },
  };
}
