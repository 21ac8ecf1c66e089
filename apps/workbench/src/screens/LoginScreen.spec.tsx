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

  it('offers "Sign in with <provider>", folds passwords away when they are off, and words why SSO sent the person back', async () => {
    window.history.replaceState(null, '', '/?channel=news&sso_error=no_account');
    stubApi((call) => {
      if (call.path === '/review/session') return { status: 401, body: { code: 'unauthenticated', detail: 'Sign in' } };
      if (call.path === '/review/sign-in')
        return { status: 200, body: { password_login: false, sso: { name: 'Okta', url: '/review/oidc/login' } } };
      return undefined;
    });
    render(
      <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
        <App />
      </QueryClientProvider>,
    );
    const button = await screen.findByRole('link', { name: 'Sign in with Okta' });
    expect(button.getAttribute('href')).toBe(`/review/oidc/login?return_to=${encodeURIComponent('/?channel=news')}`);
    expect(screen.getByRole('alert').textContent).toContain('no Framedesk account for your email');
    expect(screen.getByText('Administrator sign-in with a password').closest('details')?.open).toBe(false);
    window.history.replaceState(null, '', '/');
  });
});
