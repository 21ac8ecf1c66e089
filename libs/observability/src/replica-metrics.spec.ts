import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { clusterDatabaseSources, type ClusterRepositories, registerClusterGauges } from './cluster-metrics';
import { type ReplicaReadings, registerReplicaMetrics } from './replica-metrics';

const sampleLines = async (registry: Registry, prefix: string) =>
  (await registry.metrics()).split('\n').filter((line) => line.startsWith(prefix));

describe('registerReplicaMetrics', () => {
  it('shows the fallbacks, the lag and whether the replica is in use as they are when scraped', async () => {
    const registry = new Registry();
    let status: ReplicaReadings = { inUse: true, lagBytes: 512, fallbacks: 0 };
    registerReplicaMetrics(registry, async () => status);
    expect(await sampleLines(registry, 'framedesk_db_replica_')).toEqual([
      'framedesk_db_replica_fallback_reads_total 0',
      'framedesk_db_replica_lag_bytes 512',
      'framedesk_db_replica_in_use 1',
    ]);
    status = { inUse: false, lagBytes: null, fallbacks: 7 };
    expect(await sampleLines(registry, 'framedesk_db_replica_')).toEqual([
      'framedesk_db_replica_fallback_reads_total 7',
      'framedesk_db_replica_lag_bytes Nan', // prom-client's spelling; Prometheus parses it case-insensitively
      'framedesk_db_replica_in_use 0',
    ]);
  });
});

describe('clusterDatabaseSources', () => {
  it('asks for the repositories at each reading (the replica, or the primary while it is behind)', async () => {
    const repos = (needsReview: number): ClusterRepositories => ({
      submissions: { countByStatus: async () => ({ needs_review: needsReview }) },
      review: { oldestWaitingPerChannel: async () => [] },
      policies: { overduePerChannel: async () => [] },
    });
    let current = repos(1);
    const registry = new Registry();
    let now = 0;
    registerClusterGauges(
      registry,
      {
        queues: { counts: async () => ({}), oldestWaitingSeconds: async () => ({}), workerCounts: async () => ({}) },
        ...clusterDatabaseSources(() => current),
      },
      { now: () => now },
    );
    expect(await sampleLines(registry, 'framedesk_submissions{')).toEqual([
      'framedesk_submissions{status="needs_review"} 1',
    ]);
    current = repos(2);
    now += 5_000;
    expect(await sampleLines(registry, 'framedesk_submissions{')).toEqual([
      'framedesk_submissions{status="needs_review"} 2',
    ]);
  });
});
