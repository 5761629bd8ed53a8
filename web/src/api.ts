// HTTP helpers: every failure becomes an ApiFailure with a readable message (the server's JSON error body
// is {"error", "message", "status"}; see kgsvc/api/errors.py).

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    message: string,
  ) {
    super(message);
  }
}

const TOKEN_KEY = "kgsvc-token";

export function getToken(): string {
  return sessionStorage.getItem(TOKEN_KEY) ?? "";
}

export function setToken(token: string): void {
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  else sessionStorage.removeItem(TOKEN_KEY);
}

export function authHeaders(): Record<string, string> {
  const token = getToken();
  return token ? { Authorization: `Bearer ${token}` } : {};
}

/** Fetch and throw an ApiFailure for a network error or a non-2xx answer. */
export async function request(url: string, init: RequestInit = {}): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(url, init);
  } catch (exc) {
    throw new ApiFailure(0, "NetworkError", `the server could not be reached (${String(exc)})`);
  }
  if (!response.ok) {
    const text = await response.text();
    let error = response.statusText || "HTTPError";
    let message = text.trim() || `HTTP ${response.status}`;
    try {
      const body = JSON.parse(text) as { error?: string; message?: string; detail?: unknown };
      if (body.error) error = body.error;
      if (body.message) message = body.message;
      else if (body.detail !== undefined) message = JSON.stringify(body.detail);
    } catch {
      // not JSON: keep the text
    }
    throw new ApiFailure(response.status, error, message);
  }
  return response;
}

export async function getJson<T>(url: string, init: RequestInit = {}): Promise<T> {
  const response = await request(url, { ...init, headers: { Accept: "application/json", ...(init.headers ?? {}) } });
  return (await response.json()) as T;
}

/** A readable one-paragraph description of any error. */
export function describe(exc: unknown): string {
  if (exc instanceof ApiFailure) {
    if (exc.status === 0) return exc.message;
    return `${exc.error} (HTTP ${exc.status}): ${exc.message}`;
  }
  return exc instanceof Error ? exc.message : String(exc);
}

export function enc(name: string): string {
  return encodeURIComponent(name);
}
