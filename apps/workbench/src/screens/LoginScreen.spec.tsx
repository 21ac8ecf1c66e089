import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { App } from '../App';
import { stubApi } from '../testing/fake-api';

describe('sign in', () => {
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('asks for Email and Password and shows a refused login plainly', async () => {
    const { calls } = stubApi((call) => {
      if (call.path === '/review/session' && call.method === 'GET')
        return { status: 401, body: { code: 'unauthenticated', detail: 'Sign in' } };
      if (call.path === '/review/session')
        return { status: 401, body: { code: 'unauthenticated', detail: 'The email or password is not right.' } };
      return undefined;
    });
    render(
      <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
        <App />
      </QueryClientProvider>,
    );
    fireEvent.change(await screen.findByLabelText('Email'), { target: { value: 'a@example.com' } });
    fireEvent.change(screen.getByLabelText('Password'), { target: { value: 'wrong-password' } });
    fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    expect((await screen.findByRole('alert')).textContent).toBe('The email or password is not right.');
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({
      email: 'a@example.com',
      password: 'wrong-password',
    });
  });
});
