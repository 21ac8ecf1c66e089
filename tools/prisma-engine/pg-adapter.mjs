// Driver adapter factory for the wasm schema engine: @prisma/adapter-pg 7.10 plus
// work-arounds for the three bugs that only the schema engine hits.
//
// 1. Postgres' internal "char" type (OID 18, e.g. pg_constraint.contype) is refused by
//    adapter-pg's column-type mapping ("Column type 'char' could not be deserialized").
//    Fix: wrap queryRaw (of the adapter and of its transactions) so such columns reach
//    adapter-pg as text and the engine as Character columns, as the native engine reads them.
// 2. adapter-pg's executeScript() splits the script on every `;`, which breaks `$$` function
//    bodies and string literals and runs a migration statement by statement (not atomic).
//    Fix: send the whole script as one simple-protocol query, like the native engine does:
//    Postgres then runs a multi-statement script in one implicit transaction.
// 3. adapter-pg's connectToShadowDb() drops the temporary database while its own pool is still
//    open ("is being accessed by other users") and, configured with a connection string,
//    points the "shadow" pool at the main database. Fix: create and drop the shadow database
//    ourselves, closing its pool before DROP DATABASE.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';
import { ColumnTypeEnum } from '@prisma/driver-adapter-utils';

/** OIDs of internal types adapter-pg refuses to map ("Unsupported column type"). */
const CHAR_OID = 18; // "char": the engine reads it as a Rust char (e.g. pg_constraint.contype)
const TEXT_LIKE_INTERNAL_OIDS = new Set([
  22, // int2vector
  24, // regproc
  27, // tid
  28, // xid
  29, // cid
  30, // oidvector
  194, // pg_node_tree
  1033, // aclitem
  2205, // regclass
  2206, // regtype
  3220, // pg_lsn
  4089, // regnamespace
  4096, // regrole
]);
const TEXT_OID = 25;
const COLUMN_TYPE_CHARACTER = ColumnTypeEnum.Character;

/**
 * Make a PgQueryable (adapter or transaction) accept "char" and other internal types:
 * report them to adapter-pg as text (their text-format value already is a plain string), then
 * tell the engine that "char" columns are Character columns, as the native engine would.
 */
function fixInternalTypes(queryable) {
  const queryRaw = queryable.queryRaw;
  const performIO = queryable.performIO;
  queryable.queryRaw = async function patchedQueryRaw(query) {
    const charColumns = [];
    // A per-call receiver whose performIO rewrites the OIDs, so concurrent queries don't mix.
    const receiver = Object.create(this, {
      performIO: {
        value: async (q) => {
          const result = await performIO.call(this, q);
          (result?.fields ?? []).forEach((field, i) => {
            if (field.dataTypeID === CHAR_OID) {
              charColumns.push(i);
              field.dataTypeID = TEXT_OID;
            } else if (TEXT_LIKE_INTERNAL_OIDS.has(field.dataTypeID)) {
              field.dataTypeID = TEXT_OID;
            }
          });
          return result;
        },
      },
    });
    const resultSet = await queryRaw.call(receiver, query);
    for (const i of charColumns) resultSet.columnTypes[i] = COLUMN_TYPE_CHARACTER;
    return resultSet;
  };
  return queryable;
}

/** Query parameters that Prisma's URL syntax knows but node-postgres must not see. */
const PRISMA_ONLY_PARAMS = [
  'schema',
  'connection_limit',
  'pool_timeout',
  'pgbouncer',
  'statement_cache_size',
  'socket_timeout',
  'sslaccept',
  'connect_timeout',
  'sslidentity',
  'sslpassword',
];

/**
 * Turn a Prisma PostgreSQL URL into a pg.PoolConfig plus the Prisma schema name.
 * @param {string} url
 */
