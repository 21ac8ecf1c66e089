// For this library's image pipeline specs (processing.service, policy-processing): the describe's
// own database (database.test-support), fs storage in a temporary folder, the example project
// config, and images seeded as the API leaves them: `received`, the original stored and recorded.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProjectConfig } from '@framedesk/config';
import { newId, type Visibility } from '@framedesk/domain';
import { createFsStorage, type ObjectStorage, storageKeys } from '@framedesk/storage';
import { exampleProjectConfig } from '@framedesk/testing';
import { afterAll, beforeAll } from 'vitest';
import { type SubmissionsTestDatabase, useSubmissionsDatabase } from './database.test-support';

export interface ImagePipelineTest extends SubmissionsTestDatabase {
  readonly storage: ObjectStorage;
  readonly config: ProjectConfig;
  /** An image in `received` under the describe's agent and channel, its original stored (PNG). */
  seedImage(png: Buffer, options?: { visibility?: Visibility; title?: string }): Promise<string>;
}

/** config/project.example.json, validated (libs/testing's one copy). */
export const exampleConfig = (): Promise<ProjectConfig> => exampleProjectConfig();

/** Set up before the enclosing describe's tests and removed after them; read its fields inside the tests. */
export function useImagePipeline(name: string): ImagePipelineTest {
  const database = useSubmissionsDatabase(name);
  let storageRoot: string | undefined;
  const context = {
    get database() {
      return database.database;
    },
    get db() {
      return database.db;
    },
    get agentId() {
      return database.agentId;
    },
    get channelId() {
      return database.channelId;
    },
    storage: undefined as unknown as ObjectStorage,
    config: undefined as unknown as ProjectConfig,
    async seedImage(png: Buffer, options: { visibility?: Visibility; title?: string } = {}): Promise<string> {
      const { db, agentId, channelId } = database;
      const id = newId('submission');
      const bucket = context.config.storage.vendor_originals_bucket;
      const key = storageKeys.original(id, 'png');
      const stored = await context.storage.put(bucket, key, png, { contentType: 'image/png' });
      await db.transaction(async (repos) => {
        await repos.submissions.create(
          {
            id,
            status: 'received',
            mediaType: 'image',
            agentId,
            channelId,
            date: '20261127',
            metadata: options.title === undefined ? {} : { title: options.title },
            visibility: options.visibility ?? 'draft',
          },
          { type: 'agent', id: agentId },
        );
        await repos.mediaObjects.upsert({
          submissionId: id,
          kind: 'original',
          name: 'original',
          bucket,
          key,
          contentType: 'image/png',
          byteSize: stored.byteSize,
          sha256: stored.sha256,
        });
      });
      return id;
    },
  };
  beforeAll(async () => {
    storageRoot = await mkdtemp(join(tmpdir(), `fd-${name}-`));
    context.storage = createFsStorage(storageRoot);
    context.config = await exampleConfig();
  });
  afterAll(async () => {
    if (storageRoot) await rm(storageRoot, { recursive: true, force: true });
  });
  return context;
}
