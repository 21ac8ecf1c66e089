// An operator is told what is wrong with S3 storage: the api and the worker, started against a
// real S3 server (Ceph RGW, the rgw engine) whose bucket does not exist, say so in one line naming
// the setting and the fix, at start in their logs and in /readyz's detail. (The other causes —
// wrong endpoint, credentials, clock — are covered through doctor: apps/cli/test/doctor-storage.)
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestDatabase,
  createTestRedisPrefix,
  freePort,
  type RunningProcess,
  startApp,
  startTestS3,
  type TestDatabase,
  testRedisUrl,
  waitForHttp,
  writeTestConfig,
} from '@framedesk/testing';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitForOutput(proc: RunningProcess, pattern: RegExp, timeoutMs = 60_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const line = proc
      .output()
      .split('\n')
      .find((l) => pattern.test(l));
    if (line) return line;
    await sleep(100);
  }
  throw new Error(`no log line matching ${pattern} within ${timeoutMs} ms:\n${proc.output().slice(-2000)}`);
}

describe('storage problems on a real S3 server (RGW): a missing bucket', { timeout: 120_000 }, () => {
  const work = mkdtempSync(join(tmpdir(), 'fd-storage-problems-'));
  const bucket = `fd-missing-${randomBytes(4).toString('hex')}`;
  let database: TestDatabase;
  let env: Record<string, string>;
  const processes: RunningProcess[] = [];

  beforeAll(async () => {
    const rgw = await startTestS3([]); // the shared RGW; this file's bucket is one that does not exist
    database = await createTestDatabase();
    const apiPort = await freePort();
    env = {
      NODE_ENV: 'test',
      DATABASE_URL: database.url,
      REDIS_URL: testRedisUrl(),
      REDIS_PREFIX: createTestRedisPrefix().prefix,
      ...rgw.env,
      STORAGE_FS_ROOT: join(work, 'fs'),
      API_HOST: '127.0.0.1',
      API_PORT: String(apiPort),
      LOG_LEVEL: 'info',
      FRAMEDESK_CONFIG: await writeTestConfig(work, `http://127.0.0.1:${apiPort}`, (config) => {
        config.storage.vendor_originals_bucket = bucket;
      }),
    };
  }, 120_000);

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop()));
    await database?.drop();
    rmSync(work, { recursive: true, force: true });
  });

  it('the api says it in its start log and in /readyz, naming the setting and the fix', async () => {
    const api = startApp('api', env);
    processes.push(api);
    const url = `http://127.0.0.1:${env['API_PORT']}`;
    await waitForHttp(`${url}/healthz`, 60_000, api);
    const line = JSON.parse(await waitForOutput(api, /does not exist/)) as { level: number; msg: string };
    expect(line.msg).toBe(
      `storage (s3): bucket ${bucket} does not exist (NoSuchBucket 404); create it on the S3 server (Framedesk does not create buckets: docs/operations.md, "S3") or set storage.vendor_originals_bucket in the project configuration to an existing bucket`,
    );
    expect(line.level).toBeGreaterThanOrEqual(50);

    const ready = await fetch(`${url}/readyz`);
    const body = (await ready.json()) as {
      detail: string;
      checks: Record<string, { status: string; detail?: string }>;
    };
    expect(ready.status).toBe(503);
    expect(body.checks['storage']).toEqual({ status: 'unavailable', detail: line.msg });
    expect(body.detail).toBe(`Not ready: storage unavailable. ${line.msg}.`);
    expect(body.detail).not.toContain('127.0.0.1');
  });

  it('the worker says it at start for each queue that needs storage', async () => {
    const port = await freePort();
    const worker = startApp('worker', { ...env, WORKER_HEALTH_PORT: String(port) });
    processes.push(worker);
    const line = JSON.parse(await waitForOutput(worker, /queue image-processing not consumed/)) as { msg: string };
    expect(line.msg).toContain(`storage (s3): bucket ${bucket} does not exist (NoSuchBucket 404); create it`);
  });
});
