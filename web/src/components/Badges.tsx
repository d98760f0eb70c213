import { relativeTime, localDateTime } from '../format';
import type { AttemptState, ForwardStatus, SignatureLabel } from '../types';

export function MethodBadge({ method }: { method: string }) {
  return <span className={`method method-${method.toLowerCase()}`}>{method}</span>;
}

export const REASONS: Record<string, string> = {
  missing_header: 'the signature header is missing',
  malformed_header: 'the signature header is malformed',
  timestamp_out_of_tolerance: 'the signed timestamp is too old or too far ahead',
  mismatch: 'the signature does not match the body and secret',
  no_secret: 'no signing secret is set for this endpoint',
};

export function SignatureBadge({
  label,
  reason,
}: {
  label: SignatureLabel | null;
  reason: string | null;
}) {
  if (label === null) return null;
  return (
    <span
      className={`badge ${label === 'valid' ? 'ok' : 'bad'}`}
      title={reason ? (REASONS[reason] ?? reason) : undefined}
    >
      {label === 'valid' ? 'valid' : `invalid${reason ? `: ${reason}` : ''}`}
    </span>
  );
}

const FORWARD_TEXT: Record<ForwardStatus, [string, string]> = {
  pending: ['sending', 'info'],
  retrying: ['retrying', 'warn'],
  delivered: ['delivered', 'ok'],
  cancelled: ['cancelled', 'muted'],
  not_forwarded: ['not forwarded', 'muted'],
};

export function ForwardBadge({ status }: { status: ForwardStatus | null }) {
  if (status === null) return null;
  const [text, tone] = FORWARD_TEXT[status];
  return <span className={`badge ${tone}`}>{text}</span>;
}

const STATE_TONE: Record<AttemptState, string> = {
  scheduled: 'info',
  in_flight: 'info',
  succeeded: 'ok',
  failed: 'bad',
  cancelled: 'muted',
};

export function AttemptBadge({ state }: { state: AttemptState }) {
  return <span className={`badge ${STATE_TONE[state]}`}>{state.replace('_', ' ')}</span>;
}

/** A time as "5 min ago" with the full local time on hover and for machines. */
export function Ago({ iso, empty = 'never' }: { iso: string | null | undefined; empty?: string }) {
  if (!iso) return <span className="muted">{empty}</span>;
  return (
    <time dateTime={iso} title={localDateTime(iso)}>
      {relativeTime(iso)}
    </time>
  );
}
