import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse, stringify } from 'yaml';
import { freePort } from './stack';

const workspaceRoot = resolve(import.meta.dirname, '../../..');

/** The shipped operations files (docs/operations.md, "Observing Framedesk"). */
export const OPS_FILES = {
  dashboard: join(workspaceRoot, 'ops/grafana/framedesk.dashboard.json'),
  rules: join(workspaceRoot, 'ops/prometheus/framedesk.rules.yml'),
  rulesTest: join(workspaceRoot, 'ops/prometheus/framedesk.rules.test.yml'),
  prometheusConfig: join(workspaceRoot, 'ops/prometheus/prometheus.yml'),
} as const;

/** Debian's `prometheus` package's tools (npm test installs it where it is missing). */
export function promtool(args: string[]): { code: number | null; output: string } {
  const run = spawnSync('promtool', args, { encoding: 'utf8' });
  return { code: run.status, output: `${run.stdout ?? ''}${run.stderr ?? ''}${run.error?.message ?? ''}` };
}

export interface DashboardQuery {
  readonly panel: string;
  readonly expr: string;
}

/** Every PromQL expression of the dashboard, Grafana's `$__rate_interval` replaced by `rateInterval`. */
export async function dashboardQueries(rateInterval = '5m'): Promise<DashboardQuery[]> {
  const dashboard = JSON.parse(await readFile(OPS_FILES.dashboard, 'utf8')) as {
    panels: { title: string; targets?: { expr: string }[] }[];
  };
  return dashboard.panels.flatMap((panel) =>
    (panel.targets ?? []).map((target) => ({
      panel: panel.title,
      expr: target.expr.replaceAll('$__rate_interval', rateInterval),
    })),
  );
}

export interface PrometheusServer {
  readonly url: string;
  /** An instant query at now; the result's series. */
  query(expr: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]>;
  /** The loaded rules' health (`ok`, or `err` with `lastError`). */
  ruleHealth(): Promise<{ name: string; health: string; lastError?: string }[]>;
  stop(): Promise<void>;
}

/**
 * A real Prometheus server on a random port with a temporary TSDB: ops/prometheus/prometheus.yml
 * (its jobs and rules) with these targets and scrape interval.
 */
export async function startPrometheus(options: {
  readonly targets: Readonly<Record<'framedesk-api' | 'framedesk-worker', string>>;
  readonly scrapeIntervalSeconds: number;
}): Promise<PrometheusServer> {
  const dir = await mkdtemp(join(tmpdir(), 'framedesk-prometheus-'));
  const config = parse(await readFile(OPS_FILES.prometheusConfig, 'utf8')) as {
    global: Record<string, string>;
    rule_files: string[];
    scrape_configs: { job_name: 'framedesk-api' | 'framedesk-worker'; static_configs: { targets: string[] }[] }[];
  };
  config.global['scrape_interval'] = `${options.scrapeIntervalSeconds}s`;
  config.global['evaluation_interval'] = `${options.scrapeIntervalSeconds}s`;
  config.rule_files = [OPS_FILES.rules];
  for (const job of config.scrape_configs) job.static_configs = [{ targets: [options.targets[job.job_name]] }];
  await writeFile(join(dir, 'prometheus.yml'), stringify(config));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(
    'prometheus',
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    await rm(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`prometheus exited with ${child.exitCode}:\n${output}`);
    if (
      await fetch(`${url}/-/ready`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`prometheus did not become ready:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    async query(expr) {
      const response = await fetch(`${url}/api/v1/query?${new URLSearchParams({ query: expr })}`);
      const body = (await response.json()) as { status: string; error?: string; data: { result: never[] } };
      if (body.status !== 'success') throw new Error(`${expr}: ${body.error}`);
      return body.data.result;
    },
    async ruleHealth() {
      const body = (await (await fetch(`${url}/api/v1/rules`)).json()) as {
        data: { groups: { rules: { name: string; health: string; lastError?: string }[] }[] };
      };
      return body.data.groups.flatMap((g) =>
        g.rules.map(({ name, health, lastError }) => ({ name, health, lastError })),
      );
    },
    stop,
  };
}
