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
