import type { FastifyInstance } from 'fastify';
import { HttpError, badRequest } from '../http/errors.js';
import type { Services } from '../services.js';
import { createUser, findUserByEmail, type User } from '../store/users.js';
import { createLoginThrottle } from './loginFailures.js';
import {
  MIN_PASSWORD_LENGTH,
  dummyPasswordHash,
  hashPassword,
  verifyPassword,
} from './passwords.js';
import { endSession, requireUser, startSession } from './session.js';
import { findActiveApiKey } from '../store/apiKeys.js';
import { isoMillis } from '../clock.js';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function credentials(body: unknown): { email: string; password: string } {
  if (typeof body !== 'object' || body === null)
    throw badRequest('body', 'must be a JSON object with email and password');
  const { email, password } = body as Record<string, unknown>;
  if (email === undefined) throw badRequest('email', 'is required');
  if (typeof email !== 'string' || !EMAIL.test(email.trim()) || email.length > 254) {
    throw badRequest('email', 'must be an email address');
  }
  if (password === undefined) throw badRequest('password', 'is required');
  if (typeof password !== 'string') throw badRequest('password', 'must be a string');
  return { email: email.trim().toLowerCase(), password };
}

const account = (user: User) => ({ id: user.id, email: user.email, plan: user.plan });

// Signup and login: 20 a minute per source address (DESIGN §8).
const throttled = { config: { rateLimit: { max: 20, timeWindow: 60_000 } } };

export function registerAccountRoutes(app: FastifyInstance, services: Services): void {
  const failures = createLoginThrottle(services.store);

  app.post('/signup', throttled, async (request, reply) => {
    const { email, password } = credentials(request.body);
    if (password.length < MIN_PASSWORD_LENGTH) {
      throw badRequest('password', `must be at least ${MIN_PASSWORD_LENGTH} characters`);
    }
    if (password.length > 1000) throw badRequest('password', 'must be at most 1000 characters');
    const user = await createUser(services.store, {
      email,
      passwordHash: await hashPassword(password),
      plan: 'free',
      now: services.clock.nowMicros(),
    });
    if (!user)
      throw new HttpError(
        409,
        'email_taken',
        'An account with this email already exists; log in instead.',
      );
    await startSession(services, reply, user.id);
    return reply.code(201).send(account(user));
  });

  app.post('/login', throttled, async (request, reply) => {
    const { email, password } = credentials(request.body);
    const now = services.clock.nowMicros();
    const wait = await failures.admit(email, now);
    if (wait > 0) {
      throw new HttpError(
        429,
        'too_many_attempts',
        `Too many failed logins for this account; try again in ${wait} s.`,
        {
          'retry-after': String(wait),
        },
      );
    }
    const user = await findUserByEmail(services.store, email);
    const ok = await verifyPassword(user?.password_hash ?? (await dummyPasswordHash()), password);
    // The attempt already counts as a failure (admit): only a right password clears it.
    if (!user || !ok) {
      throw new HttpError(401, 'invalid_credentials', 'The email or the password is wrong.');
    }
    await failures.clear(email);
    await startSession(services, reply, user.id);
    return account(user);
  });

  app.post('/logout', async (request, reply) => {
    await endSession(services, request, reply);
    return reply.code(204).send();
  });

  app.get('/me', async (request) => {
    const user = await requireUser(services, request);
    const key = await findActiveApiKey(services.store, user.id);
    return {
      ...account(user),
      api_key: key
        ? {
            prefix: key.prefix,
            created_at: isoMillis(key.created_at),
            last_used_at: isoMillis(key.last_used_at),
          }
        : null,
      email_alerts: services.config.smtpUrl !== null,
    };
  });
}
