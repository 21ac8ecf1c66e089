import type { GroupMapping } from '@framedesk/config';
import type { Database, ReviewerRow } from '@framedesk/db';
import { isDomainError } from '@framedesk/domain';
import type { IdentityClaims } from './oidc';
import { createReviewer, normalizeEmail } from './reviewers.service';

/** Why a person the provider vouched for is not let in: each has its own plain sentence in the workbench. */
export type SsoRefusalReason = 'email_not_verified' | 'no_account' | 'disabled';

export class SsoRefusal extends Error {
  constructor(
    readonly reason: SsoRefusalReason,
    message: string,
  ) {
    super(message);
    this.name = 'SsoRefusal';
  }
}

export interface SsoOptions {
  /** Create unknown people as `reviewer` with no channels (or as OIDC_GROUP_MAPPING says). */
  readonly autoProvision: boolean;
  /** Refuse an email the provider does not say is verified. */
  readonly requireVerifiedEmail: boolean;
  readonly groupsClaim: string;
  readonly groupMapping: GroupMapping;
  /** Names channels of a mapping that do not exist (they are skipped). */
  readonly warn?: (message: string) => void;
}

/** `email_verified: true`, or Entra ID's `xms_edov` (the email's domain is verified by the tenant). */
function verifiedEmail(claims: IdentityClaims, required: boolean): string | null {
  const email = claims['email'];
  if (typeof email !== 'string' || !email.includes('@')) return null;
  const said = claims['email_verified'];
  if (said === true || said === 'true' || claims['xms_edov'] === true) return normalizeEmail(email);
  // Explicitly unverified is refused even when verification is not required (Entra ID omits the claim).
  if (said === false || said === 'false' || required) return null;
  return normalizeEmail(email);
}

function groupsOf(claims: IdentityClaims, claim: string): Set<string> {
  const value = claims[claim];
  return new Set(Array.isArray(value) ? value.filter((g): g is string => typeof g === 'string') : []);
}

/**
 * Matches a signed-in identity to a reviewer by verified email; creates one when auto-provisioning
 * is on. The session that follows is the same cookie session a password sign-in opens.
 */
export function ssoService(db: Database, options: SsoOptions) {
  async function provision(email: string, claims: IdentityClaims): Promise<ReviewerRow> {
    const groups = groupsOf(claims, options.groupsClaim);
    const grants = options.groupMapping.filter((m) => groups.has(m.group)).map((m) => m.grant);
    const role = grants.some((g) => 'role' in g) ? 'admin' : 'reviewer';
    const wanted = grants.flatMap((g) => ('channel' in g ? [g.channel] : []));
    const channels: string[] = [];
    for (const slug of new Set(wanted)) {
      if (await db.repos.channels.findBySlug(slug)) channels.push(slug);
      else options.warn?.(`OIDC_GROUP_MAPPING names channel ${slug}, which does not exist; skipped`);
    }
    const name = typeof claims['name'] === 'string' ? claims['name'] : undefined;
    try {
      return await createReviewer(db, { email, role, channels, ...(name ? { name } : {}) }, 'oidc');
    } catch (error) {
      // Two first sign-ins of one person at once: the other one created the account.
      const existing =
        isDomainError(error) && error.code === 'already_exists' && (await db.repos.reviewers.findByEmail(email));
      if (existing) return existing;
      throw error;
    }
  }

  return {
    async reviewerFor(claims: IdentityClaims): Promise<ReviewerRow> {
      const email = verifiedEmail(claims, options.requireVerifiedEmail);
      if (!email)
        throw new SsoRefusal('email_not_verified', 'the provider sent no email, or did not say it is verified');
      const reviewer = await db.repos.reviewers.findByEmail(email);
      if (reviewer?.disabledAt) throw new SsoRefusal('disabled', `${email} is disabled`);
      if (reviewer) return reviewer;
      if (!options.autoProvision) throw new SsoRefusal('no_account', `no reviewer ${email}`);
      return provision(email, claims);
    },
  };
}

export type SsoService = ReturnType<typeof ssoService>;
