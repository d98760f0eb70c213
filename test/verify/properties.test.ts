import { createHmac } from 'node:crypto';
import { sign as octokitSign } from '@octokit/webhooks-methods';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import {
  type InvalidReason,
  type RawHeaders,
  type Scheme,
  verify,
} from '../../src/verify/index.js';
import { NOW, OPTIONS, octokitAccepts, standardAccepts, stripeAccepts } from './senders.js';

const SCHEMES: readonly Scheme[] = [
  'stripe',
  'github',
  'shopify',
  'hmac_sha256',
  'standard_webhooks',
];
const REASONS: readonly InvalidReason[] = [
  'missing_header',
  'malformed_header',
  'timestamp_out_of_tolerance',
  'mismatch',
  'no_secret',
];
const HEADER_NAMES = [
  'Stripe-Signature',
  'X-Hub-Signature-256',
  'X-Shopify-Hmac-Sha256',
  'X-Signature',
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
];

// Secrets that are set (not blank) and hold no NUL: HMAC pads short keys with zero bytes,
// so "k" and "k\0" are the same key and would make "a different secret" match.
const secretArb = fc
  .string({ unit: 'grapheme', minLength: 1, maxLength: 40 })
  .filter((s) => !s.includes('\0') && !/^[ \t\r\n\f\v]*$/.test(s));

// Standard Webhooks keys: raw bytes, without trailing zeros for the same padding reason.
const keyArb = fc.uint8Array({ minLength: 1, maxLength: 64 }).filter((k) => k[k.length - 1] !== 0);
const toSecret = (key: Uint8Array) => `whsec_${Buffer.from(key).toString('base64')}`;

const hex64 = fc
  .uint8Array({ minLength: 32, maxLength: 32 })
  .map((b) => Buffer.from(b).toString('hex'));
const b64sig = fc
  .uint8Array({ minLength: 32, maxLength: 32 })
  .map((b) => Buffer.from(b).toString('base64'));
const unix = fc.integer({ min: NOW - 1000, max: NOW + 1000 });

// Values shaped like each scheme's header as well as plain noise, so the parsers are
// driven past their first checks and into the comparisons.
const headerValueArb = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.tuple(unix, hex64).map(([t, s]) => `t=${t},v1=${s}`),
  fc.tuple(fc.string(), fc.string()).map(([t, s]) => `t=${t},v1=${s}`),
  hex64.map((s) => `sha256=${s}`),
  b64sig,
  fc.array(b64sig, { maxLength: 3 }).map((sigs) => sigs.map((s) => `v1,${s}`).join(' ')),
  unix.map(String),
);

const headersArb = fc.array(
  fc.tuple(
    fc.oneof(fc.mixedCase(fc.constantFrom(...HEADER_NAMES)), fc.string({ maxLength: 30 })),
    headerValueArb,
  ),
  { maxLength: 8 },
);

const bodyArb = fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b));

function isValid(result: { label: string }): boolean {
  return result.label === 'valid';
}

