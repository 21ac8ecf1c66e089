// `framedesk mcp` refuses bad arguments before it starts serving stdio (the forwarding itself is
// tested against a real API in apps/api/test/agents.int.spec.ts).
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { run } from '../src/cli';

async function mcp(args: string[], env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run(['mcp', ...args], {
    env,
    stdin: new PassThrough(),
    out: (line) => out.push(line),
    err: (line) => err.push(line),
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('framedesk mcp', () => {
  it('needs an API key: --api-key or FRAMEDESK_API_KEY (exit 2)', async () => {
    const result = await mcp(['--api-url', 'http://127.0.0.1:1']);
    expect(result).toMatchObject({ code: 2, out: '' });
    expect(result.err).toContain('--api-key KEY or FRAMEDESK_API_KEY');
  });

  it('refuses an --api-url that is not http(s) (exit 2)', async () => {
    const result = await mcp(['--api-url', 'ftp://example.com'], { FRAMEDESK_API_KEY: 'fd_live_x' });
    expect(result.code).toBe(2);
    expect(result.err).toContain('expected an http(s) address');
  });

  it('exits 1 with the reason when the API cannot be reached, writing nothing to stdout', async () => {
    const result = await mcp(['--api-url', 'http://127.0.0.1:1', '--api-key', 'fd_live_x']);
    expect(result).toMatchObject({ code: 1, out: '' });
    expect(result.err).toMatch(/^framedesk: cannot open http:\/\/127\.0\.0\.1:1\/mcp: /);
  });
});
