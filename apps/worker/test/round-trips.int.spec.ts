// What processing one image costs the worker in round trips to PostgreSQL and Redis, counted
// around single jobs of the real worker runtime (docs/performance.md, "What an accepted frame
// costs"), the way apps/api/test/round-trips.int.spec.ts pins the API's. Counts, not timings.
import { intakeStats } from '@framedesk/queues';
import { policyAdmin } from '@framedesk/policies';
import { countRoundTrips, FIVE_RULE_POLICY, makePng, transactionsOf } from '@framedesk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkerRuntime } from '../src/runtime';
import { createWorkerHarness, type WorkerHarness } from './harness';

let h: WorkerHarness;
let runtime: WorkerRuntime;

/**
 * Sends the image as the API does, through the intake, or as a re-run does, through the image
 * queue (the producer's calls are the API's, not counted), and waits until it has run and, from
 * the intake, been acknowledged.
 */
async function processOne(id: string, via: 'intake' | 'queue' = 'intake'): Promise<void> {
  const completed = runtime.stats.completed;
  if (via === 'intake') await h.producer.submitImage(id, { backlog: 1 });
  else await h.producer.enqueue('image.process', { submissionId: id });
  const deadline = Date.now() + 60_000;
  const done = async () =>
    runtime.stats.completed > completed && (await intakeStats(h.redis, h.settings.REDIS_PREFIX)).running === 0;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`job of ${id} not completed after 60 s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * A worker runtime on a fresh harness, its channel's policy set first when given. Long lock,
 * readiness and policy-check intervals: no lock renewal, stalled check, readiness report or
 * policy version check (one indexed read per channel per POLICY_CHECK_SECONDS, not per image)
 * falls inside a counted job.
 */
async function startCounted(policy?: unknown): Promise<void> {
  h = await createWorkerHarness();
  if (policy) await policyAdmin(h.db).set('test-channel', policy, 'test');
  runtime = await h.startRuntime({
    queues: ['image-processing'],
    settings: {
      WORKER_CONCURRENCY: 1,
      WORKER_LOCK_SECONDS: 600,
      WORKER_READINESS_INTERVAL_SECONDS: 600,
      POLICY_CHECK_SECONDS: 600,
    },
  });
  // Warm-up: connections open, Lua scripts loaded, lazy modules read, the channel's policy cached.
  await processOne(await h.seedImage(makePng(64, 48)));
}

/** BullMQ's scripts, by key count. */
const MOVE_TO_ACTIVE = 'evalsha/11';
const MOVE_TO_FINISHED = 'evalsha/14';

/**
 * The calls from the job's moveToActive to its moveToFinished. An idle worker polls (BZPOPMIN
 * times out, an empty moveToActive follows) on its own clock; a poll that falls just before or
 * after the job is the idle worker's cost, not the image's.
 */
function jobWindow(calls: readonly string[]): string[] {
  const end = calls.indexOf(MOVE_TO_FINISHED);
  const firstOther = calls.findIndex((c) => !c.startsWith('evalsha'));
  const start = calls.lastIndexOf(MOVE_TO_ACTIVE, firstOther === -1 ? end : firstOther);
  return calls.slice(start, end + 1);
}

/**
 * 0: the run recorded while it runs, with the rows of runs ended since deleted (one statement:
 *    crashes are blamed on the frame that ran alone, docs/reliability.md "How crashes are blamed").
 * 1: received → media_processing, reading the original's location (one statement).
 * 2: BEGIN; the media guard's row lock with the variant rows (one statement: no media committed
 *    for an erased or purged frame, issue 38 point 8); the fingerprint with its near-duplicate
 *    count and, in the same statement, the history a policy's signals read (the nearest promoted
 *    and rejected frames; with a policy, the agent's record) (issue 36); → needs_review, writing
 *    the signals kept for `policy simulate` in its own UPDATE; COMMIT.
 */
const PER_IMAGE = ['WITH ended AS', 'WITH old AS', 'BEGIN', 'WITH frame AS', 'WITH saved AS', 'WITH old AS', 'COMMIT'];

/**
 * Counts one image's job, from the intake or as a re-run from the image queue, and checks the
 * statements, transactions and Redis calls, then the stored row: needs_review, its size and the
 * signals recorded for `policy simulate`.
 */
/** The agent's record (libs/db agentDecisionsSql), inside the history's statement when read. */
const AGENT_RECORD = /FROM agent_decision_days/;
/** Whether the last image counted read its agent's record. */
let readsAgentRecord = false;

async function countOne(id: string, via: 'intake' | 'queue') {
  const counted = await countRoundTrips(() => processOne(id, via), {
    // The producer's connection is the API's side; the intake's reads are one per batch, not per
    // image: the read script (EVAL, lowest band first) and, when it finds nothing, the blocking
    // XREADGROUP that waits for the next image; BullMQ's BZPOPMIN is the idle image queue's wait.
    skipRedis: (connection, command) =>
      connection === h.redis ||
      command === 'xreadgroup' ||
      command === 'bzpopmin' ||
      (via === 'intake' && command === 'eval'),
  });
  expect(counted.sql, counted.sql.join('\n')).toEqual(PER_IMAGE);
  readsAgentRecord = counted.statements.some((text) => AGENT_RECORD.test(text));
  expect(transactionsOf(counted.sql)).toBe(3);
  if (via === 'intake') {
    // One review change per transition (one XADD each), the acknowledgement.
    expect(counted.redis).toEqual(['xadd', 'xadd', 'xack']);
  } else {
    // moveToActive, one review change per transition (one XADD each), moveToFinished.
    expect(jobWindow(counted.redis)).toEqual([MOVE_TO_ACTIVE, 'xadd', 'xadd', MOVE_TO_FINISHED]);
  }
  const row = await h.db.repos.submissions.findById(id);
  expect(row).toMatchObject({ status: 'needs_review', width: 320, height: 240 });
  expect(row).toMatchObject({ signals: { blank: false, luminance: expect.any(Number) } });
  return row!;
}

const seedTwo = async (first: number) => [
  await h.seedImage(makePng(320, 240, { seed: first })),
  await h.seedImage(makePng(320, 240, { seed: first + 1 })),
];

describe('round trips per processed image (worker runtime, real PostgreSQL, Redis and sharp)', () => {
  beforeAll(() => startCounted());
  afterAll(() => h?.cleanup());

  it('received → needs_review from the intake: 7 statements in 3 transactions, 3 Redis calls', async () => {
    for (const id of await seedTwo(1)) await countOne(id, 'intake');
  });

  it('received → needs_review as a re-run, from the image queue: 7 statements, 4 Redis calls', async () => {
    for (const id of await seedTwo(3)) await countOne(id, 'queue');
  });
});

describe('round trips per processed image with a five-rule policy in force (issue 36)', () => {
  beforeAll(() => startCounted(FIVE_RULE_POLICY));
  afterAll(() => h?.cleanup());

  it("the same 7 statements in 3 transactions: the agent's record is read with the history", async () => {
    for (const id of await seedTwo(5)) {
      const row = await countOne(id, 'intake');
      // A new agent (no decisions yet): the `newcomer` rule routes it to two reviewers, due in 4 h.
      expect(row).toMatchObject({ approvalsRequired: 2, dueAt: expect.any(Date) });
      expect(row.policyOutcome).toMatchObject({ rule: 'newcomer', action: 'review' });
      expect(readsAgentRecord).toBe(true);
    }
  });
});

/** FIVE_RULE_POLICY without its two rules that read `agent`. */
const AGENT_FREE_POLICY = {
  rules: FIVE_RULE_POLICY.rules.filter((r) => !r.when.includes('agent.')),
};

describe('round trips per processed image with a policy that never reads agent.* (issue 43)', () => {
  beforeAll(() => startCounted(AGENT_FREE_POLICY));
  afterAll(() => h?.cleanup());

  it("the same 7 statements, and none reads the agent's record: its cost does not follow the agent's history", async () => {
    for (const id of await seedTwo(7)) {
      const row = await countOne(id, 'intake');
      expect(row.policyOutcome).toMatchObject({ rule: null });
      expect(readsAgentRecord).toBe(false);
    }
  });
});
