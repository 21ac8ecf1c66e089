// One doctor line: a check's name, ✓ / ! / ✗, what was found, and what to do about it.
export type CheckStatus = 'ok' | 'warn' | 'fail';

export interface CheckResult {
  readonly name: string;
  readonly status: CheckStatus;
  readonly message: string;
  /** What to do about it (every failure has one). */
  readonly fix?: string;
}

export const ok = (name: string, message: string): CheckResult => ({ name, status: 'ok', message });
export const warn = (name: string, message: string, fix?: string): CheckResult => ({
  name,
  status: 'warn',
  message,
  ...(fix ? { fix } : {}),
});
export const fail = (name: string, message: string, fix: string): CheckResult => ({
  name,
  status: 'fail',
  message,
  fix,
});
export const firstLine = (error: unknown) =>
  (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
