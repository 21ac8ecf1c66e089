// A fleet on services a test may break: two API processes behind a round-robin TCP balancer
// (tcp-proxy.ts), two worker processes, S3 storage (a real S3 server, Ceph RGW, reached through a
// proxy that can refuse; optionally a radosgw of its own to kill), one private PostgreSQL cluster and one private Redis. Faults are real:
// SIGKILL, crash-restarts, refused connections.
import { mkdtemp, rm } from 'node:fs/promises';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiKeysService, createReviewer } from '@framedesk/access';
import { createDatabase } from '@framedesk/db';
import {
  freePort,
  killGateway,
  type PrivatePostgres,
  type PrivateRedis,
  RGW_PORTS,
  type RunningProcess,
  startApp,
  startGateway,
  startPrivatePostgres,
  startPrivateRedis,
  startTestS3,
  type TestS3,
  waitForHttp,
  writeTestConfig,
  countProcessingRuns,
} from '@framedesk/testing';
import pg from 'pg';
import { ORIGINALS_BUCKET, sleep } from './harness';
import { openFds } from './raw-http';
import { startTcpProxy, type TcpProxy } from './tcp-proxy';

export type ApiName = 'A' | 'B';
export const FLEET_AGENT = 'cam';
export const FLEET_CHANNEL = 'news';
export const REVIEWER_PASSWORD = 'correct horse battery';
export const REVIEWERS = ['ann@example.com', 'ben@example.com'] as const;

export interface Fleet {
  /** The balancer: what every client talks to. */
  readonly url: string;
  readonly balancer: TcpProxy;
  readonly storageDoor: TcpProxy;
  /** The S3 server (RGW) and this fleet's bucket (`s3.buckets[ORIGINALS_BUCKET]`). */
  readonly s3: TestS3;
  /**
   * With `storage: 'own-gateway'`: SIGKILLs the fleet's own radosgw and starts it again after
   * `downMs`; resolves with the seconds S3 did not answer. Other test files' gateway is untouched.
   */
  restartStorage(downMs: number): Promise<number>;
  readonly redis: PrivateRedis;
  /** The fleet's private PostgreSQL; undefined when it runs on a database it was given (`databaseUrl`). */
  readonly postgres: PrivatePostgres | undefined;
  readonly prefix: string;
  readonly agentKey: string;
  readonly sql: pg.Pool;
  /** Variant objects written to S3, by submission id (counted on the wire). */
  readonly variantWrites: Map<string, number>;
  apiProcess(name: ApiName): RunningProcess | undefined;
  killApi(name: ApiName): Promise<void>;
  startApi(name: ApiName): Promise<void>;
  workerProcess(i: number): RunningProcess | undefined;
  killWorker(i: number): Promise<void>;
  startWorker(i: number): Promise<void>;
  /** Open file descriptors of every running app process, by name (A, B, w0, w1). */
  fds(): Record<string, number>;
  output(): string;
  stop(): Promise<void>;
}

/** Counts variant PUTs per submission from the bytes clients send to S3 (request lines are ASCII). */
function variantCounter(into: Map<string, number>, bucket: string) {
  const variantPut = new RegExp(`PUT /${bucket}/variants/(sub_[0-9A-Za-z]+)/[\\w-]+\\.webp`, 'g');
  const tails = new Map<number, string>();
  return (connection: number, chunk: Buffer) => {
    const text = (tails.get(connection) ?? '') + chunk.toString('latin1');
    for (const match of text.matchAll(variantPut)) into.set(match[1]!, (into.get(match[1]!) ?? 0) + 1);
    // Keep a tail shorter than one request line, so a line cut across chunks is seen once.
    const cut = text.lastIndexOf('\r\n');
    tails.set(connection, cut >= 0 ? text.slice(cut).slice(-200) : text.slice(-200));
  };
}

