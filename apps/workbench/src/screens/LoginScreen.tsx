import { type FormEvent, useState } from 'react';
import { ApiError } from '../api/client';
import { useLogin } from '../hooks/useSession';

export function LoginScreen() {
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
    <main className="login">
      <h1>Framedesk workbench</h1>
      <form onSubmit={onSubmit} aria-label="Sign in">
        <label htmlFor="login-email">Email</label>
        <input
          id="login-email"
          type="email"
          autoComplete="username"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          required
        />
        <label htmlFor="login-password">Password</label>
        <input
          id="login-password"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          required
        />
        <button type="submit" disabled={login.isPending}>
          Sign in
        </button>
        {error && (
          <p role="alert" className="error">
            {error}
          </p>
        )}
      </form>
    </main>
  );
}
