// The AWS shared files a bedrock step reads: `~/.aws/config` and `~/.aws/credentials`
// (paths from AWS_CONFIG_FILE and AWS_SHARED_CREDENTIALS_FILE), the section of the active
// profile (AWS_PROFILE, else `default`) in each. The INI dialect is the AWS SDK's own
// (`@smithy/core/config`): `[profile NAME]` in config, bare `[NAME]` in credentials, `#`
// and `;` comments, indented sub-settings. Both files are read again on every call
// (`ignoreCache`): nothing is kept between model steps.
import { homedir } from 'node:os'
import { join } from 'node:path'
import { loadSharedConfigFiles } from '@smithy/core/config'

export type Env = Readonly<Record<string, string | undefined>>

export type Section = Readonly<Record<string, string | undefined>>

export interface AwsProfile {
  /** The profile's name: AWS_PROFILE, else `default`. */
  name: string
  configPath: string
  credentialsPath: string
  /** Its section of the config file, if any. */
  config: Section | undefined
  /** Its section of the credentials file, if any. */
  credentials: Section | undefined
}

export const DEFAULT_PROFILE = 'default'

function homeOf(env: Env): string {
  return env.HOME || homedir()
}

/** A path as the AWS tools take it: a leading `~/` is the home directory. */
function expand(path: string, env: Env): string {
  return path.startsWith('~/') ? join(homeOf(env), path.slice(2)) : path
}

export function awsPaths(env: Env): { config: string; credentials: string } {
  const home = homeOf(env)
  return {
    config: expand(env.AWS_CONFIG_FILE || join(home, '.aws', 'config'), env),
    credentials: expand(env.AWS_SHARED_CREDENTIALS_FILE || join(home, '.aws', 'credentials'), env),
  }
}

export function profileName(env: Env): string {
  return env.AWS_PROFILE || DEFAULT_PROFILE
}

/**
 * The active profile's sections, read now. A missing or unreadable file reads as empty
 * (the AWS SDK's rule), so a profile only in the credentials file needs no config.
 */
export async function readAwsProfile(env: Env): Promise<AwsProfile> {
  const paths = awsPaths(env)
  const name = profileName(env)
  const files = await loadSharedConfigFiles({
    filepath: paths.credentials,
    configFilepath: paths.config,
    ignoreCache: true,
  })
  return {
    name,
    configPath: paths.config,
    credentialsPath: paths.credentials,
    config: own(files.configFile, name),
    credentials: own(files.credentialsFile, name),
  }
}

/** A section by name, never one inherited from Object.prototype. */
function own(sections: Record<string, Section>, name: string): Section | undefined {
  return Object.hasOwn(sections, name) ? sections[name] : undefined
}
