/**
 * The renderer page's Content Security Policy: the `<meta>` tag in src-renderer/index.html, and
 * the header both shells (the Electron session and `loopscope serve`) send with the page. Nothing
 * inline, no eval: everything the page runs is its own built files, including the diff worker
 * (`worker-src 'self'`: a module worker built next to the page, never a blob: or data: URL).
 */
export const contentSecurityPolicy =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; worker-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
