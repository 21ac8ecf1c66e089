// Storage writes fail (disk full: a 2 MB tmpfs as root, else a read-only directory): the API
// answers a 5xx problem+json with nothing half-created, never a 202 whose original is missing;
// once space returns, every accepted submission is processed.
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classify } from './burst';
import {
  type ApiAnswer,
  checkIntegrity,
  leftoverTempFiles,
  ORIGINALS_BUCKET,
  type RelStack,
  reportFigures,
  startRelStack,
  submitFrame,
  waitForSettled,
} from './harness';
import { makeNoisePng } from '@framedesk/testing';

function tryMountTmpfs(dir: string, size: string, remount = false): boolean {
  if (process.getuid?.() !== 0) return false;
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `${remount ? 'remount,' : ''}size=${size}`, 'tmpfs', dir], {
      stdio: 'ignore',
    });
    return true;
  } catch {
    return false;
  }
}

describe('fault: storage writes failing (disk full)', () => {
  let stack: RelStack;
  let key: string;
  let base: string;
  let storageRoot: string;
  let tmpfs = false;

  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), 'fd-full-'));
    storageRoot = join(base, 'storage');
    await mkdir(storageRoot);
    tmpfs = tryMountTmpfs(storageRoot, '2m');
    // No worker yet: variants would take space too; processing starts once space returns.
    stack = await startRelStack({ storageRoot, workers: 0, env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    key = await stack.createAgent('bot', ['news']);
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    if (tmpfs) execFileSync('umount', ['-l', storageRoot], { stdio: 'ignore' });
    await chmod(join(storageRoot, ORIGINALS_BUCKET), 0o755).catch(() => undefined);
    await rm(base, { recursive: true, force: true });
  });

  it('refuses with 5xx problem+json and never accepts what it could not store', async () => {
    const answers: ApiAnswer[] = [];
    const png = () => makeNoisePng(180, 180); // ~100 KB that does not compress
    // Fill the disk (tmpfs), or make the bucket read-only once it exists.
    for (let i = 0; i < 30; i++) {
      if (!tmpfs && i === 3) {
        await chmod(join(storageRoot, ORIGINALS_BUCKET, 'originals'), 0o555);
        await chmod(join(storageRoot, ORIGINALS_BUCKET, '.tmp'), 0o555);
      }
      answers.push(
        await submitFrame(stack.apiUrl, key, { agent: 'bot', channel: 'news', png: png(), timeoutMs: 30_000 }),
      );
    }
    const accepted = answers.filter((a) => classify(a) === 'accepted');
    const refused = answers.filter((a) => a.status >= 500);
    const wrong = answers.filter(
      (a) =>
        a.status !== 202 &&
        !(
          a.status >= 500 &&
          a.contentType.startsWith('application/problem+json') &&
          typeof a.body?.['code'] === 'string'
        ),
    );
    expect(
      wrong.map((a) => `${a.status} ${a.error ?? JSON.stringify(a.body)}`),
      'answers other than 202 or 5xx problem+json',
    ).toEqual([]);
    expect(refused.length, 'the fault really happened').toBeGreaterThan(0);
    // A full disk is a dependency that may recover: 503 with Retry-After tells agents to retry.
    expect([...new Set(refused.map((a) => `${a.status} ${String(a.body?.['code'])}`))]).toEqual([
      '503 service_unavailable',
    ]);

    const integrity = await checkIntegrity(stack);
    const leftovers = await leftoverTempFiles(stack);
    expect(integrity.submissions, 'a submission row for each 202, none for refusals').toBe(accepted.length);
    expect(integrity.originalRowsWithoutFile, 'no 202 whose original is missing').toEqual([]);
    expect(integrity.imagesWithoutOriginalRow).toEqual([]);
    expect(integrity.orphanFiles).toEqual([]);
    expect(leftovers, 'no partial files in the bucket or the spools').toEqual([]);
    expect((await fetch(`${stack.apiUrl}/healthz`)).status).toBe(200);

    // Space returns: every accepted submission is processed.
    if (tmpfs) expect(tryMountTmpfs(storageRoot, '64m', true)).toBe(true);
    else {
      await chmod(join(storageRoot, ORIGINALS_BUCKET, 'originals'), 0o755);
      await chmod(join(storageRoot, ORIGINALS_BUCKET, '.tmp'), 0o755);
    }
    await stack.startWorker();
    const ids = accepted.map((a) => String(a.body?.['id']));
    const statuses = await waitForSettled(stack, ids, 60_000);
    const reviewed = ids.filter((id) => statuses.get(id) === 'needs_review');
    reportFigures('faults-storage', {
      mode: tmpfs ? 'tmpfs 2 MiB full' : 'read-only directory',
      faults_injected: refused.length,
      requests: answers.length,
      accepted_total: accepted.length,
      refused_5xx: refused.length,
      refusal_codes: [...new Set(refused.map((a) => `${a.status} ${String(a.body?.['code'])}`))],
      reached_final: reviewed.length,
      lost: accepted.length - reviewed.length,
      temp_leftovers: leftovers,
    });
    expect(reviewed.length).toBe(ids.length);
  }, 180_000);
});
