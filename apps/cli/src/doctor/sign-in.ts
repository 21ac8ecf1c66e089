import type { ProjectConfig, Settings } from '@framedesk/config';
import pg from 'pg';
import { type CheckResult, fail, firstLine, ok, warn } from './check-result';

/** The address to register at the OpenID Provider, exactly. */
export function oidcRedirectUrl(config: ProjectConfig): string {
  return new URL('/review/oidc/callback', config.api.base_url).toString();
}

async function checkIssuer(settings: Settings, fetchImpl: typeof fetch): Promise<CheckResult> {
  const issuer = settings.OIDC_ISSUER_URL!;
  const discovery = `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
  try {
    const response = await fetchImpl(discovery, { signal: AbortSignal.timeout(10_000) });
    const body = response.ok ? ((await response.json()) as { issuer?: string }) : null;
    if (!body) return fail('sso provider', `${discovery} answered ${response.status}`, 'check OIDC_ISSUER_URL');
    if (body.issuer !== issuer)
      return fail(
        'sso provider',
        `the provider calls itself ${body.issuer}, not ${issuer}: ID tokens would be refused`,
        `set OIDC_ISSUER_URL=${body.issuer}`,
      );
    return ok('sso provider', `${settings.OIDC_PROVIDER_NAME}: ${issuer} answers its discovery document`);
  } catch (error) {
    return fail(
      'sso provider',
      `${discovery} unreachable (${firstLine(error)})`,
      'check OIDC_ISSUER_URL and the network',
    );
  }
}

/** Who can still get in: an enabled admin, and with passwords off, a usable break-glass account. */
async function checkAdmins(settings: Settings): Promise<CheckResult[]> {
  const client = new pg.Client({ connectionString: settings.DATABASE_URL, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
    const admins = await client.query<{ n: string }>(
      "SELECT count(*) AS n FROM reviewers WHERE role = 'admin' AND disabled_at IS NULL",
    );
    const results = [
      Number(admins.rows[0]?.n) > 0
        ? ok('admins', `${admins.rows[0]?.n} enabled admin(s)`)
        : warn(
            'admins',
            'no enabled admin: nobody can open ops or the People screen',
            'framedesk reviewer role EMAIL admin',
          ),
    ];
    if (settings.PASSWORD_LOGIN) return results;
    const email = settings.BREAK_GLASS_ADMIN_EMAIL?.trim().toLowerCase();
    if (!email) {
      results.push(
        warn(
          'break-glass',
          'PASSWORD_LOGIN=false and no BREAK_GLASS_ADMIN_EMAIL: nobody signs in while the provider is down',
          'name an admin with a password in BREAK_GLASS_ADMIN_EMAIL (docs/teams.md)',
        ),
      );
      return results;
    }
    const row = (
      await client.query<{ role: string; has_password: boolean; disabled: boolean }>(
        'SELECT role, password_hash IS NOT NULL AS has_password, disabled_at IS NOT NULL AS disabled FROM reviewers WHERE email = $1',
        [email],
      )
    ).rows[0];
    const usable = row && row.role === 'admin' && row.has_password && !row.disabled;
    results.push(
      usable
        ? ok('break-glass', `${email} may sign in with a password while single sign-on is the rule`)
        : warn(
            'break-glass',
            `${email} is not an enabled admin with a password`,
            `framedesk reviewer create ${email} --role admin --password-stdin (or reviewer role / set-password)`,
          ),
    );
    return results;
  } catch (error) {
    return [warn('admins', `could not read the reviewers (${firstLine(error)})`)];
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Sign-in: single sign-on (the redirect URL to register, the provider answering) and who can still get in. */
export async function checkSignIn(
  settings: Settings,
  config: ProjectConfig | null,
  fetchImpl: typeof fetch = fetch,
): Promise<CheckResult[]> {
  const redirect = config ? oidcRedirectUrl(config) : '{api.base_url}/review/oidc/callback';
  const results: CheckResult[] = [];
  if (!settings.OIDC_ISSUER_URL)
    results.push(ok('single sign-on', `off (to set it up, register the redirect URL ${redirect}; docs/teams.md)`));
  else {
    results.push(ok('single sign-on', `redirect URL to register at the provider: ${redirect}`));
    results.push(await checkIssuer(settings, fetchImpl));
  }
  results.push(...(await checkAdmins(settings)));
  return results;
}
