import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { apiKeysService } from '@framedesk/access';
import { createDatabase, type Database } from '@framedesk/db';
import { makeClip, makePng, type Stack, startStack } from '@framedesk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../../..');
const TOOLS = [
  'create_video_upload',
  'get_feedback',
  'get_submission',
  'list_channels',
  'list_submissions',
  'submit_frame',
];

// One stack (API + worker processes) for the MCP server and the Python client: agents' ways in.
let stack: Stack;
let keyA: string;
let keyB: string;
let keyPython: string;
let clips: string;
let db: Database;
const clients: Client[] = [];

async function connect(key: string): Promise<Client> {
  const client = new Client({ name: 'framedesk-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', stack.apiUrl), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    }),
  );
  clients.push(client);
  return client;
}

const call = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;
const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;

beforeAll(async () => {
  clips = mkdtempSync(join(tmpdir(), 'fd-agents-'));
  const short = makeClip(clips, 'short.mp4', 1);
  makeClip(clips, 'long.mp4', 2);
  // The short clip goes up with basic, the longer one with tus.
  stack = await startStack({ config: (c) => void (c['media'].small_video_max_bytes = statSync(short).size) });
  // Agents straight in the database: three CLI processes would cost more than the tests.
  db = createDatabase({ url: stack.database.url, poolSize: 2 });
  const { channel } = await db.repos.channels.ensure('news');
  const agentKey = async (slug: string) => {
    const agent = await db.repos.agents.create(slug);
    await db.repos.agents.allowChannels(agent.id, [channel.id]);
    return (await apiKeysService(db).issue(agent.id)).key;
  };
  [keyA, keyB, keyPython] = await Promise.all([agentKey('bot-a'), agentKey('bot-b'), agentKey('py-bot')]);
}, 120_000);
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await db?.close();
  await stack?.stop();
  rmSync(clips, { recursive: true, force: true });
});

