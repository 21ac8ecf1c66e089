import { Writable } from 'node:stream';
import { AUDIT_FORMATS, type AuditFormat, exportAudit, parseAuditDate } from '@framedesk/review';
import { isDomainError } from '@framedesk/domain';
import { type Command, type Io, UsageError } from '../command';
import { slugArg } from './account-command';

/** Standard output as a stream: the process's own, or one that hands whole lines to `io.out` (tests). */
function outputOf(io: Io): Writable {
  if (io.stdout) return io.stdout as Writable;
  let pending = '';
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      pending += chunk.toString('utf8');
      const end = pending.lastIndexOf('\n');
      if (end >= 0) {
        io.out(pending.slice(0, end));
        pending = pending.slice(end + 1);
      }
      done();
    },
    final(done) {
      if (pending) io.out(pending);
      done();
    },
  });
}

export const auditCommands: Record<string, Command> = {
  // The audit trail to hand over: every transition and account-side change, in time order.
  'audit export': {
    usage: 'audit export [--since DATE] [--until DATE] [--channel SLUG] [--format csv|jsonl]   (to stdout)',
    positionals: 0,
    options: {
      since: { type: 'string' },
      until: { type: 'string' },
      channel: { type: 'string' },
      format: { type: 'string' },
    },
    async run(ctx) {
      const { since, until, channel, format = 'csv' } = ctx.values as Record<string, string | undefined>;
      if (!(AUDIT_FORMATS as readonly string[]).includes(format))
        throw new UsageError(`--format is ${AUDIT_FORMATS.join(' or ')}`);
      let window;
      try {
        window = {
          ...(since ? { since: parseAuditDate(since, 'since') } : {}),
          ...(until ? { until: parseAuditDate(until, 'until') } : {}),
        };
      } catch (error) {
        if (isDomainError(error)) throw new UsageError(error.detail);
        throw error;
      }
      const db = ctx.db();
      let channelId: string | undefined;
      if (channel) {
        const found = await db.repos.channels.findBySlug(slugArg(channel, 'channel'));
        if (!found) throw new UsageError(`there is no channel ${channel}`);
        channelId = found.id;
      }
      const out = outputOf(ctx.io);
      await exportAudit(
        db,
        { window: { ...window, ...(channelId ? { channelId } : {}) }, format: format as AuditFormat },
        out,
      );
      if (!ctx.io.stdout) await new Promise<void>((done) => out.end(done));
    },
  },
};
