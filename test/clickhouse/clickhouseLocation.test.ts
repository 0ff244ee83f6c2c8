/** `--library clickhouse://…` read into where the library is (src-main/clickhouse/clickhouseLocation.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clickHouseLibraryName, parseClickHouseLibraryUrl } from '../../src-main/clickhouse/clickhouseLocation';

describe('a ClickHouse library location', () => {
  it('reads the host, the HTTP port (8123 unless given) and the database', () => {
    assert.deepEqual(parseClickHouseLibraryUrl('clickhouse://ch.example.com/loopscope'), { url: 'http://ch.example.com:8123', database: 'loopscope' });
    assert.deepEqual(parseClickHouseLibraryUrl('clickhouse://127.0.0.1:18123/traces_2025'), { url: 'http://127.0.0.1:18123', database: 'traces_2025' });
    // Port 80 is a port like any other here, not http's default left out.
    assert.deepEqual(parseClickHouseLibraryUrl('clickhouse://10.0.0.5:80/db'), { url: 'http://10.0.0.5:80', database: 'db' });
    assert.deepEqual(parseClickHouseLibraryUrl('clickhouse://[::1]:9000/db'), { url: 'http://[::1]:9000', database: 'db' });
  });

  it('reads a user and a password, percent-decoded', () => {
    assert.deepEqual(parseClickHouseLibraryUrl('clickhouse://reader@ch:8123/db'), { url: 'http://ch:8123', database: 'db', user: 'reader' });
    assert.deepEqual(parseClickHouseLibraryUrl('clickhouse://reader:p%40ss%3Aword@ch/db'), {
      url: 'http://ch:8123',
      database: 'db',
      user: 'reader',
      password: 'p@ss:word',
    });
  });

  it('names the library without its password', () => {
    const location = parseClickHouseLibraryUrl('clickhouse://reader:secret@ch:9123/db');
    assert.equal(clickHouseLibraryName(location), 'clickhouse://reader@ch:9123/db');
    assert.equal(clickHouseLibraryName(parseClickHouseLibraryUrl('clickhouse://ch/db')), 'clickhouse://ch:8123/db');
  });

  it('refuses what is not one, saying why', () => {
    const refusals: [string, RegExp][] = [
      ['http://ch:8123/db', /does not start with clickhouse:\/\//],
      ['clickhouse://ch:8123', /names no database/],
      ['clickhouse://ch:8123/', /names no database/],
      ['clickhouse:///db', /not a URL|names no host/],
      ['clickhouse://ch/my-db', /"my-db" is not a plain name/],
      ['clickhouse://ch/db/table', /"db\/table" is not a plain name/],
      ['clickhouse://ch:99999/db', /not a URL/],
      ['clickhouse://ch/db?secure=1', /query or fragment/],
    ];
    for (const [text, reason] of refusals) {
      assert.throws(
        () => parseClickHouseLibraryUrl(text),
        (error: Error) => reason.test(error.message) && error.message.includes('expected clickhouse://[user[:password]@]host[:port]/database'),
        text,
      );
    }
  });
});
