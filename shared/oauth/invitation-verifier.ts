/**
 * The PKCE verifier an invitation's holder proves with: the unpadded base64url of the invitation
 * token (for an alphanumeric token this is also its unpadded standard Base64). Free of Node APIs,
 * so the server (`pkce.ts`) and the portal page in the browser share this one definition.
 */
export function invitationVerifier(token: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(token)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
