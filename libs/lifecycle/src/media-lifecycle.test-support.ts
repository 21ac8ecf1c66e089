// For the retention and erasure integration specs: a database, fs storage and a fake of Cloudflare
// Stream's HTTP API (the one third party here), frames seeded in any status with their objects,
// and the purge as the worker runs it.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDatabase, type Database } from '@framedesk/db';
import { newId, type SubmissionStatus } from '@framedesk/domain';
import { createFsStorage, type ObjectStorage, storageKeys } from '@framedesk/storage';
import { createTestDatabase, seedActorType, STATUS_PATHS, type TestDatabase } from '@framedesk/testing';
import {
  createCloudflareVideoProvider,
  type FakeCloudflare,
  startFakeCloudflare,
  type VideoProvider,
} from '@framedesk/video-provider';
import { afterAll, beforeAll } from 'vitest';
import { type ErasureDeps, erasureService } from './erasure.service';
import { retentionService } from './retention.service';

export const BUCKET = 'lifecycle';
export const NEVER = { rejected: 'never', failed: 'never', promoted: 'never' } as const;

export let database: TestDatabase;
export let db: Database;
export let dir: string;
export let storage: ObjectStorage;
export let fake: FakeCloudflare;
export let provider: VideoProvider;
export let agentId: string;

/** A database, fs storage and a fake Cloudflare Stream of the spec file's own, for its tests. */
export function useMediaLifecycle(): void {
  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDatabase({ url: database.url, poolSize: 4 });
    dir = await mkdtemp(join(tmpdir(), 'fd-lifecycle-'));
    storage = createFsStorage(dir);
    fake = await startFakeCloudflare();
    provider = createCloudflareVideoProvider({
      apiBase: fake.apiBase,
      accountId: fake.accountId,
      apiToken: fake.apiToken,
    });
    agentId = (await db.repos.agents.create('life-agent')).id;
  });
  afterAll(async () => {
    await fake?.close();
    await db?.close();
    await database?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });
}

/** A frame in `status` with an original and two variants stored; a video's copy at Cloudflare when asked. */
export async function seed(
  channel: string,
  status: SubmissionStatus,
  options: { agent?: string; cloudflare?: boolean; metadata?: Record<string, unknown> } = {},
) {
  const id = newId('submission');
  const { channel: row } = await db.repos.channels.ensure(channel);
  const video = status === 'waiting_for_upload' || options.cloudflare === true;
  await db.transaction(async (repos) => {
    await repos.submissions.create(
      {
        id,
        status: video ? 'waiting_for_upload' : 'received',
        mediaType: video ? 'video' : 'image',
        agentId: options.agent ?? agentId,
        channelId: row.id,
        date: '20261122',
        metadata: options.metadata ?? {},
        title: (options.metadata?.['title'] as string | undefined) ?? null,
        visibility: 'promotion_eligible',
      },
      { type: 'agent', id: options.agent ?? agentId },
    );
  });
  let uid: string | undefined;
  if (video) {
    const session = await provider.createUpload({
      uploadId: newId('upload'),
      submissionId: id,
      byteSize: 100,
      contentType: 'video/mp4',
      filename: 'me-at-the-beach.mp4',
      expiresAt: new Date(Date.now() + 3_600_000),
      protocol: 'basic',
    });
    uid = session.providerRef;
    await db.repos.mediaUploads.create({
      id: newId('upload'),
      submissionId: id,
      provider: 'cloudflare',
      providerRef: uid,
      uploadUrl: session.uploadUrl,
      protocol: 'basic',
      byteSize: 100,
      contentType: 'video/mp4',
      filename: 'me-at-the-beach.mp4',
      tokenHash: null,
      expiresAt: new Date(Date.now() + 3_600_000),
    });
  }
  const keys = video
    ? [storageKeys.poster(id)]
    : [storageKeys.original(id, 'png'), storageKeys.variant(id, 'preview'), storageKeys.variant(id, 'thumbnail')];
  for (const key of keys) {
    await storage.put(BUCKET, key, Buffer.from(`bytes of ${key}`), { contentType: 'image/webp' });
    const [kind, name] = key.startsWith('originals/')
      ? (['original', 'original'] as const)
      : key.endsWith('poster.jpg')
        ? (['poster', 'poster'] as const)
        : (['variant', key.split('/')[2]!.replace('.webp', '')] as const);
    await db.repos.mediaObjects.upsert({
      submissionId: id,
      kind,
      name,
      bucket: BUCKET,
      key,
      contentType: 'image/webp',
      byteSize: Buffer.byteLength(`bytes of ${key}`),
    });
  }
  if (video)
    await db.repos.mediaObjects.upsert({
      submissionId: id,
      kind: 'external',
      name: 'playback',
      bucket: 'vendor_stream',
      key: `https://stream.example/${uid}/manifest/video.m3u8`,
      contentType: 'application/vnd.apple.mpegurl',
      byteSize: 0,
    });
  for (const to of STATUS_PATHS[status]) {
    const moved = await db.transition({ id, to, actor: { type: seedActorType(to) } });
    if (!moved.ok) throw new Error(`seed: ${id} could not reach ${to}`);
  }
  return { id, keys, uid };
}

