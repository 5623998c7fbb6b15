// The errors that carry a stable code share one base: each keeps its own name (logs and
// `instanceof` tell them apart) and the code callers branch on.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { AccountError } from '../../src/auth/accounts.ts'
import { CredentialError } from '../../src/providers/bedrock/credentials.ts'
import { UpstreamFault } from '../../src/providers/shared/errors.ts'
import { SignInError } from '../../src/providers/shared/sign-in-plugin.ts'
import { AdcError } from '../../src/providers/vertex/adc.ts'
import { CodedError } from '../../src/util/coded-error.ts'

describe('coded errors', () => {
  it('keep their names, codes and messages', () => {
    const cases: [CodedError<string>, string, string][] = [
      [new UpstreamFault('upstream_timeout', 'idle'), 'UpstreamFault', 'upstream_timeout'],
      [new AccountError('signed_out', 'gone'), 'AccountError', 'signed_out'],
      [new AdcError('credentials_unusable', 'no adc'), 'AdcError', 'credentials_unusable'],
      [new CredentialError('no keys'), 'CredentialError', 'credentials_unusable'],
      [new CredentialError('none', 'credentials_not_found'), 'CredentialError', 'credentials_not_found'],
      [new SignInError('state_mismatch', 'bad state'), 'SignInError', 'state_mismatch'],
    ]
    for (const [err, name, code] of cases) {
      assert.ok(err instanceof CodedError && err instanceof Error)
      assert.equal(err.name, name)
      assert.equal(err.code, code)
      assert.match(String(err), new RegExp(`^${name}: `))
    }
    assert.equal(new SignInError('x', 'y', 'do this').instructions, 'do this')
  })
})
