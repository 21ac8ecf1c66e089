import { JOB_NAMES, type JobName } from '@framedesk/queues';
import { imageProcessJob } from './image-process.job';
import { imagePublishJob } from './image-publish.job';
import { imageRederiveJob } from './image-rederive.job';
import type { AnyJobHandler } from './job-handler';
import { maintenanceReconcileJob } from './maintenance-reconcile.job';
import { maintenanceRetentionJob } from './maintenance-retention.job';
import { maintenanceSweepJob } from './maintenance-sweep.job';
import { uploadExpireJob } from './upload-expire.job';
import { videoProcessJob } from './video-process.job';

/** Every job handler of the worker: exactly one per job name of `@framedesk/queues`. */
export const JOB_HANDLERS: readonly AnyJobHandler[] = [
  imageProcessJob,
  videoProcessJob, // video: the video pipeline's handler (video-process.job.ts)
  uploadExpireJob,
  maintenanceReconcileJob,
  maintenanceSweepJob,
  maintenanceRetentionJob,
  imageRederiveJob,
  imagePublishJob,
];

export type HandlerRegistry = ReadonlyMap<JobName, AnyJobHandler>;

export class HandlerRegistryError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`Job handler registry is invalid:\n${problems.map((p) => `  ${p}`).join('\n')}`);
    this.name = 'HandlerRegistryError';
  }
}

/** Checked at boot: a job with no handler, two handlers, or an unknown name stops the worker. */
export function buildHandlerRegistry(handlers: readonly AnyJobHandler[] = JOB_HANDLERS): HandlerRegistry {
  const problems: string[] = [];
  const registry = new Map<JobName, AnyJobHandler>();
  for (const handler of handlers) {
    if (!JOB_NAMES.includes(handler.name)) problems.push(`${handler.name}: not a job of @framedesk/queues`);
    else if (registry.has(handler.name)) problems.push(`${handler.name}: has two handlers`);
    else registry.set(handler.name, handler);
  }
  for (const name of JOB_NAMES)
    if (!registry.has(name) && !problems.some((p) => p.startsWith(`${name}:`)))
      problems.push(`${name}: has no handler`);
  if (problems.length > 0) throw new HandlerRegistryError(problems);
  return registry;
}
