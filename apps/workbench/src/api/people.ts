// The People screen, sign-in options and invite links: the review API's `/review/people`,
// `/review/sign-in` and `/review/invite/*`.
import type {
  ReviewInvite,
  ReviewInvitePreview,
  ReviewPerson,
  ReviewRole,
  ReviewSignInOptions,
} from '@framedesk/contracts';
import { request } from './client';
import type { Session } from './types';

export type Person = ReviewPerson;
export type Role = ReviewRole;
export type Invite = ReviewInvite;
export type SignInOptions = ReviewSignInOptions;

export interface PersonChange {
  readonly role?: Role;
  readonly disabled?: boolean;
  /** The whole new list of channel slugs. */
  readonly channels?: readonly string[];
}

const enc = encodeURIComponent;

export const peopleApi = {
  signInOptions: () => request<SignInOptions>('GET', '/review/sign-in'),
  list: () => request<{ people: Person[] }>('GET', '/review/people'),
  invite: (input: { email: string; role: Role; channels: readonly string[] }) =>
    request<{ person: Person; invite: Invite | null }>('POST', '/review/people', input),
  change: (id: string, change: PersonChange) =>
    request<{ person: Person }>('PATCH', `/review/people/${enc(id)}`, change),
  newInvite: (id: string) => request<{ invite: Invite }>('POST', `/review/people/${enc(id)}/invite`),
  previewInvite: (token: string) => request<ReviewInvitePreview>('POST', '/review/invite/preview', { token }),
  acceptInvite: (token: string, password: string) =>
    request<Session>('POST', '/review/invite/accept', { token, password }),
};