/** One after the other (channels are made on first use). */
export async function seedEach<T>(seeds: readonly (() => Promise<T>)[]): Promise<T[]> {
  const out: T[] = [];
  for (const make of seeds) out.push(await make());
  return out;
}

export const stored = async (keys: readonly string[]) =>
  (await Promise.all(keys.map((k) => storage.stat(BUCKET, k)))).filter(Boolean).length;

export async function setRetention(channel: string, change: Record<string, string | null>) {
  const row = (await db.repos.retention.channel(channel))!;
  await db.transaction((repos) =>
    repos.retention.setChannelRetention(row.id, change, { actor: 'test', at: new Date() }),
  );
}

export function purge(
  options: {
    batchSize?: number;
    /** The rate limit (default: none to speak of). */
    deletesPerSecond?: number;
    storage?: ObjectStorage;
    clock?: { now(): number; sleep(ms: number): Promise<void> };
  } = {},
) {
  return retentionService({
    db,
    storage: options.storage ?? storage,
    provider,
    defaults: NEVER,
    batchSize: options.batchSize ?? 100,
    deletesPerSecond: options.deletesPerSecond ?? 1_000_000,
    ...(options.clock ? { clock: options.clock } : {}),
  });
}

/** The erasure as `media erase` runs it for the operator `cli:dpo`; `deps` replaces any part. */
export function erasure(deps: Partial<ErasureDeps> = {}) {
  return erasureService({ db, storage, provider, actor: 'cli:dpo', replayableHours: 24, ...deps });
}

/**
 * An API key of `agent` (`prefix`) whose request `key` has a stored, replayable response `body`
 * (what POST /v1/frame-submissions or /v1/media-uploads answered): the erasure must drop it.
 */
export async function seedReplayableResponse(
  agent: string,
  input: { prefix: string; key: string; status: number; body: Record<string, unknown> },
): Promise<string> {
  const apiKey = await db.repos.apiKeys.create({ agentId: agent, prefix: input.prefix, hash: `h-${input.prefix}` });
  const claim = await db.repos.idempotency.claim({
    apiKeyId: apiKey.id,
    key: input.key,
    fingerprint: 'f',
    now: new Date(),
    lockMs: 60_000,
    retentionMs: 86_400_000,
  });
  if (claim.kind !== 'claimed') throw new Error('claim');
  await db.repos.idempotency.complete({
    apiKeyId: apiKey.id,
    key: input.key,
    lockedUntil: claim.lockedUntil,
    status: input.status,
    body: input.body,
  });
  return apiKey.id;
}
