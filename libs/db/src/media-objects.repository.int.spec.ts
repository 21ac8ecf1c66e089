// The media guard folded into the variant rows' statement (upsertManyWhileOpen): the frame's row
// lock is taken first, so an erasure and a worker recording media serialize on it as with
// retention.lockForMedia — whichever locks first, no row is left pointing at an erased frame's
// deleted media. Each race is made deterministic by waiting until the other side blocks on the lock.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@framedesk/testing';
import { createDatabase, type Database } from './client';
import type { NewMediaObject } from './media-objects.repository';

let database: TestDatabase;
let db: Database;
let admin: pg.Client;
/** The erasure's own connection (admin watches the locks meanwhile). */
let eraser: pg.Client;
let seq = 0;

beforeAll(async () => {
  database = await createTestDatabase();
  db = createDatabase({ url: database.url, poolSize: 2 });
  admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  eraser = new pg.Client({ connectionString: database.url });
  await eraser.connect();
  await admin.query(`INSERT INTO channels (id, slug, name) VALUES ('chn_guard', 'guard', 'guard')`);
  await admin.query(`INSERT INTO agents (id, slug, name) VALUES ('agt_guard', 'guard', 'guard')`);
});
afterAll(async () => {
  await admin?.end();
  await eraser?.end();
  await db?.close();
  await database?.drop();
});

async function frame(): Promise<string> {
  const id = `sub_guard${++seq}`;
  await admin.query(
    `INSERT INTO submissions (id, status, media_type, agent_id, channel_id, date, visibility)
     VALUES ($1, 'media_processing', 'image', 'agt_guard', 'chn_guard', '20261127', 'promotion_eligible')`,
    [id],
  );
  return id;
}

const variants = (id: string, byteSize = 10): NewMediaObject[] =>
  ['thumb', 'preview'].map((name) => ({
    submissionId: id,
    kind: 'variant',
    name,
    bucket: 'b',
    key: `variants/${id}/${name}.webp`,
    contentType: 'image/webp',
    byteSize,
    width: 10,
    height: 10,
  }));

/** Waits until some backend waits for a row lock (the other side of the race is blocked). */
async function untilBlockedOnLock(): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const { rows } = await admin.query(
      `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
    );
    if (rows.length > 0) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('no backend ever waited for the lock');
}

describe('mediaObjects.upsertManyWhileOpen (real PostgreSQL)', () => {
  it("writes an open frame's rows and a retry replaces them; refuses an erased one, writing nothing", async () => {
    const id = await frame();
    expect(await db.repos.mediaObjects.upsertManyWhileOpen(id, variants(id))).toEqual({
      purged: false,
      erased: false,
      written: 2,
    });
    await db.repos.mediaObjects.upsertManyWhileOpen(id, variants(id, 20));
    const rows = await db.repos.mediaObjects.listForSubmission(id);
    expect(rows.map((r) => [r.name, Number(r.byteSize)])).toEqual([
      ['preview', 20],
      ['thumb', 20],
    ]);
    await admin.query(`UPDATE submissions SET erased_at = now(), purged_at = now() WHERE id = $1`, [id]);
    await admin.query(`DELETE FROM media_objects WHERE submission_id = $1`, [id]);
    expect(await db.repos.mediaObjects.upsertManyWhileOpen(id, variants(id))).toEqual({
      purged: true,
      erased: true,
      written: 0,
    });
    expect(await db.repos.mediaObjects.listForSubmission(id)).toEqual([]);
    expect(await db.repos.mediaObjects.upsertManyWhileOpen('sub_none', variants('sub_none'))).toBeNull();
  });

  it('an erasure that locked first: the worker waits for it, then sees the mark and writes nothing', async () => {
    const id = await frame();
    await eraser.query('BEGIN');
    await eraser.query(`SELECT 1 FROM submissions WHERE id = $1 FOR UPDATE`, [id]);
    await eraser.query(`UPDATE submissions SET erased_at = now(), purged_at = now() WHERE id = $1`, [id]);
    const worker = db.repos.mediaObjects.upsertManyWhileOpen(id, variants(id));
    await untilBlockedOnLock();
    await eraser.query('COMMIT');
    expect(await worker).toEqual({ purged: true, erased: true, written: 0 });
    expect(await db.repos.mediaObjects.listForSubmission(id)).toEqual([]);
  });

  it('a worker that locked first: the erasure waits for its commit, then reads its rows to delete them', async () => {
    const id = await frame();
    let erasureRead: Promise<number> | undefined;
    await db.transaction(async (repos) => {
      expect(await repos.mediaObjects.upsertManyWhileOpen(id, variants(id))).toMatchObject({ written: 2 });
      // The erasure's mark waits on the worker's lock; it reads what to delete after its mark.
      erasureRead = (async () => {
        await eraser.query('BEGIN');
        await eraser.query(`UPDATE submissions SET erased_at = now(), purged_at = now() WHERE id = $1`, [id]);
        const { rows } = await eraser.query(`SELECT count(*)::int AS n FROM media_objects WHERE submission_id = $1`, [
          id,
        ]);
        await eraser.query('COMMIT');
        return rows[0].n as number;
      })();
      await untilBlockedOnLock();
    });
    expect(await erasureRead).toBe(2);
  });
});
