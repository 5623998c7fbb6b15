// The bedrock credential chain against real files in a temp HOME and a real
// credential_process executable (test/fakes/credential-process.mjs).
import { deepStrictEqual, rejects, strictEqual } from 'node:assert/strict'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { type Env, readAwsProfile } from '../../../src/providers/bedrock/aws-files.ts'
import {
  CredentialProcessError,
  PROCESS_MAX_BYTES,
  parseOutput,
  runCredentialProcess,
} from '../../../src/providers/bedrock/credential-process.ts'
import { CredentialError, resolveAuth } from '../../../src/providers/bedrock/credentials.ts'
import { fakeProcessCommand } from '../../fakes/credential-process.ts'
import { tempHome } from '../../helpers/daemon.ts'

/** A temp HOME with ~/.aws/config and ~/.aws/credentials as given (absent when null). */
function awsHome(files: { config?: string; credentials?: string } = {}): string {
  const home = tempHome('hearth-aws-')
  mkdirSync(join(home, '.aws'))
  if (files.config !== undefined) writeFileSync(join(home, '.aws', 'config'), files.config)
  if (files.credentials !== undefined) writeFileSync(join(home, '.aws', 'credentials'), files.credentials)
  return home
}

const auth = (env: Env, apiKey: string | null = null) =>
  resolveAuth(apiKey, { env, profile: () => readAwsProfile(env) })

const CREDENTIALS = `[default]
aws_access_key_id = AKIDCREDSFILE
aws_secret_access_key = secret-from-credentials
aws_session_token = token-from-credentials

[work]
aws_access_key_id=AKIDWORK
aws_secret_access_key=secret-work
`

