// The sign-ins of the providers whose accounts sign in (a descriptor with `signIn`), loaded
// once when the daemon's accounts code loads (top-level await): the plugins are asked for
// synchronously (GET /auth, a login's start), and kernels never load this code.
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
  withSignIn.map(async (p) => ({ id: p.id, facts: p.signIn, signIn: await p.signIn.load() })),
)

const BY_ID = new Map(SIGN_IN_PROVIDERS.map((p) => [p.id, p]))

export function signInProviderOf(extension: string): SignInProvider | undefined {
  return BY_ID.get(extension)
}
