// The REST API's shapes (DESIGN §7) as TypeBox schemas. The same objects validate the
// requests, describe the answers in the OpenAPI document, and are what the tests check
// every real answer against — so the reference cannot drift from the code.
import { type TSchema, Type } from '@sinclair/typebox';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../events/paging.js';
import { VERIFY_SCHEMES } from '../store/schema.js';

const MAX_ID = Number.MAX_SAFE_INTEGER;

function Nullable<T extends TSchema>(schema: T) {
  return Type.Union([schema, Type.Null()]);
}

function StringEnum<T extends string>(values: readonly T[], description?: string) {
  return Type.Unsafe<T>({ type: 'string', enum: [...values], description });
}

const Time = (description: string) => Type.String({ format: 'date-time', description });
const Id = (description: string) => Type.Integer({ minimum: 1, maximum: MAX_ID, description });

export const ErrorSchema = Type.Object(
  {
    error: Type.String({ description: 'A snake_case code to branch on.', examples: ['not_found'] }),
    detail: Type.String({ description: 'A sentence for a person.' }),
  },
  { $id: 'Error', description: 'Every error answer has this shape.' },
);

export const EndpointSchema = Type.Object(
  {
    id: Id('The endpoint id.'),
    name: Type.String(),
    token: Type.String({ description: 'The secret part of the capture URL.' }),
    url: Type.String({ format: 'uri', description: 'The capture URL: `{base_url}/i/<token>`.' }),
    is_active: Type.Boolean({
      description: 'False while paused: it still captures, forwarding waits, alerts are off.',
    }),
    forwarding: Nullable(Type.String({ format: 'uri', description: 'The forwarding URL.' })),
    verify_scheme: Nullable(StringEnum(VERIFY_SCHEMES, 'Which signature scheme is checked.')),
    events_total: Type.Integer({ minimum: 0, description: 'Events captured so far.' }),
    created_at: Time('When the endpoint was created.'),
    silence_minutes: Nullable(
      Type.Number({ exclusiveMinimum: 0, description: 'Silence alert threshold.' }),
    ),
    last_event_at: Nullable(Time('When the last event arrived.')),
    signature_header: Nullable(Type.String({ description: 'Header read by `hmac_sha256`.' })),
    has_signing_secret: Type.Boolean({ description: 'The secret itself is never returned.' }),
    alert_webhook_url: Nullable(Type.String({ format: 'uri' })),
    forwarding_failing_since: Nullable(
      Time('Since when deliveries have failed without a success.'),
    ),
    last_delivery_at: Nullable(Time('When the last automatic delivery finished.')),
    last_delivery_ok: Nullable(Type.Boolean({ description: 'Whether it got a 2xx.' })),
  },
  { $id: 'Endpoint' },
);

const eventSummaryProperties = {
  id: Id('The event id.'),
  endpoint: Id('The id of the endpoint that captured it.'),
  method: Type.String({ examples: ['POST'] }),
  path: Type.String({ description: 'What followed the token in the capture URL, often "".' }),
  received_at: Time('When it arrived, to the microsecond.'),
  source_ip: Type.String(),
  size: Type.Integer({ minimum: 0, description: 'Body bytes received.' }),
  content_type: Nullable(Type.String()),
  signature: Nullable(
    StringEnum(['valid', 'invalid'], 'The verdict; null when the endpoint verifies nothing.'),
  ),
  signature_reason: Nullable(
    StringEnum([
      'missing_header',
      'malformed_header',
      'timestamp_out_of_tolerance',
      'mismatch',
      'no_secret',
    ]),
  ),
  forward_status: Nullable(
    StringEnum(
      ['not_forwarded', 'pending', 'retrying', 'delivered', 'cancelled'],
      'Null when forwarding was off at capture.',
    ),
  ),
  attempts: Type.Integer({
    minimum: 0,
    description: 'Delivery attempts started, automatic and replay.',
  }),
};

export const EventSummarySchema = Type.Object(eventSummaryProperties, { $id: 'EventSummary' });

export const DeliverySchema = Type.Object(
  {
    id: Id('The attempt id.'),
    attempt: Type.Integer({ minimum: 1, description: 'Numbered 1, 2, 3… per event.' }),
    trigger: StringEnum(['auto', 'replay']),
    target_url: Nullable(Type.String()),
    state: StringEnum(['scheduled', 'in_flight', 'succeeded', 'failed', 'cancelled']),
    scheduled_at: Nullable(Time('When it is or was due.')),
    started_at: Nullable(Time('When it started.')),
    finished_at: Nullable(Time('When it finished.')),
    duration_ms: Nullable(Type.Integer({ minimum: 0 })),
    status_code: Nullable(Type.Integer()),
    error: Nullable(Type.String({ description: 'Why it failed without a status code.' })),
    response_headers: Nullable(Type.Record(Type.String(), Type.String())),
    response_body: Nullable(Type.String({ description: 'The first 16 KiB of the answer.' })),
    response_body_encoding: Nullable(StringEnum(['utf8', 'base64'])),
  },
  { $id: 'Delivery' },
);

export const EventDetailSchema = Type.Object(
  {
    ...eventSummaryProperties,
    headers: Type.Record(Type.String(), Type.String(), {
      description: 'Lower-cased name → value; duplicates joined with ", ".',
    }),
    raw_headers: Type.Array(Type.Array(Type.String(), { minItems: 2, maxItems: 2 }), {
      description: 'The [name, value] pairs exactly as they arrived: case, order, duplicates.',
    }),
    body: Type.String({ description: 'Text when the bytes are valid UTF-8, else base64.' }),
    body_encoding: StringEnum(['utf8', 'base64']),
    truncated: Type.Boolean({ description: 'True when the body was over the size limit.' }),
    query_string: Type.String({ description: 'Raw, without the "?".' }),
    signature_key: Nullable(StringEnum(['current', 'previous'], 'Which secret matched.')),
    deliveries: Type.Array(Type.Ref(DeliverySchema), { description: 'Every attempt, by number.' }),
  },
  { $id: 'EventDetail' },
);

export const EndpointListSchema = Type.Object(
  {
    count: Type.Integer({ minimum: 0 }),
    results: Type.Array(Type.Ref(EndpointSchema), { description: 'Newest first.' }),
  },
  { $id: 'EndpointList' },
);

export const EventListSchema = Type.Object(
  {
    results: Type.Array(Type.Ref(EventSummarySchema), { description: 'Newest first.' }),
    next: Nullable(
      Type.String({ format: 'uri', description: 'The next page to fetch; null on the last.' }),
    ),
  },
  { $id: 'EventList' },
);

/** Registered on the API scope so routes and the document refer to them by name. */
export const SHARED_SCHEMAS = [
  ErrorSchema,
  EndpointSchema,
  EventSummarySchema,
  DeliverySchema,
  EventDetailSchema,
  EndpointListSchema,
  EventListSchema,
];

export const EventListQuery = Type.Object({
  endpoint: Type.Optional(Id('Only this endpoint’s events (an id you own).')),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_LIMIT,
      default: DEFAULT_LIMIT,
      description: `Events per page, 1–${MAX_LIMIT}.`,
    }),
  ),
  before: Type.Optional(
    Type.String({
      description:
        'ISO-8601 time, exclusive: only events received before it. `next` fills this in.',
      examples: ['2026-11-22T10:15:03.123456Z'],
    }),
  ),
  before_id: Type.Optional(
    Id(
      'Tie-breaker that `next` carries with `before`: among events received at exactly `before`, only those with a smaller id.',
    ),
  ),
});

export const EventParams = Type.Object({ id: Id('The event id.') });
