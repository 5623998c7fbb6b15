// The environment a command gets: hearth's own variables, provider keys and anything named
// like a secret are gone, everything else is there. Checked with a real `env` run by the
// shell tool, with the secrets set in this (the kernel's) process.
import assert from 'node:assert/strict'
import { afterEach, describe, it } from 'node:test'
import { commandEnv, isSecretName, withoutUrlPasswords } from '../../../src/tools/exec/env.ts'
import { sandboxStatus } from '../../../src/tools/exec/sandbox.ts'
import { createShellTool } from '../../../src/tools/exec/shell.ts'
import { DIRECT, ISOLATED, makeContext, type TestContext } from './helpers.ts'

const SECRETS: Record<string, string> = {
  HEARTH_TOKEN: 'secret-hearth-token',
  HEARTH_HOME: '/secret/home',
  OPENAI_API_KEY: 'sk-secret-openai',
  ANTHROPIC_API_KEY: 'sk-ant-secret',
  FOO_API_KEY: 'secret-foo',
  AWS_SECRET_ACCESS_KEY: 'secret-aws',
  AWS_SESSION_TOKEN: 'secret-aws-session',
  AWS_ACCESS_KEY_ID: 'AKIASECRET',
  AWS_BEARER_TOKEN_BEDROCK: 'bedrock-api-key-secret',
  GOOGLE_APPLICATION_CREDENTIALS: '/secret/adc.json',
  GEMINI_API_KEY: 'secret-gemini',
  GH_TOKEN: 'ghp_secret',
  DB_PASSWORD: 'secret-db',
  PGPASSWORD: 'secret-pg',
  my_client_secret: 'secret-lower',
  SSH_AUTH_SOCK: '/secret/agent.sock',
}
const KEPT: Record<string, string> = {
  TOKENIZERS_PARALLELISM: 'false',
  KEYTIMEOUT: '1',
  AWS_REGION: 'eu-west-1',
  LANG: 'C.UTF-8',
  TERM: 'xterm-256color',
  EDITOR: 'vi',
}

let t: TestContext
afterEach(() => t?.cleanup())

describe('the command environment', () => {
  it('names: hearth, provider keys and secret-shaped names are refused, the rest kept', () => {
    for (const name of Object.keys(SECRETS)) assert.equal(isSecretName(name), true, name)
    for (const name of [...Object.keys(KEPT), 'PATH', 'HOME', 'USER', 'SHELL', 'PWD', 'MONKEY'])
      assert.equal(isSecretName(name), false, name)
    const env = commandEnv({ ...SECRETS, ...KEPT, PATH: '/bin' })
    assert.deepEqual(env, { ...KEPT, PATH: '/bin' })
  })

  it("values: the password of a URL's user info goes, the rest of the value stays", () => {
    const cases: [string, string][] = [
      ['postgres://u:secret@db/x', 'postgres://u@db/x'],
      ['postgres://u:p@ss@db:5432/x?sslmode=require', 'postgres://u@db:5432/x?sslmode=require'],
      ['redis://:pw@a:6379,redis://:pw2@b', 'redis://@a:6379,redis://@b'],
      ['amqp://u:s3cr%40t@mq', 'amqp://u@mq'],
      // No password: a port, an `@` in a path, a user name alone and plain text are kept.
      ['https://host:8080/path@x', 'https://host:8080/path@x'],
      ['ssh://git@github.com/a', 'ssh://git@github.com/a'],
      ['a:b@c', 'a:b@c'],
    ]
    for (const [value, seen] of cases) assert.equal(withoutUrlPasswords(value), seen, value)
    assert.deepEqual(commandEnv({ DATABASE_URL: 'mysql://root:hunter2@localhost/db' }), {
      DATABASE_URL: 'mysql://root@localhost/db',
    })
  })

  for (const [name, policy] of [
    ['directly', DIRECT],
    ['in the sandbox', ISOLATED],
  ] as const) {
    it(`a real command run ${name} sees no secret`, async (tc) => {
      if (policy.isolate && !sandboxStatus().available)
        return tc.skip(`no sandbox: ${sandboxStatus().reason}`)
      t = makeContext(policy)
      const saved = { ...process.env }
      Object.assign(process.env, SECRETS, KEPT)
      try {
        const r = await createShellTool().run({ command: 'env' }, t.ctx)
        assert.equal(r.outcome, 'ok')
        const seen = new Map(
          r.output
            .split('\n')
            .filter((l) => l.includes('='))
            .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
        )
        for (const [k, v] of Object.entries(SECRETS)) {
          assert.ok(!seen.has(k), `${k} reached the command`)
          assert.ok(!r.output.includes(v), `the value of ${k} reached the command`)
        }
        for (const [k, v] of Object.entries(KEPT)) assert.equal(seen.get(k), v, k)
        assert.ok(seen.get('PATH'), 'PATH is there')
        assert.ok(seen.get('HOME'), 'HOME is there')
      } finally {
        for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k]
        Object.assign(process.env, saved)
      }
    })
  }
})
