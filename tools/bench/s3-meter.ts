// `npm run bench -- --storage=s3`: the stack's storage on a real S3 server (Ceph RGW, the `rgw`
// engine) instead of the file system, and a count of what the stack asked of it. The stack talks
// to a radosgw of the bench's own (RGW_PORT, over the engine's cluster), so the counts hold only
// the bench's requests: the shared gateway may serve other test runs at the same time. Counted by
// radosgw itself, not in the product: its perf counters (requests, GET/PUT and their bytes, from
// the admin socket) and its access log (one `beast:` line per request: method, path, status).
import { open, stat } from 'node:fs/promises';
import { join } from 'node:path';
// eslint-disable-next-line @nx/enforce-module-boundaries -- benchmarks drive the real engines, as the tests do.
import { killProcess, runCommand, startGateway, startTestS3, type TestS3 } from '@framedesk/testing';

/** The bench's own gateway (the engine's are 27480 and, for drills, 27481). */
export const RGW_PORT = 27482;
const NAME = `radosgw-${RGW_PORT}`;

export interface S3Snapshot {
  /** radosgw's perf counters (section `rgw`): every request, GETs and PUTs and their bytes. */
  readonly requests: number;
  readonly failed: number;
  readonly gets: number;
  readonly getBytes: number;
  readonly puts: number;
  readonly putBytes: number;
  /** Requests by kind, from the access log since the meter started (`PUT object`, `GET list`, …). */
  readonly byKind: Readonly<Record<string, number>>;
}

export interface S3Meter {
  /** STORAGE_DRIVER=s3 settings pointing at the bench's gateway. */
  readonly env: Record<string, string>;
  /** The originals bucket (created, empty) for the project configuration. */
  readonly bucket: string;
  snapshot(): Promise<S3Snapshot>;
  stop(): Promise<void>;
}

/** `after − before`, per unit (`n` frames or requests), rounded for the table. */
export function s3PerUnit(before: S3Snapshot, after: S3Snapshot, n: number) {
  const per = (a: number, b: number) => (a - b) / n;
  const kinds = new Set([...Object.keys(before.byKind), ...Object.keys(after.byKind)]);
  return {
    requests: per(after.requests, before.requests),
    failed: per(after.failed, before.failed),
    gets: per(after.gets, before.gets),
    getBytes: per(after.getBytes, before.getBytes),
    puts: per(after.puts, before.puts),
    putBytes: per(after.putBytes, before.putBytes),
    byKind: Object.fromEntries(
      [...kinds]
        .map((k) => [k, per(after.byKind[k] ?? 0, before.byKind[k] ?? 0)] as const)
        .filter(([, v]) => v !== 0)
        .sort((a, b) => b[1] - a[1]),
    ),
  };
}
export type S3PerUnit = ReturnType<typeof s3PerUnit>;

/** `PUT /bucket/key?partNumber=…` → `PUT part`; the kind is what the request did, not which object. */
function kindOf(method: string, target: string): string {
  const [path = '', query = ''] = target.split('?');
  const segments = path.split('/').filter(Boolean);
  const params = new Set(query.split('&').map((p) => p.split('=')[0]));
  if (segments.length <= 1) return `${method} ${params.has('uploads') ? 'multipart uploads' : 'bucket'}`;
  if (params.has('uploadId')) return `${method} ${method === 'PUT' ? 'part' : 'multipart'}`;
  if (params.has('uploads')) return `${method} multipart start`;
  return `${method} object`;
}

export async function startS3Meter(): Promise<S3Meter> {
  const s3: TestS3 = await startTestS3(['bench-originals']);
  await startGateway(s3.dir, RGW_PORT);
  const log = join(s3.dir, `${NAME}.log`);
  const socket = join(s3.dir, 'run', `client.${NAME}.asok`);
  // The access log is read from where it ends now: earlier runs' lines are not ours.
  let offset = (await stat(log)).size;
  let partial = '';
  const byKind: Record<string, number> = {};
  const readLog = async () => {
    const file = await open(log, 'r');
    try {
      const { size } = await file.stat();
      if (size <= offset) return;
      const buffer = Buffer.alloc(size - offset);
      await file.read(buffer, 0, buffer.length, offset);
      offset = size;
      const lines = (partial + buffer.toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        // beast: 0x7f…: 127.0.0.1 - framedesk [29/Nov/2026:05:20:01.123 +0000] "PUT /b/k HTTP/1.1" 200 0 - "…" - latency=…
        const m = /beast: \S+ \S+ - \S+ \[[^\]]+\] "(\w+) (\S+) [^"]*" (\d+)/.exec(line);
        if (!m) continue;
        const kind = `${kindOf(m[1]!, m[2]!)}${Number(m[3]) >= 400 ? ` ${m[3]}` : ''}`;
        byKind[kind] = (byKind[kind] ?? 0) + 1;
      }
    } finally {
      await file.close();
    }
  };
  return {
    env: { ...s3.env, S3_ENDPOINT: `http://127.0.0.1:${RGW_PORT}` },
    bucket: s3.buckets['bench-originals']!,
    async snapshot() {
      const dump = JSON.parse(runCommand('ceph', ['--admin-daemon', socket, 'perf', 'dump', 'rgw'])) as {
        rgw: Record<string, number>;
      };
      await readLog();
      const c = dump.rgw;
      return {
        requests: c['req'] ?? 0,
        failed: c['failed_req'] ?? 0,
        gets: c['get'] ?? 0,
        getBytes: c['get_b'] ?? 0,
        puts: c['put'] ?? 0,
        putBytes: c['put_b'] ?? 0,
        byKind: { ...byKind },
      };
    },
    async stop() {
      killProcess(s3.dir, NAME, 'SIGTERM');
      await s3.close();
    },
  };
}
