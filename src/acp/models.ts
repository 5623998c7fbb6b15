// session/set_config_option (the model and profile pickers): a stub until the sessions part
// replaces this file.
import {
  RequestError,
  type SetSessionConfigOptionRequest,
  type SetSessionConfigOptionResponse,
} from '@agentclientprotocol/sdk'
import type { AcpContext } from './context.ts'

export async function setConfigOption(
  _ctx: AcpContext,
  _params: SetSessionConfigOptionRequest,
): Promise<SetSessionConfigOptionResponse> {
  throw RequestError.methodNotFound('session/set_config_option')
}
