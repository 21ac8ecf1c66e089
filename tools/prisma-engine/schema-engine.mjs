#!/usr/bin/env node
// Stand-in for Prisma's native `schema-engine` binary, for machines that cannot download it.
// Point the CLI at it with PRISMA_SCHEMA_ENGINE_BINARY (the repo's .config/prisma.ts does).
//
//   schema-engine.mjs --version
//   schema-engine.mjs --datasource '{"url":"postgresql://..."}' cli can-connect-to-database|create-database|drop-database
//   schema-engine.mjs [--datamodels <file>]... [--datasource <json>]   (JSON-RPC 2.0, one message per line on stdin/stdout)
//
// RPC methods are forwarded to @prisma/schema-engine-wasm, driven through @prisma/adapter-pg
// (PostgreSQL only). See README.md in this directory.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import readline from 'node:readline';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
import {
  EngineError,
  SchemaEnginePgFactory,
  connectionError,
  createDatabase,
  dropDatabase,
  dropLeftoverShadowDatabases,
  parsePostgresUrl,
  withClient,
} from './pg-adapter.mjs';
import { engineCommitHash, lastPanicMessage, loadSchemaEngineWasm } from './wasm-engine.mjs';

// stdout carries JSON-RPC only: keep stray console output (libraries, debug) on stderr.
console.log = console.info = console.debug = console.error;

const LOG_TARGET = 'schema_engine::logger';

function log(level, message, extra = {}) {
  process.stderr.write(JSON.stringify({ level, target: LOG_TARGET, fields: { message, ...extra } }) + '\n');
}

function parseArgs(argv) {
  const args = { datamodels: [], datasource: undefined, cli: undefined, version: false, help: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--version' || a === '-V') args.version = true;
    else if (a === '--help' || a === '-h') args.help = true;
    else if (a === '--datamodels' || a === '-d') {
      // `--datamodels a b c` or repeated `--datamodels a --datamodels b`.
      while (i + 1 < argv.length && !argv[i + 1].startsWith('-') && argv[i + 1] !== 'cli')
        args.datamodels.push(argv[++i]);
    } else if (a === '--datasource') args.datasource = JSON.parse(argv[++i]);
    else if (a === '--enabled-preview-features' || a === '--extension-types') i++;
    else if (a === 'cli') {
      args.cli = argv[++i];
    }
  }
  return args;
}

// ---------------------------------------------------------------------------------------------
// `cli <command>` mode: create / drop / probe the database directly with node-postgres.

async function runCliCommand(command, datasource) {
  log('INFO', `Starting schema engine CLI (wasm shim ${engineCommitHash()})`, { git_hash: engineCommitHash() });
  try {
    if (!datasource?.url) throw new EngineError('P1012', 'No datasource URL was given (--datasource {"url": ...}).');
    const parsed = parsePostgresUrl(datasource.url);
    switch (command) {
      case 'can-connect-to-database':
        await connectOrExplain(parsed, (c) => c.query('SELECT 1'));
        process.stdout.write('Connection successful\n');
        break;
      case 'create-database':
        await adminOrExplain(parsed, () => createDatabase(parsed.config, parsed.database));
        process.stdout.write(`Database '${parsed.database}' was successfully created.\n`);
        break;
      case 'drop-database':
        await adminOrExplain(parsed, () => dropDatabase(parsed.config, parsed.database));
        process.stdout.write(`The database was successfully dropped.\n`);
        break;
      default:
        throw new EngineError('P1012', `Unknown schema engine CLI command: ${command}`);
    }
    return 0;
  } catch (err) {
    const e = err instanceof EngineError ? err : new EngineError(undefined, err?.message ?? String(err));
    log('ERROR', e.message, e.code ? { error_code: e.code } : {});
    return 1;
  }
}

async function connectOrExplain(parsed, fn) {
  try {
    return await withClient(parsed.config, undefined, fn);
  } catch (err) {
    throw pgUserError(err, parsed);
  }
}

async function adminOrExplain(parsed, fn) {
  try {
    return await fn();
  } catch (err) {
    if (err?.code === '42P04') {
      throw new EngineError(
        'P1009',
        `Database \`${parsed.database}\` already exists on the database server at \`${parsed.host}\``,
      );
    }
    throw pgUserError(err, parsed);
  }
}

/** node-postgres error (SQLSTATE or socket code) → EngineError. */
function pgUserError(err, parsed) {
  if (err instanceof EngineError) return err;
  const code = err?.code;
  if (code === '3D000' || code === '28P01' || code === '28000' || (code && !/^[0-9A-Z]{5}$/.test(code))) {
    return connectionError(err, parsed);
  }
  if (code === '42501') {
    return new EngineError('P1010', `User was denied access on the database \`${parsed.database}\`: ${err.message}`);
  }
  return new EngineError(undefined, `${err?.message ?? err}${code ? ` (SQLSTATE ${code})` : ''}`);
}

