// Review policies through the real api and worker processes, the policy set through the CLI
// (docs/policies.md): a blank PNG rejected by rule, the agent's GET naming the rule and the
// reason; with the policy cleared the same blank frame waits for people.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, type FramedeskClient, type Submission } from '@framedesk/client';
import { svgToPng } from '@framedesk/media';
import { type Stack, startStack, waitUntil } from '@framedesk/testing';
import { runCli } from './in-process';

const BLANK_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="320" height="180"><rect width="320" height="180" fill="#111"/></svg>';

describe('review policies on the real stack', () => {
  let stack: Stack;
  let client: FramedeskClient;
  let dir: string;
  let blank: Buffer;
  const cli = (...args: string[]) => runCli(args, stack.env);

  beforeAll(async () => {
    // Workers check for a changed policy every second here (default 5 s).
    stack = await startStack({ env: { POLICY_CHECK_SECONDS: '1' } });
    const key = (await cli('agent', 'create', 'renderbot', '--channel', 'renders', '--json')).json().api_key;
    client = createClient({ baseUrl: stack.apiUrl, apiKey: key });
    dir = await mkdtemp(join(tmpdir(), 'fd-policies-stack-'));
    blank = await svgToPng(BLANK_SVG);
  }, 180_000);
  afterAll(async () => {
    await stack?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const submit = (title: string): Promise<Submission> =>
    client.submitFrame({
      metadata: {
        agent_slug: 'renderbot',
        channel_slug: 'renders',
        date: '20261127',
        title,
      },
      image: blank,
    });
  const settled = (id: string) =>
    waitUntil(
      `${id} to leave processing`,
      async () => {
        const s = await client.getSubmission(id);
        return ['received', 'media_processing'].includes(s.status) ? null : s;
      },
      90_000,
    );

  it(
    'a blank PNG is rejected by rule and the agent sees the rule and the reason; cleared, the same frame waits for people',
    { timeout: 180_000 },
    async () => {
      const policy = join(dir, 'policy.json');
      await writeFile(
        policy,
        JSON.stringify({ rules: [{ name: 'blank', when: 'signals.blank', action: 'reject', reason: 'Low quality' }] }),
      );
      expect((await cli('policy', 'set', 'renders', policy)).code).toBe(0);
      const rejected = await settled((await submit('first render')).id);
      expect(rejected.status).toBe('rejected');
      expect(rejected.review).toMatchObject({
        decision: 'rejected',
        reason: 'Low quality',
        decided_by: 'policy',
        rule: 'blank',
      });

      expect((await cli('policy', 'clear', 'renders')).code).toBe(0);
      // Every worker notices within POLICY_CHECK_SECONDS.
      await new Promise((r) => setTimeout(r, 1_500));
      const waiting = await settled((await submit('second render')).id);
      expect(waiting.status).toBe('needs_review');
      expect(waiting.review?.rule ?? null).toBeNull();
    },
  );
});
