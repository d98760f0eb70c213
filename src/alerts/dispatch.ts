import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Metrics } from '../ops/metrics.js';
import { type Alert, type AlertSendRecord, recordAlertSend } from '../store/alerts.js';
import type { Store } from '../store/db.js';
import type { AlertChannelStatus } from '../store/schema.js';
import type { EmailSender } from './email.js';
import { composeAlertMessage } from './messages.js';
import { presentAlertFacts } from './present.js';
import { alertRetryDelay } from './retry.js';
import type { WebhookSender } from './webhook.js';

export interface DispatchDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  baseUrl: string;
  /** Null when SMTP_URL is not set; such alerts were recorded with email `off`. */
  email: EmailSender | null;
  webhook: WebhookSender;
}

type Channel = 'email' | 'webhook';

interface ChannelResult {
  status: AlertChannelStatus;
  tries: number;
  error: string | null;
  sentAt: number | null;
}

const MAX_ERROR_LENGTH = 500;

function describeError(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length > MAX_ERROR_LENGTH ? `${text.slice(0, MAX_ERROR_LENGTH)}…` : text;
}

/**
 * Tries one channel once. A failure is kept as data (the error text the dashboard
 * shows); the channel stays `pending` for a later try until its tries run out.
 */
async function tryChannel(
  channel: Channel,
  alert: Alert,
  send: () => Promise<void>,
  deps: DispatchDeps,
): Promise<ChannelResult> {
  const tries = (channel === 'email' ? alert.email_tries : alert.webhook_tries) + 1;
  try {
    await send();
    deps.metrics.alertsSent.inc({ channel, outcome: 'sent' });
    return { status: 'sent', tries, error: null, sentAt: deps.clock.nowMicros() };
  } catch (error) {
    const gaveUp = alertRetryDelay(tries) === null;
    deps.metrics.alertsSent.inc({ channel, outcome: gaveUp ? 'failed' : 'retrying' });
    deps.logger.warn(
      { alert: alert.id, channel, tries, err: error },
      gaveUp ? 'alert could not be sent; giving up' : 'alert could not be sent; will retry',
    );
    return {
      status: gaveUp ? 'failed' : 'pending',
      tries,
      error: describeError(error),
      sentAt: null,
    };
  }
}

/**
 * Sends a claimed alert on each channel still pending and stores the outcomes. When a
 * channel failed and has tries left, the alert goes back to the outbox for the wait the
 * retry schedule gives; a channel already sent is never sent again.
 */
export async function dispatchAlert(alert: Alert, deps: DispatchDeps): Promise<void> {
  const message = composeAlertMessage(alert, deps.baseUrl);
  const email = deps.email;
  const emailTask =
    alert.email_status === 'pending' && email !== null && alert.email_to !== null
      ? tryChannel('email', alert, () => email.send(alert.email_to!, message, alert.id), deps)
      : null;
  const webhookTask =
    alert.webhook_status === 'pending' && alert.webhook_url !== null
      ? tryChannel(
          'webhook',
          alert,
          () =>
            deps.webhook.send(alert.webhook_url!, {
              text: message.summary,
              ...presentAlertFacts(alert),
            }),
          deps,
        )
      : null;
  const [emailResult, webhookResult] = await Promise.all([emailTask, webhookTask]);

  const record: AlertSendRecord = {};
  const waits: number[] = [];
  if (emailResult) {
    record.email_status = emailResult.status;
    record.email_tries = emailResult.tries;
    if (emailResult.error !== null) record.email_error = emailResult.error;
    record.email_sent_at = emailResult.sentAt;
    if (emailResult.status === 'pending') waits.push(alertRetryDelay(emailResult.tries)!);
  } else if (alert.email_status === 'pending') {
    // SMTP_URL was removed since the alert was recorded: nothing can send it now.
    record.email_status = 'off';
  }
  if (webhookResult) {
    record.webhook_status = webhookResult.status;
    record.webhook_tries = webhookResult.tries;
    if (webhookResult.error !== null) record.webhook_error = webhookResult.error;
    record.webhook_sent_at = webhookResult.sentAt;
    if (webhookResult.status === 'pending') waits.push(alertRetryDelay(webhookResult.tries)!);
  }
  record.next_try_at = waits.length === 0 ? null : deps.clock.nowMicros() + Math.min(...waits);
  await recordAlertSend(deps.store, alert.id, record);
}
