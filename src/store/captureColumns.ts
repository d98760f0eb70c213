import type { CapturedEvent } from './capture.js';

// Every field but the body, which travels in one buffer of its own.
const FIELDS = [
  'endpointId',
  'userId',
  'method',
  'path',
  'queryString',
  'headers',
  'size',
  'contentType',
  'sourceIp',
  'receivedAt',
  'truncated',
  'signature',
  'signatureReason',
  'signatureKey',
  'forwardStatus',
  'firstAttemptUrl',
] as const satisfies ReadonlyArray<keyof CapturedEvent>;

type Field = (typeof FIELDS)[number];

/**
 * A batch of captured events as one array per field, the form in which it crosses to the
 * SQLite capture thread. Structured cloning rebuilds every object property by property on
 * the far side, which cost more per event than an array of plain values per field; and
 * the bodies go as one buffer that is moved, not copied.
 */
export interface CaptureColumns {
  values: { [F in Field]: Array<CapturedEvent[F]> };
  bodies: ArrayBuffer;
  bodyLengths: number[];
}

export function toColumns(items: readonly CapturedEvent[]): CaptureColumns {
  const values = {} as Record<Field, unknown[]>;
  for (const field of FIELDS) values[field] = items.map((e) => e[field]);
  const bodyLengths = items.map((e) => e.body.length);
  // Not from Buffer's shared pool: the whole ArrayBuffer is handed to the thread.
  const bodies = Buffer.allocUnsafeSlow(bodyLengths.reduce((sum, n) => sum + n, 0));
  let offset = 0;
  for (const e of items) offset += e.body.copy(bodies, offset);
  return { values: values as CaptureColumns['values'], bodies: bodies.buffer, bodyLengths };
}

export function fromColumns({ values, bodies, bodyLengths }: CaptureColumns): CapturedEvent[] {
  const items: CapturedEvent[] = [];
  let offset = 0;
  for (const [i, length] of bodyLengths.entries()) {
    // Spelled out, not looped over FIELDS: one literal gives every event the same shape,
    // and the compiler checks that no field is missing.
    items.push({
      endpointId: values.endpointId[i]!,
      userId: values.userId[i]!,
      method: values.method[i]!,
      path: values.path[i]!,
      queryString: values.queryString[i]!,
      headers: values.headers[i]!,
      body: Buffer.from(bodies, offset, length),
      size: values.size[i]!,
      contentType: values.contentType[i]!,
      sourceIp: values.sourceIp[i]!,
      receivedAt: values.receivedAt[i]!,
      truncated: values.truncated[i]!,
      signature: values.signature[i]!,
      signatureReason: values.signatureReason[i]!,
      signatureKey: values.signatureKey[i]!,
      forwardStatus: values.forwardStatus[i]!,
      firstAttemptUrl: values.firstAttemptUrl[i]!,
    });
    offset += length;
  }
  return items;
}
