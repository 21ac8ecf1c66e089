import { DomainError } from '@framedesk/domain';
import type { AccountChange, Database } from '@framedesk/db';
import { generateApiKey } from './api-keys.service';
import { hashPassword } from './passwords';
import { MIN_PASSWORD_LENGTH } from './reviewers.service';

/**
 * Operators' account lifecycle (the CLI): disable/enable, passwords, sessions, channels, key
 * rotation. Every change is recorded with its actor and time; each takes effect on the very next
 * request, because sessions and keys are looked up per request.
 */
export function accountsService(db: Database, actor: string, now: () => Date = () => new Date()) {
  const change = (): AccountChange => ({ actor, at: now() });

  async function reviewer(email: string) {
    const found = await db.repos.reviewers.findByEmail(email.trim().toLowerCase());
    if (!found) throw new DomainError('not_found', `no reviewer ${email}`);
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
    /** Disabling also ends the reviewer's sessions. */
    async setReviewerDisabled(email: string, disabled: boolean) {
      const r = await reviewer(email);
      await db.transaction((repos) => repos.accounts.setReviewerDisabled(r.id, disabled, change()));
      return { email: r.email, disabled };
    },
    async setReviewerPassword(email: string, password: string) {
      if (password.length < MIN_PASSWORD_LENGTH)
        throw new DomainError(
          'validation_failed',
          `The password must have at least ${MIN_PASSWORD_LENGTH} characters.`,
        );
      const r = await reviewer(email);
      const hash = await hashPassword(password);
      const ended = await db.transaction((repos) => repos.accounts.setReviewerPassword(r.id, hash, change()));
      return { email: r.email, sessions_ended: ended };
    },
    async revokeReviewerSessions(email: string) {
      const r = await reviewer(email);
      const ended = await db.transaction((repos) => repos.accounts.revokeReviewerSessions(r.id, change()));
      return { email: r.email, sessions_ended: ended };
    },
    async listReviewers() {
      return (await db.repos.accounts.listReviewers()).map((r) => ({
        email: r.email,
        name: r.name,
        created_at: r.createdAt.toISOString(),
        disabled_at: r.disabledAt?.toISOString() ?? null,
        sessions: r._count.sessions,
      }));
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
