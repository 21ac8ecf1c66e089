// Issue 40, the MCP door: one agent's key sends what would exhaust the API (a call with millions
// of click zones, a batch of 100 calls, many requests at once) while another agent works. Each
// attack is refused or bounded; the API's memory stays under API_RSS_BOUND_MIB, /healthz answers
// within a second throughout, and the other agent's calls keep succeeding (abuse-support.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePng } from '@framedesk/testing';
import { startTestApi, type TestApi } from '../harness';
import { type AbuseReport, duringAbuse, expectHeld } from './abuse-support';

/**
 * The bound on this process's RSS while it serves the attacks: the test process holding the API,
 * vitest and the attack bodies idles at about 300–450 MiB; one parse of three million zones alone
 * added over 1 GiB before the fix.
 */
const API_RSS_BOUND_MIB = 900;

let api: TestApi;
let attacker: string;
let bystander: string;
const reports: Record<string, AbuseReport> = {};
const png = makePng(8, 8).toString('base64');

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const rpc = (id: number, name: string, args: Json) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});

async function mcp(key: string, body: string | Buffer): Promise<{ status: number; headers: Headers; body: Json }> {
  const response = await fetch(`${api.url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body,
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
}

/** The other agent: one ordinary tool call that must succeed. */
async function bystanderCall(): Promise<void> {
  const answer = await mcp(bystander, JSON.stringify(rpc(1, 'list_channels', {})));
  if (answer.status !== 200 || answer.body?.result?.isError)
    throw new Error(`bystander: ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`);
}

const watch = () => ({ url: api.url, bystander: bystanderCall });

/** A submit_frame call whose click_zones is `zones` (JSON text), built without a JSON tree. */
function submitWithZones(zones: string): Buffer {
  const head = JSON.stringify(rpc(1, 'submit_frame', { channel_slug: 'news', date: '20261122', image_base64: png }));
  // …"image_base64":"…"}}} → …"image_base64":"…","click_zones":[…]}}}
  return Buffer.from(`${head.slice(0, -3)},"click_zones":${zones}}}}`);
}

beforeAll(async () => {
  api = await startTestApi();
  attacker = await api.createAgent('attacker', ['news']);
  bystander = await api.createAgent('bystander', ['news']);
}, 120_000);
afterAll(async () => {
  // The figures docs/reliability.md quotes.
  console.log(`abuse.mcp figures: ${JSON.stringify(reports)}`);
  await api?.stop();
});

describe('abuse: the MCP door holds', () => {
  it('the 5-million-zone call (10 MB) is refused in milliseconds', async () => {
    const body = submitWithZones(`[${'0,'.repeat(5_000_000 - 1)}0]`);
    const { result, report } = await duringAbuse(watch(), () => mcp(attacker, body));
    reports['five_million_zones'] = report;
    expect([result.status, result.body?.code]).toEqual([413, 'payload_too_large']);
    expectHeld(report, { rssMiB: API_RSS_BOUND_MIB });
  }, 120_000);

  it("the issue's call: three million empty zones (9 MB) is refused in milliseconds", async () => {
    const body = submitWithZones(`[${'{},'.repeat(3_000_000 - 1)}{}]`);
    const { result, report } = await duringAbuse(watch(), () => mcp(attacker, body));
    reports['three_million_empty_zones'] = report;
    expect([result.status, result.body?.code]).toEqual([413, 'payload_too_large']);
    expectHeld(report, { rssMiB: API_RSS_BOUND_MIB });
  }, 120_000);
});
