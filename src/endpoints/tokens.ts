import { randomBytes } from 'node:crypto';

/** 144 random bits, URL-safe: a capture URL cannot be guessed (DESIGN §2). */
export function newCaptureToken(): string {
  return randomBytes(18).toString('base64url');
}
