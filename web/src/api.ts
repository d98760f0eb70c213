/** An answer other than 2xx: the server's `{error, detail}` plus the field it names. */
export class ApiError extends Error {
  readonly field: string | null;

  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
  ) {
    super(detail);
    // Validation errors read "<field>: <problem>" (DESIGN §8); the field goes next to its input.
    const match = code === 'invalid_request' ? /^([A-Za-z_.-]+): (.*)$/s.exec(detail) : null;
    this.field = match ? match[1]! : null;
  }

  /** The problem without the field name, for showing next to the field. */
  get problem(): string {
    return this.field ? this.detail.slice(this.field.length + 2) : this.detail;
  }
}

export const SESSION_ENDED = 'hookwatch:session-ended';

/** Calls the dashboard JSON API with the session cookie; bodies go as JSON. */
export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      credentials: 'same-origin',
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(
      0,
      'network_error',
      'Hookwatch could not be reached; check your connection.',
    );
  }
  const text = await response.text();
  let json: unknown = null;
  try {
    json = text === '' ? null : JSON.parse(text);
  } catch {
    json = null;
  }
  if (!response.ok) {
    const error = (json ?? {}) as { error?: string; detail?: string };
    if (response.status === 401 && !/\/app\/api\/(login|signup)$/.test(path)) {
      window.dispatchEvent(new Event(SESSION_ENDED));
    }
    throw new ApiError(
      response.status,
      error.error ?? 'http_error',
      error.detail ?? `The server answered ${response.status}.`,
    );
  }
  return json as T;
}

/** A `next` URL from the server, as a same-origin path. */
export function pathOf(url: string): string {
  const parsed = new URL(url, window.location.origin);
  return parsed.pathname + parsed.search;
}

export function errorText(error: unknown): string {
  return error instanceof ApiError ? error.detail : String(error);
}
