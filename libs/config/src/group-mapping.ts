import { isSlug } from '@framedesk/domain';

/** What membership of an identity-provider group gives a person provisioned through SSO. */
export interface GroupGrant {
  readonly group: string;
  readonly grant: { readonly role: 'admin' } | { readonly channel: string };
}

export type GroupMapping = readonly GroupGrant[];

/**
 * Parses OIDC_GROUP_MAPPING: comma-separated `group=role:admin` or `group=channel:<slug>` pairs;
 * a group may appear more than once (several channels). Group names are taken as the provider
 * sends them (Entra ID sends object ids unless told otherwise).
 */
export function parseGroupMapping(value: string): { ok: true; value: GroupMapping } | { ok: false; message: string } {
  const grants: GroupGrant[] = [];
  for (const entry of value
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)) {
    const eq = entry.lastIndexOf('=');
    const group = entry.slice(0, eq).trim();
    const target = entry.slice(eq + 1).trim();
    if (eq < 1 || !group) return { ok: false, message: `"${entry}" is not group=role:admin or group=channel:<slug>` };
    if (target === 'role:admin') grants.push({ group, grant: { role: 'admin' } });
    else if (target.startsWith('channel:') && isSlug(target.slice(8)))
      grants.push({ group, grant: { channel: target.slice(8) } });
    else return { ok: false, message: `"${target}" in "${entry}" is neither role:admin nor channel:<slug>` };
  }
  return { ok: true, value: grants };
}
