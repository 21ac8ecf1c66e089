import type { Settings } from '@framedesk/config';
import { createDatabase } from '@framedesk/db';
import { compileStored, formatProblem } from '@framedesk/policies';
import { type CheckResult, fail, firstLine, ok, warn } from './check-result';

/**
 * Every channel's stored review policy still compiles (docs/policies.md). One that does not (a
 * library upgrade that refuses an expression it used to take) holds all its channel's frames for
 * people until the policy is set again.
 */
export async function checkPolicies(settings: Pick<Settings, 'DATABASE_URL'>): Promise<CheckResult> {
  const db = createDatabase({ url: settings.DATABASE_URL, poolSize: 1 });
  try {
    const rows = await db.repos.policies.all();
    const broken = rows.flatMap((row) => {
      const problems = compileStored(row).broken;
      return problems ? [`${row.channel} (version ${row.version}): ${problems.map(formatProblem).join('; ')}`] : [];
    });
    if (broken.length === 0) return ok('review policies', `${rows.length} stored policies compile`);
    return fail(
      'review policies',
      `${broken.length} stored policies no longer compile; their frames are held for people: ${broken.join(' | ')}`,
      'fix each rule and set it again: npm run -s cli -- policy set <channel> <file> (policy show prints it)',
    );
  } catch (error) {
    return warn('review policies', `could not read the stored policies: ${firstLine(error)}`);
  } finally {
    await db.close();
  }
}
