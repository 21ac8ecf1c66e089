// doctor's scoring line (docs/policies.md) against a small scoring server started by the test.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkScoring } from '../src/doctor/scoring-check';

describe('doctor: the scoring hook', () => {
  let server: Server;
  let url: string;
  let answer: (res: ServerResponse) => void = () => undefined;
  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => answer(res));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/score`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('says when it is not set, when it answers, and when it times out or answers malformed', async () => {
    expect(await checkScoring({ SCORING_URL: undefined, SCORING_TIMEOUT_MS: 100 })).toMatchObject({ status: 'ok' });
    answer = (res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"scores":{"nudity":0.1,"logo":0.4}}');
    expect(await checkScoring({ SCORING_URL: url, SCORING_TIMEOUT_MS: 2000 })).toMatchObject({
      status: 'ok',
      message: expect.stringContaining('2 scores'),
    });
    answer = (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"score": 1}');
    expect(await checkScoring({ SCORING_URL: url, SCORING_TIMEOUT_MS: 2000 })).toMatchObject({
      status: 'warn',
      message: expect.stringContaining('not {"scores"'),
    });
    answer = (res) => setTimeout(() => res.writeHead(200).end('{}'), 1_000);
    expect(await checkScoring({ SCORING_URL: url, SCORING_TIMEOUT_MS: 100 })).toMatchObject({
      status: 'warn',
      message: expect.stringContaining('no answer within'),
    });
  });
});
