import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ApiError, setCsrfToken } from '../api/client';
import { peopleApi } from '../api/people';
import { navigate } from '../hooks/useRoute';
import { Button, TextField } from '../ui';
import './teams.css';

/** The invite token travels in the link's fragment (`/welcome#invite=…`), never to a server log. */
function inviteToken(): string {
  return new URLSearchParams(window.location.hash.slice(1)).get('invite') ?? '';
}

/** An invite link: whose it is, and a password to choose; then the person is signed in. */
export function WelcomeScreen() {
  const client = useQueryClient();
  const [token] = useState(inviteToken);
  const [password, setPassword] = useState('');
  const [again, setAgain] = useState('');
  const invite = useQuery({ queryKey: ['invite', token], queryFn: () => peopleApi.previewInvite(token), retry: false });
  const accept = useMutation({
    mutationFn: () => peopleApi.acceptInvite(token, password),
    onSuccess: (session) => {
      setCsrfToken(session.csrf_token);
      client.removeQueries({ predicate: (q) => q.queryKey[0] !== 'session' });
      client.setQueryData(['session'], session);
      navigate('/', { replace: true });
    },
  });
  const mismatch = again.length > 0 && again !== password;
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (!mismatch) accept.mutate();
  };
  return (
    <main className="login">
      <div className="login-card">
        <h1>Welcome to Framedesk</h1>
        {invite.isError && (
          <p role="alert" className="error">
            {invite.error instanceof ApiError ? invite.error.detail : 'The server did not answer.'}
          </p>
        )}
        {invite.data?.accept_with === 'sso' && (
          <div className="form-stack">
            <p>
              You were invited as <strong>{invite.data.email}</strong>. Sign in with your organisation&apos;s account to
              accept.
            </p>
            {invite.data.sso && (
              <a
                className="ui-button ui-button--primary ui-button--lg sso-button"
                href={`${invite.data.sso.url}?return_to=%2F`}
              >
                Sign in with {invite.data.sso.name}
              </a>
            )}
          </div>
        )}
        {invite.data?.accept_with === 'password' && (
          <form onSubmit={onSubmit} aria-label="Choose a password" className="form-stack">
            <p>
              You were invited as <strong>{invite.data.email}</strong>. Choose a password (10 characters at least).
            </p>
            <TextField
              label="Password"
              type="password"
              autoComplete="new-password"
              minLength={10}
              isRequired
              value={password}
              onChange={setPassword}
            />
            <TextField
              label="The same password again"
              type="password"
              autoComplete="new-password"
              isRequired
              value={again}
              isInvalid={mismatch}
              onChange={setAgain}
            />
            {mismatch && <p className="error">The two passwords differ.</p>}
            <Button type="submit" variant="primary" size="lg" isDisabled={accept.isPending || mismatch}>
              Set password and sign in
            </Button>
            {accept.error && (
              <p role="alert" className="error">
                {accept.error instanceof ApiError ? accept.error.detail : 'The server did not answer.'}
              </p>
            )}
          </form>
        )}
      </div>
    </main>
  );
}
