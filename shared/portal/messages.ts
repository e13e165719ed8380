/**
 * Every problem the portal can meet, each as one plain sentence a patient can act on. The page
 * shows the sentence and a way to start again; nothing here names a token or an internal detail.
 */
export type PortalProblem =
  | 'no-code'
  | 'bad-code'
  | 'invitation-unknown'
  | 'invitation-expired'
  | 'invitation-cancelled'
  | 'invitation-replaced'
  | 'not-configured'
  | 'no-session'
  | 'login-denied'
  | 'no-patient'
  | 'hospital-unreachable'
  | 'hospital-error'
  | 'hospital-session-expired'
  | 'service-session-expired'
  | 'identifier-taken'
  | 'service-error';

export const PROBLEMS: Readonly<Record<PortalProblem, string>> = {
  'no-code': 'There is no invitation code in this link. Open the invitation link exactly as you received it.',
  'bad-code': 'This invitation link is incomplete or damaged. Open the invitation link exactly as you received it, or ask your study team for a new one.',
  'invitation-unknown': 'This invitation is not valid or has already been used. Ask your study team for a new invitation.',
  'invitation-expired': 'This invitation has expired. Ask your study team for a new invitation.',
  'invitation-cancelled': 'This invitation was cancelled by your study team. Ask them for a new invitation if you still want to take part.',
  'invitation-replaced': 'This invitation was replaced by a newer one or can no longer be used. Use the newest invitation you received, or ask your study team for a new one.',
  'not-configured': 'This portal is not yet set up to connect to a hospital. Please tell your study team.',
  'no-session': 'This page was not opened from your invitation link in this browser tab. Start again from your invitation link.',
  'login-denied': 'The sign-in at your hospital was cancelled or access was not allowed, so nothing was imported.',
  'no-patient': 'Your hospital did not share which patient record to use (the "launch/patient" permission was not granted). Start again and allow access to your patient record.',
  'hospital-unreachable': "We could not reach your hospital's server. Check your internet connection and try again.",
  'hospital-error': "Your hospital's server answered with an error, so your records could not be read. Please try again later.",
  'hospital-session-expired': 'Your sign-in at the hospital expired before all records were read. Start again to finish; nothing will be stored twice.',
  'service-session-expired': 'Your session with the study expired before all records were saved. Start again to finish; nothing will be stored twice.',
  'identifier-taken': 'This hospital record is already linked to another study participant. Please contact your study team.',
  'service-error': 'The study service could not be reached or answered with an error. Please try again in a moment.',
};

/** Problems a restart from the invitation link cannot fix (the patient needs the study team). */
export const NEEDS_NEW_INVITATION: ReadonlySet<PortalProblem> = new Set([
  'no-code',
  'bad-code',
  'invitation-unknown',
  'invitation-expired',
  'invitation-cancelled',
  'invitation-replaced',
  'not-configured',
  'identifier-taken',
]);

/** An error carrying a problem for the page to show. */
export class PortalError extends Error {
  constructor(readonly problem: PortalProblem) {
    super(PROBLEMS[problem]);
    this.name = 'PortalError';
  }
}