describe('bedrock credentials: the order, never mixed', () => {
  test("the profile's key wins over everything and is sent unsigned", async () => {
    const env = {
      HOME: awsHome({ credentials: CREDENTIALS }),
      AWS_BEARER_TOKEN_BEDROCK: 'bearer',
      AWS_ACCESS_KEY_ID: 'AKIDENV',
      AWS_SECRET_ACCESS_KEY: 'env-secret',
    }
    deepStrictEqual(await auth(env, 'profile-key'), { type: 'api_key', key: 'profile-key' })
  })

  test('AWS_BEARER_TOKEN_BEDROCK comes next, before the environment keys', async () => {
    const env = {
      HOME: awsHome(),
      AWS_BEARER_TOKEN_BEDROCK: 'bearer',
      AWS_ACCESS_KEY_ID: 'AKIDENV',
      AWS_SECRET_ACCESS_KEY: 's',
    }
    deepStrictEqual(await auth(env), { type: 'bearer', token: 'bearer' })
  })

  test('environment keys (with a session token) come before the shared files', async () => {
    const env = {
      HOME: awsHome({ credentials: CREDENTIALS }),
      AWS_ACCESS_KEY_ID: 'AKIDENV',
      AWS_SECRET_ACCESS_KEY: 'env-secret',
      AWS_SESSION_TOKEN: 'env-token',
    }
    deepStrictEqual(await auth(env), {
      type: 'sigv4',
      credentials: { accessKeyId: 'AKIDENV', secretAccessKey: 'env-secret', sessionToken: 'env-token' },
      source: 'the environment',
    })
  })

  test('half an environment pair is an error, never completed from the files', async () => {
    const env = { HOME: awsHome({ credentials: CREDENTIALS }), AWS_ACCESS_KEY_ID: 'AKIDENV' }
    await rejects(auth(env), (err: Error) => {
      strictEqual(err instanceof CredentialError && err.code, 'credentials_unusable')
      strictEqual(/without its secret access key/.test(err.message), true, err.message)
      return true
    })
  })

  test('a profile only in the credentials file needs no config file', async () => {
    const env = { HOME: awsHome({ credentials: CREDENTIALS }) }
    deepStrictEqual(await auth(env), {
      type: 'sigv4',
      credentials: {
        accessKeyId: 'AKIDCREDSFILE',
        secretAccessKey: 'secret-from-credentials',
        sessionToken: 'token-from-credentials',
      },
      source: 'profile default (credentials file)',
    })
  })

  test('AWS_PROFILE names the profile: `[profile NAME]` in config, `[NAME]` in credentials', async () => {
    const home = awsHome({
      credentials: CREDENTIALS,
      config:
        '[profile work]\nregion = eu-west-1\naws_access_key_id = AKIDCONFIG\naws_secret_access_key = c\n',
    })
    const got = await auth({ HOME: home, AWS_PROFILE: 'work' })
    // The credentials file wins over the config file's keys; the two are not merged.
    deepStrictEqual(got, {
      type: 'sigv4',
      credentials: { accessKeyId: 'AKIDWORK', secretAccessKey: 'secret-work' },
      source: 'profile work (credentials file)',
    })
  })

  test('static keys in the config file come before its credential_process', async () => {
    const home = awsHome({
      config: `[profile p]\naws_access_key_id = AKIDCONFIG\naws_secret_access_key = config-secret\ncredential_process = ${fakeProcessCommand()}\n`,
    })
    deepStrictEqual(await auth({ HOME: home, AWS_PROFILE: 'p' }), {
      type: 'sigv4',
      credentials: { accessKeyId: 'AKIDCONFIG', secretAccessKey: 'config-secret' },
      source: 'profile p (config file)',
    })
  })

  test('AWS_CONFIG_FILE and AWS_SHARED_CREDENTIALS_FILE move the files', async () => {
    const dir = awsHome()
    writeFileSync(
      join(dir, 'creds.ini'),
      '[elsewhere]\naws_access_key_id = AKIDMOVED\naws_secret_access_key = moved\n',
    )
    writeFileSync(join(dir, 'conf.ini'), '[profile elsewhere]\nregion = us-west-2\n')
    const env = {
      HOME: awsHome({ credentials: CREDENTIALS }),
      AWS_PROFILE: 'elsewhere',
      AWS_SHARED_CREDENTIALS_FILE: join(dir, 'creds.ini'),
      AWS_CONFIG_FILE: join(dir, 'conf.ini'),
    }
    strictEqual((await readAwsProfile(env)).config?.region, 'us-west-2')
    deepStrictEqual(await auth(env), {
      type: 'sigv4',
      credentials: { accessKeyId: 'AKIDMOVED', secretAccessKey: 'moved' },
      source: 'profile elsewhere (credentials file)',
    })
  })

  test('half a pair in the credentials file is an error, not mixed with the config file', async () => {
    const home = awsHome({
      credentials: '[default]\naws_access_key_id = AKIDHALF\n',
      config: '[default]\naws_secret_access_key = other-half\n',
    })
    await rejects(auth({ HOME: home }), /profile default in .*credentials: an access key id without/)
  })

  test('nothing found names every place looked; SSO and roles are said to be unresolved', async () => {
    await rejects(auth({ HOME: awsHome() }), (err: Error) => {
      strictEqual(err instanceof CredentialError && err.code, 'credentials_not_found')
      strictEqual(
        /AWS_BEARER_TOKEN_BEDROCK/.test(err.message) && /credential_process/.test(err.message),
        true,
      )
      return true
    })
    const home = awsHome({ config: '[profile sso]\nsso_session = corp\nregion = us-east-1\n' })
    await rejects(
      auth({ HOME: home, AWS_PROFILE: 'sso' }),
      /profile sso uses sso_session, which hearth does not resolve/,
    )
  })

  test('nothing is cached: each call reads the files again', async () => {
    const home = awsHome({ credentials: CREDENTIALS })
    strictEqual(((await auth({ HOME: home })) as any).credentials.accessKeyId, 'AKIDCREDSFILE')
    writeFileSync(
      join(home, '.aws', 'credentials'),
      '[default]\naws_access_key_id = AKIDNEW\naws_secret_access_key = n\n',
    )
    strictEqual(((await auth({ HOME: home })) as any).credentials.accessKeyId, 'AKIDNEW')
  })
})

