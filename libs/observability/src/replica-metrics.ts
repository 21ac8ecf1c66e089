import { Counter, Gauge, type Registry } from 'prom-client';

/** Where reads that may be a moment stale go now (libs/db's `Database.replicaStatus` satisfies it). */
export interface ReplicaReadings {
  /** True while those reads go to the replica. */
  readonly inUse: boolean;
  /** WAL bytes the replica has yet to replay; null when unknown (unreachable): NaN in the gauge. */
  readonly lagBytes: number | null;
  /** Reads sent to the primary because the replica was behind the bound or away, since start. */
  readonly fallbacks: number;
}

/**
 * The read replica of this process (`DATABASE_READ_URL`, docs/operations.md), read when scraped:
 * reads that fell back to the primary, the replica's lag and whether it is in use. Register it
 * only when a replica is configured: with none, every read is on the primary by design.
 */
export function registerReplicaMetrics(registry: Registry, status: () => Promise<ReplicaReadings>): void {
  // The status is the replica's last probe (every second) and a count, kept in memory: no I/O here.
  new Counter({
    name: 'framedesk_db_replica_fallback_reads_total',
    help: 'Reads that may be a moment stale sent to the primary because the replica (DATABASE_READ_URL) was behind DATABASE_READ_MAX_LAG_BYTES or not answering',
    registers: [registry],
    async collect() {
      const { fallbacks } = await status();
      this.reset();
      this.inc(fallbacks);
    },
  });
  new Gauge({
    name: 'framedesk_db_replica_lag_bytes',
    help: 'WAL bytes the read replica has yet to replay, as last measured (NaN while it does not answer)',
    registers: [registry],
    async collect() {
      const { lagBytes } = await status();
      this.set(lagBytes ?? Number.NaN);
    },
  });
  new Gauge({
    name: 'framedesk_db_replica_in_use',
    help: '1 while reads that may be a moment stale go to the read replica, 0 while they fall back to the primary',
    registers: [registry],
    async collect() {
      this.set((await status()).inUse ? 1 : 0);
    },
  });
}
