// Configuration is environment only (DESIGN §9), read and validated once at start.
// A wrong value stops the process with a message naming the variable and what it accepts.

export const ROLES = ['capture', 'api', 'app', 'worker'] as const;
export type Role = (typeof ROLES)[number];

export interface Config {
  port: number;
  host: string;
  baseUrl: string;
  /** BASE_URL was not set: it follows the port actually bound (PORT=0 in tests). */
  baseUrlFromPort: boolean;
  databaseUrl: string;
  maxBodyBytes: number;
  retentionDays: number;
  smtpUrl: string | null;
  alertFrom: string;
  trustProxy: boolean;
  allowPrivateTargets: boolean;
  roles: ReadonlySet<Role>;
  logLevel: string;
  signatureToleranceSeconds: number;
  secretRotationHours: number;
  failingAlertHours: number;
  deliveryConcurrency: number;
  deliveryPerHost: number;
  attemptLeaseSeconds: number;
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable} ${message}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function raw(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const value = raw(env, name);
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new ConfigError(name, `must be an integer from ${min} to ${max} (got "${value}")`);
  }
  return Number(value);
}

function number(env: Env, name: string, fallback: number, allowZero: boolean): number {
  const value = raw(env, name);
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || (n === 0 && !allowZero)) {
    const what = allowZero ? 'a number of 0 or more' : 'a positive number';
    throw new ConfigError(name, `must be ${what} (got "${value}")`);
  }
  return n;
}

function flag(env: Env, name: string): boolean {
  const value = raw(env, name)?.toLowerCase();
  if (value === undefined) return false;
  if (['1', 'true', 'yes', 'on'].includes(value)) return true;
  if (['0', 'false', 'no', 'off'].includes(value)) return false;
  throw new ConfigError(
    name,
    `must be one of 1, true, yes, on, 0, false, no, off (got "${value}")`,
  );
}

function httpUrl(name: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(name, `must be an absolute http:// or https:// URL (got "${value}")`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(name, `must be an absolute http:// or https:// URL (got "${value}")`);
  }
  return value.replace(/\/+$/, '');
}

function databaseUrl(env: Env): string {
  const value = raw(env, 'DATABASE_URL') ?? 'sqlite:./data/hookwatch.db';
  if (!/^(sqlite:|postgres:\/\/|postgresql:\/\/)/.test(value)) {
    throw new ConfigError(
      'DATABASE_URL',
      `must start with sqlite: (e.g. sqlite:./data/hookwatch.db) or postgres:// (got "${value}")`,
    );
  }
  if (value.startsWith('sqlite:') && value.slice('sqlite:'.length) === '') {
    throw new ConfigError(
      'DATABASE_URL',
      'must name a file after sqlite: (e.g. sqlite:./data/hookwatch.db)',
    );
  }
  return value;
}

function roles(env: Env): ReadonlySet<Role> {
  const value = raw(env, 'HOOKWATCH_ROLES');
  if (value === undefined || value === 'all') return new Set(ROLES);
  const parts = value
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  for (const part of parts) {
    if (!(ROLES as readonly string[]).includes(part)) {
      throw new ConfigError(
        'HOOKWATCH_ROLES',
        `must be "all" or a comma-separated list of ${ROLES.join(', ')} (got "${part}")`,
      );
    }
  }
  if (parts.length === 0) {
    throw new ConfigError('HOOKWATCH_ROLES', `must name at least one of ${ROLES.join(', ')}`);
  }
  return new Set(parts as Role[]);
}

export function loadConfig(env: Env = process.env): Config {
  const port = integer(env, 'PORT', 8080, 0, 65535);
  const host = raw(env, 'HOST') ?? '127.0.0.1';
  const baseUrlRaw = raw(env, 'BASE_URL');
  const logLevel = raw(env, 'LOG_LEVEL')?.toLowerCase() ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(
      'LOG_LEVEL',
      `must be one of ${LOG_LEVELS.join(', ')} (got "${logLevel}")`,
    );
  }
  const smtpUrl = raw(env, 'SMTP_URL') ?? null;
  if (smtpUrl !== null && !/^smtps?:\/\//.test(smtpUrl)) {
    throw new ConfigError('SMTP_URL', `must start with smtp:// or smtps:// (got "${smtpUrl}")`);
  }
  const alertFrom = raw(env, 'ALERT_FROM') ?? 'hookwatch@localhost';
  if (!/^[^\s@]+@[^\s@]+$/.test(alertFrom) && !/<[^\s@]+@[^\s@]+>$/.test(alertFrom)) {
    throw new ConfigError('ALERT_FROM', `must be an email address (got "${alertFrom}")`);
  }
  return {
    port,
    host,
    baseUrl: baseUrlRaw ? httpUrl('BASE_URL', baseUrlRaw) : `http://localhost:${port}`,
    baseUrlFromPort: !baseUrlRaw,
    databaseUrl: databaseUrl(env),
    maxBodyBytes: integer(env, 'MAX_BODY_BYTES', 26_214_400, 1, 1_073_741_824),
    retentionDays: integer(env, 'RETENTION_DAYS', 0, 0, 36_500),
    smtpUrl,
    alertFrom,
    trustProxy: flag(env, 'TRUST_PROXY'),
    allowPrivateTargets: flag(env, 'HOOKWATCH_ALLOW_PRIVATE_TARGETS'),
    roles: roles(env),
    logLevel,
    signatureToleranceSeconds: integer(env, 'SIGNATURE_TOLERANCE_SECONDS', 300, 1, 86_400),
    secretRotationHours: number(env, 'SECRET_ROTATION_HOURS', 24, true),
    failingAlertHours: number(env, 'FAILING_ALERT_HOURS', 24, false),
    deliveryConcurrency: integer(env, 'DELIVERY_CONCURRENCY', 64, 1, 10_000),
    deliveryPerHost: integer(env, 'DELIVERY_PER_HOST', 8, 1, 10_000),
    attemptLeaseSeconds: integer(env, 'ATTEMPT_LEASE_SECONDS', 120, 5, 86_400),
  };
}
