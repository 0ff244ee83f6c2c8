/// <reference types="vite/client" />
import type { LoopscopeBridge } from '../shared/api';

declare global {
  interface Window {
    /** Exposed by the preload script; absent when the page runs outside Electron. */
    readonly loopscope?: LoopscopeBridge;
  }
}
