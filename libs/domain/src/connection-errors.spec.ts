import { connect, createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionError, markRaisedBy, raisedBy } from './connection-errors';
import { systemFaultReason } from './error-chain';

/** What Node hands a client whose peer `server` treats it so: the real socket error. */
const socketError = (port: number): Promise<NodeJS.ErrnoException> =>
  new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    socket.on('error', resolve);
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('close', () => setTimeout(() => reject(new Error('closed without an error')), 50));
  });

const listen = (server: Server) =>
  new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
  );

describe('connection errors: whose, by what raised them', () => {
  // A peer that resets every connection it accepts (RST, as a killed primary's kernel answers).
  const resetting = createServer((socket) => socket.resetAndDestroy());
  let resetPort = 0;
  let closedPort = 0;

  beforeAll(async () => {
    resetPort = await listen(resetting);
    const gone = createServer();
    closedPort = await listen(gone);
    await new Promise((resolve) => gone.close(resolve));
  });
  afterAll(() => new Promise((resolve) => resetting.close(resolve)));

  it('a real reset from a closed socket is a connection error; nothing says whose until its client marks it', async () => {
    const reset = await socketError(resetPort);
    expect(reset.code).toBe('ECONNRESET');
    expect(connectionError(reset)).toEqual({ code: 'ECONNRESET', dependency: null });
    // Unmarked, it is this server's network fault, named with no dependency.
    expect(systemFaultReason(reset)).toBe(`connection reset (127.0.0.1:${resetPort}) [ECONNRESET]`);

    markRaisedBy(reset, 'Redis');
    expect(connectionError(reset)).toEqual({ code: 'ECONNRESET', dependency: 'Redis' });
    // Its dependency's predicate names it instead.
    expect(systemFaultReason(reset)).toBeNull();
    // The first mark stands, and it is not enumerable (logs show the error as it was).
    markRaisedBy(reset, 'PostgreSQL');
    expect(raisedBy(reset)).toBe('Redis');
    expect(Object.getOwnPropertySymbols(reset).filter((s) => reset.propertyIsEnumerable(s))).toEqual([]);
  });

  it('a real refused connection, whatever port it was on', async () => {
    const refused = await socketError(closedPort);
    expect(refused.code).toBe('ECONNREFUSED');
    expect(connectionError(refused)).toEqual({ code: 'ECONNREFUSED', dependency: null });
    expect(connectionError(markRaisedBy(refused, 'PostgreSQL'))).toEqual({
      code: 'ECONNREFUSED',
      dependency: 'PostgreSQL',
    });
  });

  it('the message and the port say nothing: a Redis-looking text on an unmarked error is nobody’s', () => {
    const text = Object.assign(new Error('read ECONNRESET redis://127.0.0.1:6379'), { code: 'ECONNRESET' });
    expect(connectionError(text)?.dependency).toBeNull();
  });

  it('the classes the clients raise say whose they are', () => {
    // node-postgres's server error: a severity and a SQLSTATE.
    expect(raisedBy(Object.assign(new Error('terminating connection'), { severity: 'FATAL', code: '57P01' }))).toBe(
      'PostgreSQL',
    );
    expect(raisedBy(Object.assign(new Error('x'), { name: 'PrismaClientKnownRequestError', code: 'P1017' }))).toBe(
      'PostgreSQL',
    );
    expect(raisedBy({ kind: 'postgres', originalCode: 'ECONNRESET' })).toBe('PostgreSQL');
    expect(raisedBy(Object.assign(new Error('READONLY'), { name: 'ReplyError' }))).toBe('Redis');
    expect(raisedBy(Object.assign(new Error('x'), { name: 'MaxRetriesPerRequestError' }))).toBe('Redis');
    expect(raisedBy(new Error('anything'))).toBeNull();
    // Not a connection error at all.
    expect(connectionError(Object.assign(new Error('x'), { code: 'ENOSPC' }))).toBeNull();
  });
});
