/**
 * Client values inside messages: text as it was sent, anything else as JSON. A message never turns
 * a client value into text with `String()` or a template: client JSON may carry `toString` or
 * `valueOf` as data, and converting such an object throws.
 */
export function shown(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
}
