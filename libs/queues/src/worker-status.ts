import type { Redis } from 'ioredis';
import type { JobName, QueueName } from './registry';

/** One queue as one worker process sees it: consumed, or not and why. */
export interface QueueReadiness {
  readonly status: 'consuming' | 'unavailable';
  /** What is missing and how to fix it (unavailable only). */
  readonly reason?: string;
}

/** What a worker process publishes after every readiness check (read by the ops page and doctor). */
export interface WorkerReadinessReport {
  readonly worker: string;
  readonly checkedAt: string;
  readonly queues: Partial<Record<QueueName, QueueReadiness>>;
}

/** A job the server could not run through no fault of the media: retried until the fault is gone. */
export interface ServerFault {
  readonly queue: QueueName;
  readonly job: JobName;
  readonly jobId: string;
  readonly submissionId?: string;
  readonly reason: string;
  /** When the fault was first seen for this job. */
  readonly since: string;
  readonly tries: number;
  readonly nextTryAt: string;
}

export interface WorkerStatusStore {
  publishReadiness(report: WorkerReadinessReport, ttlSeconds: number): Promise<void>;
  /** Reports of the worker processes seen within their time to live. */
  readiness(): Promise<WorkerReadinessReport[]>;
  recordFault(fault: ServerFault): Promise<void>;
  findFault(queue: QueueName, jobId: string): Promise<ServerFault | null>;
  clearFault(queue: QueueName, jobId: string): Promise<void>;
  faults(): Promise<ServerFault[]>;
}

/** Worker readiness reports and server faults, in Redis under the configured prefix. */
export function createWorkerStatusStore(redis: Redis, prefix: string): WorkerStatusStore {
  const readinessKey = (worker: string) => `${prefix}:worker-readiness:${worker}`;
  const faultsKey = `${prefix}:server-faults`;
  const field = (queue: QueueName, jobId: string) => `${queue}/${jobId}`;
  return {
    async publishReadiness(report, ttlSeconds) {
      await redis.set(readinessKey(report.worker), JSON.stringify(report), 'EX', Math.max(1, Math.ceil(ttlSeconds)));
    },
    async readiness() {
      const keys: string[] = [];
      let cursor = '0';
      do {
        const [next, batch] = await redis.scan(cursor, 'MATCH', readinessKey('*'), 'COUNT', 100);
        cursor = next;
        keys.push(...batch);
      } while (cursor !== '0');
      if (keys.length === 0) return [];
      const values = await redis.mget(keys);
      return values.filter((v): v is string => v !== null).map((v) => JSON.parse(v) as WorkerReadinessReport);
    },
    async recordFault(fault) {
      await redis.hset(faultsKey, field(fault.queue, fault.jobId), JSON.stringify(fault));
    },
    async findFault(queue, jobId) {
      const value = await redis.hget(faultsKey, field(queue, jobId));
      return value ? (JSON.parse(value) as ServerFault) : null;
    },
    async clearFault(queue, jobId) {
      await redis.hdel(faultsKey, field(queue, jobId));
    },
    async faults() {
      const all = await redis.hgetall(faultsKey);
      return Object.values(all).map((v) => JSON.parse(v) as ServerFault);
    },
  };
}
