import type { CapturedEvent } from '../../src/store/capture.js';

/**
 * An event as the capture path hands it to the store (plain text body, no signature,
 * forwarding off unless `overrides` say otherwise), for suites that store events
 * directly rather than through real captures.
 */
export function capturedEvent(
  endpointId: number,
  userId: number,
  receivedAt: number,
  body: string | Buffer = 'x',
  overrides: Partial<CapturedEvent> = {},
): CapturedEvent {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  return {
    endpointId,
    userId,
    method: 'POST',
    path: '',
    queryString: '',
    headers: JSON.stringify([['content-type', 'text/plain']]),
    body: bytes,
    size: bytes.length,
    contentType: 'text/plain',
    sourceIp: '127.0.0.1',
    receivedAt,
    truncated: false,
    signature: null,
    signatureReason: null,
    signatureKey: null,
    forwardStatus: null,
    firstAttemptUrl: null,
    ...overrides,
  };
}

/** The ids of a batch stored with `insertCapturedEvents`, every one of which must exist. */
export function storedIds(ids: ReadonlyArray<number | null>): number[] {
  return ids.map((id, i) => {
    if (id === null) throw new Error(`event ${i} of the batch was not stored`);
    return id;
  });
}
