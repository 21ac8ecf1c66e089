import { pino, type Logger } from 'pino';

export type { Logger };

/** JSON logs; secrets are redacted wherever they may appear. */
export function createLogger(options: { name: string; level: string }): Logger {
  return pino({
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
  });
}
