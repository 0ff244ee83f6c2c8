/** The forced collection after a long run's analysis exposes `gc` to no one else. */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { runInNewContext } from 'node:vm';
import { Worker } from 'node:worker_threads';
import { collectGarbage } from '../../../src-main/engine/pipeline/collectGarbage';

describe('collectGarbage', () => {
  it('leaves no global gc to this thread, to later contexts or to workers started after it', async () => {
    collectGarbage();
    collectGarbage();
    assert.equal(typeof (globalThis as { gc?: unknown }).gc, 'undefined');
    assert.equal(runInNewContext('typeof gc'), 'undefined');
    const worker = new Worker('require("node:worker_threads").parentPort.postMessage(typeof gc)', { eval: true });
    const [seen] = (await once(worker, 'message')) as [string];
    await once(worker, 'exit');
    assert.equal(seen, 'undefined');
  });
});
