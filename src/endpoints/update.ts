import { MICROS_PER_HOUR, MICROS_PER_MINUTE } from '../clock.js';
import type { Bus } from '../store/bus.js';
import { type Store, writeTransaction } from '../store/db.js';
import {
  type Endpoint,
  type EndpointPatch,
  findEndpoint,
  updateEndpoint,
} from '../store/endpoints.js';
import { cancelScheduledForEndpoint } from '../store/attempts/index.js';
import type { EndpointChanges } from './changes.js';

export interface UpdateContext {
  store: Store;
  bus: Bus;
  now: number;
  secretRotationHours: number;
}

function silenceDeadline(lastEventAt: number | null, anchor: number, minutes: number): number {
  return Math.max(lastEventAt ?? 0, anchor) + Math.round(minutes * MICROS_PER_MINUTE);
}

/**
 * Turns validated changes into a row patch, with the rules behind each field:
 * a new secret keeps the old one valid for the rotation window; a new silence threshold
 * or a resume restarts the silence clock; forwarding off cancels what is scheduled.
 */
export function planPatch(
  current: Endpoint,
  changes: EndpointChanges,
  ctx: UpdateContext,
): EndpointPatch {
  const patch: EndpointPatch = {};
  const { now } = ctx;
  if (changes.name !== undefined) patch.name = changes.name;
  if (changes.forwarding !== undefined) patch.forwarding_url = changes.forwarding;
  if (
    changes.forwarding !== undefined &&
    (changes.forwarding === null) !== (current.forwarding_url === null)
  ) {
    // Forwarding turned off or on: failures of the old setup say nothing any more, so an
    // open forwarding-failing alert closes without a recovered notice.
    patch.failing_since = null;
    patch.failing_state = 'ok';
  }
  if (changes.verify_scheme !== undefined) patch.verify_scheme = changes.verify_scheme;
  if (changes.signature_header !== undefined) patch.signature_header = changes.signature_header;
  if (changes.alert_webhook_url !== undefined) patch.alert_webhook_url = changes.alert_webhook_url;

  if (changes.signing_secret !== undefined && changes.signing_secret !== current.signing_secret) {
    patch.signing_secret = changes.signing_secret;
    if (
      changes.signing_secret !== null &&
      current.signing_secret !== null &&
      ctx.secretRotationHours > 0
    ) {
      patch.previous_signing_secret = current.signing_secret;
      patch.previous_secret_expires_at =
        now + Math.round(ctx.secretRotationHours * MICROS_PER_HOUR);
    } else {
      patch.previous_signing_secret = null;
      patch.previous_secret_expires_at = null;
    }
  }

  let silenceMinutes = current.silence_minutes;
  let restartSilence = false;
  if (
    changes.silence_minutes !== undefined &&
    changes.silence_minutes !== current.silence_minutes
  ) {
    silenceMinutes = changes.silence_minutes;
    patch.silence_minutes = silenceMinutes;
    restartSilence = true;
  }
  if (changes.is_active !== undefined && (changes.is_active ? 1 : 0) !== current.is_active) {
    patch.is_active = changes.is_active ? 1 : 0;
    if (changes.is_active) restartSilence = true;
  }
  if (restartSilence && silenceMinutes === null) {
    // Silence alerts turned off: an open alert is closed without a recovered notice
    // (the user asked for no more of these).
    patch.silence_state = 'ok';
    patch.silence_anchor_at = null;
    patch.silence_deadline = null;
  } else if (restartSilence && silenceMinutes !== null) {
    // A fresh clock counted from the later of the last event and now (DESIGN §6). An
    // alert already open stays open: its recovered notice still follows the next
    // request, and no second silence alert comes before that.
    patch.silence_anchor_at = now;
    patch.silence_deadline = silenceDeadline(current.last_event_at, now, silenceMinutes);
  }
  return patch;
}

export async function applyEndpointChanges(
  ctx: UpdateContext,
  userId: number,
  id: number,
  changes: EndpointChanges,
): Promise<Endpoint | undefined> {
  const current = await findEndpoint(ctx.store, userId, id);
  if (!current) return undefined;
  const patch = planPatch(current, changes, ctx);
  const updated = await writeTransaction(ctx.store, async (trx) => {
    // Cancelling first: it locks the endpoint's events before the endpoint row is updated.
    if (current.forwarding_url !== null && patch.forwarding_url === null) {
      await cancelScheduledForEndpoint(ctx.store, trx, id);
    }
    return updateEndpoint(trx, userId, id, patch);
  });
  if (updated) await ctx.bus.publish('endpoint_changed', updated.token);
  return updated;
}
