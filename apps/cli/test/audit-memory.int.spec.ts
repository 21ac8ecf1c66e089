// `audit export` runs in constant memory (issue 37, point 5): the real CLI, in a process of its own,
// exports a large seeded history to a pipe while the test samples its resident memory (VmRSS from
// /proc). Its peak is compared with the same process exporting nothing (a window with no rows):
// the difference must stay far below what holding the rows would take. Every row must come out.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@framedesk/testing';

const FRAMES = 67_000; // three transitions each: 201,000 transition rows
const TRANSITIONS = FRAMES * 3;
/**
 * The documented bound (docs/workbench.md): peak RSS growth over an empty export, in MiB. Measured:
 * about 6 MiB. Holding the rows instead would take their CSV text (about 23 MiB) and, as row
 * objects, some 88 MiB more (201,000 such objects built in plain Node: +87.7 MiB of RSS).
 */
const BOUND_MIB = 20;
const ROOT = new URL('../../../', import.meta.url).pathname;
const MIB = 1024 * 1024;
/**
 * The export's heap is capped (old space 96 MiB): V8 then collects before it grows, so the figure is
 * steady from run to run, and an export that held its rows would run out of heap.
 */
const NODE_FLAGS = ['--max-old-space-size=96'];

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
  await database.query(
    `INSERT INTO channels (id, slug, name) VALUES ('ch_1', 'channel-1', 'Channel 1');
     INSERT INTO agents (id, slug, name) VALUES ('ag_1', 'agent-1', 'Agent 1');
     INSERT INTO reviewers (id, email, role) VALUES ('rv_1', 'reviewer-1@example.com', 'reviewer')`,
  );
  // Frame g: received → media_processing → needs_review (system), then promoted or rejected by the
  // reviewer, a rejection with a note (commas, so CSV quotes it) and a reason.
  const frame = `FROM generate_series(1, ${FRAMES}) g
    CROSS JOIN LATERAL (SELECT timestamptz '2026-01-01' + g * interval '1 minute' AS at,
                               'sub_' || substr(md5(g::text), 1, 22) AS id, g % 4 = 0 AS rejected) f`;
  await database.query(
    `INSERT INTO submissions (id, status, media_type, agent_id, channel_id, date, metadata, title, visibility,
                              created_at, updated_at)
     SELECT f.id, (CASE WHEN f.rejected THEN 'rejected' ELSE 'promoted' END)::"SubmissionStatus", 'image',
            'ag_1', 'ch_1', to_char(f.at, 'YYYYMMDD'), '{}', 'Frame ' || g, 'promotion_eligible', f.at, f.at
     ${frame}`,
  );
  await database.query(
    `INSERT INTO submission_events (submission_id, type, from_status, to_status, actor_type, actor_id, reason, data,
                                    created_at)
     SELECT f.id, 'transition', e.from_status::"SubmissionStatus", e.to_status::"SubmissionStatus",
            e.actor::"ActorType", e.actor_id, e.reason, e.data, f.at + e.offset_s * interval '1 second'
     ${frame}
     CROSS JOIN LATERAL (VALUES
       ('received', 'media_processing', 'system', NULL, NULL, NULL::jsonb, 0),
       ('media_processing', 'needs_review', 'system', NULL, NULL, NULL, 1),
       ('needs_review', CASE WHEN f.rejected THEN 'rejected' ELSE 'promoted' END, 'reviewer', 'rv_1',
        CASE WHEN f.rejected THEN 'Blurry' END,
        CASE WHEN f.rejected THEN jsonb_build_object('note', 'Frame ' || g || ': crop wider, please, the logo is cut off') END,
        2)
     ) e(from_status, to_status, actor, actor_id, reason, data, offset_s)`,
  );
  await database.query('ANALYZE');
}, 120_000);
afterAll(async () => {
  await database?.drop();
});

interface Run {
  readonly code: number | null;
  readonly lines: number;
  readonly bytes: number;
  readonly peakRss: number;
  readonly stderr: string;
}

/** `framedesk audit export <args>` as a process; counts its stdout's lines and bytes (kept nowhere). */
function exportAudit(args: string[]): Promise<Run> {
  const child = spawn(
    process.execPath,
    [...NODE_FLAGS, '--import', 'tsx', 'apps/cli/src/main.ts', 'audit', 'export', ...args],
    {
      cwd: ROOT,
      env: {
        PATH: process.env['PATH'] ?? '',
        DATABASE_URL: database.url,
        TSX_TSCONFIG_PATH: 'tsconfig.base.json',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let lines = 0;
  let bytes = 0;
  let stderr = '';
  let peakRss = 0;
  child.stdout.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) lines++;
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  // VmHWM is the kernel's own high-water mark of the resident set: a sample catches a peak between samples.
  const sample = async () => {
    try {
      const status = await readFile(`/proc/${child.pid}/status`, 'utf8');
      const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
      peakRss = Math.max(peakRss, kb * 1024);
    } catch {
      // the process has just exited
    }
  };
  const timer = setInterval(() => void sample(), 20);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(timer);
      resolve({ code, lines, bytes, peakRss, stderr });
    });
  });
}

describe('audit export memory', () => {
  it(`keeps its resident memory flat over ${TRANSITIONS.toLocaleString('en')} rows, and writes every one`, async () => {
    const [total] = await database.query<{ count: number }>(
      `SELECT ((SELECT count(*) FROM submission_events WHERE type = 'transition')
             + (SELECT count(*) FROM account_events) + (SELECT count(*) FROM policy_changes))::int AS count`,
    );
    const count = total!.count;
    expect(count).toBeGreaterThanOrEqual(TRANSITIONS);

    const empty = await exportAudit(['--since', '2999-01-01']);
    expect([empty.code, empty.lines, empty.stderr]).toEqual([0, 1, '']); // the header only
    const full = await exportAudit([]);
    expect([full.code, full.stderr]).toEqual([0, '']);
    expect(full.lines).toBe(count + 1); // the header and every row (no note has a newline)

    const growth = full.peakRss - empty.peakRss;
    console.info(
      `audit export: ${count} rows, ${(full.bytes / MIB).toFixed(1)} MiB of CSV; peak RSS ` +
        `${(empty.peakRss / MIB).toFixed(1)} MiB exporting nothing, ${(full.peakRss / MIB).toFixed(1)} MiB ` +
        `exporting everything (growth ${(growth / MIB).toFixed(1)} MiB, bound ${BOUND_MIB} MiB)`,
    );
    // Holding the rows would take at least their CSV text, and the bound is under even that.
    expect(full.bytes).toBeGreaterThan(BOUND_MIB * MIB);
    expect(empty.peakRss).toBeGreaterThan(0);
    expect(growth).toBeLessThan(BOUND_MIB * MIB);
  }, 180_000);
});
