// A test-owned TCP proxy: the fleet's round-robin balancer in front of the API instances, and
// the door to the test S3 server through which storage is made unavailable. It can drop every
// open connection (mid-request) and refuse new ones for a while.
import { connect, createServer, type Socket } from 'node:net';
import { freePort } from '@framedesk/testing';

export interface TcpProxy {
  readonly port: number;
  readonly url: string;
  /** Connections accepted, dropped by `dropAll`, refused while `refuse` was on. */
  readonly stats: { connections: number; dropped: number; refused: number; failovers: number };
  /** Destroys every open connection (both sides) at once; returns how many. */
  dropAll(): number;
  /** While on, open connections are dropped and new ones closed at once. */
  refuse(on: boolean): void;
  close(): Promise<void>;
}

export interface TcpProxyOptions {
  /** Sees every byte a client sends (e.g. to count requests by their request line). */
  readonly onClientData?: (connection: number, chunk: Buffer) => void;
}

/**
 * Round-robin over `upstreams` (ports on 127.0.0.1). A connection whose upstream refuses is tried
 * on the next one before any byte was forwarded, as a balancer with passive health checks does.
 */
export async function startTcpProxy(upstreams: readonly number[], options: TcpProxyOptions = {}): Promise<TcpProxy> {
  const open = new Set<Socket>();
  const stats = { connections: 0, dropped: 0, refused: 0, failovers: 0 };
  let refusing = false;
  let next = 0;

  const pipeTo = (client: Socket, id: number, attempt: number) => {
    const port = upstreams[(next + attempt) % upstreams.length]!;
    const upstream = connect(port, '127.0.0.1');
    open.add(upstream);
    upstream.once('connect', () => {
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
      client.on('close', () => upstream.destroy());
      if (options.onClientData) client.on('data', (chunk: Buffer) => options.onClientData!(id, chunk));
      client.pipe(upstream);
      upstream.pipe(client);
      client.resume();
    });
    upstream.once('error', () => {
      open.delete(upstream);
      if (upstream.connecting || !upstream.remoteAddress) {
        if (attempt + 1 < upstreams.length) {
          stats.failovers++;
          pipeTo(client, id, attempt + 1);
        } else client.destroy();
      }
    });
    upstream.once('close', () => open.delete(upstream));
  };

  const server = createServer({ pauseOnConnect: true }, (client) => {
    if (refusing) {
      stats.refused++;
      client.destroy();
      return;
    }
    const id = ++stats.connections;
    open.add(client);
    client.once('close', () => open.delete(client));
    client.on('error', () => undefined);
    next = (next + 1) % upstreams.length;
    pipeTo(client, id, 0);
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));

  const dropAll = () => {
    const sockets = [...open];
    sockets.forEach((s) => s.destroy());
    stats.dropped += sockets.length;
    return sockets.length;
  };
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    stats,
    dropAll,
    refuse(on) {
      refusing = on;
      if (on) dropAll();
    },
    close: () =>
      new Promise<void>((resolve) => {
        dropAll();
        server.close(() => resolve());
      }),
  };
}
