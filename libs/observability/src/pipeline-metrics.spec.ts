import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import {
  BACKLOG_CHANNELS_REPORTED,
  type ClusterSources,
  registerClusterGauges,
  registerReadinessGauge,
} from './cluster-metrics';
import { createPipelineMetrics, withTransitionMetrics } from './pipeline-metrics';

const sampleLines = async (registry: Registry, name: string) =>
  (await registry.metrics()).split('\n').filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `));

describe('withTransitionMetrics', () => {
  it('counts each transition that happened, by from, to and media type, and failures by code', async () => {
    const registry = new Registry();
    const metrics = createPipelineMetrics(registry);
    const results = [
      { ok: true, from: 'received', submission: { mediaType: 'image', failureCode: null } },
      { ok: false, current: 'needs_review' },
      { ok: true, from: 'media_processing', submission: { mediaType: 'video', failureCode: 'invalid_video' } },
    ];
    const db = {
      calls: 0,
      async transition(_request: { to: string; patch?: { failureCode?: string | null } }) {
        return results[this.calls++]!;
      },
      ping: () => 'kept',
    };
    const counted = withTransitionMetrics(db, metrics);
    expect(await counted.transition({ to: 'media_processing' })).toBe(results[0]);
    expect(await counted.transition({ to: 'promoted' })).toBe(results[1]);
    await counted.transition({ to: 'failed', patch: { failureCode: 'invalid_video' } });
    expect(counted.ping()).toBe('kept');
    expect(await sampleLines(registry, 'framedesk_status_transitions_total')).toEqual([
      'framedesk_status_transitions_total{from="received",to="media_processing",media_type="image"} 1',
      'framedesk_status_transitions_total{from="media_processing",to="failed",media_type="video"} 1',
    ]);
    expect(await sampleLines(registry, 'framedesk_submission_failures_total')).toEqual([
      'framedesk_submission_failures_total{media_type="video",code="invalid_video"} 1',
    ]);
  });
});

describe('registerClusterGauges', () => {
  const sources = (overrides: Partial<ClusterSources> = {}): ClusterSources & { limits: number[] } => {
    const limits: number[] = [];
    return {
      limits,
      queues: {
        counts: async () => ({ 'image-processing': { waiting: 2, active: 1 } }),
        oldestWaitingSeconds: async () => ({ 'image-processing': 42.5, maintenance: null }),
        workerCounts: async () => ({ 'image-processing': 3 }),
      },
      submissions: { countByStatus: async () => ({ needs_review: 7 }) },
      review: {
        oldestWaitingPerChannel: async (limit) => {
          limits.push(limit);
          return [{ channel: 'news', since: new Date(Date.now() - 3_600_000) }];
        },
      },
      ...overrides,
    };
  };

  it('reads the shared state when scraped, the review backlog capped to the oldest channels', async () => {
    const registry = new Registry();
    const source = sources();
    registerClusterGauges(registry, source);
    expect(await sampleLines(registry, 'framedesk_queue_oldest_waiting_seconds')).toEqual([
      'framedesk_queue_oldest_waiting_seconds{queue="image-processing"} 42.5',
      'framedesk_queue_oldest_waiting_seconds{queue="maintenance"} 0',
    ]);
    expect(await sampleLines(registry, 'framedesk_queue_workers')).toEqual([
      'framedesk_queue_workers{queue="image-processing"} 3',
    ]);
    expect(await sampleLines(registry, 'framedesk_queue_depth')).toHaveLength(2);
    expect(await sampleLines(registry, 'framedesk_submissions')).toEqual([
      'framedesk_submissions{status="needs_review"} 7',
    ]);
    const [backlog] = await sampleLines(registry, 'framedesk_review_backlog_oldest_seconds');
    expect(Number(backlog!.split(' ')[1])).toBeCloseTo(3600, -1);
    expect(new Set(source.limits)).toEqual(new Set([BACKLOG_CHANNELS_REPORTED]));
  });

  it('reads the shared state at most once per 5 s, whatever the scrape rate (concurrent scrapes share one reading)', async () => {
    const registry = new Registry();
    let clock = 1_000_000;
    const reads = { counts: 0, statuses: 0, backlog: 0 };
    let statuses = 7;
    registerClusterGauges(
      registry,
      sources({
        queues: {
          counts: async () => (reads.counts++, { 'image-processing': { waiting: 1 } }),
          oldestWaitingSeconds: async () => ({}),
          workerCounts: async () => ({}),
        },
        submissions: { countByStatus: async () => (reads.statuses++, { needs_review: statuses }) },
        review: { oldestWaitingPerChannel: async () => (reads.backlog++, []) },
      }),
      { now: () => clock },
    );
    // A storm: 50 scrapes at once, then 50 one after the other, all within 5 s.
    await Promise.all(Array.from({ length: 50 }, () => registry.metrics()));
    for (let i = 0; i < 50; i++) {
      clock += 90;
      await registry.metrics();
    }
    expect(reads).toEqual({ counts: 1, statuses: 1, backlog: 1 });
    statuses = 8;
    expect(await sampleLines(registry, 'framedesk_submissions')).toEqual([
      'framedesk_submissions{status="needs_review"} 7',
    ]);
    clock += 1_000; // 5.5 s after the first reading: read again
    expect(await sampleLines(registry, 'framedesk_submissions')).toEqual([
      'framedesk_submissions{status="needs_review"} 8',
    ]);
    expect(reads.statuses).toBe(2);
  });

  it('leaves out what a dependency that is down cannot say, and still answers the scrape', async () => {
    const registry = new Registry();
    const down = async () => Promise.reject(new Error('ECONNREFUSED'));
    registerClusterGauges(registry, sources({ submissions: { countByStatus: down } }));
    registerReadinessGauge(registry, () => false);
    expect(await sampleLines(registry, 'framedesk_submissions')).toEqual([]);
    expect(await sampleLines(registry, 'framedesk_queue_workers')).toHaveLength(1);
    expect(await sampleLines(registry, 'framedesk_ready')).toEqual(['framedesk_ready 0']);
  });
});
