import { badRequest } from '../http/errors.js';

/** A path id: a positive integer, else 400 naming the parameter. */
export function parseId(params: unknown, name: string): number {
  const value = (params as Record<string, string | undefined>)[name];
  if (value === undefined || !/^[1-9]\d{0,15}$/.test(value)) {
    throw badRequest(name, `must be a positive integer id (got "${value ?? ''}")`);
  }
  return Number(value);
}
