// Real worker processes kept running as a supervisor (systemd, Kubernetes) would: one that dies is
// started again at once. For tests of crashes that end worker processes (poison-image,
// crash-blame).
import { freePort, type RunningProcess, startApp, waitForHttp } from '@framedesk/testing';

export interface WorkerSupervisor {
  /** Worker processes that ended (and were replaced) so far. */
  deaths(): number;
  /** Every process started so far, the dead ones too (their output). */
  readonly processes: readonly RunningProcess[];
  /** Resolves once `count` workers answer on /healthz (each started waits at most its bound). */
  ready(timeoutMs?: number): Promise<void>;
  /** Stops restarting and kills the workers. */
  stop(): Promise<void>;
}

export function superviseWorkers(env: Record<string, string>, count: number): WorkerSupervisor {
  const processes: RunningProcess[] = [];
  const ports = new Map<RunningProcess, number>();
  let deaths = 0;
  let stopping = false;
  const start = async () => {
    const port = await freePort();
    if (stopping) return;
    const worker = startApp('worker', { ...env, WORKER_HEALTH_PORT: String(port) });
    processes.push(worker);
    ports.set(worker, port);
    worker.child.once('exit', () => {
      ports.delete(worker);
      if (stopping) return;
      deaths++;
      void start();
    });
  };
  const started = Promise.all(Array.from({ length: count }, start));
  return {
    deaths: () => deaths,
    processes,
    async ready(timeoutMs = 180_000) {
      await started;
      await Promise.all(
        // One killed meanwhile has its successor started already.
        [...ports].map(([worker, port]) =>
          waitForHttp(`http://127.0.0.1:${port}/healthz`, timeoutMs, worker).catch(() => undefined),
        ),
      );
    },
    async stop() {
      stopping = true;
      await started;
      await Promise.all(processes.map((p) => p.stop('SIGKILL')));
    },
  };
}
