// session/new, session/load, session/list, session/resume, session/close: stubs until the
// sessions part replaces this file.
import {
  type CloseSessionRequest,
  type CloseSessionResponse,
  type ListSessionsRequest,
  type ListSessionsResponse,
  type LoadSessionRequest,
  type LoadSessionResponse,
  type NewSessionRequest,
  type NewSessionResponse,
  RequestError,
  type ResumeSessionRequest,
  type ResumeSessionResponse,
} from '@agentclientprotocol/sdk'
import type { AcpContext } from './context.ts'

export async function newSession(_ctx: AcpContext, _params: NewSessionRequest): Promise<NewSessionResponse> {
  throw RequestError.methodNotFound('session/new')
}

export async function loadSession(
  _ctx: AcpContext,
  _params: LoadSessionRequest,
): Promise<LoadSessionResponse> {
  throw RequestError.methodNotFound('session/load')
}

export async function listSessions(
  _ctx: AcpContext,
  _params: ListSessionsRequest,
): Promise<ListSessionsResponse> {
  throw RequestError.methodNotFound('session/list')
}

export async function resumeSession(
  _ctx: AcpContext,
  _params: ResumeSessionRequest,
): Promise<ResumeSessionResponse> {
  throw RequestError.methodNotFound('session/resume')
}

export async function closeSession(
  _ctx: AcpContext,
  _params: CloseSessionRequest,
): Promise<CloseSessionResponse> {
  throw RequestError.methodNotFound('session/close')
}