export function parsePostgresUrl(url) {
  const scheme = /^(postgres(?:ql)?):\/\//i.exec(url ?? '');
  if (!scheme) {
    throw new EngineError(
      'P1013',
      `The provided database string is invalid. This schema engine only supports postgresql:// URLs.`,
    );
  }
  // Work on the query string by hand so the rest of the URL reaches node-postgres untouched
  // (WHATWG URL rejects forms such as postgresql://user@/db?host=/run/postgresql).
  const q = url.indexOf('?');
  const base = q === -1 ? url : url.slice(0, q);
  const params = new URLSearchParams(q === -1 ? '' : url.slice(q + 1));
  const schema = params.get('schema') || undefined;
  const connectTimeout = params.get('connect_timeout');
  for (const p of PRISMA_ONLY_PARAMS) params.delete(p);
  const query = params.toString();
  let parsed;
  try {
    parsed = new URL(base);
  } catch {
    try {
      parsed = new URL(base.replace(/@\//, '@localhost/').replace(/^(postgres(?:ql)?:\/\/)\//i, '$1localhost/'));
    } catch {
      throw new EngineError('P1013', 'The provided database string is invalid. The URL could not be parsed.');
    }
  }
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, '')) || parsed.username || 'postgres';
  /** @type {import('pg').PoolConfig} */
  const config = { connectionString: query ? `${base}?${query}` : base };
  if (schema) config.options = `-c search_path="${schema.replaceAll('"', '""')}"`;
  if (connectTimeout && Number(connectTimeout) > 0) config.connectionTimeoutMillis = Number(connectTimeout) * 1000;
  const hostParam = params.get('host');
  const host = hostParam ? hostParam : `${parsed.hostname || 'localhost'}:${parsed.port || 5432}`;
  return { config, schema, database, host };
}

/**
 * The same pool config pointed at another database. node-postgres lets values parsed from
 * `connectionString` override plain config keys, so the database must be replaced inside the
 * connection string itself (adapter-pg's shadow-database helper misses this).
 */
export function configForDatabase(config, database) {
  const cs = config.connectionString;
  const q = cs.indexOf('?');
  const base = q === -1 ? cs : cs.slice(0, q);
  const rest = q === -1 ? '' : cs.slice(q);
  const m = /^(postgres(?:ql)?:\/\/[^/]*)(\/.*)?$/i.exec(base);
  if (!m) throw new Error('unexpected connection string shape');
  return { ...config, connectionString: `${m[1]}/${encodeURIComponent(database)}${rest}` };
}

/** A user-facing error with a Prisma error code (P1xxx, P3xxx, ...). */
export class EngineError extends Error {
  constructor(code, message, meta = {}) {
    super(message);
    this.code = code;
    this.meta = meta;
  }
}

/** Map a node-postgres connection error to Prisma's user-facing common errors. */
export function connectionError(err, { database, host }) {
  const code = err?.code;
  if (code === '3D000') {
    return new EngineError('P1003', `Database \`${database}\` does not exist on the database server at \`${host}\`.`, {
      database_name: database,
    });
  }
  if (code === '28P01' || code === '28000') {
    return new EngineError(
      'P1000',
      `Authentication failed against database server at \`${host}\`, the provided database credentials are not valid.\n\nPlease make sure to provide valid database credentials for the database server at \`${host}\`.`,
    );
  }
  if (
    code === 'ECONNREFUSED' ||
    code === 'ENOTFOUND' ||
    code === 'EAI_AGAIN' ||
    code === 'ENOENT' ||
    code === 'EHOSTUNREACH'
  ) {
    return new EngineError(
      'P1001',
      `Can't reach database server at \`${host}\`\n\nPlease make sure your database server is running at \`${host}\`.`,
    );
  }
  if (code === 'ETIMEDOUT') {
    return new EngineError('P1002', `The database server at \`${host}\` was reached but timed out.`);
  }
  return new EngineError('P1017', `Server has closed the connection or could not be reached: ${err?.message ?? err}`);
}

/** Run one statement on a short-lived client. */
export async function withClient(config, database, fn) {
  const client = new pg.Client(database ? configForDatabase(config, database) : config);
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => {});
  }
}

const quoteIdent = (name) => `"${String(name).replaceAll('"', '""')}"`;

