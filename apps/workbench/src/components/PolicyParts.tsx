import type { ProblemItem } from '../api/client';
import type { PolicyRule, PolicySimulation } from '../api/policies';

/** A rule's options in words: "sample 10%", "2 approvals", "high priority", "due 2h", the reason. */
function options(rule: PolicyRule): string {
  return [
    rule.reason ? `reason “${rule.reason}”` : null,
    rule.sample !== undefined ? `sample ${Math.round(rule.sample * 100)}%` : null,
    rule.approvals !== undefined ? `${rule.approvals} approvals` : null,
    rule.priority ? `${rule.priority} priority` : null,
    rule.due ? `due ${rule.due}` : null,
  ]
    .filter(Boolean)
    .join(', ');
}

/** The rules of the policy in force, in order (the first that matches decides). */
export function PolicyRulesTable({ rules }: { readonly rules: readonly PolicyRule[] }) {
  return (
    <table aria-label="Rules in force">
      <thead>
        <tr>
          <th scope="col">#</th>
          <th scope="col">Rule</th>
          <th scope="col">When</th>
          <th scope="col">Action</th>
          <th scope="col">Options</th>
        </tr>
      </thead>
      <tbody>
        {rules.map((r, i) => (
          <tr key={r.name}>
            <td>{i + 1}</td>
            <th scope="row">{r.name}</th>
            <td>
              <code>{r.when}</code>
            </td>
            <td>{r.action}</td>
            <td>{options(r) || '—'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** `Rule 2 “blank”, column 17: Unexpected token` (the server's own words when it has no rule). */
export function problemText(p: ProblemItem): string {
  if (p.rule === undefined || p.message === undefined) return p.detail;
  const where = p.rule === null ? 'The policy' : `Rule ${p.rule}${p.name ? ` “${p.name}”` : ''}`;
  const field = p.pointer.split('/').at(-1);
  const at = p.column !== undefined ? `, line ${p.line ?? 1} column ${p.column}` : '';
  return `${where}${field && p.rule !== null ? ` (${field}${at})` : ''}: ${p.message}`;
}

export function ProblemList({ id, problems }: { readonly id: string; readonly problems: readonly ProblemItem[] }) {
  return (
    <ul id={id} className="policy-problems" aria-label="Problems">
      {problems.map((p, i) => (
        <li key={`${p.pointer}-${i}`}>{problemText(p)}</li>
      ))}
    </ul>
  );
}

const WOULD: Record<PolicyRule['action'], string> = { promote: 'promote', reject: 'reject', review: 'send to people' };

/** The replay over frames people decided: per rule, what it matched and how people decided them. */
export function SimulationTable({ result }: { readonly result: PolicySimulation }) {
  return (
    <table aria-label="Simulation">
      <caption>
        {result.frames} frames decided by people since {new Date(result.since).toLocaleDateString()}
      </caption>
      <thead>
        <tr>
          <th scope="col">Rule</th>
          <th scope="col">Would</th>
          <th scope="col">Matched</th>
          <th scope="col">People promoted</th>
          <th scope="col">People rejected</th>
          <th scope="col">Agreed</th>
          <th scope="col">Disagreed</th>
        </tr>
      </thead>
      <tbody>
        {result.rules.map((r) => (
          <tr key={r.rule}>
            <th scope="row">{r.rule}</th>
            <td>{WOULD[r.action]}</td>
            <td>{r.matched}</td>
            <td>{r.people_promoted}</td>
            <td>{r.people_rejected}</td>
            <td>{r.agreed ?? '—'}</td>
            <td>{r.agreed === null ? '—' : r.matched - r.agreed}</td>
          </tr>
        ))}
        <tr>
          <th scope="row">No rule matched</th>
          <td>leave to people</td>
          <td>{result.unmatched.count}</td>
          <td>{result.unmatched.people_promoted}</td>
          <td>{result.unmatched.people_rejected}</td>
          <td>—</td>
          <td>—</td>
        </tr>
      </tbody>
    </table>
  );
}
