// doctor's database roles (docs/operations.md, "Reads from replicas") on the Patroni engine: the
// read-write port reaches the primary, the read-only port a replica, and the lag is shown.
import { beforeAll, describe, expect, it } from 'vitest';
import { patroniUrls, startEngine, waitForHealthy } from '@framedesk/testing';
import { checkDatabaseRoles } from '../src/doctor/replica-check';

describe('doctor: the role of each database URL', () => {
  const urls = patroniUrls('postgres');
  beforeAll(async () => {
    await startEngine('patroni');
    await waitForHealthy();
  }, 180_000);

  it('names the primary and the replica with its lag, and says when a URL reaches the wrong one', async () => {
    const bound = 16 * 1024 * 1024;
    expect(
      await checkDatabaseRoles({
        DATABASE_URL: urls.readWrite,
        DATABASE_READ_URL: urls.readOnly,
        DATABASE_READ_MAX_LAG_BYTES: bound,
      }),
    ).toMatchObject([
      { name: 'database role', status: 'ok', message: expect.stringContaining('25000): primary') },
      { name: 'read replica', status: 'ok', message: expect.stringMatching(/25001\): replica, \d+ bytes behind/) },
    ]);
    expect(await checkDatabaseRoles({ DATABASE_URL: urls.readOnly, DATABASE_READ_MAX_LAG_BYTES: bound })).toMatchObject(
      [{ status: 'fail', message: expect.stringContaining('in recovery, not a primary') }],
    );
    expect(
      await checkDatabaseRoles({
        DATABASE_URL: urls.readWrite,
        DATABASE_READ_URL: urls.readWrite,
        DATABASE_READ_MAX_LAG_BYTES: bound,
      }),
    ).toMatchObject([{ status: 'ok' }, { status: 'warn', message: expect.stringContaining('reaches a primary') }]);
  });
});
