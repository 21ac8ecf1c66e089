// The Team screen: the review API's `GET /review/team` (admins only).
import type { ReviewTeamMember, ReviewTeamStats } from '@framedesk/contracts';
import { request } from './client';

export type TeamMember = ReviewTeamMember;
export type TeamStats = ReviewTeamStats;

/** A window of whole days, `YYYY-MM-DD`, both included; empty for the API's default (the last 30 days). */
export interface TeamWindow {
  readonly since: string;
  readonly until: string;
}

export const teamApi = {
  stats: (window: TeamWindow) => {
    const query = new URLSearchParams({
      ...(window.since ? { since: window.since } : {}),
      ...(window.until ? { until: window.until } : {}),
    }).toString();
    return request<TeamStats>('GET', `/review/team${query ? `?${query}` : ''}`);
  },
};
