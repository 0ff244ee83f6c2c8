import { openTraceInProcess } from '/work/main/src-main/engine/ingest/openTraceInProcess';
const t = Date.now();
const r = openTraceInProcess({ path: process.argv[2]!, cacheDir: '/tmp/profcache-' + Date.now(), maxLineBytes: 32 << 20, analysis: { window: 6, threshold: 3 } });
console.log(r, Date.now() - t, 'ms');
