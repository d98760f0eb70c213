import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';

/** A mail as the SMTP server received it, with the parts the tests look at decoded. */
export interface ReceivedMail {
  from: string;
  to: string[];
  subject: string;
  headers: Map<string, string>;
  text: string;
  html: string;
  raw: string;
}

/** A real SMTP server on loopback that keeps what it receives. */
export interface Mailbox {
  /** `smtp://127.0.0.1:<port>`, for SMTP_URL. */
  url: string;
  mails: ReceivedMail[];
  /** Mails to one address (each test signs up its own user). */
  to(address: string): ReceivedMail[];
  /** Refuses the next `count` messages to this address with a temporary error. */
  refuseNext(address: string, count?: number): void;
  close(): Promise<void>;
}

function decodeQuotedPrintable(text: string): string {
  const bytes: number[] = [];
  const soft = text.replace(/=\r?\n/g, '');
  for (let i = 0; i < soft.length; i += 1) {
    const c = soft[i]!;
    if (c === '=' && /^[0-9A-F]{2}$/i.test(soft.slice(i + 1, i + 3))) {
      bytes.push(parseInt(soft.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(c, 'utf8'));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** RFC 2047 encoded words, as nodemailer writes subjects with quotes or non-ASCII text. */
function decodeEncodedWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(
      /=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g,
      (_all, _charset: string, kind: string, text: string) =>
        kind.toUpperCase() === 'B'
          ? Buffer.from(text, 'base64').toString('utf8')
          : decodeQuotedPrintable(text.replace(/_/g, ' ')),
    );
}

function splitHeaders(block: string): Map<string, string> {
  const headers = new Map<string, string>();
  for (const line of block.replace(/\r?\n[ \t]/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0)
      headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return headers;
}

function decodeBody(headers: Map<string, string>, body: string): string {
  const encoding = (headers.get('content-transfer-encoding') ?? '7bit').toLowerCase();
  if (encoding === 'quoted-printable') return decodeQuotedPrintable(body);
  if (encoding === 'base64')
    return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  return body;
}

/** Enough MIME for what nodemailer writes: one level of multipart/alternative. */
export function parseMail(raw: string, from: string, to: string[]): ReceivedMail {
  const split = raw.indexOf('\r\n\r\n');
  const headers = splitHeaders(raw.slice(0, split));
  const body = raw.slice(split + 4);
  let text = '';
  let html = '';
  const type = headers.get('content-type') ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/.exec(type)?.[1];
  if (boundary) {
    for (const part of body.split(`--${boundary}`).slice(1)) {
      if (part.startsWith('--')) break;
      const cut = part.indexOf('\r\n\r\n');
      const partHeaders = splitHeaders(part.slice(0, cut).trim());
      const content = decodeBody(partHeaders, part.slice(cut + 4).replace(/\r\n$/, ''));
      const partType = partHeaders.get('content-type') ?? '';
      if (partType.startsWith('text/plain')) text = content;
      if (partType.startsWith('text/html')) html = content;
    }
  } else {
    text = decodeBody(headers, body);
  }
  return {
    from,
    to,
    subject: decodeEncodedWords(headers.get('subject') ?? ''),
    headers,
    text,
    html,
    raw,
  };
}

export async function startMailbox(): Promise<Mailbox> {
  const mails: ReceivedMail[] = [];
  const refusals = new Map<string, number>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      const left = refusals.get(address.address.toLowerCase()) ?? 0;
      if (left > 0) {
        refusals.set(address.address.toLowerCase(), left - 1);
        const error = new Error('mailbox busy, try again later') as Error & {
          responseCode: number;
        };
        error.responseCode = 451;
        callback(error);
        return;
      }
      callback();
    },
    onData(stream: SMTPServerDataStream, session: SMTPServerSession, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
        const to = session.envelope.rcptTo.map((r) => r.address.toLowerCase());
        mails.push(parseMail(Buffer.concat(chunks).toString('utf8'), from, to));
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    to: (address) => mails.filter((m) => m.to.includes(address.toLowerCase())),
    refuseNext(address, count = 1) {
      refusals.set(address.toLowerCase(), count);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
