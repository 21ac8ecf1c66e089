// `audit export`: every transition (who, from, to, reason, note), every approval of a frame that
// needs several, and every account, membership,
// retention, erasure and reject-reason change, in time order, streamed as CSV or JSON lines.
// Constant memory: each source is read in keyset batches and merged as it streams; the output
// waits for the writer (backpressure).
import { Readable, Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { stringify } from 'csv-stringify';
import type { AuditPosition, AuditRow, AuditWindow, Database } from '@framedesk/db';
import { DomainError } from '@framedesk/domain';

export const AUDIT_FORMATS = ['csv', 'jsonl'] as const;
export type AuditFormat = (typeof AUDIT_FORMATS)[number];

/** The columns, in order (the CSV header). */
export const AUDIT_COLUMNS = [
  'at',
  'kind',
  'channel',
  'subject',
  'who',
  'from',
  'to',
  'action',
  'reason',
  'note',
] as const;

type Source = (w: AuditWindow, after: AuditPosition | undefined, limit: number) => Promise<AuditRow[]>;

/** One source, batch after batch, in (created_at, id) order. */
async function* batches(source: Source, window: AuditWindow, size: number): AsyncGenerator<AuditRow> {
  let after: AuditPosition | undefined;
  for (;;) {
    const rows = await source(window, after, size);
    yield* rows;
    const last = rows.at(-1);
    if (!last || rows.length < size) return;
    after = { at: last.at, id: last.id };
  }
}

/** The sources merged by time (a transition before an account change at the same instant). */
export async function* auditRows(db: Database, window: AuditWindow, batchSize = 1000): AsyncGenerator<AuditRow> {
  // The trail as committed a moment ago: a replica's while one keeps up (docs/operations.md).
  const repo = db.readRepos().audit;
  // Transitions, account changes and review policy changes, each in (created_at, id) order.
  const sources = [
    batches(repo.transitions, window, batchSize),
    batches(repo.accountChanges, window, batchSize),
    batches(repo.policyChanges, window, batchSize),
  ];
  const heads = await Promise.all(sources.map((s) => s.next()));
  for (;;) {
    let pick = -1;
    heads.forEach((h, i) => {
      if (h.done) return;
      const best = pick >= 0 ? heads[pick]! : undefined;
      if (!best || best.done || h.value.at < best.value.at) pick = i;
    });
    if (pick < 0) return;
    const head = heads[pick]!;
    if (head.done) return;
    yield head.value;
    heads[pick] = await sources[pick]!.next();
  }
}

const record = (r: AuditRow) => ({
  at: r.at.toISOString(),
  kind: r.kind,
  channel: r.channel,
  subject: r.subject,
  who: r.who,
  from: r.from,
  to: r.to,
  action: r.action,
  reason: r.reason,
  note: r.note,
});

/** Writes the trail to `out` in `format`; resolves once the last row is written. */
export async function exportAudit(
  db: Database,
  options: { window: AuditWindow; format: AuditFormat; batchSize?: number },
  out: Writable,
): Promise<void> {
  const rows = Readable.from(auditRows(db, options.window, options.batchSize));
  const format =
    options.format === 'csv'
      ? stringify({
          header: true,
          columns: [...AUDIT_COLUMNS],
          cast: { date: (d) => d.toISOString() },
          // A cell an agent or a reviewer wrote (a note, a reason, a slug) opened in a spreadsheet
          // must not run as a formula: one starting with = + - @ (or a tab, a return) gets a leading '.
          escape_formulas: true,
        })
      : new Transform({
          writableObjectMode: true,
          transform(row: ReturnType<typeof record>, _encoding, done) {
            done(null, `${JSON.stringify(row)}\n`);
          },
        });
  const toRecord = new Transform({
    objectMode: true,
    transform(row: AuditRow, _encoding, done) {
      done(null, record(row));
    },
  });
  await pipeline(rows, toRecord, format, out, { end: false });
}

/** `--since` / `--until`: a date (midnight UTC) or an ISO 8601 timestamp. */
export function parseAuditDate(value: string, name: string): Date {
  const date = /^\d{4}-\d{2}-\d{2}$/.test(value) ? new Date(`${value}T00:00:00.000Z`) : new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(date.getTime()))
    throw new DomainError('validation_failed', `${name} must be a date (2026-11-01) or an ISO 8601 timestamp.`);
  return date;
}

/** The workbench's download (`GET /review/audit?channel=&since=&until=&format=`): its window and format. */
export async function parseAuditQuery(
  db: Database,
  query: Record<string, unknown>,
): Promise<{ window: AuditWindow; format: AuditFormat }> {
  const text = (name: string) =>
    typeof query[name] === 'string' && query[name] !== '' ? (query[name] as string) : undefined;
  const format = text('format') ?? 'csv';
  if (!(AUDIT_FORMATS as readonly string[]).includes(format))
    throw new DomainError('validation_failed', `format is ${AUDIT_FORMATS.join(' or ')}.`);
  const since = text('since');
  const until = text('until');
  const slug = text('channel');
  const channel = slug ? await db.repos.channels.findBySlug(slug) : null;
  if (slug && !channel) throw new DomainError('not_found', `No channel ${slug}.`);
  return {
    format: format as AuditFormat,
    window: {
      ...(since ? { since: parseAuditDate(since, 'since') } : {}),
      ...(until ? { until: parseAuditDate(until, 'until') } : {}),
      ...(channel ? { channelId: channel.id } : {}),
    },
  };
}
