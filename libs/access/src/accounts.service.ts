import type { ReviewPerson } from '@framedesk/contracts';
import { DomainError, type ReviewerRole } from '@framedesk/domain';
import type { AccountChange, Database, Repositories, ReviewerListRow, ReviewerRow } from '@framedesk/db';
import { generateApiKey } from './api-keys.service';
import { hashPassword } from './passwords';
import { assertPassword, createReviewer, type NewReviewerInput, normalizeEmail } from './reviewers.service';

/** A reviewer as `reviewer list --json` and the People screen show them (the review API's contract). */
export type PersonView = ReviewPerson;

export function personView(r: ReviewerListRow): PersonView {
  return {
    id: r.id,
    email: r.email,
    name: r.name,
    role: r.role,
    channels: r.channels,
    created_at: r.createdAt.toISOString(),
    disabled_at: r.disabledAt?.toISOString() ?? null,
    last_seen_at: r.lastSeenAt?.toISOString() ?? null,
    has_password: r.hasPassword,
    sessions: r.sessions,
  };
}

/** Refuses to leave the installation without an enabled admin (the admins are locked meanwhile). */
async function keepAnAdmin(repos: Repositories, target: ReviewerRow): Promise<void> {
  const admins = await repos.accounts.lockEnabledAdmins();
  if (admins.includes(target.id) && admins.length === 1)
    throw new DomainError('last_admin', `${target.email} is the last enabled admin; make someone else admin first`);
}

/**
 * Operators' account lifecycle (the CLI): disable/enable, passwords, sessions, channels, key
 * rotation. Every change is recorded with its actor and time; each takes effect on the very next
 * request, because sessions and keys are looked up per request.
 */
