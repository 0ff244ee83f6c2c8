import { contextBridge, ipcRenderer } from 'electron';
import { ipcChannels, type LoopscopeBridge } from '../../shared/api';

const bridge: LoopscopeBridge = {
  version: () => ipcRenderer.invoke(ipcChannels.version) as Promise<string>,
};

contextBridge.exposeInMainWorld('loopscope', bridge);
