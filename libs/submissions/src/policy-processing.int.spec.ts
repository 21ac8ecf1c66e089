import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ALL_CHANNELS, type Database } from '@framedesk/db';
import type { Visibility } from '@framedesk/domain';
import { svgToPng } from '@framedesk/media';
import { policyAdmin, policyCache, type ScoringClient, scoringClient } from '@framedesk/policies';
import { makeNoisePng } from '@framedesk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useImagePipeline } from './image-pipeline.test-support';
import { imageProcessingService } from './processing.service';

const blankSvg =
  '<svg xmlns="http://www.w3.org/2000/svg" width="320" height="180"><rect width="320" height="180" fill="#202020"/></svg>';

describe('review policies in the image pipeline (real PostgreSQL, sharp)', () => {
  const test = useImagePipeline('policy');
  let db: Database;
  let blank: Buffer;

  beforeAll(async () => {
    db = test.db;
    blank = await svgToPng(blankSvg);
  });

  const seed = (png: Buffer, visibility: Visibility = 'promotion_eligible', title = 'A frame') =>
    test.seedImage(png, { visibility, title });

  const setPolicy = (rules: unknown[]) => policyAdmin(db).set('policy-channel', { rules }, 'test');
  const process = (id: string, scoring?: ScoringClient) =>
    imageProcessingService({
      db,
      storage: test.storage,
      config: test.config,
      policies: { cache: policyCache(db, { checkEveryMs: 0 }), ...(scoring ? { scoring } : {}) },
    }).process(id);

  it('a reject rule rejects a blank frame as the system, naming the rule, the reason and the signals it read', async () => {
    await setPolicy([{ name: 'blank', when: 'signals.blank', action: 'reject', reason: 'Low quality' }]);
    const id = await seed(blank);
    expect((await process(id)).outcome).toBe('rejected');
    const detail = await db.repos.review.detail(id, ALL_CHANNELS);
    expect(detail).toMatchObject({
      status: 'rejected',
      reviewDecision: 'rejected',
      reviewReason: 'Low quality',
      reviewRule: 'blank',
      reviewerId: null,
    });
    expect(detail?.policyOutcome).toMatchObject({
      rule: 'blank',
      action: 'reject',
      signals: { blank: true, luminance: 32 },
    });
    const last = detail!.events.at(-1)!;
    expect(last).toMatchObject({
      actorType: 'system',
      toStatus: 'rejected',
      reason: 'Low quality',
      data: { rule: 'blank' },
    });
    // A frame with pixels is not blank: no rule matches, it waits for people as without a policy.
    const busy = await seed(makeNoisePng(320, 180));
    expect((await process(busy)).outcome).toBe('needs_review');
    // Its signals were recorded for simulation, with the nearest rejected frame when near.
    const copy = await seed(blank);
    await policyAdmin(db).clear('policy-channel', 'test');
    expect((await process(copy)).outcome).toBe('needs_review');
    const row = await db.repos.review.detail(copy, ALL_CHANNELS);
    expect(row).toMatchObject({ reviewRule: null, policyOutcome: null });
  });

  it("nearest_rejected reads only what people rejected: a policy's own rejection does not spread to its near-copies", async () => {
    await setPolicy([
      {
        name: 'blank',
        when: 'signals.blank && frame.metadata.title == "first"',
        action: 'reject',
        reason: 'Low quality',
      },
      {
        name: 'copy-of-rejected',
        when: 'has(signals.nearest_rejected) && signals.nearest_rejected <= 4',
        action: 'reject',
        reason: 'Duplicate',
      },
    ]);
    const first = await seed(blank, 'promotion_eligible', 'first');
    expect((await process(first)).outcome).toBe('rejected');
    expect(await db.repos.submissions.findById(first)).toMatchObject({ reviewRule: 'blank', reviewerId: null });
    const copy = await seed(blank, 'promotion_eligible', 'copy');
    expect((await process(copy)).outcome).toBe('needs_review');
    const detail = await db.repos.review.detail(copy, ALL_CHANNELS);
    expect(detail?.policyOutcome).toMatchObject({ rule: null });
    const read = (detail?.policyOutcome as { signals: Record<string, unknown> }).signals;
    expect(read).toMatchObject({ blank: true });
    expect(read['nearest_rejected']).toBeUndefined();
  });

  it('a promote rule promotes a promotion_eligible frame; any other stops at needs_review', async () => {
    await setPolicy([{ name: 'trusted', when: 'frame.metadata.title.startsWith("ok")', action: 'promote' }]);
    const eligible = await seed(makeNoisePng(64, 64), 'promotion_eligible', 'ok one');
    expect((await process(eligible)).outcome).toBe('promoted');
    expect(await db.repos.submissions.findById(eligible)).toMatchObject({ reviewRule: 'trusted', reviewerId: null });
    const draft = await seed(makeNoisePng(64, 64), 'draft', 'ok two');
    expect((await process(draft)).outcome).toBe('needs_review');
    expect(await db.repos.submissions.findById(draft)).toMatchObject({ status: 'needs_review', reviewRule: null });
  });

  it('a review rule sets approvals, priority and due; a sampled match waits marked with the suggestion', async () => {
    await setPolicy([
      {
        name: 'urgent',
        when: 'frame.metadata.title == "urgent"',
        action: 'review',
        approvals: 2,
        priority: 'high',
        due: '2h',
      },
      { name: 'sampled', when: 'frame.metadata.title == "all"', action: 'promote', sample: 1 },
    ]);
    const urgent = await seed(makeNoisePng(64, 64), 'promotion_eligible', 'urgent');
    const before = Date.now();
    expect((await process(urgent)).outcome).toBe('needs_review');
    const row = await db.repos.submissions.findById(urgent);
    expect(row).toMatchObject({ approvalsRequired: 2, reviewPriority: 1, reviewRule: null });
    expect(row!.dueAt!.getTime()).toBeGreaterThanOrEqual(before + 7_200_000 - 1000);
    const sampled = await seed(makeNoisePng(64, 64), 'promotion_eligible', 'all');
    expect((await process(sampled)).outcome).toBe('needs_review');
    expect((await db.repos.submissions.findById(sampled))?.policyOutcome).toMatchObject({
      rule: 'sampled',
      action: 'review',
      sampled: true,
      suggestion: 'promote',
    });
  });

  it('records the version that routed a frame, and reports each rule whose evaluation failed', async () => {
    const { version } = await setPolicy([
      { name: 'near', when: 'signals.nearest_rejected < 2', action: 'reject', reason: 'Low quality' },
      { name: 'rest', when: 'true', action: 'review' },
    ]);
    const failed: unknown[] = [];
    const observer = {
      scored: () => undefined,
      routed: () => undefined,
      ruleFailed: (channel: string, failure: unknown) => failed.push({ channel, failure }),
    };
    const id = await seed(makeNoisePng(64, 64));
    const outcome = await imageProcessingService({
      db,
      storage: test.storage,
      config: test.config,
      policies: { cache: policyCache(db, { checkEveryMs: 0 }), observer },
    }).process(id);
    expect(outcome.outcome).toBe('needs_review');
    expect((await db.repos.submissions.findById(id))?.policyOutcome).toMatchObject({
      rule: 'rest',
      version,
      failures: [{ rule: 'near', kind: 'error' }],
    });
    expect(failed).toEqual([
      { channel: 'policy-channel', failure: expect.objectContaining({ rule: 'near', kind: 'error' }) },
    ]);
  });

  it('a rule that reads a score the scorer did not send holds a later promote for people, as an outage does', async () => {
    await setPolicy([
      { name: 'nsfw', when: 'scores.nudity > 0.8', action: 'reject', reason: 'Inappropriate content' },
      { name: 'rest', when: 'true', action: 'promote' },
    ]);
    const scoring: ScoringClient = async () => ({ ok: true, scores: { violence: 0.1 } });
    const id = await seed(makeNoisePng(64, 64));
    expect((await process(id, scoring)).outcome).toBe('needs_review');
    expect((await db.repos.submissions.findById(id))?.policyOutcome).toMatchObject({
      rule: 'rest',
      suggestion: 'promote',
      held: 'score missing',
    });
  });

  describe('the scoring hook', () => {
    let server: Server;
    let url: string;
    let answer: (res: ServerResponse) => void = () => undefined;
    const received: string[] = [];
    beforeAll(async () => {
      server = createServer((req, res) => {
        let body = '';
        req.setEncoding('latin1');
        req.on('data', (chunk: string) => (body += chunk));
        req.on('end', () => {
          received.push(body);
          answer(res);
        });
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/score`;
    });
    afterAll(() => new Promise<void>((r) => server.close(() => r())));

    it('its scores decide a rule; a timeout and a malformed answer each send the frame to people', async () => {
      await setPolicy([
        { name: 'nsfw', when: 'scores.nudity > 0.8', action: 'reject', reason: 'Inappropriate content' },
        { name: 'rest', when: 'true', action: 'promote' },
      ]);
      const scoring = scoringClient({ url, timeoutMs: 500 });
      answer = (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"scores":{"nudity":0.93}}');
      const scored = await seed(makeNoisePng(64, 64));
      expect((await process(scored, scoring)).outcome).toBe('rejected');
      expect(received.at(-1)).toContain(scored);
      expect(received.at(-1)).toContain('policy-agent');
      answer = (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"scores":{"nudity":0.1}}');
      expect((await process(await seed(makeNoisePng(64, 64)), scoring)).outcome).toBe('promoted');
      answer = (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"scores":{"nudity":"high"}}');
      const malformed = await seed(makeNoisePng(64, 64));
      expect((await process(malformed, scoring)).outcome).toBe('needs_review');
      expect((await db.repos.submissions.findById(malformed))?.policyOutcome).toMatchObject({
        rule: 'rest',
        suggestion: 'promote',
        held: 'scores unavailable',
      });
      answer = (res) => setTimeout(() => res.writeHead(200).end('{"scores":{"nudity":0.99}}'), 2_000);
      expect((await process(await seed(makeNoisePng(64, 64)), scoring)).outcome).toBe('needs_review');
    });
  });
});
