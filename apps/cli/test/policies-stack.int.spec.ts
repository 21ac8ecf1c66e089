// Review policies through the real api and worker processes, the policy set through the CLI
// (docs/policies.md): a blank PNG rejected by rule, the agent's GET naming the rule and the
// reason; with the policy cleared the same blank frame waits for people. A promote rule promotes
// with no person; a frame routed with two approvals needs two reviewers; a sampled match waits
// with the rule's suggestion and the reviewer's decision is recorded as agreeing or not. The
// scoring hook (a server of the test, speaking its contract) decides a rule; its malformed answer
// and its timeout each send the frame to people.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, type FramedeskClient, type Submission } from '@framedesk/client';
import { createDatabase } from '@framedesk/db';
import { svgToPng } from '@framedesk/media';
import { ReviewerClient, type Stack, startStack, waitUntil } from '@framedesk/testing';
import { runCli } from './in-process';

const BLANK_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="320" height="180"><rect width="320" height="180" fill="#111"/></svg>';

describe('review policies on the real stack', () => {
  let stack: Stack;
  let client: FramedeskClient;
  let dir: string;
  let blank: Buffer;
  const cli = (...args: string[]) => runCli(args, stack.env);

  // The scoring service: answers as `answer` says, with the bodies it received kept.
  let scorer: Server;
  let answer: (res: ServerResponse) => void = (res) => res.writeHead(500).end();
  const scored: string[] = [];

  beforeAll(async () => {
    scorer = createServer((req, res) => {
      let body = '';
      req.setEncoding('latin1');
      req.on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        scored.push(body);
        answer(res);
      });
    });
    await new Promise<void>((r) => scorer.listen(0, '127.0.0.1', r));
    const scoringUrl = `http://127.0.0.1:${(scorer.address() as AddressInfo).port}/score`;
    // Workers check for a changed policy before every frame here (default every 5 s): a frame sent
    // after a `policy set` or `clear` is routed by it, with no wait for a cache to age.
    stack = await startStack({
      env: { POLICY_CHECK_SECONDS: '0', SCORING_URL: scoringUrl, SCORING_TIMEOUT_MS: '1000' },
    });
    const key = (await cli('agent', 'create', 'renderbot', '--channel', 'renders', '--json')).json().api_key;
    client = createClient({ baseUrl: stack.apiUrl, apiKey: key });
    dir = await mkdtemp(join(tmpdir(), 'fd-policies-stack-'));
    blank = await svgToPng(BLANK_SVG);
  }, 180_000);
  afterAll(async () => {
    await stack?.stop();
    await new Promise<void>((r) => (scorer ? scorer.close(() => r()) : r()));
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const submit = (title: string, image = blank): Promise<Submission> =>
    client.submitFrame({
      metadata: {
        agent_slug: 'renderbot',
        channel_slug: 'renders',
        date: '20261127',
        title,
      },
      image,
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
      const waiting = await settled((await submit('second render')).id);
      expect(waiting.status).toBe('needs_review');
      expect(waiting.review?.rule ?? null).toBeNull();
    },
  );

  it(
    'a promote rule promotes with no person; two approvals need two reviewers; a sampled match waits with its suggestion',
    { timeout: 180_000 },
    async () => {
      const policy = join(dir, 'routes.json');
      await writeFile(
        policy,
        JSON.stringify({
          rules: [
            { name: 'trusted', when: 'frame.metadata.title.startsWith("OK")', action: 'promote' },
            { name: 'two-eyes', when: 'frame.metadata.title.startsWith("PAIR")', action: 'review', approvals: 2 },
            {
              name: 'spot-check',
              when: 'frame.metadata.title.startsWith("SAMPLE")',
              action: 'reject',
              reason: 'Low quality',
              sample: 1,
            },
          ],
        }),
      );
      expect((await cli('policy', 'set', 'renders', policy)).code).toBe(0);
      const picture = await svgToPng(
        '<svg xmlns="http://www.w3.org/2000/svg" width="320" height="180"><rect width="320" height="180" fill="#4a8"/><circle cx="160" cy="90" r="60" fill="#fd3"/></svg>',
      );
      const shot = async (title: string) => settled((await submit(title, picture)).id);
      const [trusted, pair, sample] = [await shot('OK shot'), await shot('PAIR shot'), await shot('SAMPLE shot')];
      expect(trusted).toMatchObject({ status: 'promoted', review: { decided_by: 'policy', rule: 'trusted' } });
      expect(pair.status).toBe('needs_review');
      expect(sample.status).toBe('needs_review');

      const signIn = async (email: string) => {
        const password = 'a long password here';
        const made = await runCli(
          ['reviewer', 'create', email, '--password-stdin', '--role', 'admin'],
          stack.env,
          password,
        );
        expect(made.code).toBe(0);
        const reviewer = new ReviewerClient(stack.apiUrl);
        expect((await reviewer.login(email, password)).status).toBe(201);
        return (path: string, body: unknown) => reviewer.call('POST', path, body);
      };
      const [ana, raj] = [await signIn('ana@example.com'), await signIn('raj@example.com')];
      const promote = { decision: 'promote' };
      const first = await ana(`/review/submissions/${pair.id}/decision`, promote);
      expect(await first.json()).toMatchObject({
        status: 'needs_review',
        approvals: { required: 2, approved: 1 },
        policy: { rule: 'two-eyes' },
      });
      const again = await ana(`/review/submissions/${pair.id}/decision`, promote);
      expect(again.status).toBe(409);
      expect(await again.json()).toMatchObject({ code: 'already_approved' });
      expect(await (await raj(`/review/submissions/${pair.id}/decision`, promote)).json()).toMatchObject({
        status: 'promoted',
      });

      const decided = await ana(`/review/submissions/${sample.id}/decision`, promote);
      expect(await decided.json()).toMatchObject({
        status: 'promoted',
        policy: { rule: 'spot-check', sampled: true, suggestion: 'reject' },
      });
      // The decision is recorded as disagreeing with the rule's suggestion (the agreement metric's input).
      const db = createDatabase({ url: stack.database.url, poolSize: 1 });
      try {
        expect((await db.repos.submissions.events(sample.id)).at(-1)?.data).toMatchObject({
          rule: 'spot-check',
          policy_suggestion: 'reject',
          agrees_with_policy: false,
        });
      } finally {
        await db.close();
      }
    },
  );

  it(
    "the scoring hook's scores decide a rule; its malformed answer and its timeout each send the frame to people",
    { timeout: 180_000 },
    async () => {
      const policy = join(dir, 'scores.json');
      await writeFile(
        policy,
        JSON.stringify({
          rules: [
            { name: 'nsfw', when: 'scores.nudity > 0.8', action: 'reject', reason: 'Inappropriate content' },
            { name: 'rest', when: 'true', action: 'promote' },
          ],
        }),
      );
      expect((await cli('policy', 'set', 'renders', policy)).code).toBe(0);
      const json = (body: string) => (res: ServerResponse) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(body);
      const shot = async (title: string, fill: string) =>
        settled(
          (
            await submit(
              title,
              await svgToPng(
                `<svg xmlns="http://www.w3.org/2000/svg" width="320" height="180"><rect width="320" height="180" fill="${fill}"/><rect x="40" y="30" width="120" height="90" fill="#fff"/></svg>`,
              ),
            )
          ).id,
        );

      answer = json('{"scores":{"nudity":0.93}}');
      const flagged = await shot('scored high', '#a33');
      expect(flagged).toMatchObject({
        status: 'rejected',
        review: { decided_by: 'policy', rule: 'nsfw', reason: 'Inappropriate content' },
      });
      expect(scored.at(-1)).toContain(flagged.id);

      answer = json('{"scores":{"nudity":"high"}}');
      const malformed = await shot('scored badly', '#3a3');
      expect(malformed.status).toBe('needs_review');
      expect(malformed.review?.rule ?? null).toBeNull();

      answer = (res) => setTimeout(() => json('{"scores":{"nudity":0.99}}')(res), 3_000);
      const late = await shot('scored late', '#33a');
      expect(late.status).toBe('needs_review');
      expect(late.review?.rule ?? null).toBeNull();
    },
  );
});
