// session/set_mode: a stub until the sessions part replaces this file.
import {
  RequestError,
  type SetSessionModeRequest,
  type SetSessionModeResponse,
} from '@agentclientprotocol/sdk'
import type { AcpContext } from './context.ts'

export async function setMode(
  _ctx: AcpContext,
  _params: SetSessionModeRequest,
): Promise<SetSessionModeResponse> {
  throw RequestError.methodNotFound('session/set_mode')
}
