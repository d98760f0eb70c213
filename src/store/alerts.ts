import type { ExpressionBuilder, Expression, Selectable, SqlBool, Updateable } from 'kysely';
import { type Db, type Store, writeTransaction } from './db.js';
import type { AlertKind, Database, DbAlert } from './schema.js';

export type Alert = Selectable<DbAlert>;

/** What the checks need to know besides the rows themselves. */
export interface AlertCheck {
  now: number;
  /** Deliveries failing since this moment or earlier raise a forwarding-failing alert. */
  failingCutoff: number;
  failingAlertHours: number;
  emailEnabled: boolean;
}

type EndpointCondition = (eb: ExpressionBuilder<Database, 'endpoints'>) => Expression<SqlBool>;

/**
 * The state change each kind of notice claims and the condition under which it may.
 * Paused endpoints raise and close nothing (DESIGN §3: alerts are off while paused); an
 * open alert waits there until the endpoint is resumed.
 */
function transition(kind: AlertKind, check: AlertCheck): EndpointCondition {
  switch (kind) {
    case 'silence':
      return (eb) =>
        eb.and([
          eb('silence_state', '=', 'ok'),
          eb('silence_deadline', '<=', check.now),
          eb('is_active', '=', 1),
        ]);
    case 'silence_recovered':
      return (eb) => eb.and([eb('silence_state', '=', 'recovering'), eb('is_active', '=', 1)]);
    case 'failing':
      return (eb) =>
        eb.and([
          eb('failing_state', '=', 'ok'),
          eb('failing_since', '<=', check.failingCutoff),
          eb('is_active', '=', 1),
          // Forwarding turned off: nothing is being delivered, so nothing is failing.
          eb('forwarding_url', 'is not', null),
        ]);
    case 'failing_recovered':
      return (eb) => eb.and([eb('failing_state', '=', 'recovering'), eb('is_active', '=', 1)]);
  }
}

function newState(kind: AlertKind) {
  switch (kind) {
    case 'silence':
      return { silence_state: 'alerted' as const };
    case 'silence_recovered':
      return { silence_state: 'ok' as const };
    case 'failing':
      return { failing_state: 'alerted' as const };
    case 'failing_recovered':
      return { failing_state: 'ok' as const };
  }
}

