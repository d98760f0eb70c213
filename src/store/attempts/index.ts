// The attempt queue (DESIGN §5): the `attempts` table is the queue. Rows move
// scheduled → in_flight (claimed under a lease) → succeeded | failed, or cancelled; a
// failed automatic attempt inserts the next row. Lock order on PostgreSQL, the same in
// every transaction here and in endpoint updates, so none can deadlock another:
// endpoints → attempts → events.
// Each file here is one job on that table; this one is the public API.

export type { AttemptRow } from './shared.js';
export { cancelEventRetries, cancelScheduledForEndpoint } from './cancel.js';
export {
  type ClaimCandidate,
  type ClaimOptions,
  type ClaimedAttempt,
  type DeliveryPayload,
  claimDueAttempts,
  loadDeliveryPayloads,
} from './claim.js';
export { type AttemptResult, type RecordedResult, recordAttemptResults } from './record.js';
export { type ReleasedAttempt, releaseClaims, releaseExpiredLeases } from './leases.js';
export { insertReplayAttempt } from './replay.js';
export { dueQueueStats, nextScheduledAt } from './queue.js';
