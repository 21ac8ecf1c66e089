import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { stubApi } from '../testing/fake-api';
import { PoliciesScreen } from './PoliciesScreen';

const IN_FORCE = {
  policy: { rules: [{ name: 'urgent', when: 'frame.agent == "wire"', action: 'review', approvals: 2, due: '2h' }] },
  version: 3,
  updated_at: '2026-11-27T10:00:00Z',
  updated_by: 'cli:ops',
};
const CEL_PROBLEM = {
  pointer: '/rules/0/when',
  detail: 'rule 1 "urgent": …',
  rule: 1,
  name: 'urgent',
  message: 'Unexpected token: EOF',
  line: 1,
  column: 21,
};

function renderScreen() {
  window.history.replaceState(null, '', '/policies?channel=news');
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <PoliciesScreen />
    </QueryClientProvider>,
  );
}

describe('PoliciesScreen', () => {
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('shows the rules in force, lists a compile problem under the editor, and saves only what compiles', async () => {
    const { calls } = stubApi((call) => {
      if (call.path === '/review/channels')
        return { status: 200, body: { channels: [{ slug: 'news', name: 'news', needs_review: 0 }] } };
      if (call.path === '/review/channels/news/policy' && call.method === 'GET') return { status: 200, body: IN_FORCE };
      if (call.path === '/review/channels/news/policy/check') {
        const when = (call.body as { policy: { rules: { when: string }[] } }).policy.rules[0]?.when ?? '';
        return when.endsWith('&&')
          ? { status: 422, body: { code: 'policy_invalid', detail: '1 problem', errors: [CEL_PROBLEM] } }
          : { status: 200, body: { ok: true, rules: 1 } };
      }
      if (call.path === '/review/channels/news/policy' && call.method === 'PUT')
        return { status: 200, body: { policy: (call.body as { policy: unknown }).policy, version: 4 } };
      return undefined;
    });
    renderScreen();
    const rules = await screen.findByRole('table', { name: 'Rules in force' });
    expect(rules.textContent).toContain('2 approvals, due 2h');
    await screen.findByText('The policy compiles.');

    const editor = screen.getByLabelText('Policy (JSON)');
    fireEvent.change(editor, { target: { value: '{"rules": [' } });
    expect((await screen.findByRole('list', { name: 'Problems' })).textContent).toMatch(/^Not JSON/);

    const broken = { rules: [{ ...IN_FORCE.policy.rules[0], when: 'frame.agent == "x" &&' }] };
    fireEvent.change(editor, { target: { value: JSON.stringify(broken) } });
    await screen.findByText('Rule 1 “urgent” (when, line 1 column 21): Unexpected token: EOF');
    expect(screen.getByRole('button', { name: 'Save' }).hasAttribute('disabled')).toBe(true);
    expect(calls.some((c) => c.method === 'PUT')).toBe(false);

    fireEvent.change(editor, { target: { value: JSON.stringify(IN_FORCE.policy) } });
    await screen.findByText('The policy compiles.');
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(calls.filter((c) => c.method === 'PUT')).toHaveLength(1));
    expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({ policy: IN_FORCE.policy });
  });

  it('says when the policy in force no longer compiles, with each problem', async () => {
    const broken = {
      ...IN_FORCE,
      compiles: false,
      problems: ['rule 1 "urgent": /rules/0/when (line 1, column 21): Unexpected token: EOF'],
    };
    stubApi((call) => {
      if (call.path === '/review/channels')
        return { status: 200, body: { channels: [{ slug: 'news', name: 'news', needs_review: 0 }] } };
      if (call.path === '/review/channels/news/policy' && call.method === 'GET') return { status: 200, body: broken };
      if (call.path === '/review/channels/news/policy/check') return { status: 200, body: { ok: true, rules: 1 } };
      return undefined;
    });
    renderScreen();
    const problems = await screen.findByRole('list', { name: 'Why the policy in force does not compile' });
    expect(problems.textContent).toContain('rule 1 "urgent"');
    expect(screen.getByText(/no longer compiles: every frame of the channel is held for people/)).toBeTruthy();
  });
});