/** What every app process of the fleet runs with: the private services, S3 through its door, fast locks. */
async function fleetEnv(at: {
  work: string;
  databaseUrl: string;
  redis: PrivateRedis;
  prefix: string;
  s3: TestS3;
  storageDoor: TcpProxy;
  balancer: TcpProxy;
}): Promise<Record<string, string>> {
  return {
    NODE_ENV: 'test',
    DATABASE_URL: at.databaseUrl,
    REDIS_URL: at.redis.url,
    REDIS_PREFIX: at.prefix,
    ...at.s3.env,
    S3_ENDPOINT: at.storageDoor.url,
    // Behind a balancer, the public URL is the balancer's.
    FRAMEDESK_CONFIG: await writeTestConfig(at.work, at.balancer.url, (config) => {
      config.media.small_video_max_bytes = 1000; // every clip goes over tus
      config.storage.vendor_originals_bucket = at.s3.buckets[ORIGINALS_BUCKET]!;
    }),
    API_HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '1000000',
    WORKER_CONCURRENCY: '2',
    WORKER_LOCK_SECONDS: '3',
    RECONCILE_AFTER_SECONDS: '3',
    RECONCILE_INTERVAL_SECONDS: '2',
  };
}

/** The agent (allowed on the channel, with a key) and the two admin reviewers; returns the key. */
async function seedAccounts(databaseUrl: string): Promise<string> {
  const db = createDatabase({ url: databaseUrl, poolSize: 1 });
  try {
    const agent = await db.repos.agents.create(FLEET_AGENT);
    await db.repos.agents.allowChannels(agent.id, [(await db.repos.channels.ensure(FLEET_CHANNEL)).channel.id]);
    for (const email of REVIEWERS)
      await createReviewer(db, { email, password: REVIEWER_PASSWORD, role: 'admin', channels: [] });
    return (await apiKeysService(db).issue(agent.id)).key;
  } finally {
    await db.close();
  }
}

export interface FleetOptions {
  readonly env?: Record<string, string>;
  /**
   * Another Redis than a private one (the Sentinel drill): `url` is where the test itself reads
   * (the current primary), `env` what the app processes get on top (REDIS_SENTINELS…). The fleet
   * does not close it.
   */
  readonly redis?: PrivateRedis & { readonly env?: Record<string, string> };
  /**
   * `shared` (default): the run's shared radosgw. `own-gateway`: a radosgw of the fleet's own over
   * the same cluster (RGW_PORTS.drillS3), which `restartStorage` may kill.
   */
  readonly storage?: 'shared' | 'own-gateway';
  /** A migrated database to run on (e.g. a Patroni cluster's, through HAProxy) instead of a private PostgreSQL. */
  readonly databaseUrl?: string;
}

