// Pure formatting helpers: times, sizes, bodies, and the curl command.

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(n < 10 * 1024 ? 1 : 0)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** "3 s ago", "5 min ago", "in 2 h": short enough for a list column. */
export function relativeTime(iso: string, now: number = Date.now()): string {
  const diff = Date.parse(iso) - now;
  const abs = Math.abs(diff);
  const units: Array<[number, string]> = [
    [86_400_000, 'd'],
    [3_600_000, 'h'],
    [60_000, 'min'],
    [1000, 's'],
  ];
  if (abs < 1000) return diff <= 0 ? 'just now' : 'in a moment';
  const [size, unit] = units.find(([s]) => abs >= s)!;
  const amount = Math.floor(abs / size);
  return diff < 0 ? `${amount} ${unit} ago` : `in ${amount} ${unit}`;
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** Local date and time to the second: "2026-11-22 10:15:03". */
export function localDateTime(iso: string): string {
  const d = new Date(iso);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** Local time with milliseconds for a list row: "10:15:03.123". */
export function localTimeMs(iso: string): string {
  const d = new Date(iso);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

/** `received_at` keeps six fractional digits; Date would drop three of them. */
export function utcMicros(iso: string): string {
  return iso.replace('T', ' ').replace('Z', ' UTC');
}

export function isToday(iso: string): boolean {
  return new Date(iso).toDateString() === new Date().toDateString();
}

export function decodeBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** The classic 16-bytes-a-line dump: offset, hex, printable ASCII. */
export function hexDump(bytes: Uint8Array, limit = 64 * 1024): string {
  const lines: string[] = [];
  const end = Math.min(bytes.length, limit);
  for (let offset = 0; offset < end; offset += 16) {
    const row = bytes.subarray(offset, Math.min(offset + 16, end));
    const hex = Array.from(row, (b) => b.toString(16).padStart(2, '0')).join(' ');
    const ascii = Array.from(row, (b) =>
      b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.',
    ).join('');
    lines.push(`${offset.toString(16).padStart(8, '0')}  ${hex.padEnd(47)}  ${ascii}`);
  }
  if (bytes.length > end) lines.push(`… ${formatBytes(bytes.length - end)} more`);
  return lines.join('\n');
}

/** Pretty JSON when the text parses as JSON, else null. */
export function prettyJson(text: string): string | null {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return null;
  try {
    return JSON.stringify(JSON.parse(trimmed), null, 2);
  } catch {
    return null;
  }
}

/** The same rule as the server's forwarding (DESIGN §5): sub-path and query appended. */
export function targetUrl(base: string, subPath: string, queryString: string): string {
  const url = new URL(base);
  if (subPath !== '') {
    url.pathname = `${url.pathname.replace(/\/+$/, '')}/${subPath.replace(/^\/+/, '')}`;
  }
  if (queryString === '') return url.toString();
  const existing = url.search.replace(/^\?/, '');
  const stem = url.toString().replace(/[?#].*$/, '');
  return `${stem}?${existing === '' ? queryString : `${existing}&${queryString}`}${url.hash}`;
}

/** Single-quoted for a POSIX shell: nothing inside is interpreted. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

// Set by curl itself or meaningless on a new connection (DESIGN §5's hop-by-hop list).
const SKIP_HEADERS = new Set([
  'host',
  'content-length',
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'expect',
]);

/**
 * A curl command that sends the same request again: method, headers in arrival order,
 * and the exact body bytes (piped through base64 when they are not text).
 */
export function curlCommand(request: {
  method: string;
  url: string;
  headers: Array<[string, string]>;
  body: string;
  bodyEncoding: 'utf8' | 'base64';
}): string {
  const parts: string[] = [];
  const method = request.method.toUpperCase();
  const hasBody = request.body !== '';
  if (method === 'HEAD') parts.push('--head');
  else if (method !== (hasBody ? 'POST' : 'GET')) parts.push(`-X ${method}`);
  parts.push(shellQuote(request.url));
  for (const [name, value] of request.headers) {
    if (!SKIP_HEADERS.has(name.toLowerCase())) parts.push(`-H ${shellQuote(`${name}: ${value}`)}`);
  }
  let prefix = '';
  if (hasBody) {
    if (request.bodyEncoding === 'base64') {
      prefix = `echo ${shellQuote(request.body)} | base64 -d | `;
      parts.push('--data-binary @-');
    } else {
      parts.push(`--data-binary ${shellQuote(request.body)}`);
    }
  }
  return `${prefix}curl ${parts.join(' \\\n  ')}`;
}
