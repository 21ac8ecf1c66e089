import { createRequire } from 'node:module';
import { type DestinationStream, type Logger, pino } from 'pino';

export type { Logger };

export interface LoggerOptions {
  readonly name: string;
  readonly level: string;
  /** `json` (default): one JSON object per line, for machines. `pretty`: one readable line per event, for people. */
  readonly format?: 'json' | 'pretty';
}

/**
 * pino-pretty is a development dependency: it is loaded only when asked for, so a production
 * install without it logs JSON as always.
 */
function prettyStream(destination: DestinationStream | undefined): DestinationStream {
  const pretty = createRequire(import.meta.url)('pino-pretty') as (
    options: Record<string, unknown>,
  ) => DestinationStream;
  return pretty({
    destination: destination ?? 1,
    sync: true,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,service',
  });
}

/** JSON logs (or pretty ones in development); secrets are redacted wherever they may appear. */
export function createLogger(options: LoggerOptions, destination?: DestinationStream): Logger {
  const stream = options.format === 'pretty' ? prettyStream(destination) : destination;
  const settings = {
    name: options.name,
    level: options.level,
    base: { service: options.name },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'req.headers["x-csrf-token"]',
        'res.headers["set-cookie"]',
        '*.password',
        '*.api_key',
        '*.token',
        '*.secret',
      ],
      censor: '[redacted]',
    },
  };
  return stream ? pino(settings, stream) : pino(settings);
}
