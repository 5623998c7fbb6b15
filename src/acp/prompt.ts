// session/prompt and session/cancel.
import {
  type CancelNotification,
  type PromptRequest,
  type PromptResponse,
  RequestError,
} from '@agentclientprotocol/sdk'
import type { AcpContext } from './context.ts'

export async function prompt(
  _ctx: AcpContext,
  _params: PromptRequest,
  _signal: AbortSignal,
): Promise<PromptResponse> {
  throw RequestError.methodNotFound('session/prompt')
}

export async function cancelPrompt(_ctx: AcpContext, _params: CancelNotification): Promise<void> {}
