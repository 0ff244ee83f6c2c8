/**
 * The renderer page's Content Security Policy. Both shells (the Electron session and `loopscope
 * serve`) send `contentSecurityPolicy` as a header with the page; src-renderer/index.html carries
 * `metaContentSecurityPolicy` in a `<meta>` tag, so the page is also guarded where no header is
 * sent (the Electron dev server). Nothing inline, no eval: everything the page runs is its own
 * built files, including the diff worker (`worker-src 'self'`: a module worker built next to the
 * page, never a blob: or data: URL).
 */
export const metaContentSecurityPolicy =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; worker-src 'self'; base-uri 'none'; form-action 'none'";

/**
 * `frame-ancestors` only works as a header: browsers ignore it in a `<meta>` tag and log an error
 * on every page load when they find it there.
 */
export const contentSecurityPolicy = `${metaContentSecurityPolicy}; frame-ancestors 'none'`;