describe('/mcp (Streamable HTTP, stateless)', () => {
  it('an agent key lists the five tools; a PNG submitted with submit_frame reaches needs_review', async () => {
    const client = await connect(keyA);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(TOOLS);
    const submit = tools.find((t) => t.name === 'submit_frame')!;
    // The contract's field names and JSON Schema, as the REST API validates them.
    expect(submit.inputSchema.required).toEqual(['channel_slug', 'date', 'image_base64']);
    expect(submit.inputSchema.properties).toMatchObject({
      agent_slug: { type: 'string' },
      channel_slug: { type: 'string', pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*$' },
      date: { type: 'string', pattern: '^[0-9]{8}$' },
      title: { type: 'string', maxLength: 200 },
      caption: { type: 'string' },
      click_zones: { type: 'array', maxItems: 20 },
      external_ref: { type: 'string' },
      image_base64: { type: 'string' },
      idempotency_key: { type: 'string', format: 'uuid' },
    });

    const channels = await call(client, 'list_channels', {});
    expect(channels.structuredContent).toMatchObject({
      agent_slug: 'bot-a',
      data: [{ slug: 'news', rules: { requires_review: true, image_max_bytes: 10485760 } }],
    });

    const created = await call(client, 'submit_frame', {
      channel_slug: 'news',
      date: '20261122',
      title: 'From an AI host',
      image_base64: makePng(40, 30).toString('base64'),
    });
    expect(created.isError).toBeFalsy();
    const submission = created.structuredContent as { id: string; status: string; agent_slug: string };
    expect(submission).toMatchObject({ status: 'received', agent_slug: 'bot-a', channel_slug: 'news' });
    expect(textOf(created)).toContain(submission.id);

    let status = submission.status;
    for (let i = 0; i < 150 && !['needs_review', 'failed'].includes(status); i++) {
      await new Promise((r) => setTimeout(r, 200));
      status = (
        (await call(client, 'get_submission', { submission_id: submission.id })).structuredContent as {
          status: string;
        }
      ).status;
    }
    expect(status).toBe('needs_review');
    // The same audit trail as a REST submission: created by the agent.
    const events = await db.repos.submissions.events(submission.id);
    expect(events[0]).toMatchObject({ fromStatus: null, toStatus: 'received', actorType: 'agent' });

    const listed = await call(client, 'list_submissions', { status: 'needs_review' });
    expect((listed.structuredContent as { data: { id: string }[] }).data.map((s) => s.id)).toEqual([submission.id]);

    // Another agent's key cannot read it: the same 404 as an unknown id.
    const other = await call(await connect(keyB), 'get_submission', { submission_id: submission.id });
    expect(other.isError).toBe(true);
    expect(textOf(other)).toMatch(/^not_found: /);
  });

  it('errors are isError results naming the problem code: not a PNG, bad fields, a reused key', async () => {
    const client = await connect(keyA);
    const gif = await call(client, 'submit_frame', {
      channel_slug: 'news',
      date: '20261122',
      image_base64: Buffer.from('GIF89a not a png').toString('base64'),
    });
    expect(gif.isError).toBe(true);
    expect(textOf(gif)).toMatch(/^unsupported_media_type: The image is not a PNG/);
    expect(gif.structuredContent).toMatchObject({ code: 'unsupported_media_type', status: 415 });

    const invalid = await call(client, 'submit_frame', {
      channel_slug: 'news',
      date: '2026-11-22',
      unknown_field: 1,
      image_base64: makePng(8, 8).toString('base64'),
    });
    expect(textOf(invalid)).toMatch(/^validation_failed: /);
    expect(textOf(invalid).split('\n').slice(1).sort()).toEqual([
      '/date: must match pattern "^[0-9]{8}$"',
      '/unknown_field: is not an allowed property',
    ]);
    // Missing or mistyped arguments too: the same code, never the SDK's generic argument error.
    const missing = await call(client, 'get_submission', {});
    expect(textOf(missing)).toBe(
      'validation_failed: The arguments failed validation; see errors.\n/submission_id: is required',
    );
    const mistyped = await call(client, 'list_submissions', { limit: 'ten', status: 'done' });
    expect(textOf(mistyped).split('\n')).toEqual([
      'validation_failed: The arguments failed validation; see errors.',
      '/status: is not a status',
      '/limit: must be an integer from 1 to 100',
    ]);

    const forbidden = await call(client, 'submit_frame', {
      channel_slug: 'sports',
      date: '20261122',
      image_base64: makePng(8, 8).toString('base64'),
    });
    expect(textOf(forbidden)).toMatch(/^forbidden: /);

    // The same idempotency key replays the first answer; with other content it is refused.
    const key = '6f1c1c1e-8d5b-4c4a-9b3e-2a1e5d7c9f00';
    const args = { channel_slug: 'news', date: '20261122', image_base64: makePng(9, 9).toString('base64') };
    const first = await call(client, 'submit_frame', { ...args, idempotency_key: key });
    const again = await call(client, 'submit_frame', { ...args, idempotency_key: key });
    expect((again.structuredContent as { id: string }).id).toBe((first.structuredContent as { id: string }).id);
    const reused = await call(client, 'submit_frame', { ...args, title: 'other', idempotency_key: key });
    expect(textOf(reused)).toMatch(/^idempotency_key_reused: /);
  });

  it('create_video_upload opens a session and says how to send the bytes', async () => {
    const client = await connect(keyA);
    const result = await call(client, 'create_video_upload', {
      channel_slug: 'news',
      filename: 'clip.mp4',
      content_type: 'video/mp4',
      byte_size: 1000,
    });
    expect(result.structuredContent).toMatchObject({
      status: 'waiting_for_upload',
      upload_protocol: 'basic',
      how_to_upload: expect.stringContaining('"file"'),
    });
    expect((result.structuredContent as { upload_url: string }).upload_url).toMatch(
      /^http:\/\/127\.0\.0\.1:\d+\/uploads\//,
    );
  });

  it('no key or a bad key is 401 problem+json before any MCP exchange; a key is rate-limited as on /v1', async () => {
    const initialize = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    });
    const unauthorized: Record<string, string>[] = [
      {},
      { Authorization: 'Bearer fd_live_notarealkeynotarealkeynotarealkey' },
    ];
    for (const headers of unauthorized) {
      const response = await fetch(`${stack.apiUrl}/mcp`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
        body: initialize,
      });
      expect(response.status).toBe(401);
      expect(response.headers.get('content-type')).toContain('application/problem+json');
      expect(response.headers.get('www-authenticate')).toContain('Bearer');
      expect(((await response.json()) as { code: string }).code).toBe('unauthenticated');
    }

    // With a key: the request counts against the key's rate limit like any /v1 request.
    const listed = await fetch(`${stack.apiUrl}/mcp`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${keyA}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(listed.status).toBe(200);
    expect(Number(listed.headers.get('ratelimit-limit'))).toBeGreaterThan(0);
    expect(((await listed.json()) as { result: { tools: unknown[] } }).result.tools).toHaveLength(TOOLS.length);
    // Stateless: no stream to open, no session to end.
    const get = await fetch(`${stack.apiUrl}/mcp`, { headers: { Authorization: `Bearer ${keyA}` } });
    expect([get.status, get.headers.get('allow')]).toEqual([405, 'POST']);
  });

  it('the stdio form (npm run cli -- mcp) answers tools/list and forwards calls', async () => {
    const client = new Client({ name: 'framedesk-test-stdio', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: ['--import', 'tsx', join(root, 'apps/cli/src/main.ts'), 'mcp', '--api-url', stack.apiUrl],
        cwd: root,
        env: {
          ...stack.env,
          PATH: process.env['PATH'] ?? '',
          TSX_TSCONFIG_PATH: join(root, 'tsconfig.base.json'),
          FRAMEDESK_API_KEY: keyA,
        },
        stderr: 'ignore',
      }),
    );
    clients.push(client);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(TOOLS);
    const channels = await call(client, 'list_channels', {});
    expect(channels.structuredContent).toMatchObject({ agent_slug: 'bot-a' });
  }, 60_000);
});

