import { request } from 'undici';
import { checkTargetUrl, createGuardedAgent } from '../delivery/ssrf.js';

const CONNECT_TIMEOUT_MS = 10_000;
/** The whole POST, answer included: a hung receiver cannot hold a notice for long. */
const TOTAL_TIMEOUT_MS = 15_000;
/** Enough of an error answer to show in the dashboard. */
const MAX_ERROR_BODY = 300;

export interface WebhookSender {
  /** Resolves on a 2xx; rejects with a sentence for the dashboard otherwise. */
  send(url: string, payload: Record<string, unknown>): Promise<void>;
  close(): Promise<void>;
}

async function readSome(body: AsyncIterable<Buffer> & { destroy(): unknown }): Promise<string> {
  let text = '';
  for await (const chunk of body) {
    text += chunk.toString('utf8');
    if (text.length >= MAX_ERROR_BODY) break;
  }
  body.destroy();
  return text.slice(0, MAX_ERROR_BODY).trim();
}

/**
 * POSTs a notice as JSON to an endpoint's `alert_webhook_url`, through the same SSRF
 * guard as forwarding (DESIGN §6). A redirect is not followed and counts as a failure.
 */
export function createWebhookSender(options: { allowPrivateTargets: boolean }): WebhookSender {
  const agent = createGuardedAgent({
    allowPrivateTargets: options.allowPrivateTargets,
    connectTimeoutMs: CONNECT_TIMEOUT_MS,
  });
  return {
    async send(url, payload) {
      const blocked = checkTargetUrl(url, options.allowPrivateTargets);
      if (blocked !== null) throw new Error(blocked);
      let response;
      try {
        response = await request(url, {
          method: 'POST',
          dispatcher: agent,
          headers: {
            'content-type': 'application/json',
            'user-agent': 'Hookwatch-Alerts',
            'x-hookwatch-alert-id': String(payload.id),
          },
          body: JSON.stringify(payload),
          signal: AbortSignal.timeout(TOTAL_TIMEOUT_MS),
          headersTimeout: TOTAL_TIMEOUT_MS,
          bodyTimeout: TOTAL_TIMEOUT_MS,
        });
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new Error(`POST ${url} failed: ${reason}`, { cause: error });
      }
      if (response.statusCode >= 200 && response.statusCode < 300) {
        await response.body.dump();
        return;
      }
      const answer = await readSome(response.body).catch(() => '');
      throw new Error(
        `POST ${url} answered ${response.statusCode}${answer === '' ? '' : `: ${answer}`}`,
      );
    },
    close: () => agent.close(),
  };
}