describe('credential_process', () => {
  test('is run without a shell, with the environment, on every step', async () => {
    const home = awsHome()
    const log = join(home, 'runs.jsonl')
    // Quoted words with spaces stay one argument; `$HOME`, `~` and `;` reach the program as text.
    const command = fakeProcessCommand(['--key', 'AKID PROCESS', '$HOME', '~/x', 'a;b', '|', 'c'])
    writeFileSync(join(home, '.aws', 'config'), `[default]\ncredential_process = ${command}\n`)
    const env = { HOME: home, FAKE_PROCESS_LOG: log, FAKE_PROCESS_TOKEN: 'token-from-env' }
    const first = await auth(env)
    deepStrictEqual(first, {
      type: 'sigv4',
      credentials: {
        accessKeyId: 'AKID PROCESS',
        secretAccessKey: 'process-secret',
        sessionToken: 'token-from-env',
      },
      source: 'profile default (credential_process)',
    })
    await auth(env)
    const runs = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    strictEqual(runs.length, 2)
    deepStrictEqual(runs[0].argv, ['--key', 'AKID PROCESS', '$HOME', '~/x', 'a;b', '|', 'c'])
  })

  test('a failure never quotes stdout; stderr and the exit code are said', async () => {
    const env = { FAKE_PROCESS_MODE: 'fail' }
    await rejects(runCredentialProcess(fakeProcessCommand(), { env }), (err: Error) => {
      strictEqual(err instanceof CredentialProcessError, true)
      strictEqual(err.message.includes('SECRET-ON-STDOUT'), false, err.message)
      strictEqual(/exited with code 3: the vault is locked/.test(err.message), true, err.message)
      return true
    })
    await rejects(
      runCredentialProcess(fakeProcessCommand(), { env: { FAKE_PROCESS_MODE: 'garbage' } }),
      (err: Error) => {
        strictEqual(err.message, 'credential_process did not print a JSON object')
        return true
      },
    )
  })

  test('output is capped at 64 KiB and the run at its time limit', async () => {
    await rejects(
      runCredentialProcess(fakeProcessCommand(), { env: { FAKE_PROCESS_MODE: 'flood' } }),
      new RegExp(`printed more than ${PROCESS_MAX_BYTES} bytes`),
    )
    const started = Date.now()
    await rejects(
      runCredentialProcess(fakeProcessCommand(), { env: { FAKE_PROCESS_MODE: 'hang' }, timeoutMs: 300 }),
      /did not finish within 0.3 s/,
    )
    strictEqual(Date.now() - started < 10_000, true)
  })

  test('a program that is not there, an empty command and an aborted turn', async () => {
    await rejects(
      runCredentialProcess('/nonexistent/helper --x', { env: {} }),
      /could not be started \(ENOENT\)/,
    )
    await rejects(runCredentialProcess('   ', { env: {} }), /credential_process is empty/)
    const abort = new AbortController()
    const run = runCredentialProcess(fakeProcessCommand(), {
      env: { FAKE_PROCESS_MODE: 'hang' },
      signal: abort.signal,
    })
    abort.abort()
    await rejects(run, /was stopped/)
  })

  test('the output must be Version 1 with both keys, and not expired', () => {
    const now = Date.parse('2026-01-01T00:00:00Z')
    const out = (o: object) => JSON.stringify(o)
    deepStrictEqual(
      parseOutput(
        out({ Version: 1, AccessKeyId: 'A', SecretAccessKey: 'S', Expiration: '2026-01-01T01:00:00Z' }),
        now,
      ),
      { accessKeyId: 'A', secretAccessKey: 'S' },
    )
    const bad: [object, RegExp][] = [
      [{ Version: 2, AccessKeyId: 'A', SecretAccessKey: 'S' }, /Version other than 1/],
      [{ Version: 1, AccessKeyId: 'A' }, /no AccessKeyId and SecretAccessKey/],
      [{ Version: 1, AccessKeyId: 'A', SecretAccessKey: 'S', Expiration: '2025-12-31T23:00:00Z' }, /expired/],
      [{ Version: 1, AccessKeyId: 'A', SecretAccessKey: 'S', Expiration: 'soon' }, /not a date/],
      [[1, 2], /not print a JSON object/],
      [{ Version: 1, AccessKeyId: 'A', SecretAccessKey: '' }, /no AccessKeyId and SecretAccessKey/],
    ]
    for (const [value, why] of bad) {
      try {
        parseOutput(out(value), now)
        throw new Error(`accepted ${out(value)}`)
      } catch (err) {
        strictEqual(why.test((err as Error).message), true, (err as Error).message)
        strictEqual((err as Error).message.includes('"S"'), false)
      }
    }
  })
})