describe('the Python client (clients/python, python3 -m unittest)', () => {
  it('its own tests pass against this stack: frames, basic and resumed tus uploads, problems', async () => {
    const python = join(root, 'clients/python');
    const run = await new Promise<{ code: number | null; output: string }>((done) => {
      execFile(
        'python3',
        ['-m', 'unittest', '-v'],
        {
          cwd: python,
          timeout: 120_000,
          env: {
            PATH: process.env['PATH'] ?? '',
            PYTHONPATH: join(python, 'src'),
            PYTHONDONTWRITEBYTECODE: '1',
            FRAMEDESK_TEST_REQUIRED: '1',
            FRAMEDESK_TEST_API_URL: stack.apiUrl,
            FRAMEDESK_TEST_API_KEY: keyPython,
            FRAMEDESK_TEST_AGENT: 'py-bot',
            FRAMEDESK_TEST_CHANNEL: 'news',
            FRAMEDESK_TEST_VIDEO_BASIC: join(clips, 'short.mp4'),
            FRAMEDESK_TEST_VIDEO_TUS: join(clips, 'long.mp4'),
          },
        },
        (error, stdout, stderr) =>
          done({ code: error ? ((error as { code?: number }).code ?? 1) : 0, output: stdout + stderr }),
      );
    });
    expect(run.output).toMatch(/Ran 8 tests/);
    expect(run.output).not.toMatch(/skipped/);
    expect({ code: run.code, output: run.output }).toEqual({ code: 0, output: expect.stringMatching(/\nOK\n?$/) });
  }, 150_000);
});
