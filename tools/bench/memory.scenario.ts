import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BenchStack, submitFrame, today } from './framedesk';
import { type HttpResult, keepAliveAgent, multipartBody, post } from './http-load';
import { noisyPng, uniquePngParts } from './images';
import { type BenchOptions } from './options';
import { type ScenarioResult, atMost, row } from './report';
import { type Rss, rssBytes, sampleRss, startBaselineServer } from './processes';
import { sleep } from './stats';

const MB = 1024 * 1024;
const GAUGES = ['nodejs_heap_size_used_bytes', 'nodejs_heap_size_total_bytes', 'nodejs_external_memory_bytes'] as const;

/** The API's own view of its memory (prom-client default metrics), in MB: heap vs Buffers. */
async function apiMemory(apiUrl: string): Promise<Record<string, number>> {
  try {
    const text = await (await fetch(`${apiUrl}/metrics`)).text();
    return Object.fromEntries(
      GAUGES.map((g) => [
        g.replace(/^nodejs_|_bytes$/g, ''),
        Number(new RegExp(`^${g}(?:\\{[^}]*\\})? ([\\d.e+]+)`, 'm').exec(text)?.[1] ?? Number.NaN) / MB,
      ]),
    );
  } catch {
    return {};
  }
}

const mb = (bytes: number | undefined) => ((bytes ?? Number.NaN) / MB).toFixed(0);
const rssText = (r: Rss | null | undefined) =>
  r ? `RSS ${mb(r.rss)} (anon ${mb(r.anon)}, file ${mb(r.file)}, ${r.threads} threads)` : 'n/a';
const metricsText = (m: Record<string, number>) =>
  Object.entries(m)
    .map(([k, v]) => `${k} ${v.toFixed(0)}`)
    .join(', ');

interface Burst {
  readonly peak: Rss;
  readonly samples: number;
  readonly outcomes: Record<string, number>;
}

/** All uploads at once while the server's RSS is sampled every 50 ms. */
async function burst(
  pid: number,
  under: number,
  over: number,
  send: (n: number, overLimit: boolean) => Promise<HttpResult>,
): Promise<Burst> {
  const sampler = sampleRss(pid, 50);
  const results = await Promise.all([
    ...Array.from({ length: under }, (_, i) => send(i, false).then((r) => ({ kind: 'under', r }))),
    ...Array.from({ length: over }, (_, i) => send(i, true).then((r) => ({ kind: 'over', r }))),
  ]);
  const { peak, samples } = sampler.stop();
  const outcomes: Record<string, number> = {};
  for (const { kind, r } of results) {
    const key = `${kind}:${r.error ? 'connection closed' : r.status}`;
    outcomes[key] = (outcomes[key] ?? 0) + 1;
  }
  return { peak, samples, outcomes };
}

/**
 * 16 concurrent uploads just under the raised limit and 16 over it, at the same time, while the
 * API process's RSS is read from /proc every 50 ms; repeated to show whether memory comes back.
 * The bare node:http baseline takes the same burst, for the footprint of the platform itself.
 */
