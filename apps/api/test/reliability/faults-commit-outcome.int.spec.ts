// A COMMIT whose outcome the API never heard: the create's statement commits on PostgreSQL, then
// the connection dies before the answer comes back (as in a failover: "Connection terminated
// unexpectedly"). The agent retries with the same Idempotency-Key and gets the committed frame
// replayed. Issue 44 saw that frame end `failed: The original image is missing from storage`: the
// API had discarded the staged original when the create threw, though the row referring to it had
// committed. A proxy between the API and PostgreSQL cuts the connection right after the commit.
import { randomUUID } from 'node:crypto';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, freePort, type TestDatabase } from '@framedesk/testing';
import { originalFiles, type RelStack, startRelStack, submitFrame, waitForSettled } from './harness';

/** Forwards to PostgreSQL; once armed, the next statement matching `marker` runs, and its answer is cut off. */
async function startCommitCutter(port: number) {
  const listen = await freePort();
  const sockets = new Set<Socket>();
  let armed: RegExp | null = null;
  let cut = 0;
  const server: Server = createServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    sockets.add(client).add(upstream);
    let cutting = false;
    client.on('data', (chunk: Buffer) => {
      if (armed && armed.test(chunk.toString('latin1'))) {
        armed = null;
        cutting = true;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!cutting) return void client.write(chunk);
      // ReadyForQuery ('Z', length 5): the statement (and its implicit transaction) has committed.
      if (chunk.includes(Buffer.from([0x5a, 0, 0, 0, 5]))) {
        cut++;
        client.destroy();
        upstream.destroy();
      }
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(listen, '127.0.0.1', resolve));
  return {
    port: listen,
    arm: (marker: RegExp) => void (armed = marker),
    cuts: () => cut,
    close: async () => {
      sockets.forEach((s) => s.destroy());
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('fault: a create committed whose answer was lost', () => {
  let database: TestDatabase;
  let cutter: Awaited<ReturnType<typeof startCommitCutter>>;
  let stack: RelStack;
  let key: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    const url = new URL(database.url);
    cutter = await startCommitCutter(Number(url.port || 5432));
    url.port = String(cutter.port);
    // The create never reached its enqueue: the reconciler hands the frame to a worker.
    stack = await startRelStack({
      databaseUrl: url.toString(),
      workers: 1,
      env: { RECONCILE_AFTER_SECONDS: '2', RECONCILE_INTERVAL_SECONDS: '1' },
    });
    key = await stack.createAgent('bot', ['news']);
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await cutter?.close();
    await database?.drop();
  });

  it('keeps the original of a frame whose create committed, so its replay reaches review', async () => {
    const idempotencyKey = randomUUID();
    cutter.arm(/INSERT INTO idempotency_records/);
    const first = await submitFrame(stack.apiUrl, key, { agent: 'bot', channel: 'news', idempotencyKey });
    expect(cutter.cuts()).toBe(1);
    expect(first.status).toBe(503);
    const retry = await submitFrame(stack.apiUrl, key, { agent: 'bot', channel: 'news', idempotencyKey });
    expect(retry.status).toBe(202);
    expect(retry.replayed).toBe(true);
    const id = String(retry.body?.['id']);
    expect((await originalFiles(stack.storageRoot)).filter((file) => file.includes(id))).toHaveLength(1);
    const statuses = await waitForSettled(stack, [id], 60_000);
    const failure = await database.query('SELECT failure_message FROM submissions WHERE id = $1', [id]);
    expect({ status: statuses.get(id), failure: failure[0]?.failure_message ?? null }).toEqual({
      status: 'needs_review',
      failure: null,
    });
  }, 120_000);
});
