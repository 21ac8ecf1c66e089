// A TCP proxy to PostgreSQL for tests of connections whose peer vanished without a word.
import { connect, createServer, type Socket } from 'node:net';
import { freePort } from '@framedesk/testing';

/**
 * Forwards to PostgreSQL; `freeze()` makes the connections open then half-open (bytes go nowhere,
 * nothing is closed), as a vanished peer does; connections made after it work.
 */
export async function startFreezingProxy(port: number) {
  const listen = await freePort();
  const sockets = new Set<Socket>();
  let generation = 0;
  let refusing = false;
  const server = createServer((client) => {
    if (refusing) return void client.destroy();
    const upstream = connect(port, '127.0.0.1');
    const born = generation;
    const frozen = () => born !== generation;
    sockets.add(client).add(upstream);
    client.on('data', (chunk: Buffer) => void (frozen() || upstream.write(chunk)));
    upstream.on('data', (chunk: Buffer) => void (frozen() || client.write(chunk)));
    const end = () => [client, upstream].forEach((s) => (s.destroy(), sockets.delete(s)));
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(listen, '127.0.0.1', resolve));
  return {
    port: listen,
    freeze: () => void generation++,
    /** Cuts every open connection and refuses new ones for `ms` (a failover as a client sees it). */
    cut(ms: number) {
      refusing = true;
      sockets.forEach((s) => s.destroy());
      setTimeout(() => (refusing = false), ms);
    },
    close: async () => {
      sockets.forEach((s) => s.destroy());
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
