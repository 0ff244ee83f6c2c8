/**
 * The one IPC channel (`ipcChannels.api`): each message is checked to come from the renderer
 * page's top frame and to be a `{method, request}` call, then handed to the API host, which
 * validates the request against the method's schema. Failures go back as `{error: {code,
 * message}}` values: a thrown error would reach the page as a bare message (Electron keeps no
 * error fields across IPC), and a bug's stack would leak with it.
 */
import type { IpcMain } from 'electron';
import { apiCallSchema, ipcChannels } from '../../shared/api';
import { ApiError, toApiError } from '../api/apiError';
import { isTrustedSender, type SenderFrame } from './securityPolicy';

export interface ApiCaller {
  call(method: string, request: unknown): Promise<unknown>;
}

/** The answer to one message on the API channel: the response, or an error value. */
export async function answerApiMessage(host: ApiCaller, senderFrame: SenderFrame | null, message: unknown, rendererPage: URL): Promise<unknown> {
  try {
    if (!isTrustedSender(senderFrame, rendererPage)) {
      throw new ApiError('not_allowed', `${ipcChannels.api}: sender is not the Loopscope renderer`);
    }
    const parsed = apiCallSchema.safeParse(message);
    if (!parsed.success) throw new ApiError('invalid_request', `${ipcChannels.api}: a message must be {method, request}`);
    return await host.call(parsed.data.method, parsed.data.request);
  } catch (error) {
    return toApiError(error);
  }
}

export function registerApiChannel(ipcMain: IpcMain, host: ApiCaller, rendererPage: URL): void {
  ipcMain.handle(ipcChannels.api, (event, message: unknown) => answerApiMessage(host, event.senderFrame, message, rendererPage));
}