export async function startFleet(options: FleetOptions = {}): Promise<Fleet> {
  const work = await mkdtemp(join(tmpdir(), 'fd-fleet-'));
  const cleanups: (() => Promise<unknown>)[] = [async () => rm(work, { recursive: true, force: true })];
  const cleanup = async () => {
    for (const fn of cleanups.splice(0).reverse()) await fn().catch(() => undefined);
  };
  try {
    const redis = options.redis ?? (await startPrivateRedis());
    if (!options.redis) cleanups.push(() => redis.close());
    const postgres = options.databaseUrl ? undefined : await startPrivatePostgres();
    if (postgres) cleanups.push(() => postgres.close());
    const databaseUrl = options.databaseUrl ?? (await postgres!.createDatabase());
    // A real S3 server (RGW), a bucket of this fleet's own.
    const s3: TestS3 = await startTestS3([ORIGINALS_BUCKET]);
    cleanups.push(() => s3.close());
    const variantWrites = new Map<string, number>();
    const ownGateway = options.storage === 'own-gateway';
    if (ownGateway) {
      await startGateway(s3.dir, RGW_PORTS.drillS3);
      cleanups.push(async () => killGateway(s3.dir, RGW_PORTS.drillS3));
    }
    const s3Port = ownGateway ? RGW_PORTS.drillS3 : Number(new URL(s3.endpoint).port);
    const storageDoor = await startTcpProxy([s3Port], {
      onClientData: variantCounter(variantWrites, s3.buckets[ORIGINALS_BUCKET]!),
    });
    cleanups.push(() => storageDoor.close());
    const ports: Record<ApiName, number> = { A: await freePort(), B: await freePort() };
    const balancer = await startTcpProxy([ports.A, ports.B]);
    cleanups.push(() => balancer.close());
    const prefix = `fdfleet_${Math.random().toString(36).slice(2, 8)}`;
    const env = {
      ...(await fleetEnv({ work, databaseUrl, redis, prefix, s3, storageDoor, balancer })),
      ...options.redis?.env,
      ...options.env,
    };

    // A cap, not a measure: four processes starting at once on a 2-core machine that other work
    // loads (load average 20–40) got 2 s of CPU in their first 50 s, and never answered in 60 s.
    const BOOT_WAIT_MS = 180_000;
    const apis: Partial<Record<ApiName, RunningProcess>> = {};
    const workers: (RunningProcess | undefined)[] = [];
    const output: string[] = [];
    const alive = (p: RunningProcess | undefined) => !!p && p.child.exitCode === null && p.child.signalCode === null;
    const keep = (p: RunningProcess) => p.child.once('exit', () => output.push(p.output()));
    const startApi = async (name: ApiName) => {
      const tmp = join(work, `tmp-${name}`);
      mkdirSync(tmp, { recursive: true });
      const proc = startApp('api', {
        ...env,
        API_PORT: String(ports[name]),
        STORAGE_FS_ROOT: join(work, `api-${name}`),
        TMPDIR: tmp,
      });
      keep(proc);
      apis[name] = proc;
      await waitForHttp(`http://127.0.0.1:${ports[name]}/healthz`, BOOT_WAIT_MS, proc);
    };
    const startWorker = async (i: number) => {
      const port = await freePort();
      const proc = startApp('worker', {
        ...env,
        WORKER_HEALTH_PORT: String(port),
        STORAGE_FS_ROOT: join(work, `worker-${i}`),
      });
      keep(proc);
      workers[i] = proc;
      await waitForHttp(`http://127.0.0.1:${port}/healthz`, BOOT_WAIT_MS, proc);
    };
    cleanups.push(async () => Promise.all([...Object.values(apis), ...workers].map((p) => p?.stop('SIGKILL'))));
    await Promise.all([startApi('A'), startApi('B'), startWorker(0), startWorker(1)]);

    const agentKey = await seedAccounts(databaseUrl);
    const sql = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    sql.on('error', () => undefined); // a restarted server drops idle clients; the next query reconnects
    cleanups.push(() => sql.end());
    await countProcessingRuns((text, params) => sql.query(text, params)); // before any load: every run counted

    return {
      url: balancer.url,
      balancer,
      storageDoor,
      s3,
      async restartStorage(downMs) {
        if (!ownGateway) throw new Error("restartStorage needs startFleet({ storage: 'own-gateway' })");
        const from = Date.now();
        killGateway(s3.dir, RGW_PORTS.drillS3);
        await sleep(downMs);
        await startGateway(s3.dir, RGW_PORTS.drillS3);
        return (Date.now() - from) / 1000;
      },
      redis,
      postgres,
      prefix,
      agentKey,
      sql,
      variantWrites,
      apiProcess: (name) => apis[name],
      async killApi(name) {
        await apis[name]?.stop('SIGKILL');
      },
      startApi,
      workerProcess: (i) => workers[i],
      async killWorker(i) {
        await workers[i]?.stop('SIGKILL');
      },
      startWorker,
      fds() {
        const out: Record<string, number> = {};
        for (const [name, p] of Object.entries(apis)) if (alive(p)) out[name] = openFds(p!.child.pid!);
        workers.forEach((p, i) => {
          if (alive(p)) out[`w${i}`] = openFds(p!.child.pid!);
        });
        return out;
      },
      output: () => [...output, ...[...Object.values(apis), ...workers].filter(alive).map((p) => p!.output())].join(''),
      stop: cleanup,
    };
  } catch (error) {
    await cleanup();
    throw error;
  }
}
