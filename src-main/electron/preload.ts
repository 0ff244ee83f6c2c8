/**
 * The renderer's only door to the app (sandboxed, CommonJS): `window.loopscope` is the
 * `LoopscopeBridge` of shared/api.ts and nothing more; ipcRenderer itself is never exposed.
 * A failed call resolves to its `{error: {code, message}}` value, which the renderer's client
 * turns into an error: Electron's contextBridge drops every property of an Error but its message,
 * so a rejection here would lose the code.
 */
import { contextBridge, ipcRenderer, webUtils } from 'electron';
import { ipcChannels, type LoopscopeBridge } from '../../shared/api';

const bridge: LoopscopeBridge = {
  call: (method, request) => ipcRenderer.invoke(ipcChannels.api, { method, request }),
  // Electron answers '' for a File that did not come from the file system (built in the page).
  pathForFile: (file) => webUtils.getPathForFile(file) || null,
};

contextBridge.exposeInMainWorld('loopscope', bridge);
