/**
 * Where a library in ClickHouse is, as `loopscope serve --library` takes it:
 * `clickhouse://[user[:password]@]HOST[:PORT]/DB`. The port is of ClickHouse's HTTP interface
 * (8123 unless given), which is the one Loopscope speaks (clickhouseClient.ts).
 */
import { ClickHouseError } from './clickhouseClient';

export const defaultClickHouseHttpPort = 8123;

export interface ClickHouseLibraryLocation {
  /** `http://HOST:PORT`. */
  url: string;
  database: string;
  user?: string;
  password?: string;
}

const example = 'clickhouse://[user[:password]@]host[:port]/database';

function invalid(text: string, why: string): ClickHouseError {
  return new ClickHouseError(`not a ClickHouse library location: "${text}": ${why} (expected ${example})`);
}

export function parseClickHouseLibraryUrl(text: string): ClickHouseLibraryLocation {
  if (!text.startsWith('clickhouse://')) throw invalid(text, 'it does not start with clickhouse://');
  let parsed: URL;
  try {
    // As its own scheme, not as http://: http's default port 80 would read as no port at all.
    parsed = new URL(text);
  } catch {
    throw invalid(text, 'it is not a URL');
  }
  if (parsed.hostname === '') throw invalid(text, 'it names no host');
  if (parsed.search !== '' || parsed.hash !== '') throw invalid(text, 'it has a query or fragment, which mean nothing here');
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
  if (database === '') throw invalid(text, 'it names no database');
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(database)) throw invalid(text, `the database "${database}" is not a plain name (letters, digits and _)`);
  const port = parsed.port === '' ? defaultClickHouseHttpPort : Number(parsed.port);
  return {
    url: `http://${parsed.hostname}:${port}`,
    database,
    ...(parsed.username !== '' ? { user: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password !== '' ? { password: decodeURIComponent(parsed.password) } : {}),
  };
}

/** The location as the page shows it (the library's root): without the password. */
export function clickHouseLibraryName(location: ClickHouseLibraryLocation): string {
  const host = new URL(location.url).host;
  return `clickhouse://${location.user !== undefined ? `${encodeURIComponent(location.user)}@` : ''}${host}/${location.database}`;
}
