// A tool call waiting for approval, asked of the editor as session/request_permission. The
// three options mean exactly what hearth's approvals mean: allow once, allow for the rest of
// the session (for a command: that exact command line; for another tool: that tool), deny.
// Only a selected option is an answer: a cancelled request (the prompt was cancelled), an
// editor gone or a request the daemon decided meanwhile leave the approval to the daemon,
// pending until another client answers or the run's end expires it.
import { methods, type PermissionOption, type RequestPermissionResponse } from '@agentclientprotocol/sdk'
import { v7 as uuidv7 } from 'uuid'
import { ProblemError } from '../client/client.ts'
import type { AcpContext } from './context.ts'
import { argumentsOf, diffsOf, locationsOf, type MappingState, toolKindOf } from './updates.ts'

/** The approval.requested payload. */
export interface ApprovalRequested {
  request_id: string
  tool: string
  summary: string
  effect: string
  run_id: string
  call_id: string
  arguments: string
}

export type ApprovalAnswer = { decision: 'allow' | 'deny'; remember: 'once' | 'session' }

const ANSWERS: Record<string, ApprovalAnswer> = {
  allow_once: { decision: 'allow', remember: 'once' },
  allow_always: { decision: 'allow', remember: 'session' },
  reject_once: { decision: 'deny', remember: 'once' },
}

/** What "always" covers, said in the option: the exact command line, or the tool. */
export function alwaysName(tool: string, args: Record<string, unknown>): string {
  if (typeof args.command === 'string') return `Always allow \`${args.command}\` in this session`
  return `Always allow ${tool} in this session`
}

export function permissionOptions(request: ApprovalRequested): PermissionOption[] {
  const args = argumentsOf(request.arguments)
  return [
    { optionId: 'allow_once', name: 'Allow once', kind: 'allow_once' },
    { optionId: 'allow_always', name: alwaysName(request.tool, args), kind: 'allow_always' },
    { optionId: 'reject_once', name: 'Deny', kind: 'reject_once' },
  ]
}

/** The approval input an editor's answer stands for; undefined when it is no answer. */
export function answerOf(response: RequestPermissionResponse): ApprovalAnswer | undefined {
  if (response.outcome.outcome !== 'selected') return undefined
  return ANSWERS[response.outcome.optionId]
}

/**
 * Asks the editor, then records its answer as an approval input. `signal` withdraws the
 * question ($/cancel_request) when the daemon decided it meanwhile or the run ended.
 */
export async function askPermission(
  ctx: AcpContext,
  sessionId: string,
  request: ApprovalRequested,
  state: MappingState | undefined,
  signal: AbortSignal,
): Promise<void> {
  const args = argumentsOf(request.arguments)
  const workspace = state?.workspace ?? ''
  const diffs = diffsOf(request.tool, args, workspace)
  let response: RequestPermissionResponse
  try {
    response = await ctx.conn.request(
      methods.client.session.requestPermission,
      {
        sessionId,
        toolCall: {
          toolCallId: request.call_id,
          title: request.summary,
          kind: toolKindOf(request.tool),
          status: 'pending',
          locations: locationsOf(request.tool, args, workspace),
          rawInput: args,
          ...(diffs.length > 0 ? { content: diffs } : {}),
        },
        options: permissionOptions(request),
      },
      { cancellationSignal: signal },
    )
  } catch {
    return // withdrawn, or the editor is gone: the approval stays pending in the daemon
  }
  const answer = answerOf(response)
  if (!answer || signal.aborted) return
  try {
    await ctx.client.call('inputs.put', {
      params: { session_id: sessionId, input_id: uuidv7() },
      body: { kind: 'approval', request_id: request.request_id, ...answer, client_id: `acp-${process.pid}` },
    })
  } catch (err) {
    // Decided or expired meanwhile (another client answered, the run ended): not an error.
    if (err instanceof ProblemError && err.status === 409) return
    ctx.log(`hearth acp: could not record the approval: ${(err as Error).message}`)
  }
}
