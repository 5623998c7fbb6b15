// Handlers of group `auth`.

import type { AuthService } from '../auth/service.ts'
import { etagOf, toLogin } from '../auth/signin/engine.ts'
import { bindGroup } from '../http/route.ts'
import { authOps } from '../schemas/auth.ts'
import { lower } from '../util/uuid.ts'

export function authRoutes(auth: AuthService) {
  return bindGroup(authOps)({
    'auth.get': () => ({ status: 200, body: auth.overview() }),
    'auth.login.put': async (input) => {
      const id = lower(input.params.login_id)
      // input.body validates when read: after the repeat lookup, like input admission.
      const { status, row } = await auth.engine.create(id, input.rawBody, () => input.body)
      const headers: Record<string, string> = { etag: etagOf(row) }
      if (status === 201) headers.location = `/auth/logins/${id}`
      return { status, body: toLogin(row), headers }
    },
    'auth.login.get': ({ params }) => {
      const row = auth.engine.get(lower(params.login_id))
      return { status: 200, body: toLogin(row), headers: { etag: etagOf(row) } }
    },
    'auth.login.patch': async ({ params, ifMatch, body }) => {
      const row = await auth.engine.answer(lower(params.login_id), ifMatch, body.response)
      return { status: 200, body: toLogin(row), headers: { etag: etagOf(row) } }
    },
    'auth.login.delete': ({ params }) => {
      auth.engine.cancel(lower(params.login_id))
      return { status: 204, body: undefined }
    },
    'auth.account.delete': async ({ params }) => {
      await auth.removeAccount(params.account_id)
      return { status: 204, body: undefined }
    },
  })
}