describe('verify, on random input', () => {
  it('never throws, always answers with a known reason, and never says valid for noise', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...SCHEMES),
        fc.oneof(fc.constant(null), fc.string({ unit: 'binary' }), keyArb.map(toSecret)),
        fc.record({
          toleranceSeconds: fc.integer({ min: 1, max: 86_400 }),
          signatureHeader: fc.oneof(fc.constant(null), fc.string(), fc.constant('X-Signature')),
        }),
        headersArb,
        bodyArb,
        fc.oneof(unix, fc.double()),
        (scheme, secret, options, headers, body, now) => {
          const result = verify(scheme, secret, options, headers, body, now);
          expect(result.label).toBe('invalid');
          if (result.label === 'invalid') expect(REASONS).toContain(result.reason);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('a request signed with one secret', () => {
  const payloadArb = fc.string({ unit: 'grapheme', maxLength: 200 });
  const caseArb = (name: string) => fc.mixedCase(fc.constant(name));

  it('verifies for stripe with that secret only', () => {
    fc.assert(
      fc.property(
        secretArb,
        secretArb,
        payloadArb,
        caseArb('Stripe-Signature'),
        (a, b, payload, name) => {
          fc.pre(a !== b);
          const header = Stripe.webhooks.generateTestHeaderString({
            payload,
            secret: a,
            timestamp: NOW,
          });
          const headers: RawHeaders = [[name, header]];
          const body = Buffer.from(payload);
          expect(isValid(verify('stripe', a, OPTIONS, headers, body, NOW))).toBe(true);
          expect(isValid(verify('stripe', b, OPTIONS, headers, body, NOW))).toBe(false);
        },
      ),
    );
  });

  it('verifies for github with that secret only', async () => {
    await fc.assert(
      fc.asyncProperty(
        secretArb,
        secretArb,
        payloadArb.filter((p) => p !== ''),
        caseArb('X-Hub-Signature-256'),
        async (a, b, payload, name) => {
          fc.pre(a !== b);
          const headers: RawHeaders = [[name, await octokitSign(a, payload)]];
          const body = Buffer.from(payload);
          expect(isValid(verify('github', a, OPTIONS, headers, body, NOW))).toBe(true);
          expect(isValid(verify('github', b, OPTIONS, headers, body, NOW))).toBe(false);
        },
      ),
    );
  });

  it('verifies for shopify and hmac_sha256 with that secret only', () => {
    fc.assert(
      fc.property(
        secretArb,
        secretArb,
        bodyArb,
        fc.constantFrom('hex', 'base64') as fc.Arbitrary<'hex' | 'base64'>,
        (a, b, body, encoding) => {
          fc.pre(a !== b);
          const digest = createHmac('sha256', a).update(body).digest();
          const shopify: RawHeaders = [['X-Shopify-Hmac-Sha256', digest.toString('base64')]];
          const generic: RawHeaders = [['X-Signature', digest.toString(encoding)]];
          expect(isValid(verify('shopify', a, OPTIONS, shopify, body, NOW))).toBe(true);
          expect(isValid(verify('shopify', b, OPTIONS, shopify, body, NOW))).toBe(false);
          expect(isValid(verify('hmac_sha256', a, OPTIONS, generic, body, NOW))).toBe(true);
          expect(isValid(verify('hmac_sha256', b, OPTIONS, generic, body, NOW))).toBe(false);
        },
      ),
    );
  });

  it('verifies for standard_webhooks with that key only', () => {
    fc.assert(
      fc.property(keyArb, keyArb, payloadArb, (a, b, payload) => {
        fc.pre(!Buffer.from(a).equals(Buffer.from(b)));
        const id = 'msg_property';
        const signature = new Webhook(toSecret(a)).sign(id, new Date(NOW * 1000), payload);
        const headers: RawHeaders = [
          ['Webhook-Id', id],
          ['Webhook-Timestamp', String(NOW)],
          ['Webhook-Signature', signature],
        ];
        const body = Buffer.from(payload);
        expect(isValid(verify('standard_webhooks', toSecret(a), OPTIONS, headers, body, NOW))).toBe(
          true,
        );
        expect(isValid(verify('standard_webhooks', toSecret(b), OPTIONS, headers, body, NOW))).toBe(
          false,
        );
      }),
    );
  });
});

type Tamper = 'none' | 'body' | 'signature' | 'secret';
const tamperArb = fc.constantFrom<Tamper>('none', 'body', 'signature', 'secret');
const offsetArb = fc.integer({ min: -700, max: 700 });
// Valid UTF-8 text without a BOM: where the oracles decode a body to text first, only
// such bodies survive decoding unchanged (the other cases are pinned per scheme).
const oraclePayloadArb = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 200 });

function flipLastChar(text: string): string {
  return text.slice(0, -1) + (text.endsWith('A') ? 'B' : 'A');
}

describe("agreement with the senders' own verifiers", () => {
  it('agrees with stripe-node on valid, tampered and out-of-date requests', () => {
    fc.assert(
      fc.property(
        secretArb,
        oraclePayloadArb,
        offsetArb,
        tamperArb,
        (secret, payload, offset, tamper) => {
          let header = Stripe.webhooks.generateTestHeaderString({
            payload,
            secret,
            timestamp: NOW + offset,
          });
          let body = payload;
          let verifyingSecret = secret;
          if (tamper === 'body') body = `${payload}x`;
          if (tamper === 'signature') header = flipLastChar(header);
          if (tamper === 'secret') verifyingSecret = `${secret}x`;
          const ours = verify(
            'stripe',
            verifyingSecret,
            OPTIONS,
            [['Stripe-Signature', header]],
            Buffer.from(body),
            NOW,
          );
          expect(isValid(ours)).toBe(stripeAccepts(body, header, verifyingSecret));
          expect(isValid(ours)).toBe(tamper === 'none' && offset >= -300);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('agrees with standardwebhooks on valid, tampered and out-of-date requests', () => {
    fc.assert(
      fc.property(
        keyArb,
        fc.stringMatching(/^msg_[A-Za-z0-9]{1,27}$/),
        oraclePayloadArb,
        offsetArb,
        tamperArb,
        (key, id, payload, offset, tamper) => {
          const secret = toSecret(key);
          let signature = new Webhook(secret).sign(id, new Date((NOW + offset) * 1000), payload);
          let body = payload;
          let verifyingSecret = secret;
          if (tamper === 'body') body = `${payload}x`;
          if (tamper === 'signature') signature = `v1,${flipLastChar(signature.slice(3, -1))}=`;
          if (tamper === 'secret')
            verifyingSecret = toSecret(Buffer.concat([key, Buffer.from([1])]));
          const headers: RawHeaders = [
            ['webhook-id', id],
            ['webhook-timestamp', String(NOW + offset)],
            ['webhook-signature', signature],
          ];
          const ours = verify(
            'standard_webhooks',
            verifyingSecret,
            OPTIONS,
            headers,
            Buffer.from(body),
            NOW,
          );
          expect(isValid(ours)).toBe(standardAccepts(body, headers, verifyingSecret));
          expect(isValid(ours)).toBe(tamper === 'none' && Math.abs(offset) <= 300);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('agrees with @octokit/webhooks-methods on valid and tampered requests', async () => {
    await fc.assert(
      fc.asyncProperty(secretArb, oraclePayloadArb, tamperArb, async (secret, payload, tamper) => {
        let signature = await octokitSign(secret, payload);
        let body = payload;
        let verifyingSecret = secret;
        if (tamper === 'body') body = `${payload}x`;
        if (tamper === 'signature') signature = flipLastChar(signature);
        if (tamper === 'secret') verifyingSecret = `${secret}x`;
        const ours = verify(
          'github',
          verifyingSecret,
          OPTIONS,
          [['X-Hub-Signature-256', signature]],
          Buffer.from(body),
          NOW,
        );
        expect(isValid(ours)).toBe(await octokitAccepts(body, signature, verifyingSecret));
        expect(isValid(ours)).toBe(tamper === 'none');
      }),
      { numRuns: 300 },
    );
  });
});
