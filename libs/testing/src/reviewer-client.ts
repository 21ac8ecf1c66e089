// A reviewer in the workbench's place: the API and CLI tests drive the review API with it.

/** A cookie jar of one session, and calls that carry its CSRF token. */
export class ReviewerClient {
  cookie = '';
  csrf = '';
  constructor(readonly base: string) {}

  async login(email: string, password: string): Promise<Response> {
    const res = await this.call('POST', '/review/session', { email, password });
    const set = res.headers.get('set-cookie');
    if (set) this.cookie = set.split(';')[0]!;
    if (res.status === 201) this.csrf = ((await res.clone().json()) as { csrf_token: string }).csrf_token;
    return res;
  }

  /**
   * Single sign-on through `authorize` (the test provider's browser walk): starts at
   * /review/oidc/login, returns the callback's answer; on success the client holds the session.
   */
  async ssoSignIn(
    authorize: (authorizationUrl: string) => Promise<string>,
    options: { returnTo?: string; replay?: { callbackUrl: string; pending: string } } = {},
  ): Promise<{ res: Response; callbackUrl: string; pending: string }> {
    let { callbackUrl = '', pending = '' } = options.replay ?? {};
    if (!options.replay) {
      const query = options.returnTo ? `?return_to=${encodeURIComponent(options.returnTo)}` : '';
      const start = await fetch(`${this.base}/review/oidc/login${query}`, { redirect: 'manual' });
      pending = start.headers
        .getSetCookie()
        .find((c) => c.startsWith('fd_oidc='))!
        .split(';')[0]!;
      callbackUrl = await authorize(start.headers.get('location')!);
    }
    const res = await fetch(callbackUrl, { redirect: 'manual', headers: { cookie: pending } });
    const session = res.headers
      .getSetCookie()
      .find((c) => c.startsWith('fd_session=') && !c.startsWith('fd_session=;'));
    if (session) {
      this.cookie = session.split(';')[0]!;
      this.csrf = ((await (await this.call('GET', '/review/session')).json()) as { csrf_token: string }).csrf_token;
    }
    return { res, callbackUrl, pending };
  }

  call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
    return fetch(this.base + path, {
      method,
      headers: {
        ...(this.cookie ? { cookie: this.cookie } : {}),
        ...(this.csrf ? { 'x-csrf-token': this.csrf } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  }
}
