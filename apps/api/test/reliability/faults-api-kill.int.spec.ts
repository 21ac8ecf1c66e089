// The API is SIGKILLed while a large multipart body is streaming in: no partial original is
// kept, no submission exists, and the retry with the same Idempotency-Key succeeds once.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkIntegrity,
  leftoverTempFiles,
  originalFiles,
  type RelStack,
  reportFigures,
  sleep,
  startRelStack,
  submitFrame,
  waitForSettled,
} from './harness';
import { makeNoisePng } from '@framedesk/testing';
import { multipartBody, rawRequest, requestBytes } from './raw-http';

describe('fault: the API killed mid-upload', () => {
  let stack: RelStack;
  let key: string;

  beforeAll(async () => {
    stack = await startRelStack({ workers: 1, env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    key = await stack.createAgent('bot', ['news']);
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('keeps nothing partial, and the retry with the same Idempotency-Key succeeds', async () => {
    const rounds = [0.3, 0.8]; // where in the body the API dies
    const ids: string[] = [];
    let leftoverTotal = 0;
    for (const fraction of rounds) {
      const idempotencyKey = randomUUID();
      const png = makeNoisePng(1400, 1200); // ~5 MB, under the 10 MB limit
      const metadata = { agent_slug: 'bot', channel_slug: 'news', date: '20260101', title: `killed at ${fraction}` };
      const { body, contentType } = multipartBody([
        { name: 'metadata', contentType: 'application/json', body: JSON.stringify(metadata) },
        { name: 'image', filename: 'big.png', contentType: 'image/png', body: png },
      ]);
      const bytes = requestBytes({
        path: '/v1/frame-submissions',
        headers: { authorization: `Bearer ${key}`, 'idempotency-key': idempotencyKey, 'content-type': contentType },
        body,
      });
      // Slow chunks so the kill lands mid-body.
      const chunkSize = 64 * 1024;
      const chunks: Buffer[] = [];
      for (let at = 0; at < bytes.length; at += chunkSize) chunks.push(bytes.subarray(at, at + chunkSize));
      const cut = Math.floor(chunks.length * fraction);
      const upload = rawRequest(stack.apiPort, chunks.slice(0, cut), { chunkDelayMs: 10, timeoutMs: 30_000 });
      await sleep(cut * 10 + 300);
      await stack.api().stop('SIGKILL');
      const killed = await upload;
      expect(killed.status, 'no answer from a killed API').toBe(0);

      const afterKill = await checkIntegrity(stack);
      expect((await originalFiles(stack.storageRoot)).length, 'no partial original kept').toBe(ids.length);
      expect(afterKill.orphanFiles).toEqual([]);
      expect(afterKill.submissions - ids.length, 'no submission from the killed request').toBe(0);
      const leftovers = await leftoverTempFiles(stack);
      leftoverTotal += leftovers.length;

      await stack.startApi();
      // A crash leaves no record that blocks the retry for long (409 + Retry-After meanwhile).
      let retry = await submitFrame(stack.apiUrl, key, {
        agent: 'bot',
        channel: 'news',
        png,
        metadata,
        idempotencyKey,
      });
      for (let i = 0; i < 60 && retry.status === 409; i++) {
        await sleep(1_000);
        retry = await submitFrame(stack.apiUrl, key, { agent: 'bot', channel: 'news', png, metadata, idempotencyKey });
      }
      expect(retry.status, JSON.stringify(retry.body)).toBe(202);
      const replay = await submitFrame(stack.apiUrl, key, {
        agent: 'bot',
        channel: 'news',
        png,
        metadata,
        idempotencyKey,
      });
      expect(replay.status).toBe(202);
      expect(replay.body?.['id']).toBe(retry.body?.['id']);
      ids.push(String(retry.body?.['id']));
    }

    const statuses = await waitForSettled(stack, ids, 90_000);
    const reviewed = ids.filter((id) => statuses.get(id) === 'needs_review');
    const integrity = await checkIntegrity(stack);
    reportFigures('faults-api-kill', {
      faults_injected: rounds.length,
      requests: rounds.length * 3,
      accepted_total: ids.length,
      reached_final: reviewed.length,
      lost: ids.length - reviewed.length,
      submissions_in_db: integrity.submissions,
      temp_files_left_by_killed_api: leftoverTotal,
      temp_files_after_restarts: (await leftoverTempFiles(stack)).length,
    });
    expect(reviewed.length).toBe(ids.length);
    expect(integrity.submissions).toBe(rounds.length);
    expect(integrity.orphanFiles).toEqual([]);
    expect(integrity.originalRowsWithoutFile).toEqual([]);
  }, 240_000);
});
