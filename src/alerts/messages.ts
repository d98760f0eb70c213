import { isoMillis } from '../clock.js';
import type { Alert } from '../store/alerts.js';

export interface AlertMessage {
  subject: string;
  /** One line: the alert webhook's Slack-compatible `text`. */
  summary: string;
  /** The mail's plain-text part. */
  text: string;
  html: string;
}

/** `0.1` → "6 seconds", `1` → "1 minute", `90` → "90 minutes", `1440` → "24 hours". */
export function describeMinutes(minutes: number): string {
  if (minutes < 1) {
    const seconds = Math.max(1, Math.round(minutes * 60));
    return `${seconds} second${seconds === 1 ? '' : 's'}`;
  }
  if (minutes >= 60 && minutes % 60 === 0) {
    const hours = minutes / 60;
    return `${hours} hour${hours === 1 ? '' : 's'}`;
  }
  const rounded = Math.round(minutes * 100) / 100;
  return `${rounded} minute${rounded === 1 ? '' : 's'}`;
}

function time(micros: number | null): string {
  return isoMillis(micros) ?? 'an unknown time';
}

function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

interface Wording {
  subject: string;
  /** The one-line summary (the webhook's `text` and the mail's first paragraph). */
  summary: string;
  /** Further paragraphs of the mail. */
  more: string[];
}

function word(alert: Alert): Wording {
  const name = `"${alert.endpoint_name}"`;
  const threshold = describeMinutes(alert.threshold_minutes);
  switch (alert.kind) {
    case 'silence':
      return {
        subject: `Hookwatch: ${name} is silent: no requests for ${threshold}`,
        summary: `Hookwatch endpoint ${name} is silent: no requests for ${threshold} (nothing since ${time(alert.since)}).`,
        more: [
          'A sender that stopped calling usually means a webhook that was disabled, a changed capture URL or a failed deploy on the sending side.',
          'You will get a recovered notice when requests arrive again.',
        ],
      };
    case 'silence_recovered':
      return {
        subject: `Hookwatch: ${name} recovered: requests are arriving again`,
        summary: `Hookwatch endpoint ${name} recovered: requests are arriving again (first at ${time(alert.recovered_at)}, silent since ${time(alert.since)}).`,
        more: [],
      };
    case 'failing':
      return {
        subject: `Hookwatch: ${name} forwarding failing for ${threshold}`,
        summary: `Hookwatch endpoint ${name}: forwarding has failed for ${threshold} without a success (failing since ${time(alert.since)}).`,
        more: [
          'Hookwatch keeps every event and keeps retrying on schedule; check the forwarding URL and the receiving server.',
          'You will get a recovered notice after the next successful delivery.',
        ],
      };
    case 'failing_recovered':
      return {
        subject: `Hookwatch: ${name} forwarding recovered`,
        summary: `Hookwatch endpoint ${name}: forwarding recovered (a delivery succeeded at ${time(alert.recovered_at)}, failing since ${time(alert.since)}).`,
        more: [],
      };
  }
}

/**
 * The notice's wording, the same on every channel: it names the endpoint and the
 * condition, and a recovery says "recovered" in its subject and text.
 */
export function composeAlertMessage(alert: Alert, baseUrl: string): AlertMessage {
  const { subject, summary, more } = word(alert);
  const endpointLine =
    alert.endpoint_id === null
      ? 'The endpoint has since been deleted.'
      : `Endpoint id ${alert.endpoint_id}; dashboard: ${baseUrl}/`;
  const paragraphs = [summary, ...more, endpointLine];
  return {
    subject,
    summary,
    text: `${paragraphs.join('\n\n')}\n`,
    html: `<!doctype html><html><body style="font-family:system-ui,sans-serif">${paragraphs
      .map((p) => `<p>${escapeHtml(p)}</p>`)
      .join('')}</body></html>`,
  };
}
