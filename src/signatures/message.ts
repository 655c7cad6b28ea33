// What an Epistula v2 signature covers, shared by the verifier and the client helper so the two
// can never disagree on the layout (API.md "Validators sign with their hotkeys").

/** Header names as sent; HTTP header names are case-insensitive, Node hands them over lower-cased. */
export const EPISTULA_HEADERS = {
  version: 'Epistula-Version',
  timestamp: 'Epistula-Timestamp',
  uuid: 'Epistula-Uuid',
  signedBy: 'Epistula-Signed-By',
  signedFor: 'Epistula-Signed-For',
  signature: 'Epistula-Request-Signature',
} as const;

export type EpistulaHeader = (typeof EPISTULA_HEADERS)[keyof typeof EPISTULA_HEADERS];

export const EPISTULA_VERSION = '2';

/**
 * The UTF-8 string that is signed: `{sha256 hex of the exact body bytes}.{uuid}.{timestamp}.{signedFor or empty}`.
 * Every part is taken exactly as it travels in the headers.
 */
export function epistulaMessage(
  bodySha256Hex: string,
  uuid: string,
  timestamp: string,
  signedFor: string | undefined,
): string {
  return `${bodySha256Hex}.${uuid}.${timestamp}.${signedFor ?? ''}`;
}