/** Connect to a maintenance database on the same server (postgres, then template1). */
export async function withAdminClient(config, fn) {
  let lastError;
  for (const database of ['postgres', 'template1']) {
    try {
      return await withClient(config, database, fn);
    } catch (err) {
      if (err?.code !== '3D000') throw err;
      lastError = err;
    }
  }
  throw lastError;
}

export async function createDatabase(config, name) {
  await withAdminClient(config, (c) => c.query(`CREATE DATABASE ${quoteIdent(name)}`));
}

export async function dropDatabase(config, name) {
  await withAdminClient(config, (c) => c.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)}`));
}

/** Shadow databases created by this process, dropped on dispose or at exit. */
const liveShadowDatabases = new Map();

/** Drop every shadow database this process still owns (called at shutdown). */
export async function dropLeftoverShadowDatabases() {
  await Promise.allSettled([...liveShadowDatabases.values()].map((drop) => drop()));
}

/**
 * Apply the work-arounds to a PrismaPgAdapter: single-query executeScript, "char" columns.
 * @param {any} adapter a PrismaPgAdapter
 */
function fixAdapter(adapter) {
  adapter.executeScript = async function executeScript(script) {
    try {
      await this.underlyingDriver().query(script);
    } catch (error) {
      // onError() converts the pg error to a DriverAdapterError and throws it.
      this.onError(error);
    }
  };
  fixInternalTypes(adapter);
  const startTransaction = adapter.startTransaction;
  adapter.startTransaction = async function patchedStartTransaction(...args) {
    return fixInternalTypes(await startTransaction.apply(this, args));
  };
  return adapter;
}

/** The connection probe the wasm engine runs when it starts (and nothing else is needed to diff files). */
const STARTUP_PROBE = /current_setting\('server_version_num'\)/;

export const DETACHED_MESSAGE =
  'This schema engine was started without a connection to the main database (it only diffs schema files and migrations); the requested operation needs one.';

/**
 * An adapter for commands that never read the main database (e.g. `migrate diff --from-empty
 * --to-schema`, `--from-migrations`): the wasm engine insists on a connection at startup, so
 * answer its startup probe from the server's maintenance database (or with a fixed answer when
 * there is no server at all) and refuse everything else. The native engine needs no database
 * for such diffs, and the main database may not even exist yet.
 */
class DetachedAdapter {
  provider = 'postgres';
  adapterName = '@prisma/adapter-pg';

  constructor(probe, schema) {
    this.probe = probe;
    this.schema = schema;
  }

  async queryRaw(query) {
    if (STARTUP_PROBE.test(query.sql)) return this.probe(query);
    throw new EngineError(undefined, DETACHED_MESSAGE);
  }
  async executeRaw() {
    throw new EngineError(undefined, DETACHED_MESSAGE);
  }
  async executeScript() {
    throw new EngineError(undefined, DETACHED_MESSAGE);
  }
  async startTransaction() {
    throw new EngineError(undefined, DETACHED_MESSAGE);
  }
  getConnectionInfo() {
    return { schemaName: this.schema, supportsRelationJoins: true };
  }
  async dispose() {}
}

const OFFLINE_PROBE_RESULT = {
  columnNames: ['exists', 'version', 'numeric_version'],
  // ColumnTypeEnum: Boolean, Text, Int32
  columnTypes: [5, 7, 0],
  rows: [[true, 'PostgreSQL 15.0 (no server connection)', 150000]],
};

/**
 * SqlMigrationAwareDriverAdapterFactory for the wasm schema engine.
 */
export class SchemaEnginePgFactory {
  provider = 'postgres';
  adapterName = '@prisma/adapter-pg';

  /**
   * @param {{ url?: string, shadowDatabaseUrl?: string }} datasource
   * @param {{ detached?: boolean }} [options] detached: never connect to the main database itself
   */
  constructor(datasource, { detached = false } = {}) {
    this.main = datasource.url ? parsePostgresUrl(datasource.url) : undefined;
    this.shadow = datasource.shadowDatabaseUrl ? parsePostgresUrl(datasource.shadowDatabaseUrl) : undefined;
    this.detached = detached || !this.main;
    /** @type {Set<{ dispose(): Promise<void> }>} */
    this.openAdapters = new Set();
  }

  async #detachedProbe(query) {
    const server = this.shadow ?? this.main;
    if (!server) return OFFLINE_PROBE_RESULT;
    try {
      return await withAdminClient(server.config, async (c) => {
        const res = await c.query({ text: query.sql, values: query.args, rowMode: 'array' });
        return { ...OFFLINE_PROBE_RESULT, rows: res.rows };
      });
    } catch {
      return OFFLINE_PROBE_RESULT;
    }
  }

  async #open(parsed, onDisposed) {
    const factory = new PrismaPg(parsed.config, { schema: parsed.schema });
    const adapter = fixAdapter(await factory.connect());
    const originalDispose = adapter.dispose.bind(adapter);
    let disposed;
    adapter.dispose = () => {
      disposed ??= (async () => {
        this.openAdapters.delete(adapter);
        try {
          await originalDispose();
        } finally {
          await onDisposed?.();
        }
      })();
      return disposed;
    };
    this.openAdapters.add(adapter);
    return adapter;
  }

  async connect() {
    if (this.detached) return new DetachedAdapter((q) => this.#detachedProbe(q), this.main?.schema);
    return this.#open(this.main);
  }

  async connectToShadowDb() {
    if (!this.main && !this.shadow) {
      throw new EngineError(
        'P1012',
        'A shadow database is needed for this command, but no datasource URL is configured: set `datasource.url` in the Prisma config.',
      );
    }
    if (this.shadow) {
      if (this.main && sameDatabase(this.shadow, this.main)) {
        throw new EngineError(
          undefined,
          'The shadow database you configured appears to be the same as the main database. Please specify another shadow database.',
        );
      }
      // A user-provided shadow database: the native engine resets it before use; so do we.
      await resetShadowDatabase(this.shadow);
      return this.#open(this.shadow);
    }
    const name = `prisma_migrate_shadow_db_${process.pid}_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    try {
      await createDatabase(this.main.config, name);
    } catch (err) {
      throw new EngineError(
        'P3014',
        `Prisma Migrate could not create the shadow database. Please make sure the database user has permission to create databases, or set \`datasource.shadowDatabaseUrl\` in the Prisma config.\n\nOriginal error: ${err?.message ?? err}`,
      );
    }
    let dropped;
    const drop = () => {
      dropped ??= dropDatabase(this.main.config, name)
        .catch((err) => {
          process.stderr.write(
            JSON.stringify({
              level: 'WARN',
              target: 'schema_engine::logger',
              fields: { message: `Could not drop shadow database ${name}: ${err?.message ?? err}` },
            }) + '\n',
          );
        })
        .finally(() => liveShadowDatabases.delete(name));
      return dropped;
    };
    liveShadowDatabases.set(name, drop);
    const parsed = { ...this.main, database: name, config: configForDatabase(this.main.config, name) };
    try {
      return await this.#open(parsed, drop);
    } catch (err) {
      await drop();
      throw err;
    }
  }

  /** Close every pool still open (end of process). */
  async disposeAll() {
    await Promise.allSettled([...this.openAdapters].map((a) => a.dispose()));
  }
}

function sameDatabase(a, b) {
  return a.host === b.host && a.database === b.database;
}

/** Empty a user-provided shadow database: drop every non-system schema, recreate the default one. */
async function resetShadowDatabase(parsed) {
  await withClient(parsed.config, undefined, async (c) => {
    const { rows } = await c.query(
      `SELECT nspname FROM pg_namespace
        WHERE nspname NOT LIKE 'pg\\_%' AND nspname <> 'information_schema'`,
    );
    const statements = rows.map((r) => `DROP SCHEMA ${quoteIdent(r.nspname)} CASCADE;`);
    statements.push(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(parsed.schema ?? 'public')};`);
    await c.query(statements.join('\n'));
  });
}
