// The verify module's public face: `verify` dispatches on the scheme, `verifyWithRotation`
// adds the previous secret during its grace period. Nothing here imports the rest of the app.
export { verify } from './dispatch.js';
export { verifyWithRotation, type RotatingSecrets } from './rotation.js';
export { DEFAULT_SIGNATURE_HEADER } from './hmacSha256.js';
export type * from './types.js';
