import { expect } from 'vitest';
import type { runFleetFaults } from './fleet-run';

/** What every fleet run must show, whatever its length. */
export function expectNothingLost(run: Awaited<ReturnType<typeof runFleetFaults>>): void {
  const { figures: f, details: d } = run;
  // A fault the fleet never recovered from shows as null (Infinity in JSON).
  for (const [fault, r] of Object.entries(f.recovery)) expect(r.max_ms, `recovery after ${fault}`).not.toBeNull();
  expect.soft(d.serverErrors, 'answers 500').toEqual([]);
  expect.soft(d.unavailableWithoutRetryAfter, '503 without Retry-After').toBe(0);
  const faults = `faults ran:\n  ${d.faultTimeline.join('\n  ')}`;
  expect.soft(d.unexpected, `answers no client expects (${faults})`).toEqual([]);
  expect.soft(d.lost, 'acknowledged but not final or reviewable').toEqual([]);
  expect.soft(d.duplicatedTransitions, 'a transition recorded twice (processed or decided twice)').toEqual([]);
  expect.soft(f.duplicated.submissions_created_without_ack, 'submissions no client saw acknowledged').toBe(0);
  expect.soft(d.decisionsLost, 'acknowledged decisions not applied').toEqual([]);
  expect.soft(d.decisionsTwice, 'one frame decided twice').toEqual([]);
  expect.soft(d.badUploads, `uploads unfinished or with other bytes (${faults})`).toEqual([]);
  expect.soft(d.inFlightKeys, 'idempotency claims still held').toEqual([]);
  expect.soft(d.lockKeys, 'locks left in Redis').toEqual([]);
  expect.soft(f.stuck.active_jobs, 'jobs still active after their locks expired').toBe(0);
  expect.soft(d.missedLive, 'changes the live stream never delivered').toEqual([]);
  expect.soft(f.duplicated.live_events_delivered_twice).toBe(0);
  expect.soft(f.acknowledged.images + f.acknowledged.mcp_frames).toBeGreaterThan(0);
  expect.soft(f.acknowledged.video_uploads).toBeGreaterThan(0);
  expect.soft(f.decisions.promoted + f.decisions.rejected_in_bulk).toBeGreaterThan(0);
  // Back to a bounded steady state: each of the 4 processes holds at most 4 Redis connections
  // (the main one, one blocking connection per consumed queue is named; 2 workers × 4 queues), so
  // a connection leaked per restart or per request would pass it; structural keys (queue sets,
  // not job records) grow only by the sets a queue makes once a job was delayed or failed.
  expect.soft(d.end.redis.clients, 'Redis connections').toBeLessThanOrEqual(Math.max(d.baseline.redis.clients, 16));
  expect
    .soft(d.end.redis.structuralKeys, 'structural Redis keys')
    .toBeLessThanOrEqual(d.baseline.redis.structuralKeys + 16);
  for (const [name, fds] of Object.entries(d.end.fds))
    expect.soft(fds, `open fds of ${name}`).toBeLessThanOrEqual((d.baseline.fds[name] ?? fds) + 20);
}
