// A corpus of malformed and hostile requests against the real server: every answer is a 4xx
// problem+json (or 202 and then `failed`), never a 500, a hang or a crash, with memory bounded.
import { relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePng } from '@framedesk/testing';
import {
  API_RSS_BOUND_MIB,
  call,
  type RelStack,
  reportFigures,
  startRelStack,
  submitFrame,
  waitForSettled,
  walkFiles,
  WORKER_RSS_BOUND_MIB,
} from './harness';
import { type HostileCase, hostileCorpus } from './hostile-corpus';
import { rawRequest, type RawResponse, rssMiB } from './raw-http';

function judge(item: HostileCase, response: RawResponse): string | null {
  const { status } = response;
  if (response.timedOut) return 'no answer (hang)';
  if (item.expect === 'framing') return status === 0 || (status >= 400 && status < 500) ? null : `status ${status}`;
  if (status === 202 && item.expect === '4xx-or-202') return null;
  if (status < 400 || status >= 500) return `status ${status}: ${response.body.toString().slice(0, 200)}`;
  if (!(response.headers['content-type'] ?? '').startsWith('application/problem+json'))
    return `${status} without problem+json (${response.headers['content-type']})`;
  try {
    const body = JSON.parse(response.body.toString()) as { code?: unknown; status?: unknown };
    if (typeof body.code !== 'string' || body.status !== status) return `${status} problem without code/status`;
  } catch {
    return `${status} body is not JSON`;
  }
  return null;
}

describe('hostile input: a corpus of malformed requests', () => {
  let stack: RelStack;
  let key: string;

  beforeAll(async () => {
    stack = await startRelStack({ workers: 1, env: { RATE_LIMIT_PER_MINUTE: '100000', REQUEST_TIMEOUT_SECONDS: '5' } });
    key = await stack.createAgent('bot', ['news']);
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('answers every case with a 4xx problem (or 202 then failed), stays up and bounded', async () => {
    let apiPid = stack.api().child.pid!;
    let maxRss = rssMiB(apiPid);
    const sampler = setInterval(() => {
      try {
        maxRss = Math.max(maxRss, rssMiB(apiPid));
      } catch {
        // the process is gone; the health check below says so
      }
    }, 100);

    const corpus = hostileCorpus({ key, agent: 'bot', channel: 'news' });
    const slow = corpus.filter((c) => c.timeoutMs);
    const slowAnswers = slow.map((c) => rawRequest(stack.apiPort, c.bytes, { timeoutMs: c.timeoutMs! }));
    const problems: string[] = [];
    const accepted: { name: string; id: string; mustFail: boolean }[] = [];
    const byStatus: Record<string, number> = {};
    const record = (item: HostileCase, response: RawResponse) => {
      byStatus[String(response.status)] = (byStatus[String(response.status)] ?? 0) + 1;
      const problem = judge(item, response);
      if (problem) problems.push(`${item.name}: ${problem}`);
      if (response.status === 202) {
        const id = (JSON.parse(response.body.toString()) as { id: string }).id;
        accepted.push({ name: item.name, id, mustFail: item.mustFailIfAccepted ?? false });
      }
    };
    let crashes = 0;
    for (const item of corpus.filter((c) => !c.timeoutMs)) {
      const response = await rawRequest(stack.apiPort, item.bytes, {
        timeoutMs: 20_000,
        ...(item.hangUp ? { hangUpAfterMs: 300 } : {}),
      });
      if (!item.hangUp) record(item, response);
      else byStatus['hung up'] = (byStatus['hung up'] ?? 0) + 1;
      await new Promise((r) => setTimeout(r, item.hangUp ? 1_000 : 20));
      if (stack.api().child.exitCode !== null || stack.api().child.signalCode !== null) {
        // A crash is a failure; note what killed it, then carry on to find every such case.
        crashes++;
        const tail = stack.api().output().trim().split('\n').slice(-3).join(' | ').slice(0, 600);
        problems.push(`${item.name}: CRASHED the API: ${tail}`);
        await stack.startApi();
        apiPid = stack.api().child.pid!;
      }
    }
    (await Promise.all(slowAnswers)).forEach((response, i) => record(slow[i]!, response));
    clearInterval(sampler);

    // Still up, still serving real work.
    expect(stack.api().child.exitCode, 'the API is up').toBeNull();
    expect((await fetch(`${stack.apiUrl}/healthz`)).status).toBe(200);
    const good = await submitFrame(stack.apiUrl, key, { agent: 'bot', channel: 'news', png: makePng(20, 20) });
    expect(good.status).toBe(202);
    const fetched = await call(`${stack.apiUrl}/v1/frame-submissions/${String(good.body?.['id'])}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(fetched.status).toBe(200);
    // No prototype pollution leaked into responses.
    expect(JSON.stringify(fetched.body)).not.toMatch(/polluted|isAdmin/);

    // Accepted hostile images end failed; the rest settle; the worker survives.
    const statuses = await waitForSettled(
      stack,
      accepted.map((a) => a.id),
      90_000,
    );
    for (const a of accepted) {
      const status = statuses.get(a.id);
      if (a.mustFail ? status !== 'failed' : !['needs_review', 'failed'].includes(status ?? ''))
        problems.push(`${a.name}: accepted, then ${status}`);
    }
    const worker = stack.workers[0]!;
    expect(worker.child.exitCode, 'the worker did not crash').toBeNull();
    const workerRss = rssMiB(worker.child.pid!);

    // Storage keys never come from filenames.
    const files = (await walkFiles(stack.storageRoot)).map((f) => relative(stack.storageRoot, f));
    const strange = files.filter(
      (f) =>
        !/^[a-z0-9-]+\/(originals|variants)\/sub_[0-9A-Za-z]+\/[a-z0-9_-]+\.(png|webp|jpg)$/.test(f) &&
        !f.includes('/.tmp/'),
    );

    reportFigures('hostile-input', {
      requests: corpus.length,
      by_status: byStatus,
      accepted_then_failed: accepted.filter((a) => statuses.get(a.id) === 'failed').length,
      accepted_then_reviewable: accepted.filter((a) => statuses.get(a.id) === 'needs_review').length,
      server_errors: Object.entries(byStatus)
        .filter(([s]) => Number(s) >= 500)
        .reduce((n, [, c]) => n + c, 0),
      problems: problems.length,
      crashes,
      api_max_rss_mib: Math.round(maxRss),
      worker_rss_mib: Math.round(workerRss),
    });
    expect(problems).toEqual([]);
    expect(strange, 'files outside the id-based key layout').toEqual([]);
    expect(maxRss).toBeLessThan(API_RSS_BOUND_MIB);
    expect(workerRss).toBeLessThan(WORKER_RSS_BOUND_MIB);
  }, 240_000);
});
