import type { Command } from '../command';
import { type CheckResult, runDoctor } from '../doctor/checks';

const MARK = { ok: '✓', warn: '!', fail: '✗' } as const;

function line(check: CheckResult): string {
  return `${MARK[check.status]} ${check.name}: ${check.message}${check.fix ? `\n    fix: ${check.fix}` : ''}`;
}

export const doctorCommands: Record<string, Command> = {
  doctor: {
    usage: 'doctor [--json]    check this deployment: settings, PostgreSQL, Redis, storage, ffmpeg, workers',
    options: { json: { type: 'boolean' } },
    positionals: 0,
    async run({ io, values }) {
      const checks = await runDoctor(io.env);
      const failed = checks.filter((c) => c.status === 'fail');
      if (values['json']) io.out(JSON.stringify({ ok: failed.length === 0, checks }, null, 2));
      else {
        for (const check of checks) io.out(line(check));
        const warnings = checks.filter((c) => c.status === 'warn').length;
        io.out(
          failed.length > 0
            ? `${failed.length} required check${failed.length === 1 ? '' : 's'} failed`
            : `all required checks pass${warnings ? ` (${warnings} warning${warnings === 1 ? '' : 's'})` : ''}`,
        );
      }
      return failed.length > 0 ? 1 : 0;
    },
  },
};
