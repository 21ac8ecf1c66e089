// The abuse suite's one harness: what every abuse spec (abuse.<door>.int.spec.ts) asserts while it
// attacks one door of a running API: the API's resident memory stays under ABUSE_RSS_BOUND_MIB,
// /healthz answers within ABUSE_HEALTHZ_BOUND_MS throughout, and another agent's ordinary requests
// keep succeeding. Generic: the API may run in the test's process (startTestApi, the review harness:
// its RSS is this process's) or as a process of its own (pass `rss`). Bounds and figures:
// docs/reliability.md, "Abuse: every door holds".
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'vitest';

const MIB = 1024 * 1024;

/**
 * The bound on the API's resident memory during any attack, MiB. With the API in the test's
 * process this is the whole test process (the API, vitest, the attack's bodies): it runs at
 * 280–450 MiB; on fe1a179 the 5-million-zone MCP call grew the heap until V8 aborted (several GiB).
 */
export const ABUSE_RSS_BOUND_MIB = 900;
/** /healthz must answer within this at every moment of an attack (issue 40), ms. */
export const ABUSE_HEALTHZ_BOUND_MS = 1_000;

export interface AbuseWatchOptions {
  /** The API's base URL; /healthz is probed there. */
  readonly url: string;
  /** The API's resident memory in bytes; default this process's (the API in-process). */
  readonly rss?: () => number | Promise<number>;
  /** Another agent's ordinary request: resolves when it succeeded, throws when it did not. */
  readonly bystander?: () => Promise<unknown>;
  /** Pause between two probes of each kind; default 100 ms. */
  readonly intervalMs?: number;
}

export interface AbuseReport {
  /**
   * /healthz answers received, and the slowest of them: ms from when the probe was due (the
   * previous answer plus the interval) to its answer, so a blocked event loop counts in-process too.
   */
  readonly healthChecks: number;
  readonly maxHealthMs: number;
  /** Probes that failed or did not answer 200. */
  readonly healthFailures: readonly string[];
  /** The highest resident memory sampled, MiB. */
  readonly maxRssMiB: number;
  readonly bystanderCalls: number;
  readonly bystanderFailures: readonly string[];
  /** How long the attack took, ms. */
  readonly attackMs: number;
}

/** Resident memory of another process (Linux), e.g. `processRss(stack.api().pid)`. */
export function processRss(pid: number): () => Promise<number> {
  return async () => {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kib = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
    return kib ? Number(kib) * 1024 : 0;
  };
}

/** Repeats `probe` `intervalMs` apart until a probe that started after `done()` has run. */
async function repeat(done: () => boolean, intervalMs: number, probe: () => Promise<void>): Promise<void> {
  for (;;) {
    const last = done();
    await probe();
    if (last) return;
    await sleep(intervalMs);
  }
}

/**
 * Runs `attack` while probing /healthz, the API's RSS and the bystander every `intervalMs`; each
 * probe runs at least once after the attack settled. Returns the attack's result (or rethrows its
 * error) with what the probes saw.
 */
export async function duringAbuse<T>(
  options: AbuseWatchOptions,
  attack: () => Promise<T>,
): Promise<{ result: T; report: AbuseReport }> {
  const interval = options.intervalMs ?? 100;
  const rss = options.rss ?? (() => process.memoryUsage().rss);
  let done = false;
  const isDone = () => done;
  let healthChecks = 0;
  let maxHealthMs = 0;
  let healthDue = performance.now();
  let maxRss = 0;
  let bystanderCalls = 0;
  const healthFailures: string[] = [];
  const bystanderFailures: string[] = [];

  const probes = [
    repeat(isDone, interval, async () => {
      // From when the probe was due: an API in this process blocks the probe's timer as well.
      const started = Math.min(healthDue, performance.now());
      try {
        const response = await fetch(`${options.url}/healthz`, { signal: AbortSignal.timeout(30_000) });
        await response.arrayBuffer();
        if (response.status !== 200) healthFailures.push(`/healthz answered ${response.status}`);
      } catch (error) {
        healthFailures.push(`/healthz: ${String(error)}`);
      }
      maxHealthMs = Math.max(maxHealthMs, performance.now() - started);
      healthChecks++;
      healthDue = performance.now() + interval;
    }),
    repeat(isDone, interval, async () => {
      maxRss = Math.max(maxRss, await rss());
    }),
  ];
  const bystander = options.bystander;
  if (bystander)
    probes.push(
      repeat(isDone, interval, async () => {
        bystanderCalls++;
        await bystander().catch((error: unknown) => bystanderFailures.push(String(error)));
      }),
    );
  const started = performance.now();
  let outcome: { ok: true; value: T } | { ok: false; error: unknown };
  try {
    outcome = { ok: true, value: await attack() };
  } catch (error) {
    outcome = { ok: false, error };
  }
  const attackMs = performance.now() - started;
  done = true;
  await Promise.all(probes);
  if (!outcome.ok) throw outcome.error;
  return {
    result: outcome.value,
    report: {
      healthChecks,
      maxHealthMs: Math.round(maxHealthMs),
      healthFailures,
      maxRssMiB: Math.round(maxRss / MIB),
      bystanderCalls,
      bystanderFailures,
      attackMs: Math.round(attackMs),
    },
  };
}

/**
 * The door held: memory under ABUSE_RSS_BOUND_MIB, /healthz healthy and within
 * ABUSE_HEALTHZ_BOUND_MS, the bystander called and served.
 */
export function expectHeld(report: AbuseReport): void {
  expect(report.healthFailures).toEqual([]);
  expect(report.healthChecks).toBeGreaterThan(0);
  expect(report.maxHealthMs).toBeLessThan(ABUSE_HEALTHZ_BOUND_MS);
  expect(report.maxRssMiB).toBeLessThan(ABUSE_RSS_BOUND_MIB);
  expect(report.bystanderFailures).toEqual([]);
}
