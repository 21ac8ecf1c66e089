// The abuse suite's watch over an in-process API while one door is attacked: the process's resident
// memory, /healthz, and a bystander agent's requests, sampled throughout. Each abuse.*.int.spec.ts
// asserts `healthy(watch)` after its attack (bounds in docs/reliability.md, "Abuse: every door holds").

/** Resident memory the test process (the API in it, and vitest) may reach during an attack. */
export const ABUSE_RSS_BOUND_BYTES = 1024 * 1024 * 1024;
/** Longest /healthz may take to answer at any moment of an attack. */
export const ABUSE_HEALTHZ_BOUND_MS = 1_000;

export interface AbuseWatch {
  /** Highest `process.memoryUsage().rss` seen. */
  readonly peakRssBytes: number;
  /** Slowest /healthz answer (a probe that did not answer counts as the bound, and as a failure). */
  readonly slowestHealthzMs: number;
  readonly healthzProbes: number;
  /** /healthz probes that failed or took longer than the bound. */
  readonly healthzFailures: readonly string[];
  readonly bystanderRequests: number;
  /** The bystander's requests that did not succeed, with why. */
  readonly bystanderFailures: readonly string[];
}

/**
 * Runs `attack` while probing `${url}/healthz` every 200 ms (each with the bound as its timeout),
 * sampling RSS every 50 ms, and calling `bystander` (another agent's ordinary request; it throws
 * when the request does not succeed) back to back. Returns the attack's result and the watch.
 */
export async function watchAbuse<T>(
  url: string,
  bystander: () => Promise<void>,
  attack: () => Promise<T>,
): Promise<{ result: T; watch: AbuseWatch }> {
  let running = true;
  let peakRssBytes = process.memoryUsage().rss;
  let slowestHealthzMs = 0;
  let healthzProbes = 0;
  let bystanderRequests = 0;
  const healthzFailures: string[] = [];
  const bystanderFailures: string[] = [];
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  const rss = setInterval(() => {
    peakRssBytes = Math.max(peakRssBytes, process.memoryUsage().rss);
  }, 50);
  const probe = (async () => {
    while (running) {
      const started = performance.now();
      try {
        const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(ABUSE_HEALTHZ_BOUND_MS) });
        await res.arrayBuffer();
        const ms = performance.now() - started;
        slowestHealthzMs = Math.max(slowestHealthzMs, ms);
        if (res.status !== 200) healthzFailures.push(`status ${res.status}`);
        else if (ms > ABUSE_HEALTHZ_BOUND_MS) healthzFailures.push(`${Math.round(ms)} ms`);
      } catch (error) {
        slowestHealthzMs = Math.max(slowestHealthzMs, ABUSE_HEALTHZ_BOUND_MS);
        healthzFailures.push(String(error));
      }
      healthzProbes++;
      await sleep(200);
    }
  })();
  const others = (async () => {
    while (running) {
      try {
        await bystander();
      } catch (error) {
        bystanderFailures.push(String(error));
      }
      bystanderRequests++;
      await sleep(50);
    }
  })();

  try {
    const result = await attack();
    // At least one probe and one bystander request after the attack, too.
    const [probes, requests] = [healthzProbes, bystanderRequests];
    while (running && (healthzProbes === probes || bystanderRequests === requests)) await sleep(20);
    return {
      result,
      watch: {
        peakRssBytes,
        slowestHealthzMs,
        healthzProbes,
        healthzFailures,
        bystanderRequests,
        bystanderFailures,
      },
    };
  } finally {
    running = false;
    clearInterval(rss);
    await Promise.all([probe, others]);
  }
}

/** The watch's figures as one line, for the spec's log and docs/reliability.md. */
export function describeWatch(door: string, watch: AbuseWatch): string {
  return (
    `${door}: peak RSS ${Math.round(watch.peakRssBytes / 1024 / 1024)} MiB, slowest /healthz ` +
    `${Math.round(watch.slowestHealthzMs)} ms over ${watch.healthzProbes} probes, ` +
    `${watch.bystanderRequests - watch.bystanderFailures.length}/${watch.bystanderRequests} bystander requests ok`
  );
}
