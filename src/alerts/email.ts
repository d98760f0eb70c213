import nodemailer from 'nodemailer';
import type { AlertMessage } from './messages.js';

/** Timeouts so a hung mail server cannot hold a notice (or a graceful stop) for long. */
const SMTP_TIMEOUTS = {
  connectionTimeout: 10_000,
  greetingTimeout: 10_000,
  socketTimeout: 20_000,
  dnsTimeout: 10_000,
};

export interface EmailSender {
  /** Resolves when the server accepted the message; rejects with its answer otherwise. */
  send(to: string, message: AlertMessage, alertId: number): Promise<void>;
  close(): void;
}

/**
 * Mail over `SMTP_URL` with nodemailer, one connection per message: alerts are rare, and
 * a pooled connection would only go stale between them.
 */
export function createEmailSender(smtpUrl: string, from: string): EmailSender {
  const transport = nodemailer.createTransport({ url: smtpUrl, ...SMTP_TIMEOUTS });
  return {
    async send(to, message, alertId) {
      await transport.sendMail({
        from,
        to,
        subject: message.subject,
        text: message.text,
        html: message.html,
        headers: { 'X-Hookwatch-Alert-Id': String(alertId) },
      });
    },
    close() {
      transport.close();
    },
  };
}