/** Endpoints that are due a notice of this kind (indexed: deadline, failing_since, open states). */
export async function findAlertCandidates(
  store: Store,
  kind: AlertKind,
  check: AlertCheck,
  limit: number,
): Promise<number[]> {
  const rows = await store.db
    .selectFrom('endpoints')
    .select('id')
    .where(transition(kind, check))
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

/** The condition that began before the notice this recovery closes (its `since`). */
async function openedSince(trx: Db, endpointId: number, kind: AlertKind): Promise<number | null> {
  const row = await trx
    .selectFrom('alerts')
    .select('since')
    .where('endpoint_id', '=', endpointId)
    .where('kind', '=', kind)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.since ?? null;
}

async function firstEventAfter(trx: Db, endpointId: number, after: number): Promise<number | null> {
  const row = await trx
    .selectFrom('events')
    .select('received_at')
    .where('endpoint_id', '=', endpointId)
    .where('received_at', '>', after)
    .orderBy('received_at')
    .limit(1)
    .executeTakeFirst();
  return row?.received_at ?? null;
}

/**
 * Claims one notice: a guarded update moves the endpoint's alert state only if it is still
 * in the expected one (so with several instances exactly one wins), and the alert is
 * recorded in the same transaction, before anything is sent (an outbox).
 * Returns null when another instance, a capture or a PATCH got there first.
 */
export async function claimAlert(
  store: Store,
  kind: AlertKind,
  endpointId: number,
  check: AlertCheck,
): Promise<Alert | null> {
  return writeTransaction(store, async (trx) => {
    const endpoint = await trx
      .updateTable('endpoints')
      .set(newState(kind))
      .where('id', '=', endpointId)
      .where(transition(kind, check))
      .returningAll()
      .executeTakeFirst();
    if (!endpoint) return null;
    const user = await trx
      .selectFrom('users')
      .select('email')
      .where('id', '=', endpoint.user_id)
      .executeTakeFirstOrThrow();

    let since: number | null = null;
    let recoveredAt: number | null = null;
    let threshold = endpoint.silence_minutes ?? 0;
    switch (kind) {
      case 'silence':
        since = Math.max(endpoint.last_event_at ?? 0, endpoint.silence_anchor_at ?? 0);
        if (since === 0) since = endpoint.created_at;
        break;
      case 'silence_recovered':
        since = await openedSince(trx, endpointId, 'silence');
        recoveredAt =
          (since === null ? null : await firstEventAfter(trx, endpointId, since)) ??
          endpoint.last_event_at;
        break;
      case 'failing':
        since = endpoint.failing_since;
        threshold = check.failingAlertHours * 60;
        break;
      case 'failing_recovered':
        since = await openedSince(trx, endpointId, 'failing');
        recoveredAt =
          endpoint.last_delivery_ok === 1 && endpoint.last_delivery_at !== null
            ? endpoint.last_delivery_at
            : check.now;
        threshold = check.failingAlertHours * 60;
        break;
    }

    const emailStatus = check.emailEnabled ? 'pending' : 'off';
    const webhookStatus = endpoint.alert_webhook_url !== null ? 'pending' : 'off';
    return trx
      .insertInto('alerts')
      .values({
        user_id: endpoint.user_id,
        endpoint_id: endpoint.id,
        endpoint_name: endpoint.name,
        kind,
        created_at: check.now,
        since,
        recovered_at: recoveredAt,
        threshold_minutes: threshold,
        email_to: user.email,
        email_status: emailStatus,
        email_error: null,
        email_sent_at: null,
        webhook_url: endpoint.alert_webhook_url,
        webhook_status: webhookStatus,
        webhook_error: null,
        webhook_sent_at: null,
        next_try_at: emailStatus === 'pending' || webhookStatus === 'pending' ? check.now : null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  });
}

/**
 * Takes the alerts with a channel due for sending. Each is leased by moving its
 * `next_try_at` past the send's worst-case duration with a guarded update, so two
 * instances never send the same notice; a process that dies mid-send leaves the lease
 * to run out and the notice is tried again.
 */
export async function claimDueAlertSends(
  store: Store,
  now: number,
  leaseMicros: number,
  limit: number,
): Promise<Alert[]> {
  const due = await store.db
    .selectFrom('alerts')
    .select(['id', 'next_try_at'])
    .where('next_try_at', '<=', now)
    .orderBy('next_try_at')
    .limit(limit)
    .execute();
  const claimed: Alert[] = [];
  for (const { id, next_try_at } of due) {
    if (next_try_at === null) continue;
    const row = await store.db
      .updateTable('alerts')
      .set({ next_try_at: now + leaseMicros })
      .where('id', '=', id)
      .where('next_try_at', '=', next_try_at)
      .returningAll()
      .executeTakeFirst();
    if (row) claimed.push(row);
  }
  return claimed;
}

export type AlertSendRecord = Pick<
  Updateable<DbAlert>,
  | 'email_status'
  | 'email_tries'
  | 'email_error'
  | 'email_sent_at'
  | 'webhook_status'
  | 'webhook_tries'
  | 'webhook_error'
  | 'webhook_sent_at'
  | 'next_try_at'
>;

/** Stores the outcome of a send; the caller holds the lease from `claimDueAlertSends`. */
export async function recordAlertSend(
  store: Store,
  id: number,
  record: AlertSendRecord,
): Promise<void> {
  await store.db.updateTable('alerts').set(record).where('id', '=', id).execute();
}

export interface AlertCursor {
  createdAt: number;
  /** Tie-breaker among alerts created in the same microsecond; null: strictly older. */
  id: number | null;
}

/** A page of a user's alerts, newest first (keyset on created_at, id). */
export async function listAlerts(
  store: Store,
  query: { userId: number; limit: number; before: AlertCursor | null },
): Promise<Alert[]> {
  let q = store.db.selectFrom('alerts').selectAll().where('user_id', '=', query.userId);
  const before = query.before;
  if (before) {
    if (before.id === null) {
      q = q.where('created_at', '<', before.createdAt);
    } else {
      const id = before.id;
      q = q
        .where('created_at', '<=', before.createdAt)
        .where((eb) => eb.or([eb('created_at', '<', before.createdAt), eb('id', '<', id)]));
    }
  }
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(query.limit).execute();
}
