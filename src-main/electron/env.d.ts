/** Replaced by Vite at build time: true only in the `electron-vite dev` build. */
interface ImportMetaEnv {
  readonly DEV: boolean;
}

interface ImportMeta {
  readonly env: ImportMetaEnv;
}
