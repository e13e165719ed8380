/**
 * The study service as the portal page calls it: same-origin requests only (the Content-Security-
 * Policy allows no other service origin), the bearer token from sessionStorage, and every refusal
 * turned into a problem the page can explain.
 */
import { invitationVerifier } from '../../shared/oauth/invitation-verifier';
import type { GlucoseUnit } from '../../shared/cgm/units';
import { connectedHospitals, MAX_CONNECTED, sourceLabel, type ConnectedHospital } from '../../shared/portal/connected-hospitals';
import { PortalError } from '../../shared/portal/messages';
import { redemptionProblem } from '../../shared/portal/invitation';
import { BUSY_RETRIES, importBundle, importResults, retryAfterSeconds, writeResult, type Resource, type WriteResult } from '../../shared/portal/records';

export const SOURCE_HEADER = 'X-SVC-FHIR-Source-ID';
const FHIR_JSON = 'application/fhir+json';

interface Grant {
  grant_type: string;
  redirect_uri: string;
  client_id: string;
  code: string;
}

export interface ServiceSession {
  accessToken: string;
  /** The service's patient id (the token response's SMART `patient`). */
  patient: string;
}

/** Times a request the service throttled (429) is sent again, after the pause its `Retry-After` asks. */
const THROTTLED_RETRIES = 5;

const pause = (seconds: number) => new Promise((resume) => setTimeout(resume, seconds * 1000));

/** One row of the hospital picker's search (`GET /api/v1/portal/brands`). */
export interface BrandRow {
  facility_name: string;
  address_text: string;
  brand_name: string;
  fhir_base_url: string;
}

/**
 * A fetch whose network failure is the service's problem, not an exception to show raw. A 429 is
 * the service asking to slow down, not a failure: the request goes again after its `Retry-After`.
 */
async function request(path: string, init: RequestInit): Promise<Response> {
  for (let attempt = 0; ; attempt += 1) {
    let res: Response;
    try {
      res = await fetch(path, { ...init, cache: 'no-store', credentials: 'omit' });
    } catch {
      throw new PortalError('service-error');
    }
    if (res.status !== 429 || attempt >= THROTTLED_RETRIES) return res;
    await pause(retryAfterSeconds(res.headers.get('retry-after')));
  }
}

const bodyOf = (res: Response): Promise<unknown> => res.json().catch(() => undefined);

