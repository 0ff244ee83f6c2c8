/// <reference types="vite/client" />
import type { LoopscopeBridge } from '../shared/api';

declare global {
  interface Window {
    /** Exposed by the Electron preload script; absent when the page is served by `loopscope serve`. */
    readonly loopscope?: LoopscopeBridge;
  }
}
