import { useMemo, useState } from 'react';
import { decodeBase64, formatBytes, hexDump, prettyJson } from '../format';
import { CopyButton } from './CopyButton';

type View = 'pretty' | 'raw' | 'hex' | 'base64';

/** Past this, text is cut until the user asks for all of it (the DOM, not the data, is the limit). */
const SHOW_FIRST = 256 * 1024;

/**
 * A request or response body: pretty JSON with a raw toggle for text, a hex dump or the
 * base64 for binary. What is shown is never altered beyond indentation.
 */
export function BodyView({
  body,
  encoding,
  contentType,
  label,
  downloadName,
}: {
  body: string;
  encoding: 'utf8' | 'base64';
  contentType: string | null;
  label: string;
  downloadName: string;
}) {
  const pretty = useMemo(() => (encoding === 'utf8' ? prettyJson(body) : null), [body, encoding]);
  const [view, setView] = useState<View>(encoding === 'base64' ? 'hex' : pretty ? 'pretty' : 'raw');
  const [showAll, setShowAll] = useState(false);
  const bytes = useMemo(
    () => (encoding === 'base64' ? decodeBase64(body) : new TextEncoder().encode(body)),
    [body, encoding],
  );

  if (body === '') return <p className="muted">No body.</p>;

  const views: View[] =
    encoding === 'base64' ? ['hex', 'base64'] : pretty ? ['pretty', 'raw'] : ['raw'];
  let text = view === 'pretty' && pretty ? pretty : view === 'hex' ? hexDump(bytes) : body;
  const cut = !showAll && text.length > SHOW_FIRST;
  if (cut) text = text.slice(0, SHOW_FIRST);
  const download = () => {
    const url = URL.createObjectURL(
      new Blob([bytes as BlobPart], { type: contentType ?? 'application/octet-stream' }),
    );
    const a = document.createElement('a');
    a.href = url;
    a.download = downloadName;
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  };

  return (
    <div className="body-view">
      <div className="toolbar">
        {views.length > 1 ? (
          <div className="segmented" role="group" aria-label={`${label} view`}>
            {views.map((v) => (
              <button
                key={v}
                type="button"
                className="button small"
                aria-pressed={view === v}
                onClick={() => setView(v)}
              >
                {v === 'pretty' ? 'Pretty' : v === 'raw' ? 'Raw' : v === 'hex' ? 'Hex' : 'Base64'}
              </button>
            ))}
          </div>
        ) : null}
        {encoding === 'base64' ? (
          <span className="muted">binary, {formatBytes(bytes.length)}</span>
        ) : null}
        <span className="spacer" />
        <CopyButton
          text={
            encoding === 'base64' && view === 'base64'
              ? body
              : view === 'pretty' && pretty
                ? pretty
                : body
          }
        />
        <button type="button" className="button small" onClick={download}>
          Download
        </button>
      </div>
      <pre className="code" tabIndex={0} aria-label={label}>
        <code>{text}</code>
      </pre>
      {cut ? (
        <button type="button" className="button small" onClick={() => setShowAll(true)}>
          Show all {formatBytes(bytes.length)}
        </button>
      ) : null}
    </div>
  );
}
