import { createHash, randomBytes } from 'node:crypto';
import type {} from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from '../http/errors.js';
import type { Services } from '../services.js';
import { createSession, deleteSession, findSessionUser } from '../store/sessions.js';
import type { User } from '../store/users.js';

export const SESSION_COOKIE = 'hw_session';
const SESSION_DAYS = 30;
const MICROS_PER_DAY = 86_400_000_000;

/** Only a hash of the session token is stored: a leaked database opens no session. */
function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export async function startSession(
  services: Services,
  reply: FastifyReply,
  userId: number,
): Promise<void> {
  const token = randomBytes(32).toString('base64url');
  const now = services.clock.nowMicros();
  await createSession(services.store, {
    idHash: hashToken(token),
    userId,
    now,
    expiresAt: now + SESSION_DAYS * MICROS_PER_DAY,
  });
  reply.setCookie(SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: 'lax',
    secure: services.config.baseUrl.startsWith('https:'),
    path: '/',
    maxAge: SESSION_DAYS * 86_400,
  });
}

export async function endSession(
  services: Services,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  const token = request.cookies[SESSION_COOKIE];
  if (token) await deleteSession(services.store, hashToken(token));
  reply.clearCookie(SESSION_COOKIE, { path: '/' });
}

export async function sessionUser(
  services: Services,
  request: FastifyRequest,
): Promise<User | undefined> {
  const token = request.cookies[SESSION_COOKIE];
  if (!token) return undefined;
  return findSessionUser(services.store, hashToken(token), services.clock.nowMicros());
}

/** The signed-in user, or 401. */
export async function requireUser(services: Services, request: FastifyRequest): Promise<User> {
  const user = await sessionUser(services, request);
  if (!user)
    throw new HttpError(401, 'unauthenticated', 'Log in first: this call needs a session.');
  return user;
}
