/**
 * The audit trail: one structured line per request that reads or writes protected data (every
 * request that presented, or had to present, an access token), saying who, what, which patients,
 * the result and the request id (the line's `correlation_id`). Never a payload: only ids.
 *
 * Authentication records the caller; handlers record the patients whose data they returned or
 * wrote; the request middleware writes the line once the status is known, so a refused request is
 * audited too.
 */
import { MCP_PATH } from '../http/families';

export type AuditAction = 'read' | 'search' | 'create' | 'update' | 'patch' | 'delete' | 'upload' | 'import' | 'export';

export interface AuditWho {
  kind: 'patient' | 'practitioner' | 'anonymous';
  userId?: number;
  clientId?: string;
}

export interface AuditLine {
  action: AuditAction;
  resourceType: string;
  /** The route template, e.g. `GET /FHIR/R5/{type}/{id}`. */
  route: string;
  who: AuditWho;
  /** Ids of the patients whose data was returned or written, ascending. */
  patients: number[];
  /** The HTTP status answered. */
  result: number;
  /** What the request asked beyond its route, when it can ask for several things (an MCP request's methods and tools). */
  operations?: string[];
}

export class AuditTrail {
  #who: AuditWho | undefined;
  readonly #patients = new Set<number>();
  readonly #operations: string[] = [];

  /** The request's caller (an auth `Caller`: telemetry names only the fields it records), once its token holds. */
  identified(caller: { kind: 'patient' | 'practitioner'; userId: number; clientId?: string }): void {
    this.#who = { kind: caller.kind, userId: caller.userId, ...(caller.clientId ? { clientId: caller.clientId } : {}) };
  }

  /** A request that presented no valid token for a protected resource. */
  refused(): void {
    this.#who ??= { kind: 'anonymous' };
  }

  /** Patients whose data this request returned or wrote. */
  touched(patientIds: Iterable<number | undefined>): void {
    for (const id of patientIds) if (id !== undefined && Number.isSafeInteger(id)) this.#patients.add(id);
  }

  /** What the request asked for, in order (`tools/call get_readings`). */
  asked(operation: string): void {
    this.#operations.push(operation);
  }

  /**
   * A trail for work whose answer may still be withheld (a tool call run while its rate limit is
   * decided): what it records reaches this trail only on `commit`, so work whose answer is never
   * given leaves no patient or operation in the request's line.
   */
  held(): { trail: AuditTrail; commit(): void } {
    const trail = new AuditTrail();
    return {
      trail,
      commit: () => {
        for (const id of trail.#patients) this.#patients.add(id);
        this.#operations.push(...trail.#operations.splice(0));
        trail.#patients.clear();
      },
    };
  }

  /** The line for a finished request; none for a request that never asked who the caller was. */
  line(request: { method: string; route: string; params: Readonly<Record<string, string>> }, status: number): AuditLine | undefined {
    if (!this.#who) return undefined;
    return {
      action: actionOf(request.method, request.route),
      resourceType: resourceTypeOf(request.route, request.params),
      route: `${request.method} ${request.route}`,
      who: this.#who,
      patients: [...this.#patients].sort((a, b) => a - b),
      result: status,
      ...(this.#operations.length > 0 ? { operations: [...this.#operations] } : {}),
    };
  }
}

/** What a method on a route template does, in the audit's words. */
export function actionOf(method: string, route: string): AuditAction {
  // The assistants' tools only read, whatever the method their requests come by.
  if (route === MCP_PATH) return 'read';
  // A route that ends in a parameter names one record (`{type}` names a collection).
  const instance = /\{(?!type\})\w+\}$/.test(route);
  switch (method) {
    case 'GET':
      return instance ? 'read' : 'search';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return 'delete';
    default:
      if (route.startsWith('/fhir-import/')) return 'import';
      if (route.endsWith('/_search')) return 'search';
      if (/^\/(FHIR\/R5|fhir\/r5)$/.test(route)) return 'upload';
      return 'create';
  }
}

/** The FHIR type of a FHIR route, else the collection a management route names (`patients`). */
export function resourceTypeOf(route: string, params: Readonly<Record<string, string>>): string {
  if (Object.hasOwn(params, 'type')) return params.type!;
  if (/^\/(FHIR\/R5|fhir\/r5)$/.test(route) || route === '/fhir-import/R4') return 'Bundle';
  const collection = /^\/api\/v1\/([a-z_]+)/.exec(route);
  return collection ? collection[1]! : route;
}
