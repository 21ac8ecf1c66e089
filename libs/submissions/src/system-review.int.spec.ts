import type { Database } from '@framedesk/db';
import { newId, type Visibility } from '@framedesk/domain';
import { beforeAll, describe, expect, it } from 'vitest';
import { finishProcessing } from './system-review';
import { useSubmissionsDatabase } from './database.test-support';

describe('system review after processing (real PostgreSQL)', () => {
  const test = useSubmissionsDatabase('review');
  let db: Database;
  let agentId: string;
  let channelId: string;
  beforeAll(() => {
    ({ db, agentId, channelId } = test);
  });

  async function processing(mediaType: 'image' | 'video', visibility: Visibility): Promise<string> {
    const id = newId('submission');
    await db.transaction((repos) =>
      repos.submissions.create(
        { id, status: 'received', mediaType, agentId, channelId, date: '20261122', metadata: {}, visibility },
        { type: 'agent', id: agentId },
      ),
    );
    expect((await db.transition({ id, to: 'media_processing', actor: { type: 'system' } })).ok).toBe(true);
    return id;
  }
  const finish = (id: string, requiresReview = false) =>
    finishProcessing(db, { id, requiresReview, reason: 'processed', patch: {}, data: {} });

  it('promotes a promotion_eligible image or video and records the decision and its time', async () => {
    for (const mediaType of ['image', 'video'] as const) {
      const id = await processing(mediaType, 'promotion_eligible');
      expect(await finish(id)).toEqual({ ok: true, to: 'promoted' });
      const row = await db.repos.submissions.findById(id);
      expect(row).toMatchObject({ status: 'promoted', reviewDecision: 'promoted', reviewedAt: expect.any(Date) });
    }
  });

  it('leaves a frame that is not promotion_eligible in needs_review, with no decision', async () => {
    for (const visibility of ['draft', 'team_visible'] as const) {
      const id = await processing('image', visibility);
      expect(await finish(id)).toEqual({ ok: true, to: 'needs_review' });
      expect(await db.repos.submissions.findById(id)).toMatchObject({ status: 'needs_review', reviewDecision: null });
    }
  });

  it('a promotion whose visibility changed since it was read does not happen (the CAS includes visibility)', async () => {
    const id = await processing('image', 'promotion_eligible');
    expect((await db.transition({ id, to: 'needs_review', actor: { type: 'system' } })).ok).toBe(true);
    // A reviewer sets draft after the promote was checked but before it is written.
    await db.transaction((repos) =>
      repos.submissions.update(id, { visibility: 'draft' }, { type: 'visibility_changed', actor: { type: 'system' } }),
    );
    const promote = await db.transition({
      id,
      to: 'promoted',
      actor: { type: 'system' },
      onlyFrom: ['needs_review'],
      onlyWithVisibility: 'promotion_eligible',
    });
    expect(promote).toEqual({ ok: false, current: 'needs_review' });
    expect(await db.repos.submissions.findById(id)).toMatchObject({ status: 'needs_review', visibility: 'draft' });
  });
});
