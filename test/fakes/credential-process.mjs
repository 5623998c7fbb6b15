#!/usr/bin/env node
// A fake AWS `credential_process` program: prints credentials as the AWS tools expect
// (`{"Version": 1, "AccessKeyId", "SecretAccessKey", "SessionToken"?, "Expiration"?}`).
// `--key ID` sets the access key id; FAKE_PROCESS_TOKEN (from the environment it
// inherits) becomes the session token; FAKE_PROCESS_LOG, when set, gets one JSON line per
// run with the arguments it was given. FAKE_PROCESS_MODE misbehaves on purpose: `fail`
// (a secret on stdout, a reason on stderr, exit 3), `garbage` (stdout that is not JSON),
// `flood` (100 KiB), `hang` (never exits).
import { appendFileSync } from 'node:fs'

const argv = process.argv.slice(2)
const env = process.env
if (env.FAKE_PROCESS_LOG) appendFileSync(env.FAKE_PROCESS_LOG, `${JSON.stringify({ argv })}\n`)

const mode = env.FAKE_PROCESS_MODE ?? 'ok'
if (mode === 'fail') {
  process.stdout.write('SECRET-ON-STDOUT')
  process.stderr.write('the vault is locked\n')
  process.exit(3)
} else if (mode === 'garbage') {
  process.stdout.write('SECRET-ON-STDOUT is not JSON')
} else if (mode === 'flood') {
  process.stdout.write('x'.repeat(100 * 1024))
} else if (mode === 'hang') {
  setInterval(() => {}, 1000)
} else {
  const keyAt = argv.indexOf('--key')
  const out = {
    Version: 1,
    AccessKeyId: keyAt === -1 ? 'AKIDPROCESS' : argv[keyAt + 1],
    SecretAccessKey: env.FAKE_PROCESS_SECRET ?? 'process-secret',
    ...(env.FAKE_PROCESS_TOKEN ? { SessionToken: env.FAKE_PROCESS_TOKEN } : {}),
    Expiration: new Date(Date.now() + 3600_000).toISOString(),
  }
  process.stdout.write(JSON.stringify(out))
}
