import { Fragment } from 'react';
import type { SubmissionDetail } from '../api/types';
import { PolicyChips } from './PolicyMeta';

type Policy = NonNullable<SubmissionDetail['policy']>;

const number = (v: unknown) => (typeof v === 'number' ? String(Math.round(v * 1000) / 1000) : null);

/** The signals a policy read, in words; a missing one is "none near" (nearest) or left out. */
function signalRows(signals: Readonly<Record<string, unknown>>): [string, string][] {
  const nearest = (v: unknown) => (typeof v === 'number' ? `${v} bits apart` : 'none near');
  const rows: [string, string | null][] = [
    ['Blank', typeof signals['blank'] === 'boolean' ? (signals['blank'] ? 'yes' : 'no') : null],
    ['Luminance', number(signals['luminance'])],
    ['Luminance spread', number(signals['luminance_spread'])],
    ['Sharpness', number(signals['sharpness'])],
    ['Nearest promoted frame', nearest(signals['nearest_promoted'])],
    ['Nearest rejected frame', nearest(signals['nearest_rejected'])],
  ];
  return rows.filter((r): r is [string, string] => r[1] !== null);
}

/** What the policy did, in one sentence. */
function outcome(policy: Policy): string {
  if (!policy.rule)
    return policy.held
      ? `No rule matched, and a rule might have with scores (${policy.held}): people decide.`
      : 'No rule matched: people decide.';
  const would = policy.suggestion ? `would have ${policy.suggestion === 'promote' ? 'promoted' : 'rejected'} it` : '';
  if (policy.sampled) return `Rule “${policy.rule}” matched; this frame is a sample: the rule ${would}, people decide.`;
  if (policy.held) return `Rule “${policy.rule}” matched and ${would}, but held it for people (${policy.held}).`;
  if (policy.action === 'review') return `Rule “${policy.rule}” matched: it sends the frame to people.`;
  return `Rule “${policy.rule}” matched: ${policy.action}${policy.reason ? ` (${policy.reason})` : ''}.`;
}

/** "Why here": the rule that matched (or none), a sample's suggestion, and the signals and scores it read. */
export function WhyHere({ submission }: { readonly submission: SubmissionDetail }) {
  const policy = submission.policy ?? null;
  const scores = Object.entries(policy?.scores ?? {});
  return (
    <section className="why-here" aria-labelledby="why-heading">
      <h3 id="why-heading">Why here</h3>
      <p className="chips">
        <PolicyChips item={submission} />
      </p>
      {policy ? <p>{outcome(policy)}</p> : <p>No review policy routed this frame.</p>}
      {policy?.signals && <p className="hint">What it read:</p>}
      {policy?.signals && (
        <dl className="meta signals">
          {signalRows(policy.signals).map(([term, value]) => (
            <Fragment key={term}>
              <dt>{term}</dt>
              <dd>{value}</dd>
            </Fragment>
          ))}
          {scores.map(([name, value]) => (
            <Fragment key={name}>
              <dt>Score {name}</dt>
              <dd>{number(value)}</dd>
            </Fragment>
          ))}
        </dl>
      )}
    </section>
  );
}