// ---------------------------------------------------------------------------------------------
// JSON-RPC mode.

class RpcServer {
  constructor(args) {
    this.args = args;
    this.datasource = args.datasource ?? {};
    /** @type {Map<string, Promise<{ engine: any, factory: SchemaEnginePgFactory }>>} */
    this.engines = new Map();
    this.queue = Promise.resolve();
    this.closing = undefined;
    /** Requests this engine sent to the CLI, by id. */
    this.pending = new Map();
    this.nextRequestId = 1;
  }

  /** Send a JSON-RPC request to the CLI and wait for its answer. */
  request(method, params) {
    const id = `schema-engine-${this.nextRequestId++}`;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      send({ jsonrpc: '2.0', id, method, params });
    });
  }

  async datamodels() {
    if (this.args.datamodels.length === 0) return undefined;
    return Promise.all(this.args.datamodels.map(async (file) => [file, await readFile(path.resolve(file), 'utf8')]));
  }

  /**
   * The engine for a database URL (the configured datasource by default), created on first use.
   * `detached`: the engine never touches that database (diffs of files / migrations only).
   */
  engineFor(url, { withDatamodels = true, detached = false } = {}) {
    if (!url && !detached) {
      throw new EngineError(
        'P1012',
        'This command needs a database connection: set `datasource.url` in the Prisma config (the wasm schema engine always connects through a driver adapter).',
      );
    }
    const key = JSON.stringify([url ?? null, withDatamodels, detached]);
    let entry = this.engines.get(key);
    if (!entry) {
      entry = (async () => {
        const wasm = await loadSchemaEngineWasm();
        const isMain = url === this.datasource.url;
        const factory = new SchemaEnginePgFactory(
          { url, shadowDatabaseUrl: isMain ? this.datasource.shadowDatabaseUrl : undefined },
          { detached },
        );
        const bound = bindMigrationAwareSqlAdapterFactory(factory);
        const datamodels = withDatamodels ? await this.datamodels() : undefined;
        try {
          const engine = await wasm.SchemaEngine.new({ datamodels }, makeLogForwarder(), bound);
          return { engine, factory, bound };
        } catch (err) {
          await factory.disposeAll();
          throw translateError(err, bound);
        }
      })();
      entry.catch(() => this.engines.delete(key));
      this.engines.set(key, entry);
    }
    return entry;
  }

  async call(method, params) {
    defaultMigrationLockfiles(params);
    switch (method) {
      case 'createDatabase': {
        const url = datasourceUrl(params?.datasource, this.datasource);
        const parsed = parsePostgresUrl(url);
        await adminOrExplain(parsed, () => createDatabase(parsed.config, parsed.database));
        return { databaseName: parsed.database };
      }
      case 'getDatabaseVersion': {
        const url = datasourceUrl(params?.datasource, this.datasource);
        return this.invoke(url, 'version', undefined);
      }
      case 'dbExecute': {
        const target = params?.datasourceType;
        const url = target?.tag === 'url' ? target.url : this.datasource.url;
        return (await this.invoke(url, 'dbExecute', params, { withDatamodels: false })) ?? null;
      }
      case 'diff': {
        // The wasm engine reads "live database" targets through its own connection: a diff
        // against a URL runs on an engine connected to that URL, a diff against the configured
        // datasource on the main engine, and a diff of files/migrations on a detached engine
        // (the main database may not exist yet; shadow databases are still created on its server).
        const targets = [params?.from, params?.to];
        const urlTarget = targets.find((t) => t?.tag === 'url');
        let result;
        if (urlTarget) result = await this.invoke(urlTarget.url, 'diff', params, { withDatamodels: false });
        else if (targets.some((t) => t?.tag === 'schemaDatasource'))
          result = await this.invoke(this.datasource.url, 'diff', params);
        else result = await this.invoke(this.datasource.url, 'diff', params, { detached: true });
        // Like the native engine: hand the output to the CLI with a `print` request (the CLI
        // writes it to stdout, or to the --output file), and return no stdout in the result.
        if (result?.stdout) {
          await this.request('print', { content: result.stdout.replace(/\n$/, '') });
        }
        return { ...result, stdout: null };
      }
      case 'getDatabaseDescription':
        throw new EngineError(undefined, 'getDatabaseDescription is not supported by the wasm schema engine.');
      case 'debugPanic':
        return this.invoke(this.datasource.url, 'debugPanic', undefined, { detached: true });
      case 'evaluateDataLoss':
      case 'createMigration':
        return this.withShadowSchemaCache(method, params ?? {});
      case 'applyMigrations':
      case 'devDiagnostic':
      case 'diagnoseMigrationHistory':
      case 'ensureConnectionValidity':
      case 'introspect':
      case 'introspectSql':
      case 'markMigrationApplied':
      case 'markMigrationRolledBack':
      case 'reset':
      case 'schemaPush':
        return (await this.invoke(this.datasource.url, method, params ?? {})) ?? {};
      default: {
        const err = new Error(`Method not found: ${method}`);
        err.rpcCode = -32601;
        throw err;
      }
    }
  }

  /**
   * evaluateDataLoss / createMigration compute "the schema the migrations produce" through the
   * engine's migration-schema cache, and on a cache miss through the connector itself, which in
   * the wasm build has no shadow database ("PostgreSQL shadow DB must be provided through an
   * external factory"). diagnoseMigrationHistory computes the same schema through the adapter
   * factory and fills that cache: on such a miss, run it and retry. (`migrate dev` hits this
   * when it has just applied pending migrations.)
   */
  async withShadowSchemaCache(method, params) {
    try {
      return (await this.invoke(this.datasource.url, method, params)) ?? {};
    } catch (err) {
      if (!/shadow DB must be provided through an external factory/i.test(err?.message ?? '')) throw err;
      await this.invoke(this.datasource.url, 'diagnoseMigrationHistory', {
        migrationsList: params.migrationsList,
        optInToShadowDatabase: true,
        filters: params.filters ?? { externalTables: [], externalEnums: [] },
      });
      return (await this.invoke(this.datasource.url, method, params)) ?? {};
    }
  }

  async invoke(url, method, params, { withDatamodels = true, detached = false } = {}) {
    const { engine, bound } = await this.engineFor(url, { withDatamodels, detached });
    globalThis.PRISMA_WASM_PANIC_REGISTRY.message = '';
    try {
      // Call as a method: the wasm-bindgen wrappers need `this`.
      return await engine[method](params);
    } catch (err) {
      throw translateError(err, bound);
    }
  }

  handleLine(line) {
    if (!line.trim()) return;
    let msg;
    try {
      msg = JSON.parse(line);
    } catch (err) {
      send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: `Parse error: ${err.message}` } });
      return;
    }
    if (msg.method === undefined) {
      // An answer to one of our requests (e.g. `print`).
      const waiter = this.pending.get(msg.id);
      if (waiter) {
        this.pending.delete(msg.id);
        if (msg.error) waiter.reject(new Error(msg.error.message ?? 'RPC error'));
        else waiter.resolve(msg.result);
      }
      return;
    }
    if (msg.id === undefined) return; // notifications
    // The engine methods take `&mut self`: run requests one at a time.
    this.queue = this.queue.then(async () => {
      this.inFlight = msg.id;
      try {
        const result = await this.call(msg.method, msg.params);
        send({ jsonrpc: '2.0', id: msg.id, result: result === undefined ? null : result });
      } catch (err) {
        send({ jsonrpc: '2.0', id: msg.id, error: rpcError(err) });
      } finally {
        this.inFlight = undefined;
      }
    });
  }

  /** Wait for pending requests, close every pool, drop leftover shadow databases. */
  close() {
    this.closing ??= (async () => {
      for (const [id, waiter] of this.pending) {
        this.pending.delete(id);
        waiter.reject(new Error('The CLI closed the connection.'));
      }
      await this.queue.catch(() => {});
      for (const entry of this.engines.values()) {
        try {
          const { engine, factory } = await entry;
          try {
            engine.free();
          } catch {}
          await factory.disposeAll();
        } catch {}
      }
      await dropLeftoverShadowDatabases();
    })();
    return this.closing;
  }
}

