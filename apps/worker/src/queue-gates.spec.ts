import { createLogger } from '@framedesk/observability';
import type { QueueConsumer } from '@framedesk/queues';
import { afterEach, describe, expect, it } from 'vitest';
import { createQueueGates, type QueueGates } from './queue-gates';
import type { Need, NeedCheck } from './readiness';

// What the checks answer for PostgreSQL, set by each step of the test.
let postgres: NeedCheck = { ok: true };
const SLOW: NeedCheck = { ok: false, reason: 'PostgreSQL at db:5432 did not answer', noAnswer: true };
const REFUSED: NeedCheck = { ok: false, reason: 'PostgreSQL not reachable at db:5432' };

describe('queue gates', () => {
  let gates: QueueGates | undefined;
  afterEach(() => gates?.close());

  function start() {
    const consumers: { closed: boolean }[] = [];
    gates = createQueueGates({
      worker: 'w1',
      queues: ['maintenance'],
      logger: createLogger({ name: 'test', level: 'silent' }),
      intervalMs: 3_600_000, // checked only when the test asks
      needs: () => ['postgres'],
      check: async (needs: ReadonlySet<Need>) => new Map([...needs].map((need) => [need, postgres] as const)),
      consume: (): QueueConsumer => {
        const consumer = { closed: false };
        consumers.push(consumer);
        return { close: async () => void (consumer.closed = true) } as QueueConsumer;
      },
    });
    const consuming = () => consumers.filter((c) => !c.closed).length;
    return { gates, consuming, started: () => consumers.length };
  }

  it('keeps consuming through one check that got no answer in time, and stops after a second in a row', async () => {
    const { gates, consuming } = start();
    postgres = { ok: true };
    await gates.check();
    expect([consuming(), gates.ready()]).toEqual([1, true]);
    postgres = SLOW;
    await gates.check();
    expect([consuming(), gates.ready()]).toEqual([1, true]);
    postgres = { ok: true };
    await gates.check(); // answered again: the count starts over
    postgres = SLOW;
    await gates.check();
    expect(consuming()).toBe(1);
    await gates.check();
    expect([consuming(), gates.ready()]).toEqual([0, false]);
    expect(gates.report()?.queues['maintenance']).toEqual({
      status: 'unavailable',
      reason: SLOW.ok ? '' : SLOW.reason,
    });
  });

  it('stops at once on a refusal, and starts again when the need is met', async () => {
    const { gates, consuming, started } = start();
    postgres = { ok: true };
    await gates.check();
    postgres = REFUSED;
    await gates.check();
    expect([consuming(), gates.ready()]).toEqual([0, false]);
    postgres = { ok: true };
    await gates.check();
    expect([consuming(), started(), gates.ready()]).toEqual([1, 2, true]);
  });
});
