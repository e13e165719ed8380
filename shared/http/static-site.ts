/**
 * How the portal bucket is served: CloudFront runs VIEWER_REQUEST_FUNCTION on each static request
 * and adds SECURITY_HEADERS to each response; the local gateway evaluates the very same function
 * source and adds the same headers, so both serve identical paths.
 */

/** CloudFront Functions (JS 2.0) source: `/dir/` and `/dir` map to `/dir/index.html`. */
export const VIEWER_REQUEST_FUNCTION = `function handler(event) {
  var request = event.request;
  var uri = request.uri;
  if (uri.endsWith('/')) {
    request.uri = uri + 'index.html';
  } else if (uri.split('/').pop().indexOf('.') === -1) {
    request.uri = uri + '/index.html';
  }
  return request;
}`;

/** Headers on every response, API and pages alike (the API's own pages set their own CSP). */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Strict-Transport-Security': 'max-age=63072000; includeSubDomains',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
};

/**
 * The Content-Security-Policy of the static pages: their own scripts, styles and images only (no
 * inline script or style, no eval), no frames, forms only to this origin, and `connect-src`
 * limited to this origin and the hospitals' (`connectSources` of the portal's settings: the one
 * hospital's origin, or `https:` with the picker). Built by the stack and the local gateway alike.
 */
export function contentSecurityPolicy(connectTo: readonly string[]): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    ["connect-src 'self'", ...connectTo].join(' '),
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "object-src 'none'",
  ].join('; ');
}

/** Every header of a static page: the common ones plus the Content-Security-Policy. */
export function staticSiteHeaders(connectTo: readonly string[]): Record<string, string> {
  return { ...SECURITY_HEADERS, 'Content-Security-Policy': contentSecurityPolicy(connectTo) };
}

export const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};