export function accountsService(db: Database, actor: string, now: () => Date = () => new Date()) {
  const change = (): AccountChange => ({ actor, at: now() });

  /** A reviewer by email, or by id (the People screen's addresses). */
  async function reviewer(who: string) {
    const found = who.includes('@')
      ? await db.repos.reviewers.findByEmail(normalizeEmail(who))
      : await db.repos.reviewers.findById(who);
    if (!found) throw new DomainError('not_found', `no reviewer ${who}`);
    return found;
  }
  async function agent(slug: string) {
    const found = await db.repos.agents.findBySlug(slug);
    if (!found) throw new DomainError('not_found', `no agent ${slug}`);
    return found;
  }
  async function channel(slug: string) {
    const found = await db.repos.channels.findBySlug(slug);
    if (!found) throw new DomainError('not_found', `no channel ${slug}`);
    return found;
  }

  return {
    /** A new account (`reviewer`, no channels, no password unless given), recorded as `created`. */
    async createReviewer(input: NewReviewerInput) {
      const created = await createReviewer(db, input, actor);
      return { id: created.id, email: created.email, role: created.role, channels: created.channels };
    },
    /** Disabling also ends the reviewer's sessions; the last enabled admin cannot be disabled. */
    async setReviewerDisabled(who: string, disabled: boolean) {
      const r = await reviewer(who);
      await db.transaction(async (repos) => {
        if (disabled) await keepAnAdmin(repos, r);
        await repos.accounts.setReviewerDisabled(r.id, disabled, change());
      });
      return { email: r.email, disabled };
    },
    async setReviewerPassword(who: string, password: string) {
      assertPassword(password);
      const r = await reviewer(who);
      const hash = await hashPassword(password);
      const ended = await db.transaction((repos) => repos.accounts.setReviewerPassword(r.id, hash, change()));
      return { email: r.email, sessions_ended: ended };
    },
    async revokeReviewerSessions(who: string) {
      const r = await reviewer(who);
      const ended = await db.transaction((repos) => repos.accounts.revokeReviewerSessions(r.id, change()));
      return { email: r.email, sessions_ended: ended };
    },
    /** Takes effect on the reviewer's next request and on their open event streams at once. */
    async setReviewerRole(who: string, role: ReviewerRole) {
      const r = await reviewer(who);
      const changed = await db.transaction(async (repos) => {
        if (role !== 'admin') await keepAnAdmin(repos, r);
        return repos.accounts.setReviewerRole(r.id, role, change());
      });
      return { email: r.email, role, changed };
    },
    async setReviewerChannel(who: string, channelSlug: string, member: boolean) {
      const r = await reviewer(who);
      const c = await channel(channelSlug);
      const changed = await db.transaction((repos) => repos.accounts.setReviewerChannel(r.id, c.id, member, change()));
      return { email: r.email, channel: c.slug, member, changed };
    },
    /** Makes the reviewer's channels exactly `slugs` (one recorded change per channel added or removed). */
    async setReviewerChannels(who: string, slugs: readonly string[]) {
      const r = await reviewer(who);
      const wanted = new Map<string, string>();
      for (const slug of new Set(slugs)) wanted.set((await channel(slug)).id, slug);
      await db.transaction(async (repos) => {
        const current = await repos.review.memberChannelIds(r.id);
        for (const id of current)
          if (!wanted.has(id)) await repos.accounts.setReviewerChannel(r.id, id, false, change());
        for (const id of wanted.keys())
          if (!current.has(id)) await repos.accounts.setReviewerChannel(r.id, id, true, change());
      });
      return { email: r.email, channels: [...wanted.values()].sort() };
    },
    async listReviewers(): Promise<PersonView[]> {
      return (await db.repos.accounts.listReviewers()).map(personView);
    },
    /** One reviewer as the People screen shows them. */
    async person(who: string): Promise<PersonView> {
      const r = await reviewer(who);
      const [row] = await db.repos.accounts.listReviewers(r.id);
      if (!row) throw new DomainError('not_found', `no reviewer ${who}`);
      return personView(row);
    },
    async setAgentDisabled(slug: string, disabled: boolean) {
      const a = await agent(slug);
      await db.transaction((repos) => repos.accounts.setAgentDisabled(a.id, disabled, change()));
      return { agent: a.slug, disabled };
    },
    async setAgentChannel(slug: string, channelSlug: string, allowed: boolean) {
      const a = await agent(slug);
      const c = await channel(channelSlug);
      const changed = await db.transaction((repos) =>
        allowed ? repos.accounts.addChannel(a.id, c.id, change()) : repos.accounts.removeChannel(a.id, c.id, change()),
      );
      return { agent: a.slug, channel: c.slug, allowed, changed };
    },
    async listAgents() {
      const at = now();
      return (await db.repos.accounts.listAgents()).map((a) => ({
        agent: a.slug,
        name: a.name,
        created_at: a.createdAt.toISOString(),
        disabled_at: a.disabledAt?.toISOString() ?? null,
        channels: a.channels.map((c) => c.channel.slug).sort(),
        active_keys: a.apiKeys
          .filter((k) => !k.revokedAt && (!k.expiresAt || k.expiresAt > at))
          .map((k) => k.prefix)
          .sort(),
      }));
    },
    async listChannels() {
      return (await db.repos.accounts.listChannels()).map((c) => ({
        channel: c.slug,
        name: c.name,
        created_at: c.createdAt.toISOString(),
        agents: c._count.agents,
      }));
    },
    /**
     * A new agent allowed to post to `channelSlugs` (created if missing), with its first key: all
     * of it, and its record (created, channel_added per channel, the key's created), or nothing.
     */
    async createAgent(slug: string, channelSlugs: readonly string[], name?: string) {
      const generated = generateApiKey();
      await db.transaction(async (repos) => {
        if (await repos.agents.findBySlug(slug))
          throw new DomainError(
            'validation_failed',
            `agent ${slug} already exists; use "key create ${slug}" for another key`,
          );
        const at = change();
        const created = await repos.agents.create(slug, name);
        await repos.accounts.record('agent', created.id, 'created', at, name ? { name } : undefined);
        const channelIds: string[] = [];
        for (const c of channelSlugs) {
          const id = (await repos.channels.ensure(c)).channel.id;
          if (!channelIds.includes(id)) channelIds.push(id);
        }
        await repos.agents.allowChannels(created.id, channelIds);
        for (const channelId of channelIds)
          await repos.accounts.record('agent', created.id, 'channel_added', at, { channel_id: channelId });
        const key = await repos.apiKeys.create({ agentId: created.id, prefix: generated.prefix, hash: generated.hash });
        await repos.accounts.record('api_key', key.id, 'created', at, { agent_id: created.id, prefix: key.prefix });
      });
      return { agent: slug, api_key: generated.key };
    },
    /** Another key for an agent, recorded. */
    async issueKey(slug: string) {
      const a = await agent(slug);
      const generated = generateApiKey();
      await db.transaction(async (repos) => {
        const key = await repos.apiKeys.create({ agentId: a.id, prefix: generated.prefix, hash: generated.hash });
        await repos.accounts.record('api_key', key.id, 'created', change(), { agent_id: a.id, prefix: key.prefix });
      });
      return { agent: a.slug, api_key: generated.key };
    },
    /** Revokes the one active key whose display prefix starts with `prefix`, recorded. */
    async revokeKey(prefix: string) {
      const at = change();
      const keys = await db.transaction(async (repos) => {
        const found = await repos.apiKeys.revokeByPrefix(prefix, at.at);
        if (found.length === 1)
          await repos.accounts.record('api_key', found[0]!.id, 'revoked', at, {
            agent_id: found[0]!.agentId,
            prefix: found[0]!.prefix,
          });
        return found;
      });
      if (keys.length === 0) throw new DomainError('not_found', `no active key starts with ${prefix}`);
      if (keys.length > 1)
        throw new DomainError(
          'validation_failed',
          `${keys.length} active keys start with ${prefix}; give more characters`,
        );
      return { revoked: keys[0]!.prefix };
    },
    /** A new key for the same agent; the old one keeps working for `graceMs`, then stops. */
    async rotateKey(prefix: string, graceMs: number) {
      const at = now();
      const keys = await db.repos.accounts.activeKeysByPrefix(prefix, at);
      if (keys.length === 0) throw new DomainError('not_found', `no active key starts with ${prefix}`);
      if (keys.length > 1)
        throw new DomainError(
          'validation_failed',
          `${keys.length} active keys start with ${prefix}; give more characters`,
        );
      const old = keys[0]!;
      const generated = generateApiKey();
      const expiresAt = new Date(at.getTime() + graceMs);
      await db.transaction(async (repos) => {
        await repos.apiKeys.create({ agentId: old.agentId, prefix: generated.prefix, hash: generated.hash });
        await repos.accounts.expireKey(old.id, expiresAt, change(), { new_prefix: generated.prefix });
      });
      return {
        old_prefix: old.prefix,
        old_key_expires_at: expiresAt.toISOString(),
        new_prefix: generated.prefix,
        api_key: generated.key,
      };
    },
  };
}
export type AccountsService = ReturnType<typeof accountsService>;
