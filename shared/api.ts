/**
 * The contract between the Electron main process, the preload script and the renderer.
 * The preload exposes exactly a `LoopscopeBridge` as `window.loopscope`; the renderer never sees
 * ipcRenderer itself.
 */

/** IPC channel names, shared so that main and preload cannot drift apart. */
export const ipcChannels = {
  version: 'loopscope:version',
} as const;

export interface LoopscopeBridge {
  /** The application version (package.json "version"). */
  version(): Promise<string>;
}
