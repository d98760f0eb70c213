import { describe, expect, it } from 'vitest';
import { composeAlertMessage, describeMinutes } from '../../src/alerts/messages.js';
import type { Alert } from '../../src/store/alerts.js';
import type { AlertKind } from '../../src/store/schema.js';

const at = (iso: string) => Date.parse(iso) * 1000;

function alert(kind: AlertKind, overrides: Partial<Alert> = {}): Alert {
  return {
    id: 1,
    user_id: 1,
    endpoint_id: 7,
    endpoint_name: 'Shop <live> & "main"',
    kind,
    created_at: at('2026-11-22T10:00:00Z'),
    since: at('2026-11-22T09:00:00Z'),
    recovered_at: kind.endsWith('_recovered') ? at('2026-11-22T10:30:00Z') : null,
    threshold_minutes: kind.startsWith('silence') ? 60 : 1440,
    email_to: 'a@example.com',
    email_status: 'pending',
    email_tries: 0,
    email_error: null,
    email_sent_at: null,
    webhook_url: null,
    webhook_status: 'off',
    webhook_tries: 0,
    webhook_error: null,
    webhook_sent_at: null,
    next_try_at: null,
    ...overrides,
  };
}

describe('alert messages', () => {
  it('names the endpoint and the condition in every subject and text', () => {
    const kinds: AlertKind[] = ['silence', 'silence_recovered', 'failing', 'failing_recovered'];
    for (const kind of kinds) {
      const message = composeAlertMessage(alert(kind), 'https://hooks.example.com');
      expect(message.subject).toContain('"Shop <live> & "main""');
      expect(message.summary).toContain('"Shop <live> & "main""');
      expect(message.text.startsWith(message.summary)).toBe(true);
      expect(message.text).toContain('https://hooks.example.com/');
      if (kind.endsWith('_recovered')) {
        expect(message.subject).toContain('recovered');
        expect(message.summary).toContain('recovered');
        expect(message.summary).toContain('2026-11-22T10:30:00.000Z');
      }
    }
    expect(composeAlertMessage(alert('silence'), 'x').summary).toContain(
      'no requests for 1 hour (nothing since 2026-11-22T09:00:00.000Z)',
    );
    expect(composeAlertMessage(alert('failing'), 'x').subject).toBe(
      'Hookwatch: "Shop <live> & "main"" forwarding failing for 24 hours',
    );
  });

  it('escapes the endpoint name in the HTML part', () => {
    const { html } = composeAlertMessage(alert('silence'), 'x');
    expect(html).toContain('&quot;Shop &lt;live&gt; &amp; &quot;main&quot;&quot;');
    expect(html).not.toContain('<live>');
  });

  it('says so when the endpoint was deleted since', () => {
    const { text } = composeAlertMessage(alert('silence', { endpoint_id: null }), 'x');
    expect(text).toContain('has since been deleted');
  });

  it('words thresholds as a person would', () => {
    expect(describeMinutes(0.1)).toBe('6 seconds');
    expect(describeMinutes(0.5)).toBe('30 seconds');
    expect(describeMinutes(1)).toBe('1 minute');
    expect(describeMinutes(1.5)).toBe('1.5 minutes');
    expect(describeMinutes(90)).toBe('90 minutes');
    expect(describeMinutes(60)).toBe('1 hour');
    expect(describeMinutes(1440)).toBe('24 hours');
  });
});
