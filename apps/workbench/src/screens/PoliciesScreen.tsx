import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { ApiError } from '../api/client';
import { type PolicyInForce, policiesApi } from '../api/policies';
import { PolicyRulesTable, ProblemList, SimulationTable } from '../components/PolicyParts';
import { RelativeTime } from '../components/QueueMeta';
import { usePolicyCheck } from '../hooks/usePolicyCheck';
import { useChannelCounts } from '../hooks/useQueue';
import { useRoute } from '../hooks/useRoute';
import { Button, Dialog, Select, Skeleton, toast } from '../ui';
import './teams.css';

const problem = (error: unknown) => (error instanceof ApiError ? error.detail : 'The server did not answer.');

/** What a new policy starts from (docs/policies.md has more). */
const TEMPLATE = {
  rules: [{ name: 'blank', when: 'has(signals.blank) && signals.blank', action: 'reject', reason: 'Low quality' }],
};

const SINCE = [
  { id: '7d', label: 'Last 7 days' },
  { id: '30d', label: 'Last 30 days' },
  { id: '90d', label: 'Last 90 days' },
];

/** The editor, the check as one types, Simulate, Save and Clear, for one channel. */
function PolicyWorkspace({ slug, inForce }: { readonly slug: string; readonly inForce: PolicyInForce }) {
  const client = useQueryClient();
  const [text, setText] = useState(() => JSON.stringify(inForce.policy ?? TEMPLATE, null, 2));
  const [since, setSince] = useState('30d');
  const [confirmClear, setConfirmClear] = useState(false);
  const check = usePolicyCheck(slug, text);
  const editorId = useId();
  const problemsId = useId();
  const valid = check.state === 'ok' ? check.policy : undefined;
  const refresh = () => client.invalidateQueries({ queryKey: ['policy', slug] });
  const simulate = useMutation({ mutationFn: (policy: unknown) => policiesApi.simulate(slug, policy, since) });
  const save = useMutation({
    mutationFn: (policy: unknown) => policiesApi.save(slug, policy),
    onSuccess: (saved) => {
      toast(`Policy of ${slug} saved: ${saved.policy.rules.length} rule(s), version ${saved.version}.`);
      void refresh();
    },
  });
  const clear = useMutation({
    mutationFn: () => policiesApi.clear(slug),
    onSuccess: () => {
      toast(`Policy of ${slug} cleared.`);
      setConfirmClear(false);
      void refresh();
    },
  });
  return (
    <section className="policy-editor" aria-labelledby="editor-title">
      <h2 id="editor-title">Edit</h2>
      <label className="ui-label" htmlFor={editorId}>
        Policy (JSON)
      </label>
      <textarea
        id={editorId}
        className="ui-input ui-textarea policy-text"
        spellCheck={false}
        rows={Math.min(30, Math.max(10, text.split('\n').length + 1))}
        value={text}
        onChange={(e) => setText(e.target.value)}
        aria-invalid={check.state === 'invalid'}
        aria-describedby={problemsId}
      />
      <div id={problemsId} aria-live="polite">
        {check.state === 'checking' && <p className="hint">Checking…</p>}
        {check.state === 'ok' && <p className="hint">The policy compiles.</p>}
        {check.state === 'error' && <p className="error">{check.message}</p>}
        {check.state === 'invalid' && <ProblemList id={`${problemsId}-list`} problems={check.problems} />}
      </div>
      <div className="policy-actions">
        <Select label="Since" value={since} options={SINCE} onChange={setSince} />
        <Button isDisabled={valid === undefined || simulate.isPending} onPress={() => simulate.mutate(valid)}>
          Simulate
        </Button>
        <Button variant="primary" isDisabled={valid === undefined || save.isPending} onPress={() => save.mutate(valid)}>
          Save
        </Button>
        {inForce.policy && (
          <Button variant="danger" onPress={() => setConfirmClear(true)}>
            Clear…
          </Button>
        )}
      </div>
      {[save, simulate, clear].map(
        (m, i) =>
          m.isError && (
            <p key={i} role="alert" className="error">
              {problem(m.error)}
            </p>
          ),
      )}
      {simulate.data && <SimulationTable result={simulate.data} />}
      <Dialog title={`Clear the policy of ${slug}?`} isOpen={confirmClear} onOpenChange={setConfirmClear}>
        <p>Every frame processed from now on follows the channel&apos;s approval defaults. The change is recorded.</p>
        <Button variant="danger" isDisabled={clear.isPending} onPress={() => clear.mutate()}>
          Clear the policy
        </Button>
      </Dialog>
    </section>
  );
}

/** A channel's review policy (docs/policies.md), for admins: the rules in force, an editor that checks as one types, Simulate, Save. */
export function PoliciesScreen() {
  const route = useRoute();
  const channels = useChannelCounts();
  const list = channels.data?.channels ?? [];
  const slug = route.query.get('channel') ?? list[0]?.slug ?? '';
  const shown = useQuery({ queryKey: ['policy', slug], queryFn: () => policiesApi.show(slug), enabled: !!slug });
  const inForce = shown.data;
  return (
    <section className="people policies" aria-labelledby="policies-title">
      <h1 id="policies-title">Policies</h1>
      <Select
        label="Channel"
        value={slug}
        options={list.map((c) => ({ id: c.slug, label: c.name === c.slug ? c.slug : `${c.name} · ${c.slug}` }))}
        onChange={(next) => route.setQuery({ channel: next }, { replace: true })}
      />
      {shown.isError && (
        <p role="alert" className="error">
          {problem(shown.error)}
        </p>
      )}
      {channels.isSuccess && list.length === 0 && <p>No channels yet.</p>}
      {slug && !inForce && !shown.isError && <Skeleton lines={6} />}
      {inForce && (
        <>
          <section aria-labelledby="in-force-title">
            <h2 id="in-force-title">In force</h2>
            {inForce.policy ? (
              <>
                <p className="hint">
                  Version {inForce.version}, set <RelativeTime iso={inForce.updated_at ?? ''} /> by {inForce.updated_by}
                </p>
                {inForce.compiles === false && (
                  <div role="alert" className="error">
                    <p>
                      This policy no longer compiles: every frame of the channel is held for people until a policy is
                      saved again.
                    </p>
                    <ul aria-label="Why the policy in force does not compile">
                      {(inForce.problems ?? []).map((p) => (
                        <li key={p}>{p}</li>
                      ))}
                    </ul>
                  </div>
                )}
                <PolicyRulesTable rules={inForce.policy.rules} />
              </>
            ) : (
              <p>No policy: every processed frame follows the channel&apos;s approval defaults.</p>
            )}
          </section>
          <PolicyWorkspace key={slug} slug={slug} inForce={inForce} />
        </>
      )}
    </section>
  );
}
