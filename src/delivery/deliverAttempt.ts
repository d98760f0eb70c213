import type { Agent } from 'undici';
import type { Services } from '../services.js';
import type { ClaimedAttempt, DeliveryPayload } from '../store/attempts/index.js';
import { judgeOutcome } from './outcome.js';
import { attemptTarget, prepareRequest } from './prepare.js';
import type { ResultWriter } from './resultWriter.js';
import { type SendOutcome, sendRequest } from './send.js';
import { checkTargetUrl } from './ssrf.js';

/** A claimed attempt with what it sends, waiting for a slot. */
export interface Ready {
  claim: ClaimedAttempt;
  payload: DeliveryPayload;
  token: string;
}

export interface DeliverContext {
  services: Services;
  agent: Agent;
  writer: ResultWriter;
  totalTimeoutMs?: number;
}

/**
 * Sends one claimed attempt (or refuses a target that is no longer allowed) and hands
 * the result to the writer; an abandoned send goes back to the queue unrecorded.
 */
export async function deliverAttempt(
  { claim, payload, token }: Ready,
  signal: AbortSignal,
  { services, agent, writer, totalTimeoutMs }: DeliverContext,
): Promise<void> {
  const { row } = claim;
  const target = attemptTarget(row, claim.forwardingUrl, payload);
  let outcome: SendOutcome;
  const refused =
    target === null
      ? 'the endpoint has no forwarding URL any more'
      : checkTargetUrl(target, services.config.allowPrivateTargets);
  if (refused !== null || target === null) {
    outcome = {
      statusCode: null,
      responseHeaders: null,
      responseBody: null,
      error: refused,
      durationMs: 0,
      abandoned: false,
    };
  } else {
    outcome = await sendRequest(agent, prepareRequest(row, payload, target), {
      totalTimeoutMs: totalTimeoutMs,
      signal,
    });
  }
  if (outcome.abandoned) {
    writer.handBack(row.id, token);
    return;
  }
  const verdict = judgeOutcome(outcome);
  services.metrics.attempts.inc({ outcome: verdict.state });
  writer.record({
    attemptId: row.id,
    claimToken: token,
    eventId: row.event_id,
    endpointId: row.endpoint_id,
    trigger: row.trigger,
    autoSeq: row.auto_seq,
    state: verdict.state,
    targetUrl: target ?? row.target_url ?? '',
    finishedAt: services.clock.nowMicros(),
    durationMs: outcome.durationMs,
    statusCode: outcome.statusCode,
    error: verdict.error,
    responseHeaders:
      outcome.responseHeaders === null ? null : JSON.stringify(outcome.responseHeaders),
    responseBody: outcome.responseBody,
  });
}
