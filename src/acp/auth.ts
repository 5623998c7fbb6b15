// authenticate and the auth methods initialize offers: stubs until the sessions part
// replaces this file.
import {
  type AuthenticateRequest,
  type AuthenticateResponse,
  type AuthMethod,
  RequestError,
} from '@agentclientprotocol/sdk'
import type { AcpContext } from './context.ts'

export async function authenticate(
  _ctx: AcpContext,
  _params: AuthenticateRequest,
): Promise<AuthenticateResponse> {
  throw RequestError.methodNotFound('authenticate')
}

export async function authMethods(_ctx: AcpContext): Promise<AuthMethod[]> {
  return []
}
