import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from './logger';

/** A destination that keeps what the logger wrote. */
function sink() {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  return { stream, lines: () => text.split('\n').filter(Boolean) };
}

const event = (format?: 'json' | 'pretty') => {
  const out = sink();
  const logger = createLogger({ name: 'api', level: 'info', format }, out.stream);
  logger.info({ request_id: 'req_1', status: 202, req: { headers: { authorization: 'Bearer fd_live_x' } } }, 'done');
  logger.debug('below the level');
  logger.warn({ nested: { deep: [1, 2] } }, 'second');
  return out.lines();
};

describe('createLogger', () => {
  it('writes one JSON object per event by default, secrets redacted', () => {
    const lines = event();
    expect(lines).toHaveLength(2);
    const first = JSON.parse(lines[0]!);
    expect(first).toMatchObject({ level: 30, service: 'api', msg: 'done', request_id: 'req_1', status: 202 });
    expect(first.req.headers.authorization).toBe('[redacted]');
    expect(first.time).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('writes one readable line per event when pretty, secrets still redacted', () => {
    const lines = event('pretty');
    expect(lines).toHaveLength(2);
    expect(() => JSON.parse(lines[0]!)).toThrow();
    const plain = lines.map((l) => l.replace(/\u001b\[[0-9;]*m/g, ''));
    expect(plain[0]).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO \(api\): done /);
    expect(plain[0]).toContain('"request_id":"req_1"');
    expect(plain[0]).toContain('[redacted]');
    expect(plain[0]).not.toContain('fd_live_x');
    expect(plain[1]).toMatch(/WARN \(api\): second .*"deep":\[1,2\]/);
  });
});
