import { isoMillis } from '../clock.js';
import type { Alert } from '../store/alerts.js';

/** The fields every notice carries, in the list and in the alert webhook's body. */
export function presentAlertFacts(row: Alert) {
  return {
    id: row.id,
    kind: row.kind,
    // The endpoint's id, or null once it was deleted (the name is kept).
    endpoint: row.endpoint_id,
    endpoint_name: row.endpoint_name,
    created_at: isoMillis(row.created_at),
    since: isoMillis(row.since),
    recovered_at: isoMillis(row.recovered_at),
    threshold_minutes: row.threshold_minutes,
  };
}

/** An entry of `GET /app/api/alerts`: the notice and what became of it on each channel. */
export function presentAlert(row: Alert) {
  return {
    ...presentAlertFacts(row),
    channels: {
      email: {
        status: row.email_status,
        to: row.email_to,
        tries: row.email_tries,
        error: row.email_error,
        sent_at: isoMillis(row.email_sent_at),
      },
      webhook: {
        status: row.webhook_status,
        url: row.webhook_url,
        tries: row.webhook_tries,
        error: row.webhook_error,
        sent_at: isoMillis(row.webhook_sent_at),
      },
    },
    next_try_at: isoMillis(row.next_try_at),
  };
}

export type AlertJson = ReturnType<typeof presentAlert>;