export async function memoryScenario(s: BenchStack, options: BenchOptions['memory']): Promise<ScenarioResult> {
  // Stored (level 0) noise: a real PNG of the wanted size without spending seconds in deflate.
  const side = Math.floor(Math.sqrt(options.uploadBytes / 3));
  const png = noisyPng(side, side, { noiseBits: 8, level: 0, seed: 40 });
  // Over the limit: the PNG followed by more bytes, so only the size can be the reason to refuse.
  const extra = png.subarray(0, options.overLimitBytes - png.length);
  const image = (tag: string, overLimit: boolean) =>
    overLimit ? [...uniquePngParts(png, tag), extra] : uniquePngParts(png, tag);
  const pid = s.stack.api.child.pid!;
  const bareDir = join(tmpdir(), `framedesk-bench-bare-${randomUUID()}`);
  const bare = await startBaselineServer('baselines/bare-http.server.ts', [bareDir, String(options.limitBytes)]);
  try {
    const before = await rssBytes(pid);
    const bareBefore = await rssBytes(bare.pid);
    const idle = await apiMemory(s.stack.apiUrl);
    const metadata = { agent_slug: s.agent, channel_slug: s.channel, date: today() };
    const reps: {
      framedesk: Burst;
      bare: Burst;
      settled: Rss | null;
      afterBurst: Record<string, number>;
      settledMetrics: Record<string, number>;
    }[] = [];
    for (let rep = 0; rep < options.reps; rep++) {
      const agent = keepAliveAgent(options.uploads + options.overLimit);
      const framedesk = await burst(pid, options.uploads, options.overLimit, (i, o) =>
        submitFrame(s, image(`m${rep}-${i}-${o}`, o), agent),
      );
      const afterBurst = await apiMemory(s.stack.apiUrl);
      await sleep(1_500); // let the allocator hand back what it will
      const settled = await rssBytes(pid);
      const settledMetrics = await apiMemory(s.stack.apiUrl);
      const bareBurst = await burst(bare.pid, options.uploads, options.overLimit, (i, o) =>
        post(`${bare.url}/v1/frame-submissions`, multipartBody(metadata, image(`b${rep}-${i}-${o}`, o)), {}, agent),
      );
      agent.destroy();
      reps.push({ framedesk, bare: bareBurst, settled, afterBurst, settledMetrics });
    }
    const first = reps[0]!;
    const last = reps.at(-1)!;
    const settledMb = reps.map((r) => (r.settled?.rss ?? Number.NaN) / MB);
    const noGrowth =
      reps.length > 1 &&
      settledMb.at(-1)! <= settledMb[0]! * 1.1 + 8 &&
      last.framedesk.peak.rss <= first.framedesk.peak.rss * 1.1 + 8 * MB;
    const accepted = reps.every((r) => r.framedesk.outcomes['under:202'] === options.uploads);
    const refused = reps.every(
      (r) =>
        (r.framedesk.outcomes['over:413'] ?? 0) + (r.framedesk.outcomes['over:connection closed'] ?? 0) ===
        options.overLimit,
    );
    const hwm = await rssBytes(pid);
    const label = `${options.uploads} × ${mb(png.length)} MB + ${options.overLimit} × ${mb(png.length + extra.length)} MB at once`;
    return {
      name: 'Memory',
      rows: [
        row(
          'Memory',
          `API peak RSS, ${label}`,
          'MB',
          reps.map((r) => r.framedesk.peak.rss / MB),
          atMost(200, ' MB'),
        ),
        row('Memory', 'API RSS before the burst', 'MB', [(before?.rss ?? Number.NaN) / MB]),
        row('Memory', 'API RSS after each repetition (settled)', 'MB', settledMb),
        {
          ...row('Memory', 'API RSS growth, last vs first repetition', 'MB', [settledMb.at(-1)! - settledMb[0]!]),
          target: { text: reps.length > 1 ? '≈ 0 (≤ 10% + 8 MB)' : 'needs ≥ 2 reps', met: noGrowth },
        },
        row(
          'Memory',
          '(a) bare node:http peak RSS, same burst',
          'MB',
          reps.map((r) => r.bare.peak.rss / MB),
        ),
      ],
      details: {
        idleMetricsMb: idle,
        before,
        bareBefore,
        highWaterMark: hwm,
        uploadBytes: png.length,
        overLimitBytes: png.length + extra.length,
        reps,
      },
      notes: [
        `API before the first burst: ${rssText(before)}; its own metrics (MB): ${metricsText(idle)}. Kernel high-water mark (VmHWM) at the end ${mb(hwm?.hwm)} MB.`,
        `API at each burst's peak: ${reps.map((r) => rssText(r.framedesk.peak)).join(' | ')}; metrics right after: ${reps.map((r) => metricsText(r.afterBurst)).join(' | ')}; settled: ${reps.map((r) => `${rssText(r.settled)}, ${metricsText(r.settledMetrics)}`).join(' | ')}.`,
        `Bare node:http server (limit raised alike): ${rssText(bareBefore)} idle, ${reps.map((r) => rssText(r.bare.peak)).join(' | ')} at the peak.`,
        `Outcomes per repetition: Framedesk ${reps.map((r) => JSON.stringify(r.framedesk.outcomes)).join('; ')}; bare ${reps.map((r) => JSON.stringify(r.bare.outcomes)).join('; ')}.`,
        ...(accepted
          ? []
          : ['Not every upload under the limit was accepted with 202: the figure is not what it claims to be.']),
        ...(refused ? [] : ['Not every upload over the limit was refused (413 or closed connection).']),
        'No worker runs in this scenario, so the RSS is the ingest path alone.',
      ],
    };
  } finally {
    await bare.stop();
    await rm(bareDir, { recursive: true, force: true });
  }
}
