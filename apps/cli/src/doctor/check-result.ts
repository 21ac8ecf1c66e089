// One line of `doctor`: on its own so every check's file can name it without importing the others.
export type CheckStatus = 'ok' | 'warn' | 'fail';

export interface CheckResult {
  readonly name: string;
  readonly status: CheckStatus;
  readonly message: string;
  /** What to do about it (every failure has one). */
  readonly fix?: string;
}
