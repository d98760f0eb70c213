import type { ClaimCandidate } from '../store/attempts/index.js';
import { type DeliveryLanes, destinationOf } from './slots.js';

// Endpoints of saturated hosts left out of a claim, by id; beyond this many their
// attempts are seen by a claim and turned away there instead.
const MAX_SKIPPED = 1000;

type HostRoom = Pick<DeliveryLanes<unknown>, 'hostClaimRoom'>;

/**
 * Takes candidates in due order while this worker's global and per-host room allow.
 * Records each automatic attempt's destination in `endpointHosts` on the way.
 */
export function chooseCandidates(
  candidates: ClaimCandidate[],
  room: number,
  lanes: HostRoom,
  endpointHosts: Map<number, string>,
): number[] {
  const taken = new Map<string, number>();
  const ids: number[] = [];
  for (const c of candidates) {
    if (ids.length >= room) break;
    const host = destinationOf(c.trigger === 'replay' ? c.target_url : c.forwarding_url);
    if (c.trigger === 'auto') endpointHosts.set(c.endpoint_id, host);
    const already = taken.get(host) ?? 0;
    if (lanes.hostClaimRoom(host) - already <= 0) continue;
    taken.set(host, already + 1);
    ids.push(c.id);
  }
  return ids;
}

/** Endpoints whose last seen destination has no claim room left: a claim skips them. */
export function saturatedEndpoints(
  lanes: HostRoom,
  endpointHosts: ReadonlyMap<number, string>,
): number[] {
  const ids: number[] = [];
  for (const [endpointId, host] of endpointHosts) {
    if (lanes.hostClaimRoom(host) > 0) continue;
    ids.push(endpointId);
    if (ids.length >= MAX_SKIPPED) break;
  }
  return ids;
}
