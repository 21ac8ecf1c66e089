// Issue 43, point 12: `public` is written through the media guard like every other media write.
// A request for a promoted frame's `public` (GET …/media/public, or the image.publish job: both
// `publicVariantService.make`) lands while a retention purge or an erasure holds the frame: after
// it marked the frame and read what the frame holds, before it committed. Nothing may be left
// behind: no object, no row. The request must wait for the mark and be refused, not record a
// variant the purge never saw (it used to: the purge read the frame's media before the request's
// row was committed, and the request's own late check still read the frame unmarked).
import type { Database } from '@framedesk/db';
import { type PublicOutcome, publicVariantService } from '@framedesk/submissions';
import { exampleProjectConfig, makeNoisePng } from '@framedesk/testing';
import { storageKeys } from '@framedesk/storage';
import { describe, expect, it } from 'vitest';
import {
  BUCKET,
  database,
  db,
  erasure,
  NEVER,
  provider,
  seed,
  setRetention,
  storage,
  useMediaLifecycle,
} from './media-lifecycle.test-support';
import { retentionService } from './retention.service';

useMediaLifecycle();

/** A promoted image whose original is a real PNG (the seed's bytes are not an image). */
async function promotedImage(channel: string) {
  const frame = await seed(channel, 'promoted');
  await storage.put(BUCKET, storageKeys.original(frame.id, 'png'), makeNoisePng(320, 180), {
    contentType: 'image/png',
  });
  return frame;
}

/**
 * Runs the request for `public` from inside the purge's or erasure's transaction, once it has
 * marked the frame: returns when the request has finished, or waits on a row lock (the guard
 * waiting for the mark to commit). Which one the code does is what the test is about.
 */
async function requestPublicNow(submissionId: string): Promise<{ request: Promise<PublicOutcome> }> {
  const request = publicVariantService({ db, storage, config: await exampleProjectConfig() }).make(submissionId);
  let settled = false;
  void request.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (;;) {
    if (settled) return { request };
    const [waiting] = await database.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
    );
    if (waiting!.n > 0) return { request };
    await new Promise((r) => setTimeout(r, 20));
  }
}

const leftOf = async (submissionId: string) => ({
  object: (await storage.stat(BUCKET, storageKeys.variant(submissionId, 'public'))) !== null,
  rows: (await db.repos.mediaObjects.listForSubmission(submissionId)).map((m) => m.name),
});

/**
 * The database a purge or an erasure runs on, with one repository method wrapped: once it has run
 * inside the deletion's transaction (the frame is marked), a request for `public` is made there.
 */
function requestingPublicAfter(
  repository: 'retention' | 'erasure',
  method: 'markPurged' | 'markErased',
  submissionId: string,
): { db: Database; request: () => Promise<PublicOutcome> | undefined } {
  let request: Promise<PublicOutcome> | undefined;
  const racingDb: Database = {
    ...db,
    transaction: (work) =>
      db.transaction((repos) => {
        const original = repos[repository] as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
        const wrapped = {
          ...original,
          async [method](...args: unknown[]) {
            const result = await original[method]!(...args);
            request ??= (await requestPublicNow(submissionId)).request;
            return result;
          },
        };
        return work({ ...repos, [repository]: wrapped });
      }),
  };
  return { db: racingDb, request: () => request };
}

describe('a request for `public` racing the deletion of a frame’s media (issue 43, point 12)', () => {
  it('a retention purge: the request waits for the mark, is refused and leaves no object or row', async () => {
    const frame = await promotedImage('public-purge');
    await setRetention('public-purge', { promoted: '0d' });
    const racing = requestingPublicAfter('retention', 'markPurged', frame.id);
    const purge = retentionService({
      db: racing.db,
      storage,
      provider,
      defaults: NEVER,
      batchSize: 100,
      deletesPerSecond: 1_000_000,
    });
    expect(await purge.run({ maxMs: 60_000 })).toMatchObject({ purged: 1 });
    expect(racing.request()).toBeDefined();
    expect(await racing.request()).toMatchObject({ outcome: 'skipped' });
    expect(await leftOf(frame.id)).toEqual({ object: false, rows: [] });
  });

  it('an erasure: the request waits for the mark, is refused and leaves no object or row', async () => {
    const frame = await promotedImage('public-erase');
    const racing = requestingPublicAfter('erasure', 'markErased', frame.id);
    expect(await erasure({ db: racing.db }).erase({ submissionId: frame.id })).toMatchObject({ submissions: 1 });
    expect(racing.request()).toBeDefined();
    expect(await racing.request()).toMatchObject({ outcome: 'skipped' });
    expect(await leftOf(frame.id)).toEqual({ object: false, rows: [] });
  });
});
