const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;
// 32 bytes are 43 base64 characters and one "=" of padding; either alphabet.
const BASE64_SHA256 = /^[A-Za-z0-9+/_-]{43}=?$/;
// Padded standard base64, as @stablelib/base64 (standardwebhooks' decoder) reads it.
const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * A SHA-256 digest written as hex (either case) or base64 (standard or URL-safe, padding
 * optional), spelled again as lowercase hex, or null when the text is neither. The two
 * cannot be confused: hex is 64 characters, base64 43 or 44. Lowercase hex text is what
 * the HMAC hands back most cheaply, so the comparison happens in that spelling.
 */
export function sha256DigestAsHex(text: string): string | null {
  // Validated as ASCII hex first, so lowering cannot fold anything else into it.
  if (HEX_SHA256.test(text)) return text.toLowerCase();
  // Node's base64 decoder also reads the URL-safe alphabet.
  if (BASE64_SHA256.test(text)) return Buffer.from(text, 'base64').toString('hex');
  return null;
}

/**
 * Strict base64 → bytes, or null. Node's own decoder skips characters it does not know,
 * which would turn a mistyped secret into a different key without a word.
 */
export function decodeStrictBase64(text: string): Buffer | null {
  return STRICT_BASE64.test(text) ? Buffer.from(text, 'base64') : null;
}
