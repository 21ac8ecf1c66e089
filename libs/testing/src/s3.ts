import { createHmac, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { engineRoot, isAlive, runCommand } from './engines/engine';
import { type RunningEngine, startEngine } from './engines/index';
import { RGW_ACCESS_KEY, RGW_SECRET_KEY } from './engines/rgw';

export interface TestS3 {
  readonly endpoint: string;
  /** Settings for STORAGE_DRIVER=s3 against this server. */
  readonly env: Record<string, string>;
  /** Each asked-for bucket name → the bucket of this test file (unique, created, empty). */
  readonly buckets: Readonly<Record<string, string>>;
  /** The engine's folder (for `killGateway`/`restartGateway`). */
  readonly dir: string;
  /** Removes this file's buckets and everything in them; the server keeps running for others. */
  close(): Promise<void>;
}

/**
 * A plain request to the S3 server signed with AWS signature v2 (RGW accepts it): enough for the
 * test set-up's bucket creation, without the storage SDK outside libs/storage.
 */
async function signedRequest(endpoint: string, method: 'PUT' | 'DELETE', path: string): Promise<Response> {
  const date = new Date().toUTCString();
  const signature = createHmac('sha1', RGW_SECRET_KEY).update(`${method}\n\n\n${date}\n${path}`).digest('base64');
  return fetch(`${endpoint}${path}`, {
    method,
    headers: { date, authorization: `AWS ${RGW_ACCESS_KEY}:${signature}` },
  });
}

/**
 * `startEngine('rgw')` with one caller at a time across every test process of the run: spec files
 * run in parallel (and Nx runs projects in parallel), and two first starts would wipe each other's
 * folder. The lock is a directory (atomic to create) holding its owner's pid; a dead owner's is taken.
 */
async function startSharedRgw(): Promise<RunningEngine> {
  mkdirSync(engineRoot(), { recursive: true });
  const lock = join(engineRoot(), 'rgw.lock');
  for (const deadline = Date.now() + 180_000; ;) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, 'pid'), String(process.pid));
      break;
    } catch {
      const owner = Number(
        (() => {
          try {
            return readFileSync(join(lock, 'pid'), 'utf8');
          } catch {
            return '';
          }
        })(),
      );
      if (owner > 0 && !isAlive(owner)) rmSync(lock, { recursive: true, force: true });
      else if (Date.now() > deadline) throw new Error(`[s3] ${lock} held by ${owner} for 3 minutes`);
      else await new Promise((r) => setTimeout(r, 200));
    }
  }
  try {
    return await startEngine('rgw');
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/**
 * A real S3 server for a test file: the shared RGW engine (`startEngine('rgw')`, started once and
 * reused by every file of the run) and buckets of the file's own, `<name>-<random>`, so files do
 * not see each other's objects.
 */
export async function startTestS3(names: string[]): Promise<TestS3> {
  const rgw = await startSharedRgw();
  const endpoint = rgw.env['S3_ENDPOINT']!;
  const suffix = randomBytes(4).toString('hex');
  const buckets = Object.fromEntries(names.map((name) => [name, `${name}-${suffix}`.slice(-63)]));
  for (const bucket of Object.values(buckets)) {
    const response = await signedRequest(endpoint, 'PUT', `/${bucket}`);
    if (response.status !== 200)
      throw new Error(`[s3] creating bucket ${bucket}: ${response.status} ${await response.text()}`);
  }
  return {
    endpoint,
    env: rgw.env,
    buckets,
    dir: rgw.dir,
    async close() {
      for (const bucket of Object.values(buckets))
        try {
          runCommand('radosgw-admin', [
            '-c',
            `${rgw.dir}/ceph.conf`,
            'bucket',
            'rm',
            `--bucket=${bucket}`,
            '--purge-objects',
          ]);
        } catch {
          // Already gone, or the engine was stopped: its folder goes with it.
        }
    },
  };
}
