/**
 * 12345 → "12,345". Not `toLocaleString`: its first call loads ICU locale data, tens of
 * milliseconds on every thread that formats a message, and counts need no locale.
 */
export function formatCount(value: number): string {
  const [whole = '', fraction] = String(value).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return fraction === undefined ? grouped : `${grouped}.${fraction}`;
}
