import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

describe('configuration', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      baseUrl: 'http://localhost:8080',
      databaseUrl: 'sqlite:./data/hookwatch.db',
      maxBodyBytes: 26_214_400,
      retentionDays: 0,
      smtpUrl: null,
      alertFrom: 'hookwatch@localhost',
      trustProxy: false,
      allowPrivateTargets: false,
      logLevel: 'info',
      signatureToleranceSeconds: 300,
      secretRotationHours: 24,
      failingAlertHours: 24,
      deliveryConcurrency: 64,
      deliveryPerHost: 8,
      attemptLeaseSeconds: 120,
    });
    expect([...config.roles]).toEqual(['capture', 'api', 'app', 'worker']);
  });

  it('derives BASE_URL from PORT and strips a trailing slash from an explicit one', () => {
    expect(loadConfig({ PORT: '9000' }).baseUrl).toBe('http://localhost:9000');
    expect(loadConfig({ BASE_URL: 'https://hooks.example.com/' }).baseUrl).toBe(
      'https://hooks.example.com',
    );
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['BASE_URL', 'hooks.example.com'],
    ['DATABASE_URL', 'mysql://x'],
    ['DATABASE_URL', 'sqlite:'],
    ['MAX_BODY_BYTES', '-1'],
    ['TRUST_PROXY', 'maybe'],
    ['HOOKWATCH_ROLES', 'capture,cooking'],
    ['LOG_LEVEL', 'loud'],
    ['SMTP_URL', 'mail.example.com'],
    ['FAILING_ALERT_HOURS', '0'],
    ['DELIVERY_CONCURRENCY', '1.5'],
  ])('stops on %s=%s with a message naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`^${name} must`));
  });

  it('reads roles, flags and numbers', () => {
    const config = loadConfig({
      HOOKWATCH_ROLES: 'capture, worker',
      TRUST_PROXY: 'yes',
      HOOKWATCH_ALLOW_PRIVATE_TARGETS: '1',
      SECRET_ROTATION_HOURS: '0',
      DATABASE_URL: 'postgres://u@h/db',
    });
    expect([...config.roles]).toEqual(['capture', 'worker']);
    expect(config.trustProxy).toBe(true);
    expect(config.allowPrivateTargets).toBe(true);
    expect(config.secretRotationHours).toBe(0);
    expect(config.databaseUrl).toBe('postgres://u@h/db');
  });
});
