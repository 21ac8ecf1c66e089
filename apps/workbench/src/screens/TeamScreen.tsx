import { lazy, Suspense } from 'react';
import { ApiError } from '../api/client';
import type { TeamMember, TeamWindow } from '../api/team';
import { useRoute } from '../hooks/useRoute';
import { useTeamStats } from '../hooks/useTeam';
import { Skeleton } from '../ui';
import './teams.css';

const DateRangePicker = lazy(() => import('../ui/DateRangePicker').then((m) => ({ default: m.DateRangePicker })));

const problem = (error: unknown) => (error instanceof ApiError ? error.detail : 'The server did not answer.');
/** `YYYY-MM-DD` (the URL and the API) ↔ `YYYYMMDD` (the date picker). */
const compact = (d: string) => d.replaceAll('-', '');
const dashed = (d: string) => (d ? `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6, 8)}` : '');
const day = (iso: string) => iso.slice(0, 10);

function seconds(value: number | null): string {
  if (value === null) return '—';
  if (value < 60) return `${value} s`;
  return `${Math.floor(value / 60)} min ${Math.round(value % 60)} s`;
}

function agreement({ agreed, total }: TeamMember['policy_agreement']): string {
  return total === 0 ? '—' : `${agreed} / ${total} (${Math.round((agreed / total) * 100)}%)`;
}

function MemberRow({ member }: { readonly member: TeamMember }) {
  return (
    <tr className={member.disabled ? 'disabled' : undefined}>
      <th scope="row">
        <span className="email">{member.email}</span>
        {member.name && <span className="hint"> {member.name}</span>}
        {member.disabled && <span className="hint"> (disabled)</span>}
      </th>
      <td>{member.decisions}</td>
      <td>{member.promoted}</td>
      <td>{member.rejected}</td>
      <td title={`Over ${member.timed_decisions} timed decisions`}>{seconds(member.median_seconds_per_decision)}</td>
      <td>{member.promoted_then_rejected}</td>
      <td>{agreement(member.policy_agreement)}</td>
    </tr>
  );
}

/** Per reviewer over a window of days (the last 30 by default): decisions, pace, overturned approvals, agreement with policies. */
export function TeamScreen() {
  const route = useRoute();
  const span: TeamWindow = { since: route.query.get('since') ?? '', until: route.query.get('until') ?? '' };
  const team = useTeamStats(span);
  const range = { from: compact(span.since), to: compact(span.until) };
  return (
    <section className="people team" aria-labelledby="team-title">
      <h1 id="team-title">Team</h1>
      <div className="team-window">
        <Suspense fallback={<Skeleton lines={1} />}>
          <DateRangePicker
            label="Days"
            value={range}
            onChange={(r) => route.setQuery({ since: dashed(r.from), until: dashed(r.to) }, { replace: true })}
          />
        </Suspense>
        {team.data && (
          <p className="hint" aria-live="polite">
            {span.since ? 'Decisions' : 'Last 30 days: decisions'} from {day(team.data.since)} to{' '}
            {day(new Date(Date.parse(team.data.until) - 1).toISOString())} (UTC)
          </p>
        )}
      </div>
      {team.isError && (
        <p role="alert" className="error">
          {problem(team.error)}
        </p>
      )}
      {team.isPending ? (
        <Skeleton lines={4} />
      ) : (
        <table aria-label="Reviewer numbers">
          <thead>
            <tr>
              <th scope="col">Reviewer</th>
              <th scope="col">Decisions</th>
              <th scope="col">Promoted</th>
              <th scope="col">Rejected</th>
              <th scope="col">Median per decision</th>
              <th scope="col">Promoted, then rejected by a second reviewer</th>
              <th scope="col">Agreed with the policy (sampled)</th>
            </tr>
          </thead>
          <tbody>
            {(team.data?.reviewers ?? []).map((m) => (
              <MemberRow key={m.reviewer_id} member={m} />
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
