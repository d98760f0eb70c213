import { randomBytes } from 'node:crypto';

/** A logged-in dashboard user, as a browser or script would be after signup. */
export interface Session {
  email: string;
  cookie: string;
  id: number;
  /** Calls the dashboard JSON API with the session cookie; bodies are sent as JSON. */
  call(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: any; headers: Headers }>;
}

export async function callJson(
  baseUrl: string,
  method: string,
  path: string,
  options: { body?: unknown; cookie?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.cookie) headers.cookie = options.cookie;
  let payload: string | undefined;
  if (options.body !== undefined) {
    headers['content-type'] ??= 'application/json';
    payload = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  }
  const response = await fetch(`${baseUrl}${path}`, { method, headers, body: payload });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text === '' ? null : JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, body, headers: response.headers };
}

/** Signs up a new user with a unique email and returns its session. */
export async function signUp(baseUrl: string, email?: string): Promise<Session> {
  const address = email ?? `user-${randomBytes(5).toString('hex')}@example.com`;
  const response = await callJson(baseUrl, 'POST', '/app/api/signup', {
    body: { email: address, password: 'correct horse battery' },
  });
  if (response.status !== 201) {
    throw new Error(`signup failed: ${response.status} ${JSON.stringify(response.body)}`);
  }
  const cookie = response.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  return {
    email: address,
    cookie,
    id: response.body.id,
    call: (method, path, body) => callJson(baseUrl, method, path, { body, cookie }),
  };
}

/** Creates an endpoint for the session's user and returns its JSON. */
export async function createEndpoint(session: Session, name = 'Test endpoint'): Promise<any> {
  const response = await session.call('POST', '/app/api/endpoints', { name });
  if (response.status !== 201) {
    throw new Error(`endpoint create failed: ${response.status} ${JSON.stringify(response.body)}`);
  }
  return response.body;
}
