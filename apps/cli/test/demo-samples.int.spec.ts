// `npm start`'s first run against real api and worker processes: `demo seed --samples FILE` creates
// the demo and leaves the samples pending in FILE; `demo samples FILE` sends them through the agent
// API and decides some as the demo reviewer. What a new reviewer then sees is read through the
// review API: the queue (with near-duplicates), the timelines and ops. Runs after it add nothing.
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '@framedesk/client';
import { reviewerCookie, type Stack, startStack } from '@framedesk/testing';
import { runCli } from './in-process';

interface QueueItem {
  readonly id: string;
  readonly title: string;
  readonly channel_slug: string;
  readonly media_type: string;
  readonly similar_count: number;
}

describe('demo samples', () => {
  let stack: Stack;
  let dir: string;
  /** The CLI in this process (`runCli`): its stdout as a process would print it. */
  const cli = async (args: string[]) => {
    const result = await runCli(args, stack.env);
    return { code: result.code, stdout: result.out.map((line) => `${line}\n`).join(''), stderr: result.err.join('\n') };
  };

  beforeAll(async () => {
    stack = await startStack();
    dir = await mkdtemp(join(tmpdir(), 'framedesk-samples-'));
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** Signs in to the review API; returns a GET that carries the session. */
  async function reviewApi(email: string, password: string) {
    const cookie = await reviewerCookie(stack.apiUrl, email, password);
    return async <T>(path: string): Promise<T> => {
      const response = await fetch(`${stack.apiUrl}${path}`, { headers: { cookie } });
      expect(response.status, path).toBe(200);
      return (await response.json()) as T;
    };
  }

  it('fills the queue, the timelines and ops on the first run only; a resumed run sends nothing twice', async () => {
    const file = join(dir, 'samples.json');
    const seeded = await cli(['demo', 'seed', '--samples', file]);
    expect(seeded.code, seeded.stderr).toBe(0);
    const [, email, password] = /Workbench login: (\S+) \/ (\S+)/.exec(seeded.stdout)!;
    const pending = await readFile(file, 'utf8');

    const first = await cli(['demo', 'samples', file, '--base-url', stack.apiUrl]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^sample frames: 19 in demo and city-desk \(.*10 needs review.*\)/);
    await expect(stat(file)).rejects.toThrow(/ENOENT/);

    const get = await reviewApi(email!, password!);
    const queue = (await get<{ items: QueueItem[] }>('/review/queue?limit=200')).items;
    expect(queue).toHaveLength(10);
    expect(new Set(queue.map((i) => i.channel_slug))).toEqual(new Set(['demo', 'city-desk']));
    expect(queue.filter((i) => i.media_type === 'video').map((i) => i.title)).toEqual([
      'The 09:30 ferry leaving the east pier',
    ]);
    const looksLike = Object.fromEntries(
      queue.filter((i) => i.similar_count > 0).map((i) => [i.title, i.similar_count]),
    );
    expect(looksLike).toEqual({ 'East harbour at dawn': 1, 'Harbour sunrise, from our social feed': 2 });
    const resend = queue.find((i) => i.title === 'Harbour sunrise, from our social feed')!;
    const detail = await get<{ similar: { title: string; status: string }[]; click_zones: unknown[] }>(
      `/review/submissions/${resend.id}`,
    );
    expect(detail.similar.map((s) => `${s.title} (${s.status})`).sort()).toEqual([
      'East harbour at dawn (needs_review)',
      'Sunrise over the east harbour (promoted)',
    ]);
    const tram = queue.find((i) => i.title === 'Tram line 4 reopens on Monday')!;
    expect((await get<{ click_zones: unknown[] }>(`/review/submissions/${tram.id}`)).click_zones).toHaveLength(3);

    // The demo channel's policy rejected the blank render on its own: the `blank` rule, as the system.
    type Detail = {
      status: string;
      review: { reason: string | null; note: string | null; regions: unknown[]; rule: string | null } | null;
      events: { to: string | null; actor_type: string }[];
      revision_of?: string | null;
      versions?: { id: string; status: string; current: boolean; review: { decided_by: string } | null }[];
    };
    // The samples' ids, as the demo agent lists them (with the key the first run was given).
    const agent = createClient({ baseUrl: stack.apiUrl, apiKey: (JSON.parse(pending) as { api_key: string }).api_key });
    const refs = new Map<string, string>();
    for await (const s of agent.listSubmissions({ limit: 100 })) if (s.external_ref) refs.set(s.external_ref, s.id);
    const byRef = async (ref: string) => refs.get(ref)!;
    const blank = await get<Detail>(`/review/submissions/${await byRef('sample:roof-cam-1-blank')}`);
    expect(blank.status).toBe('rejected');
    expect(blank.review).toMatchObject({ reason: 'Low quality', rule: 'blank' });
    expect(blank.events.filter((e) => e.to === 'rejected').map((e) => e.actor_type)).toEqual(['system']);
    // A rejection with a note and two regions, and the agent's revision of it waiting for review.
    const rejectedId = await byRef('sample:roof-cam-3');
    const retake = queue.find((i) => i.title === 'Roof camera 3, 06:00 (new snapshot)')!;
    const revision = await get<Detail>(`/review/submissions/${retake.id}`);
    expect(revision.revision_of).toBe(rejectedId);
    expect(revision.versions!.map((v) => [v.id, v.status, v.current, v.review?.decided_by ?? null])).toEqual([
      [rejectedId, 'rejected', false, 'person'],
      [retake.id, 'needs_review', true, null],
    ]);
    const original = await get<Detail>(`/review/submissions/${rejectedId}`);
    expect(original.review).toMatchObject({ reason: 'Low quality', rule: null });
    expect(original.review!.note).toMatch(/test pattern/);
    expect(original.review!.regions).toHaveLength(2);
    // A video rejected with time-coded items: the agent reads them exactly (docs/video.md).
    const rerender = await agent.getSubmission(await byRef('sample:ferry-crossing-rerender'));
    expect(rerender).toMatchObject({ media_type: 'video', status: 'rejected' });
    expect(rerender.review?.moments).toEqual([
      { at: 0.5, label: 'Last smooth frame' },
      {
        start: 1,
        end: 2.5,
        label: 'Ferry jumps: frames dropped',
        region: { x: 0.2, y: 0.35, width: 0.5, height: 0.4 },
      },
    ]);

    const timeline = async (channel: string) =>
      (await get<{ items: { title: string }[] }>(`/review/channels/${channel}/timeline`)).items.map((i) => i.title);
    expect((await timeline('demo')).sort()).toEqual([
      'Full time: Harbour City 3–1 Riverside',
      'Rainfall this week',
      'Sunrise over the east harbour',
    ]);
    expect((await timeline('city-desk')).sort()).toEqual([
      'Morning traffic on the ring road',
      'The skyline at dusk from the old bridge',
    ]);

    type Ops = {
      submissions_by_status: Record<string, number>;
      recently_failed: { title: string; failure_code: string }[];
    };
    const ops = await get<Ops>('/review/ops');
    const counts = { needs_review: 10, promoted: 5, rejected: 3, failed: 1 };
    expect(ops.submissions_by_status).toMatchObject(counts);
    expect(ops.recently_failed.map((f) => `${f.title}: ${f.failure_code}`)).toEqual([
      'Roof camera 2, 06:00: invalid_image',
    ]);

    // Later starts: the demo exists, so nothing is left pending and nothing is sent.
    expect((await cli(['demo', 'seed', '--samples', file])).stdout).toBe('');
    const later = await cli(['demo', 'samples', file, '--base-url', stack.apiUrl]);
    expect([later.code, later.stdout]).toEqual([0, '']);
    // A run interrupted before it removed its file is run again: it finds every sample sent.
    await writeFile(file, pending);
    const resumed = await cli(['demo', 'samples', file, '--base-url', stack.apiUrl]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toMatch(/^sample frames: 19 in demo and city-desk/);
    const after = await get<Ops>('/review/ops');
    expect(after.submissions_by_status).toEqual(ops.submissions_by_status);
  }, 600_000);
});