/**
 * A migrations directory written by `migrate diff --script -o ...` has no migration_lock.toml,
 * and the engine then refuses to diff it ("Could not determine the connector from the
 * migrations directory"). This engine only speaks PostgreSQL, so assume that provider.
 */
function defaultMigrationLockfiles(value) {
  if (!value || typeof value !== 'object') return;
  if (Array.isArray(value.migrationDirectories) && value.lockfile && value.lockfile.content == null) {
    value.lockfile.content = 'provider = "postgresql"\n';
  }
  for (const child of Object.values(value)) defaultMigrationLockfiles(child);
}

function datasourceUrl(param, fallback) {
  if (param?.tag === 'ConnectionString' && param.url) return param.url;
  if (fallback?.url) return fallback.url;
  throw new EngineError('P1012', 'No datasource URL available for this request.');
}

function send(message) {
  process.stdout.write(JSON.stringify(message) + '\n');
}

/** Forward the engine's tracing output (JSON lines) to stderr, where the CLI collects it. */
function makeLogForwarder() {
  let buffer = '';
  return (chunk) => {
    buffer += String(chunk);
    let nl;
    while ((nl = buffer.indexOf('\n')) !== -1) {
      const line = buffer.slice(0, nl).trim();
      buffer = buffer.slice(nl + 1);
      if (!line) continue;
      try {
        const parsed = JSON.parse(line);
        parsed.target ??= LOG_TARGET;
        process.stderr.write(JSON.stringify(parsed) + '\n');
      } catch {
        log('INFO', line);
      }
    }
  };
}

