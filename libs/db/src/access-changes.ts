import pg from 'pg';
import type { DbClient } from './prisma';

/**
 * Changes to what a reviewer may do (role, channels, disabled, sessions ended) are announced with
 * PostgreSQL's NOTIFY inside the transaction that makes them, so they are heard exactly when they
 * commit, whoever made them (the CLI, an admin in the workbench, SSO provisioning). Open event
 * streams listen and re-check their reviewer at once.
 */
export const ACCESS_CHANGES_CHANNEL = 'framedesk_reviewer_access';

/** Every reviewer: the listener reconnected and may have missed notifications. */
export const EVERY_REVIEWER = '*';

export async function notifyAccessChange(db: DbClient, reviewerId: string): Promise<void> {
  await db.$executeRaw`SELECT pg_notify(${ACCESS_CHANGES_CHANNEL}, ${reviewerId})`;
}

export interface AccessChangeListener {
  /** Resolves once LISTEN is active: a change committed after that is heard. */
  subscribe(listener: (reviewerId: string) => void): Promise<() => void>;
  close(): Promise<void>;
}

/**
 * One LISTEN connection per process (opened with the first subscriber), fanned out to every
 * subscriber. A lost connection is reopened a second later (again and again while it fails), and
 * then every subscriber hears EVERY_REVIEWER, because notifications sent meanwhile are lost.
 *
 * A connection can also die without a word (a primary that vanished, a half-open socket): no
 * error, no end, and nothing heard ever again. So the listener asks every `heartbeatMs` for a
 * `SELECT 1` answered within that time, and treats silence as a lost connection (TCP keepalive too).
 */
export function accessChangeListener(
  url: string,
  onError: (error: Error) => void = () => undefined,
  retryMs = 1000,
  heartbeatMs = 10_000,
): AccessChangeListener {
  const listeners = new Set<(reviewerId: string) => void>();
  let connection: Promise<pg.Client> | null = null;
  let current: pg.Client | null = null;
  let retrying = false;
  let closed = false;
  const emit = (id: string) => listeners.forEach((l) => l(id));

  const retry = () => {
    if (closed || retrying) return;
    retrying = true;
    setTimeout(() => {
      retrying = false;
      if (closed || listeners.size === 0 || connection) return;
      connect().then(
        () => emit(EVERY_REVIEWER),
        (error: Error) => {
          onError(error);
          retry();
        },
      );
    }, retryMs).unref();
  };

  const connect = (): Promise<pg.Client> => {
    connection ??= (async () => {
      const client = new pg.Client({
        connectionString: url,
        keepAlive: true,
        keepAliveInitialDelayMillis: heartbeatMs,
        query_timeout: heartbeatMs,
        connectionTimeoutMillis: heartbeatMs,
      });
      const heartbeat = setInterval(() => {
        if (current === client) client.query('SELECT 1').catch((error: Error) => lost(error));
        else if (connection === null || closed) clearInterval(heartbeat); // replaced or closed
      }, heartbeatMs).unref();
      const lost = (error?: Error) => {
        if (current !== client) return; // an old connection's last words
        if (error) onError(error);
        clearInterval(heartbeat);
        current = null;
        connection = null;
        client.end().catch(() => undefined);
        retry();
      };
      client.on('error', lost);
      client.on('end', () => lost());
      client.on('notification', (message) => {
        if (message.channel === ACCESS_CHANGES_CHANNEL && message.payload) emit(message.payload);
      });
      try {
        await client.connect();
        await client.query(`LISTEN ${ACCESS_CHANGES_CHANNEL}`);
      } catch (error) {
        clearInterval(heartbeat);
        connection = null;
        await client.end().catch(() => undefined);
        throw error;
      }
      if (closed) {
        clearInterval(heartbeat);
        await client.end().catch(() => undefined);
      } else current = client;
      return client;
    })();
    return connection;
  };

  return {
    async subscribe(fn) {
      listeners.add(fn);
      try {
        await connect();
      } catch (error) {
        listeners.delete(fn);
        throw error;
      }
      return () => listeners.delete(fn);
    },
    async close() {
      closed = true;
      listeners.clear();
      const client = current;
      current = null;
      connection = null;
      await client?.end().catch(() => undefined);
    },
  };
}
