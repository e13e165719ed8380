/** `GET /api/v1/portal/brands`: the portal's hospital picker searches the brands directory (any signed-in caller). */
import { optional, plain, strict } from '../../shared/api/fields';
import { authed, parseQuery } from '../../shared/api/route';
import { DEFAULT_BRAND_LIMIT, MAX_BRAND_LIMIT, searchBrands } from '../../shared/brands/search';
import { fieldErrors } from '../../shared/http/errors';
import { json } from '../../shared/http/response';
import type { Route } from '../../shared/http/router';

const brandQuery = strict({ q: optional(plain(0, 200)), state: optional(plain(0, 40)), postal: optional(plain(0, 20)), limit: optional(plain(1, 12)) });

/** `limit`: a whole number, clamped to 1-100; 25 when absent. */
function limitOf(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_BRAND_LIMIT;
  if (!/^-?[0-9]+$/.test(raw.trim())) throw fieldErrors({ limit: ['A whole number is required.'] });
  return Math.min(MAX_BRAND_LIMIT, Math.max(1, Number(raw)));
}

export const brandRoutes: Route[] = [
  authed('GET', '/api/v1/portal/brands', async (_caller, req) => {
    const { q, state, postal, limit } = parseQuery(brandQuery, req.query);
    return json(200, { results: await searchBrands({ ...(q ? { q } : {}), ...(state ? { state } : {}), ...(postal ? { postal } : {}), limit: limitOf(limit) }) });
  }),
];