class PanicError extends Error {}

/** Normalise anything thrown by the wasm engine or the adapter into EngineError / PanicError / Error. */
function translateError(err, bound) {
  if (err instanceof EngineError || err instanceof PanicError) return err;
  if (err && typeof err === 'object') {
    // A JS exception raised inside the adapter is parked in the error registry; the engine
    // reports it as "External error id#<n>".
    const id = err.id ?? err.cause?.id ?? Number(/External error id#(\d+)/.exec(String(err.message))?.[1]);
    if (Number.isInteger(id) && bound?.errorRegistry?.consumeError) {
      const original = bound.errorRegistry.consumeError(id)?.error;
      if (original) return translateError(original, undefined);
    }
    if (err.name === 'RuntimeError') {
      const panic = new PanicError(lastPanicMessage() || err.message);
      panic.stack = err.stack;
      return panic;
    }
    if (typeof err.code === 'string' && /^P\d{4}$/.test(err.code)) {
      return new EngineError(err.code, err.message, err.meta ?? {});
    }
  }
  return err instanceof Error ? err : new Error(typeof err === 'string' ? err : JSON.stringify(err));
}

function rpcError(err) {
  if (err?.rpcCode) return { code: err.rpcCode, message: err.message };
  if (err instanceof PanicError) {
    // The CLI shows `message` (or `data.error.message`) for a panic.
    return {
      code: 4466,
      message: err.message,
      data: { is_panic: true, message: err.message, backtrace: err.stack ?? null, error: { message: err.message } },
    };
  }
  const data = { is_panic: false, message: err?.message ?? String(err), meta: err?.meta ?? {} };
  if (err instanceof EngineError && err.code) data.error_code = err.code;
  return { code: 4466, message: 'An error happened. Check the data field for details.', data };
}

async function runRpc(args) {
  log('INFO', `Starting schema engine RPC server (wasm shim ${engineCommitHash()})`, { git_hash: engineCommitHash() });
  const server = new RpcServer(args);
  let exiting = false;
  const shutdown = async (code) => {
    if (exiting) return;
    exiting = true;
    try {
      await server.close();
    } finally {
      process.exit(code);
    }
  };
  // The CLI ends stdin and sends SIGTERM at once when it is done: finish the cleanup
  // (close pools, drop shadow databases) before exiting.
  process.on('SIGTERM', () => shutdown(0));
  process.on('SIGINT', () => shutdown(130));
  process.on('unhandledRejection', (reason) => {
    log('ERROR', `Unhandled rejection: ${reason?.stack ?? reason}`);
  });
  // A Rust panic inside a task the engine spawned surfaces as an uncaught RuntimeError. The
  // wasm instance is unusable afterwards: answer the request in flight, clean up, exit 101
  // (what the native engine does on a panic).
  process.on('uncaughtException', (err) => {
    const panic = err?.name === 'RuntimeError';
    const message = panic ? lastPanicMessage() || String(err) : (err?.stack ?? String(err));
    log('ERROR', message, panic ? { is_panic: true } : {});
    if (server.inFlight !== undefined) {
      const error = panic ? Object.assign(new PanicError(message), { stack: err?.stack }) : err;
      send({ jsonrpc: '2.0', id: server.inFlight, error: rpcError(error) });
    }
    if (exiting) return;
    exiting = true;
    server.queue = Promise.resolve(); // do not wait for the request that will never finish
    server.close().finally(() => process.exit(panic ? 101 : 1));
  });
  const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  rl.on('line', (line) => server.handleLine(line));
  rl.on('close', () => shutdown(0));
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  if (args.version) {
    process.stdout.write(`schema-engine-cli ${engineCommitHash()}\n`);
    return 0;
  }
  if (args.help) {
    process.stdout.write(
      'schema-engine (wasm shim)\n\nUSAGE:\n  schema-engine.mjs [--datamodels <file>...] [--datasource <json>]\n  schema-engine.mjs --datasource <json> cli <can-connect-to-database|create-database|drop-database>\n  schema-engine.mjs --version\n',
    );
    return 0;
  }
  if (args.cli) return runCliCommand(args.cli, args.datasource);
  await runRpc(args);
  return undefined;
}

main().then(
  (code) => {
    if (code !== undefined) process.exitCode = code;
  },
  (err) => {
    log('ERROR', err?.stack ?? String(err));
    process.exitCode = 1;
  },
);
