// Files the catalog tests write: skills, commands, MCP settings.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export function writeSkill(root: string, name: string, description: string, body = `${name} body\n`) {
  mkdirSync(join(root, name), { recursive: true })
  writeFileSync(join(root, name, 'SKILL.md'), `---\nname: ${name}\ndescription: ${description}\n---\n${body}`)
}

export function writeCommand(root: string, name: string, text: string) {
  mkdirSync(root, { recursive: true })
  writeFileSync(join(root, `${name}.md`), text)
}

export function writeMcpSettings(
  home: string,
  servers: Record<string, unknown>,
  creds: Record<string, unknown>,
) {
  const configPath = join(home, 'config.json')
  const config = JSON.parse(readFileSync(configPath, 'utf8'))
  writeFileSync(configPath, JSON.stringify({ ...config, mcp: { servers } }))
  writeFileSync(join(home, 'creds.json'), JSON.stringify({ mcp: creds }), { mode: 0o600 })
}
