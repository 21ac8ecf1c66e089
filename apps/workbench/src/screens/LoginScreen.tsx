import { type FormEvent, useState } from 'react';
import { ApiError } from '../api/client';
import { useSignInOptions } from '../hooks/usePeople';
import { useLogin } from '../hooks/useSession';
import { Button, TextField } from '../ui';
import './teams.css';

/** Why single sign-on sent the person back (`/?sso_error=…`), in words. */
export const SSO_ERRORS: Record<string, string> = {
  no_account:
    'Your identity provider signed you in, but there is no Framedesk account for your email. Ask an admin to invite you.',
  email_not_verified:
    'Your identity provider did not confirm your email address, so Framedesk cannot tell who you are.',
  disabled: 'Your Framedesk account is disabled. Ask an admin to enable it.',
  failed: 'The sign-in could not be verified (it may have taken too long, or been used already). Try again.',
  unavailable: 'The identity provider could not be reached. Try again shortly.',
};

function PasswordForm() {
  const login = useLogin();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    login.mutate({ email, password });
  };
  const error =
    login.error instanceof ApiError ? login.error.detail : login.error ? 'Could not reach the server.' : null;
  return (
    <form onSubmit={onSubmit} aria-label="Sign in" className="form-stack">
      <TextField label="Email" type="email" autoComplete="username" value={email} onChange={setEmail} isRequired />
      <TextField
        label="Password"
        type="password"
        autoComplete="current-password"
        value={password}
        onChange={setPassword}
        isRequired
      />
      <Button type="submit" variant="primary" size="lg" isDisabled={login.isPending}>
        Sign in
      </Button>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
    </form>
  );
}

/**
 * Passwords, single sign-on ("Sign in with <provider>"), or both. With PASSWORD_LOGIN=false the
 * password form is folded away for the break-glass admin.
 */
export function LoginScreen() {
  const options = useSignInOptions().data;
  const params = new URLSearchParams(window.location.search);
  const ssoError = params.get('sso_error');
  const back = new URLSearchParams(params);
  back.delete('sso_error');
  const returnTo = window.location.pathname + (back.size ? `?${back}` : '');
  return (
    <main className="login">
      <div className="login-card">
        <p className="login-brand">Framedesk</p>
        <h1>Sign in to the workbench</h1>
        {ssoError && (
          <p role="alert" className="error">
            {SSO_ERRORS[ssoError] ?? SSO_ERRORS['failed']}
          </p>
        )}
        {options?.sso && (
          <a
            className="ui-button ui-button--primary ui-button--lg sso-button"
            href={`${options.sso.url}?return_to=${encodeURIComponent(returnTo)}`}
          >
            Sign in with {options.sso.name}
          </a>
        )}
        {options && !options.password_login ? (
          <details className="break-glass">
            <summary>Administrator sign-in with a password</summary>
            <PasswordForm />
          </details>
        ) : (
          <PasswordForm />
        )}
      </div>
    </main>
  );
}
