import { REJECT_REASONS } from '@framedesk/contracts';
import type { ChannelPolicyRow, Database } from '@framedesk/db';
import { DomainError } from '@framedesk/domain';
import { type CompiledPolicy, compilePolicy, type PolicyCompilation } from './compile';
import type { PolicyFile, PolicyProblem } from './policy-file';

/**
 * The reject reasons a `reject` rule may name on a channel. Today's list for every channel; the
 * one place to point at a per-channel list.
 */
export async function allowedRejectReasons(db: Database, channelId: string): Promise<readonly string[]> {
  return (await db.repos.feedback.rejectReasons(channelId)) ?? REJECT_REASONS;
}

/** `rule 2 "blank": /rules/1/when 1:17 Unexpected token: EOF` */
export function formatProblem(p: PolicyProblem): string {
  const where = p.rule === null ? 'policy' : `rule ${p.rule}${p.name ? ` "${p.name}"` : ''}`;
  const column = p.column !== undefined ? ` (line ${p.line ?? 1}, column ${p.column})` : '';
  return `${where}: ${p.path}${column}: ${p.message}`;
}

function invalid(problems: readonly PolicyProblem[]): DomainError {
  return new DomainError('policy_invalid', `The policy has ${problems.length} problem(s); nothing was changed.`, {
    errors: problems.map((p) => ({
      pointer: p.path,
      detail: formatProblem(p),
      rule: p.rule,
      name: p.name,
      message: p.message,
      ...(p.line !== undefined ? { line: p.line } : {}),
      ...(p.column !== undefined ? { column: p.column } : {}),
    })),
  });
}

/** Setting, showing and clearing a channel's policy: the CLI and the workbench share it. */
export function policyAdmin(db: Database) {
  async function channelOf(slug: string) {
    const channel = await db.repos.channels.findBySlug(slug);
    if (!channel) throw new DomainError('not_found', `No channel "${slug}".`);
    return channel;
  }

  return {
    channelOf,

    /** Every problem of the file for the channel, or the compiled policy. */
    async validate(channelId: string, file: unknown): Promise<PolicyCompilation> {
      return compilePolicy(file, await allowedRejectReasons(db, channelId));
    },

    /**
     * The channel and the file compiled for it, as `set` checks it (the workbench checks as the
     * admin types, and simulates); any problem: DomainError policy_invalid listing each.
     */
    async check(
      slug: string,
      file: unknown,
    ): Promise<{ channel: { id: string; slug: string }; policy: CompiledPolicy }> {
      const channel = await channelOf(slug);
      const compiled = await this.validate(channel.id, file);
      if (!compiled.ok) throw invalid(compiled.problems);
      return { channel, policy: compiled.policy };
    },

    /** Validates the whole file first; any problem: DomainError policy_invalid listing each, nothing changed. */
    async set(slug: string, file: unknown, actor: string): Promise<{ version: number; file: PolicyFile }> {
      const { channel, policy } = await this.check(slug, file);
      const { version } = await db.transaction((repos) => repos.policies.set(channel.id, policy.file, actor));
      return { version, file: policy.file };
    },

    async show(slug: string): Promise<ChannelPolicyRow | null> {
      return db.repos.policies.find((await channelOf(slug)).id);
    },

    /**
     * The stored policy's problems when it no longer compiles (each as `formatProblem` puts it),
     * or null when it compiles or there is none: the GET route, the Policies screen and `doctor`.
     */
    async problems(slug: string): Promise<string[] | null> {
      const row = await this.show(slug);
      const broken = row ? compileStored(row).broken : undefined;
      return broken ? broken.map(formatProblem) : null;
    },

    async clear(slug: string, actor: string): Promise<boolean> {
      return db.repos.policies.clear((await channelOf(slug)).id, actor);
    },
  };
}

export type PolicyAdmin = ReturnType<typeof policyAdmin>;

/** Reasons named by a stored (already validated) policy: it is compiled as it was accepted. */
function reasonsIn(policy: unknown): string[] {
  const rules = (policy as { rules?: { reason?: unknown }[] } | null)?.rules ?? [];
  return rules.map((r) => r.reason).filter((r): r is string => typeof r === 'string');
}

/**
 * Compiles a stored policy, tagged with its version. One that no longer compiles (a library
 * upgrade, a row written by hand) is never read as "no policy": it comes back `broken`, with its
 * problems, and holds every frame of its channel for people (evaluatePolicy).
 */
export function compileStored(row: Pick<ChannelPolicyRow, 'policy' | 'version'>): CompiledPolicy {
  const compiled = compilePolicy(row.policy, reasonsIn(row.policy));
  if (compiled.ok) return { ...compiled.policy, version: row.version };
  return {
    file: { rules: [] },
    rules: [],
    readsScores: false,
    readsAgent: false,
    version: row.version,
    broken: compiled.problems,
  };
}

interface CacheEntry {
  readonly version: number | null;
  readonly policy: CompiledPolicy | null;
  checkedAt: number;
}

export interface PolicyCacheOptions {
  readonly checkEveryMs?: number;
  readonly clock?: () => number;
  /** Told once per version of a stored policy that no longer compiles (the worker logs it). */
  readonly onBroken?: (channelId: string, version: number, problems: readonly PolicyProblem[]) => void;
}

/**
 * Each worker's compiled policies, per channel. An entry older than `checkEveryMs` asks for the
 * channel's version (one indexed read) and recompiles only when it changed: a `policy set` or
 * `clear` reaches every worker within that many milliseconds. Versions never repeat (a cleared
 * policy keeps its row and its count), so a changed policy always reads as a changed version.
 */
export function policyCache(db: Database, options: PolicyCacheOptions = {}) {
  const checkEveryMs = options.checkEveryMs ?? 5_000;
  const clock = options.clock ?? Date.now;
  const entries = new Map<string, CacheEntry>();

  return {
    async forChannel(channelId: string): Promise<CompiledPolicy | null> {
      const now = clock();
      const entry = entries.get(channelId);
      if (entry && now - entry.checkedAt < checkEveryMs) return entry.policy;
      const version = (await db.repos.policies.versions([channelId])).get(channelId) ?? null;
      if (entry && entry.version === version) {
        entry.checkedAt = now;
        return entry.policy;
      }
      const row = version === null ? null : await db.repos.policies.find(channelId);
      const policy = row ? compileStored(row) : null;
      if (row && policy?.broken) options.onBroken?.(channelId, row.version, policy.broken);
      entries.set(channelId, { version: row?.version ?? version, policy, checkedAt: now });
      return policy;
    },
  };
}

export type PolicyCache = ReturnType<typeof policyCache>;
