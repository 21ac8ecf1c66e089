import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import {
  freePort,
  type RunningProcess,
  startApp,
  testRedisUrl,
  type TestDatabase,
  waitForHttp,
} from '@framedesk/testing';
import type { ApiDependencies } from '../src/dependencies';
import { startTestServer, type TestDependenciesOptions } from './test-dependencies';

const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ??
  addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

export type TestApiOptions = TestDependenciesOptions;

export interface CallResult {
  readonly status: number;
  readonly headers: Headers;
  readonly body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  readonly text: string;
}

/** The API in this process, on an ephemeral port, a database, Redis prefix and storage dir of its own. */
export interface TestApi {
  readonly url: string;
  readonly deps: ApiDependencies;
  readonly database: TestDatabase;
  readonly storageRoot: string;
  /** Creates an agent allowed on `channels` (created when missing) and returns its API key. */
  createAgent(slug: string, channels: string[]): Promise<string>;
  call(
    method: string,
    path: string,
    init?: { key?: string; headers?: Record<string, string>; body?: RequestInit['body']; duplex?: 'half' },
  ): Promise<CallResult>;
  /** Every response so far that did not match /v1/openapi.json (empty when all did). */
  contractViolations(): string[];
  /** Files (not directories) under the storage root. */
  storedFiles(): Promise<string[]>;
  /** A real worker process on this API's database, Redis prefix, storage and configuration. */
  startWorker(): Promise<RunningProcess>;
  stop(): Promise<void>;
}

export async function startTestApi(options: TestApiOptions = {}): Promise<TestApi> {
  const server = await startTestServer(options);
  const { url, deps, config, database, storageRoot } = server;
  const contract = await contractChecker(url);
  const violations: string[] = [];
  const workers: RunningProcess[] = [];

  return {
    url,
    deps,
    database,
    storageRoot,
    async createAgent(slug, channels) {
      const agent = await deps.db.repos.agents.create(slug);
      const ids = [];
      for (const channel of channels) ids.push((await deps.db.repos.channels.ensure(channel)).channel.id);
      await deps.db.repos.agents.allowChannels(agent.id, ids);
      return (await deps.apiKeys.issue(agent.id)).key;
    },
    async call(method, path, init = {}) {
      const headers: Record<string, string> = { ...init.headers };
      if (init.key) headers['authorization'] = `Bearer ${init.key}`;
      const response = await fetch(url + path, {
        method,
        headers,
        ...(init.body !== undefined ? { body: init.body } : {}),
        ...(init.duplex ? { duplex: init.duplex } : {}),
      } as RequestInit);
      const text = await response.text();
      const type = response.headers.get('content-type') ?? '';
      const body = type.includes('json') && text ? JSON.parse(text) : text;
      const problem = contract.check(method, path, response.status, type, body);
      if (problem) violations.push(`${method} ${path} → ${response.status}: ${problem}`);
      return { status: response.status, headers: response.headers, body, text };
    },
    contractViolations: () => [...violations],
    async storedFiles() {
      const entries = await readdir(join(storageRoot, 'storage'), { recursive: true, withFileTypes: true }).catch(
        () => [],
      );
      return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
    },
    async startWorker() {
      const configFile = join(storageRoot, 'project.json');
      await writeFile(configFile, JSON.stringify(config));
      const healthPort = await freePort();
      const worker = startApp('worker', {
        NODE_ENV: 'test',
        DATABASE_URL: database.url,
        REDIS_URL: testRedisUrl(),
        REDIS_PREFIX: server.redisPrefix,
        STORAGE_FS_ROOT: deps.settings.STORAGE_FS_ROOT,
        FRAMEDESK_CONFIG: configFile,
        WORKER_HEALTH_PORT: String(healthPort),
        LOG_LEVEL: 'warn',
      });
      workers.push(worker);
      await waitForHttp(`http://127.0.0.1:${healthPort}/healthz`, 30_000, worker);
      return worker;
    },
    async stop() {
      await Promise.all(workers.map((w) => w.stop()));
      await server.close();
    },
  };
}

const TEMPLATES: [RegExp, string][] = [
  [/^\/v1\/frame-submissions$/, '/v1/frame-submissions'],
  [/^\/v1\/frame-submissions\/[^/]+$/, '/v1/frame-submissions/{submission_id}'],
  [/^\/v1\/media-uploads$/, '/v1/media-uploads'],
  [/^\/v1\/agents\/[^/]+\/feedback$/, '/v1/agents/{agent_slug}/feedback'],
  [/^\/v1\/media-uploads\/[^/]+$/, '/v1/media-uploads/{upload_id}'],
];

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * Checks responses against the served OpenAPI document: the documented status, content type
 * and component schema; any non-2xx anywhere must be problem+json matching `Problem`.
 */
export async function contractChecker(baseUrl: string) {
  const document = (await (await fetch(`${baseUrl}/v1/openapi.json`)).json()) as Json;
  const ajv = new Ajv({ allErrors: true, strict: true });
  addFormats(ajv);
  const validators = new Map<string, ValidateFunction>();
  for (const [name, schema] of Object.entries(document['components'].schemas as Json))
    validators.set(`#/components/schemas/${name}`, ajv.compile(schema));
  const validate = (ref: string, body: unknown) => {
    const v = validators.get(ref);
    if (!v) return `no schema ${ref}`;
    return v(body) ? null : `${ref}: ${ajv.errorsText(v.errors)}`;
  };
  return {
    document,
    check(method: string, path: string, status: number, contentType: string, body: unknown): string | null {
      const pathname = path.split('?')[0]!;
      if (status >= 400) {
        if (!contentType.startsWith('application/problem+json')) return `error without problem+json (${contentType})`;
        return validate('#/components/schemas/Problem', body);
      }
      const template = TEMPLATES.find(([re]) => re.test(pathname))?.[1];
      if (!template) return null; // not part of the agent API (docs, media, health)
      const operation = document['paths'][template]?.[method.toLowerCase()];
      if (!operation) return `undocumented operation ${method} ${template}`;
      const response = operation.responses[String(status)];
      if (!response) return `undocumented status ${status}`;
      const schema = response.content?.['application/json']?.schema;
      if (!contentType.startsWith('application/json')) return `expected application/json, got ${contentType}`;
      return schema?.$ref ? validate(schema.$ref, body) : null;
    },
  };
}

/** A frame submission's multipart body. */
export function frameForm(
  metadata: unknown,
  image: Buffer | null,
  extra: (form: FormData) => void = () => undefined,
): FormData {
  const form = new FormData();
  form.append(
    'metadata',
    new Blob([typeof metadata === 'string' ? metadata : JSON.stringify(metadata)], { type: 'application/json' }),
    'metadata.json',
  );
  if (image) form.append('image', new Blob([new Uint8Array(image)], { type: 'image/png' }), 'frame.png');
  extra(form);
  return form;
}
