import type { AttemptState } from '../store/schema.js';
import { isSuccessStatus } from './schedule.js';
import type { SendOutcome } from './send.js';

export type FinishedState = Extract<AttemptState, 'succeeded' | 'failed'>;

/**
 * What an answer means for the attempt (DESIGN §5): a 2xx is delivered, even if the
 * connection broke while its body was being read (the receiver said yes); anything
 * else — another status, a redirect (never followed), a timeout, a refused or blocked
 * connection — is a failure, retried on schedule.
 */
export function judgeOutcome(outcome: SendOutcome): { state: FinishedState; error: string | null } {
  const status = outcome.statusCode;
  if (status !== null && isSuccessStatus(status)) {
    return { state: 'succeeded', error: outcome.error };
  }
  if (status !== null && status >= 300 && status < 400 && outcome.error === null) {
    const location = outcome.responseHeaders?.find(([n]) => n.toLowerCase() === 'location')?.[1];
    const where = location ? ` to ${location}` : '';
    return {
      state: 'failed',
      error: `redirect${where} not followed: only a 2xx answer counts as delivered`,
    };
  }
  return { state: 'failed', error: outcome.error };
}
