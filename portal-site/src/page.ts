/**
 * What every portal page's script does with its page: find elements, write the status line, make
 * elements, show a problem as one plain sentence with a way to start again, and read the launch
 * configuration served next to the pages.
 */
import { parsePortalConfig, PORTAL_CONFIG_FILE, PORTAL_PATH, type PortalConfig } from '../../shared/portal/config';
import { NEEDS_NEW_INVITATION, PortalError, PROBLEMS, type PortalProblem } from '../../shared/portal/messages';
import { invitationCode } from './session';

export const $ = (id: string) => document.getElementById(id)!;

export function setStatus(text: string) {
  $('status').hidden = false;
  $('status').textContent = text;
}

export function element<K extends keyof HTMLElementTagNameMap>(tag: K, text?: string, className?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  return node;
}

/** The problem's sentence; "Start again" (when a restart can help) opens `restartAt` with the invitation kept in this tab. */
export function showProblem(problem: PortalProblem, restartAt = PORTAL_PATH) {
  $('status').hidden = true;
  document.getElementById('picker')?.setAttribute('hidden', '');
  $('problem-text').textContent = PROBLEMS[problem];
  const code = invitationCode();
  const restart = $('restart') as HTMLAnchorElement;
  if (code && !NEEDS_NEW_INVITATION.has(problem)) {
    restart.href = `${restartAt}?code=${encodeURIComponent(code)}`;
    restart.hidden = false;
  }
  $('problem').hidden = false;
  document.body.dataset.state = 'problem';
  document.body.dataset.problem = problem;
}

export function fail(e: unknown, otherwise: PortalProblem): never {
  throw e instanceof PortalError ? e : new PortalError(otherwise);
}

export async function loadConfig(): Promise<PortalConfig> {
  try {
    const res = await fetch(`/${PORTAL_CONFIG_FILE}`, { cache: 'no-store' });
    const config = res.ok ? parsePortalConfig(await res.json()) : undefined;
    if (config) return config;
  } catch {
    // below
  }
  throw new PortalError('not-configured');
}
