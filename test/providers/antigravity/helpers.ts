// Shared by the antigravity tests: a loopback address nothing answers on, and the
// SignInError a failed sign-in step rejects with.
import { ok, rejects } from 'node:assert/strict'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { SignInError } from '../../../src/providers/shared/sign-in-plugin.ts'

/** A loopback port nothing listens on: connecting is refused. */
export async function closedPort(): Promise<string> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return url
}

/** The SignInError `p` rejects with (fails the test when it resolves or rejects otherwise). */
export async function refusal(p: Promise<unknown>): Promise<SignInError> {
  let caught: unknown
  await rejects(
    p.catch((err) => {
      caught = err
      throw err
    }),
  )
  ok(caught instanceof SignInError, String(caught))
  return caught
}