/** Redeems the invitation and exchanges its grant at the token endpoint. */
export async function signInWithInvitation(token: string): Promise<ServiceSession> {
  const redeemed = await request(`/api/v1/invitation/${encodeURIComponent(token)}`, { method: 'POST' });
  if (!redeemed.ok) throw new PortalError(redemptionProblem(redeemed.status));
  const { grant, token_endpoint } = ((await bodyOf(redeemed)) ?? {}) as { grant?: Partial<Grant>; token_endpoint?: unknown };
  if (!grant?.grant_type || !grant.code || !grant.redirect_uri || !grant.client_id || typeof token_endpoint !== 'string') throw new PortalError('service-error');
  // The token endpoint of this same service, on the origin the page was served from.
  const tokenPath = new URL(token_endpoint, location.origin).pathname;
  const form = new URLSearchParams({
    grant_type: grant.grant_type,
    code: grant.code,
    redirect_uri: grant.redirect_uri,
    client_id: grant.client_id,
    code_verifier: invitationVerifier(token),
  });
  const answer = await request(tokenPath, { method: 'POST', body: form, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  if (!answer.ok) throw new PortalError(answer.status === 400 ? 'invitation-replaced' : 'service-error');
  const body = (await bodyOf(answer)) as { access_token?: string; patient?: string };
  if (!body.access_token || !body.patient) throw new PortalError('service-error');
  return { accessToken: body.access_token, patient: body.patient };
}

/** Calls with the service token; a 401 means the session expired. */
export class ServiceApi {
  constructor(private readonly session: ServiceSession) {}

  /** The service's patient id of the session. */
  get patient(): string {
    return this.session.patient;
  }

  private async call(path: string, init: RequestInit & { headers?: Record<string, string> }): Promise<Response> {
    const res = await request(path, { ...init, headers: { authorization: `Bearer ${this.session.accessToken}`, accept: 'application/json', ...init.headers } });
    if (res.status === 401) throw new PortalError('service-session-expired');
    return res;
  }

  private postJson(path: string, body: unknown): Promise<Response> {
    return this.call(path, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  }

  /** Spec 2.7: system = the hospital's FHIR base, value = the patient id there. */
  async storeIdentifier(system: string, value: string): Promise<void> {
    const res = await this.postJson('/api/v1/portal/identifier', { system, value });
    if (res.status === 409) throw new PortalError('identifier-taken');
    if (!res.ok) throw new PortalError('service-error');
  }

  /** The data source the portal registers its FHIR Sources with: the catalogue's first patient app. */
  async portalDataSource(): Promise<number> {
    const res = await this.call('/api/v1/data_sources?page_size=1000', { method: 'GET' });
    if (!res.ok) throw new PortalError('service-error');
    const list = (await bodyOf(res)) as { results?: Array<{ id: number; type: string }> };
    const app = list.results?.find((d) => d.type === 'patient_app');
    if (!app) throw new PortalError('not-configured');
    return app.id;
  }

  /** Registers the run's FHIR Source, labelled with the hospital's name when the patient chose it by name. */
  async registerSource(dataSource: number, fhirBaseUrl: string, hospitalName: string | undefined): Promise<number> {
    const res = await this.postJson('/api/v1/fhir_sources', { data_source: dataSource, label: sourceLabel(fhirBaseUrl, hospitalName), fhir_base_url: fhirBaseUrl });
    const id = ((await bodyOf(res)) as { id?: unknown } | undefined)?.id;
    if (res.status !== 201 || typeof id !== 'number') throw new PortalError('service-error');
    return id;
  }

  /**
   * The hospitals the patient has connected (their FHIR Sources, newest first); none when the list
   * cannot be read, so the page offers the send as it would without them.
   */
  async connectedHospitals(): Promise<ConnectedHospital[]> {
    // Several sources of one hospital (each import registers one) fold into one: read more than are shown.
    const res = await this.call(`/api/v1/fhir_sources?page_size=${10 * MAX_CONNECTED}`, { method: 'GET' });
    return res.ok ? connectedHospitals(await bodyOf(res)) : [];
  }

  /** The hospital directory's facilities matching the patient's words (the picker). */
  async searchBrands(q: string, limit: number, signal?: AbortSignal): Promise<BrandRow[]> {
    const res = await this.call(`/api/v1/portal/brands?${new URLSearchParams({ q, limit: String(limit) })}`, { method: 'GET', ...(signal ? { signal } : {}) });
    if (!res.ok) throw new PortalError('service-error');
    const rows = ((await bodyOf(res)) as { results?: unknown } | undefined)?.results;
    return Array.isArray(rows) ? (rows as BrandRow[]) : [];
  }

  /**
   * One Bundle (at most 100 entries) through the R4 import: one result per resource, in order.
   * Entries the service had no time for (`503`) are sent again, alone, after the `Retry-After` of
   * the batch-response, a few times (a whole Bundle answered `503`, none of it started, likewise):
   * every resource has an id and the import is idempotent per upstream id, so nothing is stored twice.
   */
  async importR4(sourceId: number, resources: readonly Resource[]): Promise<WriteResult[]> {
    const results: WriteResult[] = new Array(resources.length);
    let pending = resources.map((resource, at) => ({ resource, at }));
    for (let attempt = 0; pending.length > 0; attempt += 1) {
      const res = await this.call('/fhir-import/R4', {
        method: 'POST',
        body: JSON.stringify(importBundle(pending.map((p) => p.resource))),
        headers: { 'content-type': FHIR_JSON, accept: FHIR_JSON, [SOURCE_HEADER]: String(sourceId) },
      });
      // Nothing of the Bundle started before the service's deadline: all of it again, after the pause asked.
      if (res.status === 503 && attempt < BUSY_RETRIES) {
        await pause(retryAfterSeconds(res.headers.get('retry-after')));
        continue;
      }
      // A refusal of the whole request (source, size) stops the run: a restart can finish it.
      if (res.status !== 200) throw new PortalError('service-error');
      const answers = importResults(await bodyOf(res), pending.length);
      answers.forEach((answer, i) => (results[pending[i]!.at] = answer));
      pending = pending.filter((_, i) => answers[i]!.busy);
      if (pending.length > 0 && attempt < BUSY_RETRIES) await pause(retryAfterSeconds(res.headers.get('retry-after')));
      else pending = [];
    }
    return results;
  }

  /**
   * The patient's CGM summary with the AGP report (`Patient/<id>/$cgm-report`): the last 14 days
   * ending now, the consensus's standard targets, in the unit the patient chose, the period's ends
   * written on this browser's clock (its IANA time zone, when it names one).
   */
  async cgmReport(patient: string, unit: GlucoseUnit): Promise<unknown> {
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    const query = new URLSearchParams({ unit, targets: 'standard', ...(/^[A-Za-z_]+(\/[A-Za-z0-9_+-]+)*$/.test(zone ?? '') ? { timeZone: zone } : {}) });
    const res = await this.call(`/FHIR/R5/Patient/${encodeURIComponent(patient)}/$cgm-report?${query}`, { method: 'GET', headers: { accept: FHIR_JSON } });
    if (!res.ok) throw new PortalError('service-error');
    return bodyOf(res);
  }

  /** One R5 resource through `POST /FHIR/R5/<Type>` with the source header. */
  async writeR5(sourceId: number, resource: Resource): Promise<WriteResult> {
    for (let attempt = 0; ; attempt += 1) {
      const res = await this.call(`/FHIR/R5/${encodeURIComponent(resource.resourceType)}`, {
        method: 'POST',
        body: JSON.stringify(resource),
        headers: { 'content-type': FHIR_JSON, accept: FHIR_JSON, prefer: 'return=OperationOutcome', [SOURCE_HEADER]: String(sourceId) },
      });
      // Busy: the same write again after a pause is safe (the upstream id makes it idempotent).
      if (res.status === 503 && attempt < BUSY_RETRIES) {
        await pause(retryAfterSeconds(res.headers.get('retry-after')));
        continue;
      }
      if (res.status >= 500 && res.status !== 503) throw new PortalError('service-error');
      return writeResult(res.status, await bodyOf(res));
    }
  }
}
