/**
 * Bulk export for tests, in a line each:
 *
 *   const kicked = await kickOff(token, '/FHIR/R5/Group/7/$export?_type=Observation');   // 202 + Content-Location
 *   await runExportWork();                                                             // the worker, until the queue is empty
 *   const manifest = await finished(token, kicked);                                    // the 200 manifest
 *   const lines = await downloadAll(token, manifest, 'Observation');                   // every resource of the type, through the 307
 *
 * On the twins the queue is the twin's and the worker runs in the test (`runExportWork`); against a
 * running gateway (e2e) the local runtime's worker runs it and the test polls.
 */
import { expect } from 'vitest';
import type { SQSRecord } from 'aws-lambda';
import { loadWorker } from '../../local/handlers';
import type { ExportMessage } from '../../shared/export/model';
import { call, type TestResponse } from './invoke';
import { twinsInUse } from './store';

export const RESPOND_ASYNC = { prefer: 'respond-async' };

/** A kick-off (GET, or POST with a Parameters body), with `Prefer: respond-async` unless headers say otherwise. */
export function kickOff(token: string | undefined, url: string, options: { body?: unknown; headers?: Record<string, string> } = {}): Promise<TestResponse> {
  return call(options.body === undefined ? 'GET' : 'POST', url, {
    ...(token ? { token } : {}),
    headers: { ...RESPOND_ASYNC, ...options.headers },
    ...(options.body !== undefined ? { body: options.body } : {}),
  });
}

/** A Parameters body of name/value pairs (`patient` values become references). */
export function parameters(...pairs: Array<[string, string]>): Record<string, unknown> {
  return {
    resourceType: 'Parameters',
    parameter: pairs.map(([name, value]) => (name === 'patient' ? { name, valueReference: { reference: value } } : { name, valueString: value })),
  };
}

/** The path (and query) of an absolute service URL, for `call`. */
export const pathOf = (url: string): string => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};

const record = (message: ExportMessage, receives: number, n: number): SQSRecord =>
  ({ messageId: `test-${n}`, body: JSON.stringify(message), attributes: { ApproximateReceiveCount: String(receives) } }) as unknown as SQSRecord;

/**
 * Runs the worker on the twins' queue until it is empty (or `limit` messages ran): each message as
 * SQS delivers it, again after a failure, up to its last delivery. Returns the messages run.
 */
export async function runExportWork(limit = Infinity): Promise<ExportMessage[]> {
  const twins = twinsInUse();
  if (!twins) throw new Error('runExportWork runs the twins\' queue; against a gateway the runtime\'s worker runs');
  const worker = await loadWorker();
  const ran: ExportMessage[] = [];
  const pending: Array<{ message: ExportMessage; receives: number }> = [];
  for (;;) {
    pending.push(...twins.exports.queue.take().map((message) => ({ message, receives: 1 })));
    const next = pending.shift();
    if (!next || ran.length >= limit) {
      // What was not run goes back, as an unfinished queue would keep it.
      if (next) pending.unshift(next);
      if (pending.length > 0) await twins.exports.queue.send(pending.map((p) => p.message));
      return ran;
    }
    ran.push(next.message);
    const result = await worker({ Records: [record(next.message, next.receives, ran.length)] });
    if (result && result.batchItemFailures.length > 0) pending.push({ message: next.message, receives: next.receives + 1 });
  }
}

/** The status answer of a kick-off's job. */
export function statusOf(token: string, kicked: TestResponse): Promise<TestResponse> {
  return call('GET', pathOf(kicked.headers['content-location']!), { token });
}

export interface Manifest {
  transactionTime: string;
  request: string;
  requiresAccessToken: boolean;
  output: Array<{ type: string; url: string; count: number }>;
  error: Array<{ type: string; url: string; count: number }>;
}

/** The manifest of a finished job (after the work ran); fails the test otherwise. */
export async function finished(token: string, kicked: TestResponse): Promise<Manifest> {
  const status = await statusOf(token, kicked);
  if (status.status !== 200) throw new Error(`export not complete: ${status.status} ${status.text}`);
  return status.json as Manifest;
}

/** A file's lines, downloaded through the service's 307 (the twins answer with a `data:` URL, S3 with a pre-signed one). */
export async function download(token: string, url: string): Promise<{ redirect: TestResponse; contentType: string | null; lines: any[] }> {
  const redirect = await call('GET', pathOf(url), { token });
  if (redirect.status !== 307) throw new Error(`download refused: ${redirect.status} ${redirect.text}`);
  const file = await fetch(redirect.headers['location']!);
  const text = await file.text();
  return { redirect, contentType: file.headers.get('content-type'), lines: text.split('\n').filter((l) => l.length > 0).map((l) => JSON.parse(l)) };
}

/** Every resource of the manifest's files of a type (output, or error files with `'error'`). */
export async function downloadAll(token: string, manifest: Manifest, type: string, list: 'output' | 'error' = 'output'): Promise<any[]> {
  const lines: any[] = [];
  for (const file of manifest[list].filter((f) => f.type === type)) lines.push(...(await download(token, file.url)).lines);
  return lines;
}

/** Over HTTP against a running gateway (the e2e tests): a bearer token's headers. */
export const bearer = (token: string, extra: Record<string, string> = {}) => ({ authorization: `Bearer ${token}`, ...extra });

/** Polls a status URL as a client should: waiting `Retry-After` between polls (and after a 429), until it is done. */
export async function pollStatus(url: string, token: string): Promise<Response> {
  for (let i = 0; i < 120; i++) {
    const res = await fetch(url, { headers: bearer(token) });
    if (res.status !== 202 && res.status !== 429) return res;
    if (res.status === 202) expect(res.headers.get('x-progress')).toMatch(/^patients \d+ of \d+$/);
    await new Promise((r) => setTimeout(r, Number(res.headers.get('retry-after') ?? 1) * 1000));
  }
  throw new Error('the export did not finish');
}

/** Every line of a type's files over HTTP, each followed through the service's 307 (fetch follows it, without the token). */
export async function fileLines(manifest: Manifest, type: string, token: string): Promise<any[]> {
  const out: any[] = [];
  for (const file of manifest.output.filter((f) => f.type === type)) {
    const res = await fetch(file.url, { headers: bearer(token) });
    expect(res.status).toBe(200);
    expect(res.url).not.toBe(file.url);
    expect(res.headers.get('content-type')).toBe('application/fhir+ndjson');
    const parsed = (await res.text()).split('\n').filter(Boolean).map((l) => JSON.parse(l));
    expect(parsed).toHaveLength(file.count);
    out.push(...parsed);
  }
  return out;
}
