/**
 * The file an HTML report is: the report page's script and stylesheet (built by
 * report.vite.config.ts into out/report/) and its data, inlined into one HTML document that asks
 * for nothing else. Its Content-Security-Policy allows exactly that script and that stylesheet (by
 * their SHA-256) and no connection at all: a hostile trace shown in it can load nothing and send
 * nothing anywhere.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { reportDataElementId, type ReportSnapshot } from '../../shared/htmlReport/reportSnapshot';

/** Where the build puts the report page, beside out/main/ where this file is bundled. */
const reportPageDir = fileURLToPath(new URL('../report/', import.meta.url));

export interface ReportPageAssets {
  script: string;
  style: string;
}

/** The built report page; throws saying how to build it when it is not there. */
export function readReportPageAssets(dir: string = reportPageDir): ReportPageAssets {
  const script = `${dir}report.js`;
  const style = `${dir}style.css`;
  if (!existsSync(script) || !existsSync(style))
    throw new Error(`the report page is not built (${dir} has no report.js and style.css); run \`npm run build\` first`);
  return { script: readFileSync(script, 'utf8'), style: readFileSync(style, 'utf8') };
}

const sha256 = (text: string): string => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

const escapeHtml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * Text inside <script> or <style> ends at the first `</script` or `</style`: such a sequence in the
 * built code (only ever inside a string or a regular expression) is written `<\/` there, which
 * means the same to JavaScript. CSS has no such strings; one there is refused, not rewritten.
 */
function inlineScript(code: string): string {
  return code.replace(/<\/(script)/gi, '<\\/$1');
}

function inlineStyle(css: string): string {
  if (/<\/style/i.test(css)) throw new Error('the report stylesheet contains "</style": it cannot be inlined');
  return css;
}

/** The report file: `title` names it in the browser's tab until the page sets its own. */
export function reportPageHtml(snapshot: ReportSnapshot, assets: ReportPageAssets, title: string): string {
  const script = inlineScript(assets.script);
  const style = inlineStyle(assets.style);
  const data = gzipSync(JSON.stringify(snapshot), { level: 9 }).toString('base64');
  const policy = [
    "default-src 'none'",
    `script-src ${sha256(script)}`,
    `style-src ${sha256(style)}`,
    'img-src data:',
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="UTF-8" />
    <meta http-equiv="Content-Security-Policy" content="${policy}" />
    <meta name="viewport" content="width=device-width, initial-scale=1.0" />
    <meta name="generator" content="Loopscope ${escapeHtml(snapshot.loopscopeVersion)}" />
    <link rel="icon" href="data:," />
    <title>${escapeHtml(title)}</title>
    <style>${style}</style>
  </head>
  <body>
    <div id="root">Loading the report…</div>
    <script type="application/octet-stream" id="${reportDataElementId}">${data}</script>
    <script type="module">${script}</script>
  </body>
</html>
`;
}
