import type { CapturedEvent } from '../store/capture.js';
import type { Scheme } from '../verify/index.js';
import { verifyWithRotation } from '../verify/index.js';

/** What the signature check of one request needs: all of it plain data, so it can cross threads. */
export interface SignatureCheck {
  scheme: Scheme;
  current: string | null;
  /** Only while the previous secret is inside its rotation window. */
  previous: string | null;
  signatureHeader: string | null;
  toleranceSeconds: number;
  headers: Array<[string, string]>;
  /** Arrival time in seconds: the label judges the request as it was when it came. */
  nowSeconds: number;
}

/** A capture on its way to the store: labelled in the commit, inside the capture transaction. */
export interface PendingCapture extends CapturedEvent {
  check: SignatureCheck | null;
}

/**
 * Labels a capture (DESIGN §4) and settles its forwarding: an invalid request is kept but
 * never forwarded. This runs where the batch is committed — on SQLite in the writer
 * thread — so the HMAC does not cost the thread that reads requests.
 */
export function finishCapture(pending: PendingCapture): CapturedEvent {
  const { check, ...event } = pending;
  if (check === null) return event;
  const result = verifyWithRotation(
    check.scheme,
    { current: check.current, previous: check.previous },
    { signatureHeader: check.signatureHeader, toleranceSeconds: check.toleranceSeconds },
    check.headers,
    event.body,
    check.nowSeconds,
  );
  if (result.label === 'valid') {
    return { ...event, signature: 'valid', signatureReason: null, signatureKey: result.key };
  }
  return {
    ...event,
    signature: 'invalid',
    signatureReason: result.reason,
    signatureKey: null,
    forwardStatus: event.forwardStatus === 'pending' ? 'not_forwarded' : event.forwardStatus,
    firstAttemptUrl: null,
  };
}
