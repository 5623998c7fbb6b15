// The sign-ins of the providers whose accounts sign in (a descriptor with `signIn`): each
// one's src/providers/<id>/signin.ts, loaded once when the daemon's accounts code loads
// (top-level await), since the plugins are asked for synchronously (GET /auth, a login's
// start). The import names the file by the provider's id, so the bundler takes every
// providers/*/signin.ts into the daemon's bundle and none into a kernel's.
import type { ProviderDescriptor, SignIn, SignInFacts } from '../providers/descriptor.ts'
import { PROVIDERS } from '../providers/registry.ts'

/** A provider that signs in: its descriptor's facts and its loaded sign-in. */
export interface SignInProvider {
  id: string
  facts: SignInFacts
  signIn: SignIn
}

const withSignIn = PROVIDERS.filter(
  (p): p is ProviderDescriptor & { signIn: SignInFacts } => p.signIn !== null,
)

/** In registry order (the order GET /auth offers them). */
export const SIGN_IN_PROVIDERS: readonly SignInProvider[] = await Promise.all(
  withSignIn.map(async (p) => {
    const module: { signIn: SignIn } = await import(`../providers/${p.id}/signin.ts`)
    return { id: p.id, facts: p.signIn, signIn: module.signIn }
  }),
)

const BY_ID = new Map(SIGN_IN_PROVIDERS.map((p) => [p.id, p]))

export function signInProviderOf(extension: string): SignInProvider | undefined {
  return BY_ID.get(extension)
}
