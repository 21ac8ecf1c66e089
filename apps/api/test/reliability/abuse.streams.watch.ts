// What the live-stream and metrics abuse specs watch while they attack a running API process: its
// resident memory, /healthz answering within a second, and a bystander's requests succeeding.
import { request } from 'node:http';
import { rssMiB } from './raw-http';

function healthz(apiUrl: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${apiUrl}/healthz`, { agent: false, timeout: 10_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 10 s')));
    req.on('error', reject);
    req.end();
  });
}

export interface Watch {
  /** Names what the test does now: slow /healthz answers are listed with it. */
  phase: string;
  /** Stops watching and returns what was seen. */
  stop(): Promise<WatchReport>;
}

export interface WatchReport {
  readonly healthChecks: number;
  /** The slowest /healthz answer, ms. */
  readonly maxHealthMs: number;
  /** Answers slower than half a second, with the phase they came in. */
  readonly slowHealth: string[];
  readonly healthFailures: string[];
  readonly maxRssMiB: number;
  readonly bystanderCalls: number;
  readonly bystanderFailures: string[];
}

/** Probes /healthz, the API's RSS and `bystander` (throws on failure) every 100 ms until stopped. */
export function watchApi(apiUrl: string, pid: number, bystander: () => Promise<void>): Watch {
  let running = true;
  const phase = () => watch.phase;
  const report = {
    healthChecks: 0,
    maxHealthMs: 0,
    slowHealth: [] as string[],
    healthFailures: [] as string[],
    maxRssMiB: 0,
    bystanderCalls: 0,
    bystanderFailures: [] as string[],
  };
  const pause = () => new Promise((r) => setTimeout(r, 100));
  const health = (async () => {
    do {
      const started = performance.now();
      try {
        // A connection of its own (no pool shared with the attack), closed after the answer.
        const status = await healthz(apiUrl);
        if (status !== 200) report.healthFailures.push(`/healthz ${status}`);
      } catch (error) {
        report.healthFailures.push(`/healthz ${String(error)}`);
      }
      const ms = performance.now() - started;
      report.maxHealthMs = Math.max(report.maxHealthMs, ms);
      if (ms > 500) report.slowHealth.push(`${Math.round(ms)} ms (${phase()})`);
      report.healthChecks++;
      report.maxRssMiB = Math.max(report.maxRssMiB, rssMiB(pid));
      await pause();
    } while (running);
  })();
  const others = (async () => {
    do {
      report.bystanderCalls++;
      await bystander().catch((error: unknown) => report.bystanderFailures.push(String(error)));
      await pause();
    } while (running);
  })();
  const watch: Watch = {
    phase: 'start',
    async stop() {
      running = false;
      await Promise.all([health, others]);
      return {
        ...report,
        maxHealthMs: Math.round(report.maxHealthMs),
        maxRssMiB: Math.round(report.maxRssMiB),
      };
    },
  };
  return watch;
}
