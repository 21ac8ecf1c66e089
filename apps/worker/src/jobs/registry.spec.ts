import { JOB_NAMES } from '@framedesk/queues';
import { describe, expect, it } from 'vitest';
import { buildHandlerRegistry, HandlerRegistryError, JOB_HANDLERS } from './registry';

describe('job handler registry', () => {
  it('has exactly one handler for every job name', () => {
    const registry = buildHandlerRegistry();
    expect([...registry.keys()].sort()).toEqual([...JOB_NAMES].sort());
  });

  it('refuses a job without a handler', () => {
    const problems = () => buildHandlerRegistry(JOB_HANDLERS.filter((h) => h.name !== 'upload.expire'));
    expect(problems).toThrow(HandlerRegistryError);
    expect(problems).toThrow(/upload\.expire: has no handler/);
  });

  it('refuses a job with two handlers', () => {
    expect(() => buildHandlerRegistry([...JOB_HANDLERS, JOB_HANDLERS[0]!])).toThrow(/image\.process: has two handlers/);
  });
});
