// The Policies screen: the review API's `/review/channels/:slug/policy` routes (admins only).
import { request } from './client';

/** One rule of a policy file (docs/policies.md); the server validates the whole file. */
export interface PolicyRule {
  readonly name: string;
  readonly when: string;
  readonly action: 'promote' | 'reject' | 'review';
  readonly reason?: string;
  readonly sample?: number;
  readonly approvals?: number;
  readonly priority?: 'high' | 'normal' | 'low';
  readonly due?: string;
}

export interface PolicyFile {
  readonly rules: readonly PolicyRule[];
}

/** The policy in force and its last change, or `{ policy: null }`. */
export interface PolicyInForce {
  readonly policy: PolicyFile | null;
  readonly version?: number;
  readonly updated_at?: string;
  readonly updated_by?: string;
  /**
   * false: the stored policy no longer compiles (e.g. after a library upgrade); every frame of the
   * channel is held for people until a policy is saved again. `problems` says why, rule by rule.
   */
  readonly compiles?: false;
  readonly problems?: readonly string[];
}

/** The report of `framedesk policy simulate --json`. */
export interface PolicySimulation {
  readonly since: string;
  readonly frames: number;
  readonly rules: readonly {
    readonly rule: string;
    readonly action: PolicyRule['action'];
    readonly matched: number;
    readonly people_promoted: number;
    readonly people_rejected: number;
    readonly agreed: number | null;
  }[];
  readonly unmatched: { readonly count: number; readonly people_promoted: number; readonly people_rejected: number };
}

const base = (slug: string) => `/review/channels/${encodeURIComponent(slug)}/policy`;

export const policiesApi = {
  show: (slug: string) => request<PolicyInForce>('GET', base(slug)),
  /** 422 policy_invalid (an ApiError whose `errors` name each rule and column) when it does not compile. */
  check: (slug: string, policy: unknown, signal?: AbortSignal) =>
    request<{ ok: true; rules: number }>('POST', `${base(slug)}/check`, { policy }, signal ? { signal } : {}),
  save: (slug: string, policy: unknown) =>
    request<{ policy: PolicyFile; version: number }>('PUT', base(slug), { policy }),
  clear: (slug: string) => request<{ cleared: boolean }>('DELETE', base(slug)),
  simulate: (slug: string, policy: unknown, since: string) =>
    request<PolicySimulation>('POST', `${base(slug)}/simulate`, { policy, since }),
};
