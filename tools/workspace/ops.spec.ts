// The operations files in ops/ are tested with the real Prometheus tools (Debian's `prometheus`
// package, installed by npm test's set-up where it is missing): the alert rules parse and their
// unit tests pass, every alert has a case where it fires and one where it does not, and every
// dashboard expression parses. apps/api/test/observability.int.spec.ts runs them against a real
// Prometheus scraping a real API and worker.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { dashboardQueries, OPS_FILES, promtool } from '@framedesk/testing';

const root = resolve(import.meta.dirname, '../..');

interface AlertRule {
  alert: string;
  expr: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
interface RulesTest {
  tests: { alert_rule_test?: { alertname: string; exp_alerts: unknown[] }[] }[];
}

const rules = (parse(readFileSync(OPS_FILES.rules, 'utf8')) as { groups: { rules: AlertRule[] }[] }).groups.flatMap(
  (g) => g.rules,
);
const rulesTest = parse(readFileSync(OPS_FILES.rulesTest, 'utf8')) as RulesTest;
const operations = readFileSync(join(root, 'docs/operations.md'), 'utf8');

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'framedesk-ops-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe('Prometheus alert rules (ops/prometheus)', () => {
  it('pass promtool check rules, and the example configuration passes check config', () => {
    const rulesCheck = promtool(['check', 'rules', OPS_FILES.rules]);
    expect(rulesCheck.output).toContain(`SUCCESS: ${rules.length} rules found`);
    expect(rulesCheck.code).toBe(0);
    const configCheck = promtool(['check', 'config', OPS_FILES.prometheusConfig]);
    expect(configCheck.code, configCheck.output).toBe(0);
  });

  it('pass their unit tests (promtool test rules)', () => {
    const run = promtool(['test', 'rules', OPS_FILES.rulesTest]);
    expect(run.output).toContain('SUCCESS');
    expect(run.code, run.output).toBe(0);
  });

  it('are refused by promtool when broken (the check reads them)', async () => {
    const broken = join(scratch, 'broken.rules.yml');
    await writeFile(broken, stringify({ groups: [{ name: 'x', rules: [{ alert: 'X', expr: 'sum by (queue (x)' }] }] }));
    expect(promtool(['check', 'rules', broken]).code).not.toBe(0);
  });

  it('each alert has a unit test where it fires and one where it does not', () => {
    const cases = rulesTest.tests.flatMap((t) => t.alert_rule_test ?? []);
    const wanted = ['at least one alert', 'no alert'];
    for (const rule of rules) {
      const seen = cases
        .filter((c) => c.alertname === rule.alert)
        .map((c) => (c.exp_alerts.length > 0 ? 'at least one alert' : 'no alert'));
      expect(new Set(seen), rule.alert).toEqual(new Set(wanted));
    }
  });

  it('each alert carries a severity, a summary, what to do and a runbook section of docs/operations.md', () => {
    expect(rules.map((r) => r.alert)).toEqual(
      expect.arrayContaining([
        'FramedeskQueueWithoutWorker',
        'FramedeskOldestJobWaiting',
        'FramedeskJobFailureRate',
        'FramedeskApiErrors',
        'FramedeskProcessNotReady',
        'FramedeskReviewBacklogOld',
        'FramedeskReviewOverdue',
      ]),
    );
    for (const rule of rules) {
      expect(['page', 'warning'], rule.alert).toContain(rule.labels?.['severity']);
      expect(rule.annotations?.['summary'], rule.alert).toBeTruthy();
      expect(rule.annotations?.['description'], rule.alert).toBeTruthy();
      expect(rule.annotations?.['runbook_url']).toBe(`docs/operations.md#${rule.alert.toLowerCase()}`);
      // GitHub's anchor of a heading `#### FramedeskQueueWithoutWorker` is its lowercased text.
      const heading = new RegExp(`^#+ ${rule.alert}$`, 'm');
      expect(heading.test(operations), `docs/operations.md has no heading for ${rule.alert}`).toBe(true);
    }
  });
});

describe('Grafana dashboard (ops/grafana)', () => {
  it('has every panel an on-call engineer needs', async () => {
    const queries = await dashboardQueries();
    const all = queries.map((q) => q.expr).join('\n');
    for (const metric of [
      'http_request_duration_seconds_count', // ingest rate, requests by route and status, 5xx
      'http_request_duration_seconds_bucket', // ingest latency
      'framedesk_queue_depth',
      'framedesk_queue_oldest_waiting_seconds',
      'framedesk_jobs_total', // throughput and failures
      'framedesk_submission_failures_total', // failures by code
      'framedesk_queue_workers',
      'framedesk_review_backlog_oldest_seconds',
      'framedesk_review_overdue',
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'framedesk_ready',
    ])
      expect(all).toContain(metric);
  });

  it('has only expressions promtool parses', async () => {
    const queries = await dashboardQueries();
    expect(queries.length).toBeGreaterThan(10);
    // A throw-away rules file: one recording rule per expression.
    const asRules = (exprs: string[]) =>
      stringify({
        groups: [{ name: 'dashboard', rules: exprs.map((expr, i) => ({ record: `dashboard:expr_${i}`, expr })) }],
      });
    const file = join(scratch, 'dashboard.rules.yml');
    await writeFile(file, asRules(queries.map((q) => q.expr)));
    const run = promtool(['check', 'rules', file]);
    expect(run.output).toContain(`SUCCESS: ${queries.length} rules found`);
    expect(run.code, run.output).toBe(0);
    // …and would say so if one did not parse.
    await writeFile(file, asRules([...queries.map((q) => q.expr), 'rate(framedesk_jobs_total[5m]']));
    expect(promtool(['check', 'rules', file]).code).not.toBe(0);
  });
});
